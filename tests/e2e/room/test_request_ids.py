"""Request ids at a real table (services as processes, real nats-server), per caller.

Findings of issue #12 this pins down: two players numbering their moves alike each have their
move applied (a request id is the caller's, not the table's); reusing an id for a different
move is refused naming the clash; a move without a hand id is refused; all of it the same
after the table service restarts. The oracle is the raw table log: who did what, read from
JetStream, never the service's answers.
"""

from __future__ import annotations

import asyncio

import grpc
import nats
import pytest

from riverboat.client import TableClient
from riverboat.engine.events import ActionTaken, HandStarted
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.v1 import table_pb2
from tests import statuskit
from tests.e2e.room._play import setup_table
from tests.e2e.room.conftest import Room


def _streams(room: Room) -> tuple[str, str]:
    args = room.table.args
    return args[args.index("--stream") + 1], args[args.index("--subject-prefix") + 1]


async def actions_in_log(room: Room, table_id: str) -> list[tuple[str, int, str]]:
    """(who asked, seat, action) of every player's ActionTaken in the raw log."""
    nc = await nats.connect(room.nats_url)
    try:
        stream, prefix = _streams(room)
        store = JetStreamEventStore(nc, StreamSettings(name=stream, subject_prefix=prefix))
        found = []
        for record in await store.read(table_id):
            for event, meta in decode_batch(record.payload):
                if isinstance(event, ActionTaken) and meta.actor != "clock":
                    found.append((meta.actor, event.seat, event.action))
        return found
    finally:
        await nc.close()


async def refusal(call) -> grpc.aio.AioRpcError:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert "Traceback" not in (err.value.details() or "")
    return err.value


def reason(error: grpc.aio.AioRpcError) -> str:
    return statuskit.reason(error)


async def _dealt(player: TableClient, table_id: str) -> table_pb2.TableView:
    for _ in range(300):
        view = await player.view(table_id)
        if view.hand_in_progress and view.to_act:
            return view
        await asyncio.sleep(0.05)
    raise AssertionError("no hand was dealt")


async def test_two_players_numbering_alike_both_act_and_a_reuse_is_refused(
    room: Room, operator: TableClient
) -> None:
    # A long clock: only the players act in this test.
    names = await setup_table(operator, "t-ids", 2, action_seconds=600)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        clients = {k: room.client(channel, name) for k, name in enumerate(names, start=1)}
        view = await _dealt(clients[1], "t-ids")
        first, second = view.to_act, 3 - view.to_act
        hand = view.hand_id
        mine = await clients[first].view("t-ids")
        opening = next(a.action for a in mine.legal_actions if a.action in ("bring_in", "check"))
        a = await clients[first].act("t-ids", hand, first, opening, request_id="1")
        # The other player numbers their moves the same way: "1" is theirs, and is applied.
        b = await clients[second].act("t-ids", hand, second, "fold", request_id="1")
        assert b.version == a.version + 1
        # The same id and move again: the original result, nothing new.
        again = await clients[first].act("t-ids", hand, first, opening, request_id="1")
        assert again.version == a.version
        # The same id for another move: refused, naming the clash.
        clash = await refusal(clients[first].act("t-ids", hand, first, "fold", request_id="1"))
        assert clash.code() == grpc.StatusCode.ALREADY_EXISTS
        assert reason(clash) == "REQUEST_ID_REUSED"
        assert "'1'" in (clash.details() or "") and names[first - 1] in (clash.details() or "")

    log = await actions_in_log(room, "t-ids")
    assert log.count((names[first - 1], first, opening)) == 1
    assert log.count((names[second - 1], second, "fold")) == 1
    assert len(log) == 2  # the repeat and the clash wrote nothing

    room.restart_table()  # what the table remembers comes back from its log
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        clients = {k: room.client(channel, name) for k, name in enumerate(names, start=1)}
        again = await clients[first].act("t-ids", hand, first, opening, request_id="1")
        assert again.version == a.version
        clash = await refusal(clients[second].act("t-ids", hand, second, "call", request_id="1"))
        assert clash.code() == grpc.StatusCode.ALREADY_EXISTS
        assert reason(clash) == "REQUEST_ID_REUSED"
    assert len(await actions_in_log(room, "t-ids")) == 2


async def test_a_move_must_name_its_hand_and_a_stale_one_misses_the_next(
    room: Room, operator: TableClient
) -> None:
    names = await setup_table(operator, "t-stale", 2, action_seconds=600)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        clients = {k: room.client(channel, name) for k, name in enumerate(names, start=1)}
        view = await _dealt(clients[1], "t-stale")
        old, first = view.hand_id, view.to_act
        await clients[first].act("t-stale", old, first, "bring_in", request_id="b1")
        await clients[3 - first].act("t-stale", old, 3 - first, "fold", request_id="f1")
        for _ in range(300):  # the next hand
            view = await clients[1].view("t-stale")
            if view.hand_in_progress and view.to_act and view.hand_id != old:
                break
            await asyncio.sleep(0.05)
        now = view.to_act
        # The move is legal now, but names no hand: refused, not played in whatever is current.
        missing = await refusal(clients[now].act("t-stale", "", now, "bring_in", request_id="m"))
        assert missing.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason(missing) == "HAND_ID_REQUIRED"
        stale = await refusal(clients[now].act("t-stale", old, now, "bring_in", request_id="s"))
        assert stale.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert f"hand {old} is over" in (stale.details() or "")
    log = await actions_in_log(room, "t-stale")
    hands = 0
    nc = await nats.connect(room.nats_url)
    try:
        stream, prefix = _streams(room)
        store = JetStreamEventStore(nc, StreamSettings(name=stream, subject_prefix=prefix))
        for record in await store.read("t-stale"):
            hands += sum(isinstance(e, HandStarted) for e, _ in decode_batch(record.payload))
    finally:
        await nc.close()
    assert hands == 2 and len(log) == 2  # nothing landed in the second hand
