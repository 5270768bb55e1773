"""A table runner over a log that fails on demand: background work never stalls.

The runner's ports are faked (unit tests): an in-memory log that can be "down" or lose the
answer to an append it stored, and a dealer that deals a fixed deck. The oracle is a stall
detector of our own: after the disturbance, does the table deal its next hand (or act on the
clock) within a bounded wait, with nobody sending a command? A planted bug (a runner that
catches up but forgets to re-derive what is due) shows the detector catches a stall.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from riverboat.engine.commands import Act
from riverboat.engine.games import moves, waiting_for
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import encode_chained_batch
from riverboat.eventstore import (
    AppendOutcomeUnknownError,
    AppendResult,
    EventStore,
    InMemoryEventStore,
    StoredRecord,
    StoreUnavailableError,
)
from riverboat.idempotency import RequestKey
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import Commitment
from riverboat.services.table.runner import TableRunner
from riverboat.shuffle import derive_deck
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent
from tests.waiting import until_true

pytestmark = pytest.mark.timeout(60)

#: Bounded wait for "progress resumes" (no assertion on speed: generous for a busy machine).
PATIENCE = 15.0


class FlakyLog(EventStore):
    """An in-memory log that is ``down`` on demand (every call fails, nothing is written), or
    stores the next ``lose_answers`` appends but answers them with "outcome unknown", as an
    append cut off by a NATS outage and resent on reconnect would."""

    def __init__(self) -> None:
        self.inner = InMemoryEventStore()
        self.down = False
        self.lose_answers = 0

    def _check(self) -> None:
        if self.down:
            raise StoreUnavailableError("the log is down (test)")

    async def append(
        self, aggregate_id: str, payload: bytes, *, expected_version: int, request_id: str
    ) -> AppendResult:
        self._check()
        result = await self.inner.append(
            aggregate_id, payload, expected_version=expected_version, request_id=request_id
        )
        if self.lose_answers and not result.duplicate:
            self.lose_answers -= 1
            raise AppendOutcomeUnknownError("stored, but the answer was lost (test)")
        return result

    async def iter_records(
        self, aggregate_id: str, from_version: int = 1
    ) -> AsyncGenerator[StoredRecord, None]:
        self._check()
        async for record in self.inner.iter_records(aggregate_id, from_version):
            yield record

    async def last_version(self, aggregate_id: str) -> int:
        self._check()
        return await self.inner.last_version(aggregate_id)


class FixedDealer:
    """The dealer's port: a fixed seed per hand, so every deck is a real shuffle."""

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        return Commitment("RBS1", b"c" * 32, 52)

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        return derive_deck(hand_id, b"s" * 32)

    async def reveal_seed(self, table_id: str, hand_id: str, log_sequence: int = 0) -> None:
        return None


async def _table(log: FlakyLog, action_seconds: int = 30) -> TableRunner:
    dealer: Any = FixedDealer()
    runner = await TableRunner.load("t1", log, dealer, TableConfig(hand_pause=0.0))
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=action_seconds,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    await runner.submit(
        lambda s: table.seat_player(s, seat=1, player="p1", stack=1000),
        request_id="seat-1",
        actor="op",
    )
    await runner.submit(
        lambda s: table.seat_player(s, seat=2, player="p2", stack=1000),
        request_id="seat-2",
        actor="op",
    )
    await until_true(lambda: _in_hand(runner), "the first deal", PATIENCE)
    return runner


def _in_hand(runner: TableRunner) -> bool:
    hand = runner.state.hand
    return hand is not None and not hand.finished and bool(waiting_for(hand))


def _hand_id(runner: TableRunner) -> str:
    assert runner.state.hand is not None
    return runner.state.hand.hand_id


async def _within(condition: Any, seconds: float) -> bool:
    """The stall detector: does ``condition`` hold within ``seconds``?"""
    for _ in range(int(seconds / 0.02)):
        if condition():
            return True
        await asyncio.sleep(0.02)
    return bool(condition())


def _ending_move(runner: TableRunner) -> tuple[Act, list[Act]]:
    """A fold that ends the hand, after the moves needed to get there (a forced bring-in)."""
    state, before = runner.state, list[Act]()
    deck = runner.deck or ()
    for _ in range(4):
        hand = state.hand
        assert hand is not None and not hand.finished
        seat = waiting_for(hand)[0]
        names = {a.action: a for a in moves(hand, seat)}
        if "fold" in names:
            return Act(seat, "fold"), before
        move = next(names[n] for n in ("bring_in", "check", "call") if n in names)
        act = Act(seat, move.action, move.to[0])
        before.append(act)
        state = table.fold(table.act(state, act, deck), state)
    raise AssertionError("no fold came up")


