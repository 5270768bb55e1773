"""Operator control of a table (issue #16): close after the hand in play, pause and resume
dealing, and a player taken off only between hands (a move). Over the runner's fakes, with
time moved by hand; the oracles are the log itself (what was dealt after what), the chips
(every stack that left plus the rake equals what sat down), and the auditor's replay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from riverboat.engine.events import HandEnded, HandStarted, RakeTaken
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import TableRunner
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableError, TableState
from riverboat.table.events import (
    AnyEvent,
    DealingPaused,
    DealingResumed,
    HandCommitted,
    LeaveRequested,
    PlayerLeft,
    PlayerSeated,
    TableClosed,
    TableClosing,
)
from tests.unit.table.fakes import CountingDealer, ManualClock
from tests.unit.table.test_runner_liveness import audit_log

pytestmark = pytest.mark.timeout(60)

PAUSE = 2.0
ACTION = 10
OP = "operator:boss"


async def _events(store: InMemoryEventStore) -> list[AnyEvent]:
    return [e for r in await store.read("t1") for e, _ in decode_batch(r.payload)]


def _seat(seat: int, stack: int = 1000) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=stack)


async def _runner(store: InMemoryEventStore, clock: ManualClock) -> TableRunner:
    return await TableRunner.load(
        "t1", store, CountingDealer(), TableConfig(hand_pause=PAUSE), clock=clock
    )


async def _open(store: InMemoryEventStore, clock: ManualClock, players: int = 3) -> TableRunner:
    runner = await _runner(store, clock)
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=ACTION,
        ),
        request_id="open",
        actor=OP,
    )  # fmt: skip
    for seat in range(1, players + 1):
        await runner.submit(_seat(seat), request_id=f"seat-{seat}", actor=OP)
    return runner


def _in_hand(runner: TableRunner) -> bool:
    hand = runner.state.hand
    return hand is not None and not hand.finished


async def _play_out(runner: TableRunner, clock: ManualClock) -> None:
    """Nobody acts: the clock plays the hand to its end."""
    for _ in range(60):
        if not _in_hand(runner):
            return
        await clock.advance(ACTION)
    raise AssertionError("the hand never ended")


def _chips_conserved(events: list[AnyEvent]) -> tuple[int, int]:
    """(chips that sat down, chips that left plus rake)."""
    seated = sum(e.stack for e in events if isinstance(e, PlayerSeated))
    left = sum(e.stack for e in events if isinstance(e, PlayerLeft))
    rake = sum(e.amount for e in events if isinstance(e, RakeTaken))
    return seated, left + rake


async def test_a_close_between_hands_takes_everyone_off_at_once_and_for_good() -> None:
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await _open(store, clock)
    await runner.submit(lambda s: table.pause_dealing(s, by=OP), request_id="p", actor=OP)
    await clock.advance(PAUSE * 3)
    assert runner.state.hands_played == 0  # paused: nothing dealt
    await runner.submit(
        lambda s: table.close_table(s, by=OP, reason="maintenance"), request_id="c", actor=OP
    )
    batch = [e for e, _ in decode_batch((await store.read("t1"))[-1].payload)]
    assert batch == [
        TableClosed(OP, "maintenance"),
        PlayerLeft(1, "p1", 1000),
        PlayerLeft(2, "p2", 1000),
        PlayerLeft(3, "p3", 1000),
    ]
    assert runner.state.closed and runner.state.seats == ()
    version = runner.version
    # Closed again: nothing; nobody sits down; no pause, no resume.
    again = await runner.submit(lambda s: table.close_table(s, by=OP), request_id="c2", actor=OP)
    assert again.version == version
    for decide, rule in (
        (_seat(4), "table_closed"),
        (lambda s: table.pause_dealing(s, by=OP), "table_closed"),
        (lambda s: table.resume_dealing(s, by=OP), "table_closed"),
    ):
        with pytest.raises(TableError) as refused:
            await runner.submit(decide, request_id=f"x-{rule}-{version}", actor=OP)
        assert refused.value.rule == rule
    assert runner.version == version == await store.last_version("t1")
    await runner.close()
    # A restart folds the close from the log: still closed, nothing dealt.
    reloaded = await _runner(store, clock)
    reloaded.after_change()
    await clock.advance(PAUSE * 5)
    assert reloaded.state.closed and reloaded.version == version
    await reloaded.close()
    assert audit_log("t1", await store.read("t1")) == []


async def test_a_close_during_a_hand_waits_for_it_then_everyone_leaves_with_their_chips() -> None:
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await _open(store, clock)
    await clock.advance(PAUSE)
    assert _in_hand(runner)
    done = await runner.submit(
        lambda s: table.close_table(s, by=OP, reason="last hand"), request_id="c", actor=OP
    )
    last = [e for e, _ in decode_batch((await store.read("t1"))[-1].payload)]
    assert last == [TableClosing(OP, "last hand")] and done.version == runner.version
    assert runner.state.seats and not runner.state.closed
    with pytest.raises(TableError):  # nobody sits down at a closing table
        await runner.submit(_seat(5), request_id="late", actor=OP)
    await _play_out(runner, clock)
    await clock.advance(PAUSE * 5)
    events = await _events(store)
    closed_at = next(i for i, e in enumerate(events) if isinstance(e, TableClosed))
    ended_at = next(i for i, e in enumerate(events) if isinstance(e, HandEnded))
    assert ended_at < closed_at
    assert sum(isinstance(e, HandStarted) for e in events) == 1  # no hand after the close
    assert sum(isinstance(e, HandCommitted) for e in events) == 1
    assert runner.state.closed and runner.state.seats == ()
    seated, out = _chips_conserved(events)
    assert seated == out == 3000
    await runner.close()
    assert audit_log("t1", await store.read("t1")) == []


async def test_a_pause_lets_the_hand_finish_deals_nothing_more_and_a_resume_deals_again() -> None:
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await _open(store, clock)
    await clock.advance(PAUSE)
    assert _in_hand(runner)
    await runner.submit(
        lambda s: table.pause_dealing(s, by=OP, reason="break"), request_id="p", actor=OP
    )
    assert runner.state.paused and _in_hand(runner)  # the hand in play goes on
    await _play_out(runner, clock)
    await clock.advance(ACTION * 10)
    assert runner.state.hands_played == 1 and not _in_hand(runner)
    again = await runner.submit(lambda s: table.pause_dealing(s, by=OP), request_id="p2", actor=OP)
    assert again.version == runner.version  # paused already: nothing written
    await runner.submit(lambda s: table.resume_dealing(s, by=OP), request_id="r", actor=OP)
    await clock.advance(PAUSE)
    assert runner.state.hands_played == 2 and _in_hand(runner)
    events = await _events(store)
    assert DealingPaused(OP, "break") in events and DealingResumed(OP) in events
    await runner.close()
    assert audit_log("t1", await store.read("t1")) == []


async def test_a_player_in_the_hand_is_not_taken_off_between_hands_only() -> None:
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await _open(store, clock)
    await runner.submit(lambda s: table.sit_out(s, player="p3"), request_id="so", actor="p3")
    await clock.advance(PAUSE)
    hand = runner.state.hand
    assert hand is not None and 1 in hand.seats and 3 not in hand.seats
    version = runner.version
    with pytest.raises(TableError) as refused:
        await runner.submit(
            lambda s: table.unseat_player(s, seat=0, player="p1", between_hands=True),
            request_id="move-p1",
            actor=OP,
        )
    assert refused.value.rule == "in_hand" and runner.version == version
    assert not any(isinstance(e, LeaveRequested) for e in await _events(store))
    # A player sitting this hand out is taken off at once.
    await runner.submit(
        lambda s: table.unseat_player(s, seat=0, player="p3", between_hands=True),
        request_id="move-p3",
        actor=OP,
    )
    assert (await _events(store))[-1] == PlayerLeft(3, "p3", 1000)
    await runner.close()


def test_a_close_waits_for_a_riding_pot_s_redeal_and_closes_once_it_is_won() -> None:
    # Dealer's choice: a pot that rides is part of the game in play (docs/games.md); the
    # table redeals it while closing, and closes once nothing rides.
    state = TableState("dc")
    state = table.fold(
        table.create_table(
            state, name="dc", variant="dealers_choice", options=dealers_choice_options(),
            action_seconds=30,
        ),
        state,
    )  # fmt: skip
    for seat in (1, 2, 3):
        state = table.fold(table.seat_player(state, seat=seat, player=f"p{seat}", stack=900), state)
    riding = replace(state, carried=300, game="draw", button=1)
    assert table.close_table(riding, by=OP) == [TableClosing(OP)]
    closing = table.fold([TableClosing(OP)], riding)
    assert closing.can_start_hand() and not closing.close_due  # the redeal only
    assert not table.fold([TableClosing(OP)], state).can_start_hand()
    won = replace(closing, carried=0)
    assert won.close_due
    assert table.close_table(won, by=OP)[0] == TableClosed(OP)
