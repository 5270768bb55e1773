"""What happens when a turn's clock runs out: the time bank, the disconnect protection, and
only then the clock's own action (with the count of time-outs that sits a player out).

For each seat the hand waits for, in order:

1. a turn not yet on any bank: the player's own time bank runs, if it has seconds left
   (:class:`TimeBankStarted`);
2. else, if the player is disconnected (no Watch stream of theirs is open) and has had no
   disconnect protection in the last N hands, they get the table's full bank size once more,
   not drawn from their own (``protection``);
3. else the clock acts for them (:func:`riverboat.table.choice.time_out`), after a
   :class:`PlayerTimedOut` (and a :class:`PlayerSatOut` on the second in a row).

A bank that ran out is drawn in full (:class:`TimeBankUsed`) and the seat goes on to step 2
or 3. What is measured (which banks ran out: ``due``; who is disconnected) comes from the
runner's clock and watchers as inputs, and is recorded in the events, so the fold stays pure.

A player who asked to leave (``LeaveRequested``: they go when the hand ends) is not waited for
at all: no clock, no time bank. When the hand waits for them (:func:`leaving_turns`) the table
takes their turn at once (:func:`act_for_leaver`): the clock's move (check when free, else
fold; a card phase's default), with no time-out counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from riverboat.engine.commands import TimeOut
from riverboat.engine.games import waiting_for
from riverboat.table import choice
from riverboat.table.aggregate import (
    TableState,
    act,
    own_action_bookkeeping,
    protection_due,
    timeout_bookkeeping,
)
from riverboat.table.events import AnyEvent, TimeBankStarted, TimeBankUsed


def clock_expiry(
    state: TableState,
    seats: Sequence[int],
    deck: Sequence[int],
    hand_id: str,
    *,
    due: frozenset[int] = frozenset(),
    disconnected: frozenset[str] = frozenset(),
) -> list[AnyEvent]:
    """The clock ran out for ``seats`` (those the hand waits for); see the module docstring.

    ``due``: the seats whose turn on a bank has run its seconds; ``disconnected``: the
    players with no Watch stream open.
    """
    hand = state.hand
    banks: list[AnyEvent] = []
    timed_out: list[int] = []
    for seat in seats:
        who = state.seat_at(seat)
        player = who.player if who is not None else _hand_player(state, seat)
        running = state.banking.get(seat)
        if running is not None:
            if seat not in due:
                continue  # its bank has seconds left
            granted, protection = running
            banks.append(TimeBankUsed(seat, player, 0 if protection else granted))
            if (
                not protection
                and who is not None
                and player in disconnected
                and protection_due(state, who)
            ):
                banks.append(TimeBankStarted(seat, player, state.time_bank.seconds, True))
                continue
            timed_out.append(seat)
            continue
        if who is not None and who.time_bank > 0:
            banks.append(TimeBankStarted(seat, player, who.time_bank))
        elif who is not None and player in disconnected and protection_due(state, who):
            banks.append(TimeBankStarted(seat, player, state.time_bank.seconds, True))
        else:
            timed_out.append(seat)
    if not timed_out or hand is None:
        return banks
    played = choice.time_out(state, timed_out, deck, hand_id)
    if not played:
        return banks  # nothing left to do for them
    return [*banks, *timeout_bookkeeping(state, timed_out), *played]


def leaving_turns(state: TableState) -> tuple[int, ...]:
    """The seats the hand in play waits for whose players asked to leave: their turns are
    due now (:func:`act_for_leaver`), never on the clock."""
    hand = state.hand
    if hand is None or hand.finished:
        return ()
    leaving = {s.seat for s in state.seats if s.leaving}
    return tuple(seat for seat in waiting_for(hand) if seat in leaving)


def act_for_leaver(
    state: TableState,
    deck: Sequence[int],
    hand_id: str,
    *,
    bank_used: Callable[[int], int] = lambda seat: 0,
) -> list[AnyEvent]:
    """The turn of the first seat in :func:`leaving_turns`, taken at once: what their own
    action would close (a turn on the time bank, ``bank_used(seat)`` seconds drawn, as
    :func:`~riverboat.table.aggregate.own_action_bookkeeping`), then the clock's move, and
    the hand's end if it ends (the leavers leave). Nothing if no such turn is due.

    One turn a batch, as a player's own move would be: the next leaver's turn, if it comes
    next, is due after this one.
    """
    due = leaving_turns(state)
    if not due:
        return []
    seat = due[0]
    played = act(state, TimeOut(seat), deck, hand_id)
    return [*own_action_bookkeeping(state, seat, bank_used(seat)), *played]


def _hand_player(state: TableState, seat: int) -> str:
    hand = state.hand
    if hand is not None and seat in hand.seats:
        return hand.players[hand.seats.index(seat)]
    return ""


__all__ = ["act_for_leaver", "clock_expiry", "leaving_turns"]