async def _play(runner: TableRunner, acts: list[Act], tag: str) -> None:
    for k, act in enumerate(acts):
        await runner.act(_deciding(runner, act), request_id=f"{tag}-{k}", actor="p")


def _deciding(runner: TableRunner, act: Act) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.act(s, act, runner.deck or ())


def _next_hand(runner: TableRunner, first: str) -> Any:
    return lambda: _in_hand(runner) and _hand_id(runner) != first


async def test_a_hand_ending_fold_whose_answer_was_lost_is_found_and_the_next_hand_dealt() -> None:
    log = FlakyLog()
    runner = await _table(log)
    first = _hand_id(runner)
    fold, before = _ending_move(runner)
    await _play(runner, before, "before")
    log.lose_answers = 1
    with pytest.raises(AppendOutcomeUnknownError):
        await runner.act(
            lambda s: table.act(s, fold, runner.deck or ()), request_id="fold", actor="p"
        )
    # Nobody sends anything: the runner finds its fold in the log and deals the next hand.
    await until_true(_next_hand(runner, first), "next deal after the lost answer", PATIENCE)
    # The player's retry with the same request id gets the original result.
    stored = [r for r in await log.inner.read("t1") if _request_of(r.request_id) == "fold"]
    assert len(stored) == 1
    retry = await runner.act(
        lambda s: table.act(s, fold, runner.deck or ()), request_id="fold", actor="p"
    )
    assert (retry.version, retry.duplicate) == (stored[0].version, True)
    await runner.close()


def _request_of(stored: str) -> str:
    """The request id a stored one was made from (kept scoped to its caller and command)."""
    parsed = RequestKey.parse(stored)
    return parsed[0].request_id if parsed is not None else stored


async def _fold_by_another_writer(runner: TableRunner, log: FlakyLog, fold: Act) -> None:
    """Store the fold behind the runner's back, as a resent append (or another instance) does."""
    events: list[AnyEvent] = table.act(runner.state, fold, runner.deck or ())
    payload, _ = encode_chained_batch(
        events,
        aggregate_id="t1",
        version=runner.version + 1,
        request_id="resent-fold",
        actor="p",
        occurred_at=datetime.now(UTC),
        previous_hash=runner.chain_hash,
    )
    await log.inner.append("t1", payload, expected_version=runner.version, request_id="resent")


async def test_the_clock_that_conflicts_with_a_stored_fold_deals_the_next_hand() -> None:
    """Finding 13: the clock's action conflicts with a hand-ending fold stored meanwhile; the
    runner caught up but never scheduled the next deal."""
    log = FlakyLog()
    runner = await _table(log, action_seconds=2)
    first = _hand_id(runner)
    fold, before = _ending_move(runner)
    await _play(runner, before, "before")
    await _fold_by_another_writer(runner, log, fold)
    await until_true(_next_hand(runner, first), "next deal after the clock's conflict", PATIENCE)
    await runner.close()


async def test_a_deal_refused_while_the_log_is_down_is_dealt_once_it_is_back() -> None:
    log = FlakyLog()
    runner = await _table(log)
    first = _hand_id(runner)
    fold, before = _ending_move(runner)
    await _play(runner, before, "before")
    log.down = True
    # The fold cannot be stored: UNAVAILABLE for the player, nothing changes.
    version = runner.version
    with pytest.raises(StoreUnavailableError):
        await runner.act(
            lambda s: table.act(s, fold, runner.deck or ()), request_id="fold", actor="p"
        )
    assert runner.version == version and await log.inner.last_version("t1") == version
    log.down = False
    await _play(runner, [fold], "fold")  # the retry, once the log is back
    # The next deal happens right after the fold, but with the log down again it fails...
    log.down = True
    await asyncio.sleep(0.5)
    assert not _in_hand(runner)
    log.down = False
    # ...and is made once the log answers, with nobody sending a command.
    await until_true(_next_hand(runner, first), "next deal after the log came back", PATIENCE)
    await runner.close()


async def test_the_stall_detector_catches_a_runner_that_forgets_to_reschedule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def forgetful(self: TableRunner) -> None:
        async with self._lock:
            await self._catch_up()  # the planted bug: nothing re-derived afterwards

    monkeypatch.setattr(TableRunner, "reconcile", forgetful)
    log = FlakyLog()
    runner = await _table(log, action_seconds=2)
    first = _hand_id(runner)
    fold, before = _ending_move(runner)
    await _play(runner, before, "before")
    await _fold_by_another_writer(runner, log, fold)
    assert not await _within(_next_hand(runner, first), 6.0), "the detector missed a stall"
    await runner.close()
