"""One accepted action's path through the table service: each watcher of a seat is sent the
same bytes, encoded once per version and seat, and the service's Act reply nests that seat's
view bytes; the events the engine decides are folded once."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from riverboat.auth import Identity
from riverboat.engine.events import DealerUp
from riverboat.engine.events import Event as HandEvent
from riverboat.engine.games import DEALERS_CHOICE, waiting_for
from riverboat.engine.state import RESHUFFLE
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.common.auth import acting_as
from riverboat.services.table.config import TableConfig
from riverboat.services.table.registry import TableRegistry
from riverboat.services.table.runner import Update
from riverboat.services.table.service import TableService
from riverboat.table import aggregate, choice
from riverboat.v1 import table_pb2
from tests.unit.table.fakes import CountingDealer
from tests.unit.table.test_dealers_choice_table import Room, random_act
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)

OBSERVERS = 3


class _Context:
    """The little of a servicer context the handlers use here."""

    def invocation_metadata(self) -> tuple[()]:
        return ()

    async def abort(self, code: Any, details: str) -> None:
        raise AssertionError(f"refused: {code} {details}")


#: The context as the handlers' signatures take it (duck-typed: only the methods above).
CONTEXT: Any = _Context()


class _Watcher:
    """A Watch stream on the servicer, as gRPC would drive it: every item it yields."""

    def __init__(self, service: TableService, who: Identity) -> None:
        self.items: list[Any] = []

        async def follow() -> None:
            with acting_as(who):
                stream: AsyncIterator[Any] = service.Watch(
                    table_pb2.WatchRequest(table_id="t"), CONTEXT
                )
                async for item in stream:
                    self.items.append(item)

        self.task = asyncio.ensure_future(follow())

    def at(self, version: int) -> Any:
        found = [i for i in self.items if _parsed(i).version == version]
        return found[-1] if found else None


def _parsed(item: Any) -> table_pb2.WatchResponse:
    if isinstance(item, bytes):
        return table_pb2.WatchResponse.FromString(item)
    assert isinstance(item, table_pb2.WatchResponse)
    return item


async def _table() -> tuple[TableService, TableRegistry]:
    """A table of two players with a hand dealt, on the in-memory store."""
    registry = TableRegistry(InMemoryEventStore(), CountingDealer(), TableConfig(hand_pause=0.0))
    service = TableService(registry)
    with acting_as(Identity("boss", "operator")):
        await service.OpenTable(
            table_pb2.OpenTableRequest(table_id="t", action_seconds=3600, request_id="o"),
            CONTEXT,
        )
        for seat in (1, 2):
            await service.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id="t", seat=seat, player=f"p{seat}", stack=10_000, request_id=f"s{seat}"
                ),
                CONTEXT,
            )
    runner = registry.known("t")
    assert runner is not None

    async def to_act() -> int:
        hand = runner.state.hand
        return hand.seats[hand.to_act] if hand is not None and hand.to_act is not None else 0

    await until(to_act, bool, "a hand dealt, a player to act", seconds=60, every=0.01)
    return service, registry


async def _act(service: TableService, registry: TableRegistry, k: int) -> int:
    """The player to act makes their first legal move; the version it made."""
    runner = registry.known("t")
    assert runner is not None
    hand = runner.state.hand
    assert hand is not None and hand.to_act is not None
    seat = hand.seats[hand.to_act]
    with acting_as(Identity(f"p{seat}", "player")):
        view = table_pb2.TableView()
        view.CopyFrom(service._view(runner, f"p{seat}"))
        legal = view.legal_actions[0]
        request = table_pb2.ActRequest(
            table_id="t",
            hand_id=view.hand_id,
            seat=seat,
            action=legal.action,
            amount=legal.to[0] if legal.action == "bet" and legal.to else 0,
            request_id=f"move-{k}",
        )
        reply = await service.Act(request, CONTEXT)
    data = reply if isinstance(reply, bytes) else reply.SerializeToString()
    return table_pb2.ActResponse.FromString(data).version


async def test_every_watcher_of_a_seat_is_sent_the_same_bytes_encoded_once() -> None:
    service, registry = await _table()
    observers = [_Watcher(service, Identity(f"o{k}", "observer")) for k in range(OBSERVERS)]
    players = [_Watcher(service, Identity(f"p{s}", "player")) for s in (1, 1, 2)]
    try:
        version = await _act(service, registry, 0)
        everyone = [*observers, *players]

        async def arrived() -> bool:
            return all(w.at(version) is not None for w in everyone)

        await until(arrived, bool, "every watcher has the update", every=0.01)
        sent = [w.at(version) for w in everyone]
        # Bytes already encoded: gRPC sends them as they are (services/table/wire.py).
        assert all(isinstance(item, bytes) for item in sent), [type(i) for i in sent]
        # One encoding per seat at this version: every observer's bytes are one object, and
        # both of p1's streams get the same one.
        assert len({id(w.at(version)) for w in observers}) == 1
        assert players[0].at(version) is players[1].at(version)
        assert len({id(item) for item in sent}) == 3  # observers, p1, p2
        # Each as the seat sees it: p1's view shows p1's own cards, the observers' none.
        views = {k: _parsed(item).view for k, item in enumerate(sent)}
        assert views[0].viewer_seat == 0 and views[OBSERVERS].viewer_seat == 1
        assert views[OBSERVERS + 2].viewer_seat == 2
    finally:
        for w in [*observers, *players]:
            w.task.cancel()
        await asyncio.gather(*(w.task for w in [*observers, *players]), return_exceptions=True)
        await registry.close()


@contextmanager
def _counting_folds() -> Iterator[dict[str, int]]:
    """Count the hand events the engine decides (``step_hand``, which folds them as it goes)
    and how many of those the table folds again (``fold_hand``)."""
    counts = {"decided": 0, "folded again": 0}
    decided: set[int] = set()
    keep: list[HandEvent] = []  # kept alive: an id is never reused while counting
    fold, step = getattr(aggregate, "fold_hand"), getattr(aggregate, "step_hand")  # noqa: B009

    def counted_fold(events: list[HandEvent], state: Any = None) -> Any:
        counts["folded again"] += sum(id(e) in decided for e in events)
        return fold(events, state)

    def counted_step(*args: Any, **kwargs: Any) -> Any:
        events, after = step(*args, **kwargs)
        counts["decided"] += len(events)
        decided.update(map(id, events))
        keep.extend(events)
        return events, after

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(aggregate, "fold_hand", counted_fold)
        patch.setattr(aggregate, "step_hand", counted_step)
        yield counts


async def test_an_accepted_action_is_folded_once() -> None:
    """The engine folds an action's events as it decides them; the table service keeps that
    state rather than folding the same events again."""
    service, registry = await _table()
    try:
        runner = registry.known("t")
        assert runner is not None
        with _counting_folds() as counts:
            for k in range(6):
                hand = runner.state.hand
                if hand is None or hand.finished or hand.to_act is None:
                    break
                version = await _act(service, registry, k)
                assert runner.version == version
        assert counts["decided"] > 0
        assert counts["folded again"] == 0, counts
        # And the state kept is the log's fold.
        records = await runner.store.read("t", 1)
        replayed = aggregate.TableState("t")
        for record in records:
            replayed = aggregate.fold(list(Update.from_record(record).events), replayed)
        assert replayed == runner.state
    finally:
        await registry.close()


@pytest.mark.parametrize("game", DEALERS_CHOICE)
def test_the_state_an_action_decides_is_the_fold_of_its_events(game: str) -> None:
    """``decide_act``'s state equals folding its events, at every step of random hands of
    every game (leavers, time banks and the hand's end included)."""
    rng = random.Random(game)
    room = Room(players=4)
    steps = 0
    for n in range(3):
        [up] = room.do(choice.call_dealer(room.state))
        assert isinstance(up, DealerUp)
        if not up.redeal:
            room.do(choice.choose_game(room.state, seat=up.seat, game=game, options=None))
        room.deal(f"h{n}", rng)
        if n == 1:  # a player asks to leave during the hand: they leave with its end
            room.do(aggregate.unseat_player(room.state, seat=2))
        while (hand := room.state.hand) is not None and not hand.finished:
            if hand.phase == RESHUFFLE:
                room.play_one(rng)  # the dealer's reshuffle
                continue
            seat = rng.choice(waiting_for(hand))
            decided = aggregate.decide_act(room.state, random_act(hand, seat, rng), room.deck)
            before = room.state
            room.do(decided.events)
            assert decided.state == room.state == aggregate.fold(decided.events, before)
            steps += 1
    assert steps > 20
