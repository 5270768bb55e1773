"""Commands: what someone asks the engine to do. ``decide`` turns a valid one into events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from riverboat.engine.events import SeatEntry
from riverboat.engine.options import TableOptions

#: Player actions of fixed-limit stud, by their scenario/API names.
ACTIONS: Final = frozenset({"bring_in", "complete", "bet", "raise", "call", "check", "fold"})

#: Betting actions of the dealer's choice games (no bring-in, no completion).
BETTING_ACTIONS: Final = frozenset({"bet", "raise", "call", "check", "fold"})

#: Card and choice actions of the dealer's choice games (see docs/games.md): ``draw`` (throw
#: away ``cards`` and get as many new ones), ``discard`` (throw away ``cards``), ``pass``
#: (``cards`` to the next player on the left), ``order`` (``cards`` in the order to turn them
#: up), ``expose`` (turn up the one card in ``cards``), ``take`` / ``stand`` (a card offer),
#: ``declare`` (``choice``: low, high or both; spade, high or both in Chicago), ``match`` (match
#: the pot; ``fold`` declines).
CARD_ACTIONS: Final = frozenset(
    {"draw", "discard", "pass", "order", "expose", "take", "stand", "declare", "match"}
)

GAME_ACTIONS: Final = BETTING_ACTIONS | CARD_ACTIONS


@dataclass(frozen=True, slots=True)
class StartHand:
    """Deal a new hand: the dealer supplies the deck (top card first).

    ``game_options`` are the chosen game's options (dealer's choice games; missing keys take
    their defaults, see docs/games.md). ``carried_pot`` is a pot that rode from the previous
    deal (dealer's choice declarations); it joins this deal's main pot.
    """

    hand_id: str
    variant: str
    options: TableOptions
    button: int
    seats: tuple[SeatEntry, ...]
    deck: tuple[int, ...]
    game_options: Mapping[str, Any] | None = None
    carried_pot: int = 0


@dataclass(frozen=True, slots=True)
class Act:
    """A player's action. ``amount`` is the street total to bet or raise *to*; in fixed-limit
    games it is only needed to choose the big bet on 4th street with an open pair (or a
    matcher's bigger bet). ``cards`` are the cards a card action names (draw, discard, pass,
    order, expose); ``choice`` is a declaration (``"low"``, ``"high"``, ``"both"``,
    ``"spade"``)."""

    seat: int
    action: str
    amount: int | None = None
    cards: tuple[int, ...] = ()
    choice: str | None = None


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The action clock ran out for ``seat``: check if possible, else fold (see docs/games.md
    for what the clock does in the other phases)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """The dealer's answer to ``ReshuffleRequested``: the requested discards, shuffled, top
    card first. They become the new stub: pass ``deck + cards`` as the hand's deck from now on
    (``Hand`` does this itself)."""

    cards: tuple[int, ...]


Command = StartHand | Act | TimeOut | Reshuffle
