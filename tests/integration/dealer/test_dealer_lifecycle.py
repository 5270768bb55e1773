"""Restarts, sealing keys, health, reflection and NATS outages of an in-process dealer."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import nats
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from riverboat.engine.cards import card_str
from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.natsserver import NatsServer
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.keys import SealingKey
from riverboat.services.dealer.server import DealerServer, StartupError
from riverboat.services.dealer.service import SERVICE_NAME
from riverboat.shuffle import commitment, derive_deck
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc
from tests.conftest import make_token
from tests.integration.dealer._kit import (
    KEY,
    OTHER_KEY,
    DealerClient,
    TableLog,
    committed,
    dealer_config,
    ended,
    rpc_error,
    started,
    unique,
)
from tests.integration.dealer.conftest import StartDealer

pytestmark = pytest.mark.timeout(60)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def health(address: str, service: str = "") -> int:
    """The health status of ``service`` at ``address``."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        status: int = reply.status
        return status


async def wait_health(address: str, want: int, timeout: float = 10.0) -> None:
    """Poll until ``address`` reports ``want`` overall."""
    deadline = asyncio.get_running_loop().time() + timeout
    while (status := await health(address)) != want:
        assert asyncio.get_running_loop().time() < deadline, f"health stuck at {status}"
        await asyncio.sleep(0.05)


async def test_restart_continues_the_same_deck(
    start_dealer: StartDealer, table_log: TableLog
) -> None:
    table, hand = unique("t"), unique("h")
    first = await start_dealer()
    async with grpc.aio.insecure_channel(first.address) as channel:
        client = DealerClient(channel, table_log=table_log)
        commit = await client.commit(table, hand)
        logged = await table_log.append(table, committed(commit, hand))
        before = await client.deck(table, hand, logged.stream_sequence)
    await first.stop()

    second = await start_dealer()
    async with grpc.aio.insecure_channel(second.address) as channel:
        client = DealerClient(channel, table_log=table_log)
        assert await client.deck(table, hand, logged.stream_sequence) == before
        assert await client.commit(table, hand) == commit  # not redrawn after the restart
        await table_log.append(table, started(hand), ended())
        revealed = await client.reveal(table, hand)
    assert [card_str(card) for card in derive_deck(hand, revealed.seed)] == before


async def test_wrong_sealing_key_fails_clearly_and_never_redraws(
    start_dealer: StartDealer, table_log: TableLog
) -> None:
    table, hand = unique("t"), unique("h")
    first = await start_dealer(key=KEY)
    async with grpc.aio.insecure_channel(first.address) as channel:
        client = DealerClient(channel, table_log=table_log)
        commit = await client.commit(table, hand)
        logged = await table_log.append(table, committed(commit, hand), started(hand))
        deck = await client.deck(table, hand, logged.stream_sequence)
    await first.stop()

    wrong = await start_dealer(key=OTHER_KEY)
    async with grpc.aio.insecure_channel(wrong.address) as channel:
        client = DealerClient(channel, table_log=table_log)
        error = await rpc_error(
            client.deck(table, hand, logged.stream_sequence),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason="SEALING_KEY_MISMATCH",
        )
        details = error.details() or ""
        assert "sealing key" in details and "key id" in details
        await rpc_error(
            client.commit(table, hand),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason="SEALING_KEY_MISMATCH",
        )
        await table_log.append(table, ended())
        await rpc_error(
            client.reveal(table, hand),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason="SEALING_KEY_MISMATCH",
        )
        # New hands work under the new key.
        await client.commit(table, unique("h"))
    await wrong.stop()

    right = await start_dealer(key=KEY)
    async with grpc.aio.insecure_channel(right.address) as channel:
        client = DealerClient(channel, table_log=table_log)
        assert await client.deck(table, hand, logged.stream_sequence) == deck
        revealed = await client.reveal(table, hand)
        assert commitment(hand, revealed.seed) == commit.commitment


async def test_health_reports_serving(dealer: DealerServer) -> None:
    assert await health(dealer.address) == SERVING
    assert await health(dealer.address, SERVICE_NAME) == SERVING
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await health(dealer.address, "riverboat.v1.NoSuchService")
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


