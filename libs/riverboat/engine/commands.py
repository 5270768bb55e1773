"""Commands: what someone asks the engine to do. ``decide`` turns a valid one into events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from riverboat.engine.events import SeatEntry
from riverboat.engine.options import TableOptions

#: Player actions of fixed-limit stud, by their scenario/API names.
ACTIONS: Final = frozenset({"bring_in", "complete", "bet", "raise", "call", "check", "fold"})


@dataclass(frozen=True, slots=True)
class StartHand:
    """Deal a new hand: the dealer supplies the deck (top card first)."""

    hand_id: str
    variant: str
    options: TableOptions
    button: int
    seats: tuple[SeatEntry, ...]
    deck: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Act:
    """A player's action. ``amount`` is the street total to bet or raise *to*; in fixed-limit
    games it is only needed to choose the big bet on 4th street with an open pair."""

    seat: int
    action: str
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The action clock ran out for ``seat``: check if possible, else fold."""

    seat: int


Command = StartHand | Act | TimeOut
