"""A player who asked to leave does not hold the table up (issue "Every edge", item 3): when
the hand waits for them, their turn is taken at once (check when free, else fold), never on
the clock or their time bank. Over the fakes, with time never moved: a hand that waited for
the clock would never end here."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from riverboat.engine.commands import Act
from riverboat.engine.events import ActionTaken, HandEnded
from riverboat.engine.games import moves, waiting_for
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import LEAVER, TableRunner
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableState
from riverboat.table.clock import act_for_leaver, leaving_turns
from riverboat.table.events import (
    AnyEvent,
    LeaveRequested,
    PlayerLeft,
    PlayerTimedOut,
    TimeBankPolicy,
    TimeBankStarted,
    TimeBankUsed,
)
from tests.unit.table.fakes import CountingDealer, ManualClock, settle
from tests.unit.table.test_runner_liveness import audit_log

pytestmark = pytest.mark.timeout(60)


def _seat(seat: int, player: str, stack: int) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.seat_player(s, seat=seat, player=player, stack=stack)


def _acting(runner: TableRunner, seat: int, action: str) -> Callable[[TableState], list[AnyEvent]]:
    """``seat``'s ``action``, decided on the table as it is then, with the hand's deck."""
    return lambda s: table.act(s, Act(seat, action), runner.deck or ())


async def _table() -> tuple[TableRunner, ManualClock]:
    """Three players, a 30 s clock and a 60 s time bank; the first hand dealt."""
    clock = ManualClock()
    runner = await TableRunner.load(
        "t1", InMemoryEventStore(), CountingDealer(), TableConfig(hand_pause=1.0), clock=clock
    )
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=30, time_bank=TimeBankPolicy(seconds=60),
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in (1, 2, 3):
        await runner.submit(
            _seat(seat, f"p{seat}", 1000),
            request_id=f"seat-{seat}",
            actor="op",
        )
    await clock.advance(1.0)  # the pause before the first hand; from here time stands still
    assert runner.state.hand is not None and not runner.state.hand.finished
    return runner, clock


async def _leave(runner: TableRunner, seat: int) -> None:
    await runner.submit(
        lambda s: table.unseat_player(s, seat=seat, player=f"p{seat}"),
        request_id=f"leave-{seat}",
        actor=f"p{seat}",
        kind="unseat",
    )
    await settle()


async def _play_out(runner: TableRunner, staying: Sequence[int]) -> None:
    """The players in ``staying`` act (check, else call, else their first move) whenever the
    hand waits for one of them; fails if it waits for anyone else."""
    for step in range(200):
        hand = runner.state.hand
        assert hand is not None
        if hand.finished:
            return
        seats = waiting_for(hand)
        mine = [s for s in seats if s in staying]
        assert mine, f"step {step}: the hand waits for {seats}, who asked to leave"
        seat = mine[0]
        names = [m.action for m in moves(hand, seat)]
        action = next((a for a in ("check", "call") if a in names), names[0])
        await runner.act(
            _acting(runner, seat, action),
            request_id=f"act-{runner.version}",
            actor=f"p{seat}",
        )
        await settle()
    raise AssertionError("the hand never ended")


async def _events(runner: TableRunner) -> list[tuple[str, AnyEvent]]:
    return [
        (meta.actor, e)
        for r in await runner.store.read("t1")
        for e, meta in decode_batch(r.payload)
    ]


def _check_leaver(logged: list[tuple[str, AnyEvent]], leaver: int) -> None:
    events = [e for _, e in logged]
    asked = next(i for i, e in enumerate(events) if isinstance(e, LeaveRequested))
    ended = next(i for i, e in enumerate(events) if isinstance(e, HandEnded))
    # After asking to leave, every move of the leaver's is the table's, none the clock's.
    theirs = [
        (actor, e)
        for actor, e in logged[asked:ended]
        if isinstance(e, ActionTaken) and e.seat == leaver
    ]
    assert theirs and all(actor == LEAVER for actor, _ in theirs), theirs
    # (A forced bring-in is the clock's move too: it is no choice.)
    assert all(e.action in {"check", "fold", "bring_in"} for _, e in theirs), theirs
    assert not [e for e in events if isinstance(e, PlayerTimedOut | TimeBankStarted)]
    # They leave with the hand's end, in its batch.
    assert [e.seat for e in events[ended:] if isinstance(e, PlayerLeft)] == [leaver]


async def test_a_leaver_whose_turn_it_is_acts_at_once() -> None:
    runner, clock = await _table()
    hand = runner.state.hand
    assert hand is not None and hand.to_act is not None
    leaver = hand.seats[hand.to_act]
    await _leave(runner, leaver)
    assert leaving_turns(runner.state) == ()  # their turn is taken: the hand went on
    await _play_out(runner, [s for s in (1, 2, 3) if s != leaver])
    _check_leaver(await _events(runner), leaver)
    assert clock.now == 1.0
    assert audit_log("t1", await runner.store.read("t1")) == []
    await runner.close()


async def test_a_leaver_whose_turn_comes_later_is_not_waited_for() -> None:
    runner, clock = await _table()
    hand = runner.state.hand
    assert hand is not None and hand.to_act is not None
    leaver = next(s for s in hand.seats if s != hand.seats[hand.to_act])
    await _leave(runner, leaver)
    assert runner.state.seat_at(leaver).leaving  # type: ignore[union-attr]
    await _play_out(runner, [s for s in (1, 2, 3) if s != leaver])
    _check_leaver(await _events(runner), leaver)
    assert clock.now == 1.0
    assert audit_log("t1", await runner.store.read("t1")) == []
    # The two who stayed are dealt the next hand.
    await clock.advance(1.0)
    nxt = runner.state.hand
    assert nxt is not None and not nxt.finished and set(nxt.seats) == {1, 2, 3} - {leaver}
    await runner.close()


async def test_the_rule_takes_one_leaver_turn_and_closes_a_running_bank() -> None:
    runner, _ = await _table()
    state = runner.state
    hand = state.hand
    assert hand is not None and hand.to_act is not None
    seat = hand.seats[hand.to_act]
    assert act_for_leaver(state, runner.deck or (), hand.hand_id) == []  # nobody leaving
    state = table.fold(
        [TimeBankStarted(seat, f"p{seat}", 60), LeaveRequested(seat, f"p{seat}")], state
    )
    assert leaving_turns(state) == (seat,)
    events = act_for_leaver(state, runner.deck or (), hand.hand_id, bank_used=lambda s: 7)
    assert [type(e).__name__ for e in events[:2]] == ["TimeBankUsed", "ActionTaken"]
    used, move = events[0], events[1]
    assert isinstance(used, TimeBankUsed) and used.seconds == 7
    assert isinstance(move, ActionTaken) and move.action in {"check", "fold", "bring_in"}
    await runner.close()
