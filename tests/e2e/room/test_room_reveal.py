"""Issue #12, finding 6: across a table-service restart, the table never asks the dealer to
reveal the seed of a hand still in play (the dealer's refusal must not be the only thing
keeping the deck secret). The oracle is the real dealer's own log of every RevealSeed call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import grpc

from riverboat.client import TableClient
from riverboat.v1 import table_pb2
from tests.e2e.room._play import setup_table
from tests.e2e.room.conftest import Room
from tests.waiting import until

TABLE = "t-reveal"


async def _view(room: Room, channel: grpc.aio.Channel) -> table_pb2.TableView:
    return await room.client(channel, "observer", "auditor").view(TABLE)


async def _wait_for(
    room: Room, channel: grpc.aio.Channel, test: Callable[[table_pb2.TableView], object], what: str
) -> table_pb2.TableView:
    """The table's view once ``test`` holds (the service may be starting again meanwhile)."""
    return await until(
        lambda: _view(room, channel),
        test,
        what,
        20,
        0.05,
        tolerate=(grpc.aio.AioRpcError,),
    )


async def _end_hand(room: Room, channel: grpc.aio.Channel, players: list[str]) -> str:
    """The player to act folds (bringing in first if they must); returns the hand ended."""
    view = await _wait_for(room, channel, lambda v: v.hand_in_progress and v.to_act, "a turn")
    hand_id = view.hand_id
    while True:
        current = await _view(room, channel)
        if current.hand_id != hand_id or not current.hand_in_progress:
            return str(hand_id)
        seat = current.to_act
        if not seat:
            await asyncio.sleep(0.05)
            continue
        player = room.client(channel, players[seat - 1])
        mine = await player.view(TABLE)
        names = [a.action for a in mine.legal_actions]
        action = "fold" if "fold" in names else names[0]
        await player.act(
            TABLE, mine.hand_id, seat, action, request_id=f"{mine.hand_id}-{mine.version}"
        )


def _reveals(room: Room) -> list[dict[str, object]]:
    """Every RevealSeed call the dealer logged (its "rpc finished" line, with the hand id)."""
    out = []
    for line in (room.var / "dealer.log").read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("rpc") == "DealerService/RevealSeed" and entry.get("event") == "rpc finished":
            out.append(entry)
    return out


async def test_a_restart_never_asks_to_reveal_the_hand_in_play(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, TABLE, 2, action_seconds=120)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        ended = [await _end_hand(room, channel, players) for _ in range(2)]
        live = await _wait_for(
            room, channel, lambda v: v.hand_in_progress and v.hand_id not in ended, "a third hand"
        )
        in_play = str(live.hand_id)
    for _ in range(2):  # two restarts with the hand still in play
        room.restart_table()
        async with grpc.aio.insecure_channel(room.table_address) as channel:
            view = await _wait_for(room, channel, lambda v: v.version > 0, "the table again")
            assert view.hand_id == in_play and view.hand_in_progress
        await asyncio.sleep(1.0)  # any reveal the restart set off has reached the dealer
    reveals = _reveals(room)
    # The oracle can see reveals: the finished hands' are there.
    assert {r["hand_id"] for r in reveals} == set(ended)
    asked = [r for r in reveals if r["hand_id"] == in_play]
    assert asked == [], f"the table asked to reveal {in_play}, still in play: {asked}"
    assert [r for r in reveals if r.get("reason") == "HAND_NOT_ENDED"] == []
    # And the hand really goes on after the restarts: it ends and only then is revealed.
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        assert await _end_hand(room, channel, players) == in_play
    for _ in range(100):
        if any(r["hand_id"] == in_play and r["code"] == "OK" for r in _reveals(room)):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"{in_play} was never revealed after it ended")
