"""NATS outages seen from outside, by clients that know only the protos:

* the health of the dealer, table, settlement and lobby follows the NATS connection
  (NOT_SERVING while it is gone, SERVING again after the reconnect);
* an ``Act`` whose append got no answer (the server frozen) answers UNAVAILABLE with
  "retry with the same request id" and reason OUTCOME_UNKNOWN, never INTERNAL; the retry
  returns the original result, which the raw log holds exactly once;
* an ``Act`` while NATS is down answers UNAVAILABLE at once (reason LOG_UNAVAILABLE), and its
  retry once NATS is back is stored once;
* the lobby answers UNAVAILABLE, not INTERNAL, while NATS is down, and a repeat finds the
  account registered on the first try.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest

from riverboat.client import LobbyClient, TableClient
from riverboat.services.common.errors import RETRY_SAME_REQUEST
from riverboat.services.common.grpcserver import LIVENESS
from tests.e2e.room._outage import (
    OutageRoom,
    health,
    is_request,
    outage_room,
    read_records,
    reason,
    wait_health,
)
from tests.e2e.room._play import setup_table

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def outage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutageRoom]:
    """One room for this module's tests (starting one costs most of a test's time); each test
    leaves NATS running and uses tables and accounts of its own."""
    yield from outage_room(tmp_path_factory.mktemp("outage"))


async def _turn(room: OutageRoom, channel: grpc.aio.Channel, table_id: str) -> tuple[str, ...]:
    """Wait for someone to act; (player, hand id, seat, a legal call/check/bring-in)."""
    observer = room.room.client(channel, "obs", "auditor")
    for _ in range(400):
        view = await observer.view(table_id)
        if view.to_act:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("nobody came to act")
    player = f"{table_id}-p{view.to_act}"
    mine = await room.room.client(channel, player).view(table_id)
    names = [a.action for a in mine.legal_actions]
    action = next(a for a in ("check", "call", "bring_in") if a in names)
    return player, mine.hand_id, str(mine.to_act), action


async def _act(client: TableClient, table_id: str, turn: tuple[str, ...], rid: str) -> int:
    _, hand_id, seat, action = turn
    reply = await client.act(table_id, hand_id, int(seat), action, request_id=rid, timeout=60)
    return int(reply.version)


SERVICE_NAMES = {
    "lobby": "riverboat.v1.LobbyService",
    "table": "riverboat.v1.TableService",
    "dealer": "riverboat.v1.DealerService",
    "settlement": "riverboat.v1.SettlementService",
}


async def _statuses(services: dict[str, str]) -> dict[str, tuple[str, str, str]]:
    """Per service: (readiness "", readiness by its own name, liveness)."""
    found = {}
    for name, address in services.items():
        found[name] = (
            await health(address),
            await health(address, SERVICE_NAMES[name]),
            await health(address, LIVENESS),
        )
    return found


async def test_health_of_every_service_follows_the_nats_connection(outage: OutageRoom) -> None:
    """Readiness ("" and the service's name) follows NATS; liveness stays SERVING throughout."""
    assert set(outage.services) == set(SERVICE_NAMES)
    await wait_health(outage.services, "SERVING")
    assert set((await _statuses(outage.services)).values()) == {("SERVING",) * 3}
    outage.kill_nats()
    await wait_health(outage.services, "NOT_SERVING")
    down = await _statuses(outage.services)
    assert set(down.values()) == {("NOT_SERVING", "NOT_SERVING", "SERVING")}, down
    outage.restart_nats()
    await wait_health(outage.services, "SERVING")
    assert set((await _statuses(outage.services)).values()) == {("SERVING",) * 3}


async def test_an_unanswered_act_is_unavailable_and_its_retry_returns_the_original(
    outage: OutageRoom,
) -> None:
    table_id = "t-frozen"
    async with grpc.aio.insecure_channel(outage.room.table_address) as channel:
        operator = outage.room.client(channel, "operator", "operator")
        await setup_table(operator, table_id, 2, action_seconds=60)
        turn = await _turn(outage, channel, table_id)
        player = outage.room.client(channel, turn[0])
        outage.freeze_nats()
        try:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _act(player, table_id, turn, "act-while-frozen")
        finally:
            outage.thaw_nats()
        assert refused.value.code() is grpc.StatusCode.UNAVAILABLE, refused.value.details()
        assert RETRY_SAME_REQUEST in (refused.value.details() or "")
        assert reason(refused.value) == "OUTCOME_UNKNOWN"
        version = await _act(player, table_id, turn, "act-while-frozen")
    records = [
        r
        for r in await read_records(outage.nats.url, table_id)
        if is_request(r.request_id, "act-while-frozen")
    ]
    assert [r.version for r in records] == [version], "stored once, and the retry reports it"


async def test_an_act_while_nats_is_down_is_unavailable_and_its_retry_is_stored_once(
    outage: OutageRoom,
) -> None:
    table_id = "t-down"
    async with grpc.aio.insecure_channel(outage.room.table_address) as channel:
        operator = outage.room.client(channel, "operator", "operator")
        await setup_table(operator, table_id, 2, action_seconds=60)
        turn = await _turn(outage, channel, table_id)
        player = outage.room.client(channel, turn[0])
        before = len(await read_records(outage.nats.url, table_id))
        outage.kill_nats()
        await wait_health({"table": outage.room.table_address}, "NOT_SERVING")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await _act(player, table_id, turn, "act-while-down")
        assert refused.value.code() is grpc.StatusCode.UNAVAILABLE, refused.value.details()
        assert RETRY_SAME_REQUEST in (refused.value.details() or "")
        assert reason(refused.value) in {"LOG_UNAVAILABLE", "OUTCOME_UNKNOWN"}
        outage.restart_nats()
        await wait_health({"table": outage.room.table_address}, "SERVING")
        version = await _act(player, table_id, turn, "act-while-down")
    records = await read_records(outage.nats.url, table_id)
    assert len(records) > before
    assert [r.version for r in records if is_request(r.request_id, "act-while-down")] == [version]


async def test_the_lobby_is_unavailable_while_nats_is_down_and_a_repeat_finds_the_first(
    outage: OutageRoom,
) -> None:
    async with grpc.aio.insecure_channel(outage.lobby.address) as channel:
        lobby = LobbyClient(channel)
        outage.kill_nats()
        await wait_health({"lobby": outage.lobby.address}, "NOT_SERVING")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await lobby.register("ann-outage", "a-long-enough-password-1")
        assert refused.value.code() is grpc.StatusCode.UNAVAILABLE, refused.value.details()
        assert RETRY_SAME_REQUEST in (refused.value.details() or "")
        outage.restart_nats()
        await wait_health({"lobby": outage.lobby.address}, "SERVING")
        assert await lobby.register("ann-outage", "a-long-enough-password-1") == "ann-outage"
        outage.freeze_nats()
        try:
            with pytest.raises(grpc.aio.AioRpcError) as unanswered:
                await lobby.register("bob-outage", "a-long-enough-password-2")
        finally:
            outage.thaw_nats()
        assert unanswered.value.code() is grpc.StatusCode.UNAVAILABLE
        assert reason(unanswered.value) == "OUTCOME_UNKNOWN"
        # The first try was stored once NATS ran again; the repeat answers as it would have.
        assert await lobby.register("bob-outage", "a-long-enough-password-2") == "bob-outage"
        token = (await lobby.login("bob-outage", "a-long-enough-password-2")).token
        assert token