async def test_reflection_lists_the_service(dealer: DealerServer) -> None:
    async with grpc.aio.insecure_channel(dealer.address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME),
        ]
        replies = [reply async for reply in stub.ServerReflectionInfo(iter(requests))]
    names = {service.name for service in replies[0].list_services_response.service}
    assert {SERVICE_NAME, "grpc.health.v1.Health"} <= names
    assert replies[1].file_descriptor_response.file_descriptor_proto  # grpcurl can describe it


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_not_serving_until_nats_is_reachable(config: DealerConfig) -> None:
    # Nothing listens on this port: start-up keeps trying, health says NOT_SERVING, RPCs say
    # UNAVAILABLE (retryable), and after connect_timeout the start fails with a clear error.
    cfg = dealer_config(f"nats://127.0.0.1:{_closed_port()}", connect_timeout=1.5)
    server = DealerServer(cfg, SealingKey(KEY, source="test"))
    starting = asyncio.ensure_future(server.start())
    try:
        for _ in range(100):
            try:
                server.port  # noqa: B018 - bound yet?
                break
            except RuntimeError:
                await asyncio.sleep(0.01)
        assert await health(server.address) == NOT_SERVING
        assert await health(server.address, SERVICE_NAME) == NOT_SERVING
        async with grpc.aio.insecure_channel(server.address) as channel:
            await rpc_error(
                DealerClient(channel).commit("t1", "h1"),
                grpc.StatusCode.UNAVAILABLE,
                reason="STARTING",
            )
        with pytest.raises(StartupError, match="cannot connect to NATS"):
            await starting
    finally:
        starting.cancel()
        await server.stop(grace=0)


async def test_port_in_use_is_a_startup_error(dealer: DealerServer, config: DealerConfig) -> None:
    clash = DealerServer(
        dealer_config(config.nats_url, address=dealer.address), SealingKey(KEY, source="test")
    )
    with pytest.raises(StartupError, match="cannot listen"):
        await clash.start()


async def test_health_follows_the_nats_connection(tmp_path: Path) -> None:
    nats_server = NatsServer(tmp_path / "nats", port=0).start()
    try:
        cfg = dealer_config(nats_server.url)
        server = DealerServer(cfg, SealingKey(KEY, source="test"))
        await server.start()
        nc = await nats.connect(nats_server.url)
        settings = StreamSettings(name=cfg.tables_stream, subject_prefix=cfg.tables_prefix)
        table_log = TableLog(await JetStreamEventStore.open(nc, settings))
        try:
            async with grpc.aio.insecure_channel(server.address) as channel:
                client = DealerClient(channel)
                table, hand = unique("t"), unique("h")
                await table_log.open(table)  # now: this client loses NATS below
                commit = await client.commit(table, hand)

                nats_server.kill()
                await wait_health(server.address, NOT_SERVING)
                await rpc_error(
                    client.commit(table, unique("h")),
                    grpc.StatusCode.UNAVAILABLE,
                    reason="NATS_DISCONNECTED",
                )

                nats_server.start()  # same port, same store
                await wait_health(server.address, SERVING)
                assert await client.commit(table, hand) == commit
        finally:
            await nc.close()
            await server.stop(grace=0)
    finally:
        nats_server.close()


async def test_only_services_deal_and_auditors_may_ask_for_a_seed(
    dealer: DealerServer, table_log: TableLog
) -> None:
    await table_log.open("t-auth")
    async with grpc.aio.insecure_channel(dealer.address) as channel:
        stub: Any = dealer_pb2_grpc.DealerServiceStub(channel)  # type: ignore[no-untyped-call]
        commit = dealer_pb2.CommitHandRequest(table_id="t-auth", hand_id="h-1")
        await rpc_error(stub.CommitHand(commit, timeout=5), grpc.StatusCode.UNAUTHENTICATED)
        forged = (("authorization", "Bearer abc.def.ghi"),)
        await rpc_error(
            stub.CommitHand(commit, timeout=5, metadata=forged), grpc.StatusCode.UNAUTHENTICATED
        )
        for role in ("player", "operator", "auditor"):
            who = (("authorization", f"Bearer {make_token('x', role)}"),)
            await rpc_error(
                stub.CommitHand(commit, timeout=5, metadata=who), grpc.StatusCode.PERMISSION_DENIED
            )
        auditor = (("authorization", f"Bearer {make_token('aud', 'auditor')}"),)
        reveal = dealer_pb2.RevealSeedRequest(table_id="t-auth", hand_id="h-1")
        # Allowed in, and refused for the right reason: there is no such hand.
        await rpc_error(
            stub.RevealSeed(reveal, timeout=5, metadata=auditor), grpc.StatusCode.NOT_FOUND
        )
        # Each call is checked on its own token: a service's accepted call lets nothing in
        # after it (the interceptor's wrapper is built once per method, not per caller).
        service = (("authorization", f"Bearer {make_token('table', 'service')}"),)
        accepted = await stub.CommitHand(commit, timeout=5, metadata=service)
        assert len(accepted.commitment) == 32
        await rpc_error(stub.CommitHand(commit, timeout=5), grpc.StatusCode.UNAUTHENTICATED)
        player = (("authorization", f"Bearer {make_token('x', 'player')}"),)
        await rpc_error(
            stub.CommitHand(commit, timeout=5, metadata=player), grpc.StatusCode.PERMISSION_DENIED
        )
        assert (await stub.CommitHand(commit, timeout=5, metadata=service)) == accepted
