"""The hand's lifecycle as a pure function: what a table must do next, or when.

:func:`due` reads a :class:`~riverboat.table.aggregate.TableState` (and the instants the table
service measured: now, when each turn on a time bank began) and names the one step that is
due, as a value; the table service (``services/table/runner.py``) executes it and derives the
next step again from what that step wrote. The order of the checks is the lifecycle's:

1. a committed hand not dealt: it is voided if it can no longer be dealt (``undealable``:
   everyone left in its seed phases, say), else its seed phases go on and it is dealt
   (:class:`DealPending`);
2. a hand in play: a draw's reshuffle (:class:`Reshuffle`), a turn of a player who asked to
   leave, taken at once (:class:`ActForLeaver`), else the clock of the seats it waits for
   (:class:`RunClock`, with its deadline: the action clock, or what is left of a time bank);
3. between hands: a close that waited for the hand (:class:`CloseTable`), a dealer's choice
   being made (:class:`RunClock` for the chooser, no hand), else the next hand
   (:class:`StartHand`) if one can start;
4. else nothing (:data:`IDLE`).

Leaving, sitting out, disconnecting, being moved, pausing and closing are all inputs already
folded into the state: none of them can leave a table waiting on a seat that cannot act.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from riverboat.engine.games import waiting_for
from riverboat.engine.state import RESHUFFLE, HandState
from riverboat.table.aggregate import TableState
from riverboat.table.clock import leaving_turns

#: A timer may fire a hair early: a millisecond is no time to a player.
EARLY = 1e-3


@dataclass(frozen=True, slots=True)
class Idle:
    """Nothing is due: the table waits for its players (or is closed)."""


@dataclass(frozen=True, slots=True)
class DealPending:
    """The committed hand ``hand_id`` waits for its seed phases and deal (voided instead if
    ``void`` says why it can no longer be dealt)."""

    hand_id: str
    void: str = ""


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """The draw of hand ``hand_id`` ran out of cards: the dealer reshuffles its discards."""

    hand_id: str


@dataclass(frozen=True, slots=True)
class ActForLeaver:
    """The hand waits for ``seats`` whose players asked to leave: their turn, now."""

    hand_id: str
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RunClock:
    """The clock of ``seats`` runs out ``at`` (the runner's clock): then
    :func:`riverboat.table.clock.clock_expiry` acts. ``hand_id`` "": a dealer's choice, timed
    out by :func:`riverboat.table.choice.time_out_choice`."""

    hand_id: str
    seats: tuple[int, ...]
    at: float


@dataclass(frozen=True, slots=True)
class CloseTable:
    """The close asked for is due: the hand it waited for is over."""


@dataclass(frozen=True, slots=True)
class StartHand:
    """The next hand can start ``at`` (after the pause between hands): call the dealer (a
    dealer's choice), commit, seed, deal."""

    at: float


IDLE = Idle()

Step = Idle | DealPending | Reshuffle | ActForLeaver | RunClock | CloseTable | StartHand


def due(
    state: TableState,
    now: float,
    *,
    bank_since: Mapping[int, float] | None = None,
    pause: float = 0.0,
    auto_deal: bool = True,
) -> Step:
    """The step the table must take next (see the module docstring).

    ``bank_since``: when each seat's turn on a time bank began, by the runner's clock (the log
    holds the grant, not the instant); ``pause``: the pause before a new hand; ``auto_deal``:
    whether hands start by themselves.
    """
    hand = state.hand
    if state.pending is not None:
        return DealPending(state.pending.hand_id, state.undealable)
    if hand is not None and not hand.finished:
        if hand.phase == RESHUFFLE:
            return Reshuffle(hand.hand_id)
        leavers = leaving_turns(state)
        if leavers:
            return ActForLeaver(hand.hand_id, leavers)
        seats = waiting_for(hand)
        if seats:
            delay = clock_delay(state, seats, now, bank_since or {})
            return RunClock(hand.hand_id, seats, now + delay)
        return IDLE
    if state.close_due:
        return CloseTable()
    if state.awaits_choice:
        return RunClock("", (state.dealer,), now + state.action_seconds)
    if auto_deal and state.can_start_hand():
        return StartHand(now + pause)
    return IDLE


def clock_delay(
    state: TableState, seats: Sequence[int], now: float, bank_since: Mapping[int, float]
) -> float:
    """Seconds until the clock is due for ``seats``: the action clock, or for a turn on a time
    bank, what is left of it (the soonest of the seats)."""
    delay = float(state.action_seconds)
    banked = [
        bank_since[s] + state.banking[s][0] - now
        for s in seats
        if s in state.banking and s in bank_since
    ]
    if banked and len(banked) == len(seats):
        return max(0.0, min(banked))
    if banked:
        return max(0.0, min(min(banked), delay))
    return delay


def banks_due(state: TableState, now: float, bank_since: Mapping[int, float]) -> frozenset[int]:
    """Seats whose turn on a time bank has run all its seconds by ``now``."""
    return frozenset(
        seat
        for seat, (seconds, _) in state.banking.items()
        if seat in bank_since and bank_since[seat] + seconds <= now + EARLY
    )


def awaits_reshuffle(hand: object) -> bool:
    """The hand waits for the dealer to reshuffle discards (draw)."""
    return isinstance(hand, HandState) and not hand.finished and hand.phase == RESHUFFLE
