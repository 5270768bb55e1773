"""While a dead owner's lease runs, nobody is sent to it: clients get UNAVAILABLE NO_OWNER with
a RetryInfo, from the surviving instance and from the lobby.

The room of ``test_owners`` (the dealer, table-service instances a and b with ``--lease-ttl
3``) with settlement and the lobby in front (its ``--table`` is a). The lobby opens two tables
(the second goes to the less loaded b), b is killed -9, and from then on a client asks a, the
survivor, about b's tables through the protos alone, and the lobby about the same tables,
again and again until a owns them. Seen before: a answered ``NOT_OWNER`` naming b's dead
address for as long as b's lease ran (52-237 calls, up to 8.8 s at a 10 s TTL), and the lobby
answered a bare ``UNAVAILABLE "a service the lobby needs did not answer"`` with no RetryInfo.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import grpc
import nats
import pytest

from riverboat.client import LobbyClient
from riverboat.leases import JetStreamLeaseStore, owners_bucket
from riverboat.natsserver import NatsServer
from riverboat.redirect import REASON_NO_OWNER, owner_of
from riverboat.rpcstatus import reason_of, retry_delay
from riverboat.services.launcher import ServiceProcess
from riverboat.v1 import table_pb2, table_pb2_grpc
from tests.e2e.room._settled import settlement_process
from tests.e2e.room.conftest import Room, _lobby
from tests.e2e.room.test_owners import TTL, Pair, _pair, _tag

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def lobby_pair(
    nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Pair, ServiceProcess]]:
    """(the dealer and instances a and b, the lobby), settlement behind the lobby."""
    with _pair(nats_server.url, tmp_path, _tag(request)) as pair:
        room = Room(nats_server.url, pair.dealer, pair.instances["a"], tmp_path, pair.issuer)
        settlement = settlement_process(room)
        settlement.start()
        lobby = _lobby(
            nats_server.url, tmp_path, pair.instances["a"].address, settlement.address, pair.tag
        )
        try:
            lobby.start()
            yield pair, lobby
        finally:
            lobby.stop()
            settlement.stop()


async def test_while_a_dead_owners_lease_runs_no_client_is_sent_to_it(
    lobby_pair: tuple[Pair, ServiceProcess],
) -> None:
    pair, lobby = lobby_pair
    survivor, dead = pair.instances["a"], pair.instances["b"]
    nc = await nats.connect(pair.nats_url)
    try:
        leases = await JetStreamLeaseStore.attach(nc, bucket=owners_bucket(pair.stream))
        async with (
            grpc.aio.insecure_channel(lobby.address) as lobby_channel,
            grpc.aio.insecure_channel(survivor.address) as table_channel,
        ):
            boss = LobbyClient(lobby_channel, pair.issuer.issue("boss", "operator"))
            for n in range(2):
                await boss.create_table("pacific", f"Dead {n}", request_id=f"dead-{n}")
            held = await leases.all()
            tables = sorted(t for t, lease in held.items() if lease.holder.instance == "b")
            assert tables, f"b owns no table: {held}"

            await asyncio.to_thread(dead.kill)
            # From here on b is gone (its process reaped); its leases run for up to TTL.
            stub = table_pb2_grpc.TableServiceStub(table_channel)  # type: ignore[no-untyped-call]
            token = (("authorization", f"Bearer {pair.issuer.issue('obs', 'auditor')}"),)
            redirects: list[str] = []
            waits: list[float | None] = []
            lobby_refusals: list[tuple[grpc.StatusCode, str, float | None]] = []
            served: set[str] = set()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while served != set(tables):
                assert loop.time() < deadline, f"a never served {set(tables) - served}"
                for table_id in sorted(set(tables) - served):
                    try:
                        await stub.GetTableView(
                            table_pb2.GetTableViewRequest(table_id=table_id),
                            metadata=token,
                            timeout=10,
                        )
                        served.add(table_id)
                    except grpc.aio.AioRpcError as exc:
                        owner = owner_of(exc)
                        if owner is not None:
                            redirects.append(owner.address)
                        else:
                            assert exc.code() is grpc.StatusCode.UNAVAILABLE, exc
                            assert reason_of(exc) == REASON_NO_OWNER, exc
                            waits.append(retry_delay(exc))
                    try:
                        await boss.get_table(table_id)
                    except grpc.aio.AioRpcError as exc:
                        lobby_refusals.append((exc.code(), reason_of(exc), retry_delay(exc)))
                await asyncio.sleep(0.05)
    finally:
        await nc.close()
    print(
        f"\nafter kill -9 of b (TTL {TTL} s): a answered NO_OWNER {len(waits)} times (retry in "
        f"{min(w or 0 for w in waits):.2f}-{max(w or 0 for w in waits):.2f} s), the lobby "
        f"refused {len(lobby_refusals)} calls"
        if waits
        else ""
    )
    assert dead.address not in redirects, f"sent to the dead b: {len(redirects)} redirects"
    assert waits, "b's lease ran out before a was asked: nothing was checked"
    assert all(w is not None and 0 < w <= TTL for w in waits), waits
    assert lobby_refusals, "the lobby was never asked while b's lease ran"
    assert all(
        (code, reason) == (grpc.StatusCode.UNAVAILABLE, REASON_NO_OWNER)
        and delay is not None
        and 0 < delay <= TTL
        for code, reason, delay in lobby_refusals
    ), lobby_refusals
