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
"""

from __future__ import annotations

from collections.abc import Sequence

from riverboat.table import choice
from riverboat.table.aggregate import (
    TableState,
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


def _hand_player(state: TableState, seat: int) -> str:
    hand = state.hand
    if hand is not None and seat in hand.seats:
        return hand.players[hand.seats.index(seat)]
    return ""


__all__ = ["clock_expiry"]
