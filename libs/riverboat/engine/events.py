"""The engine's events: plain, typed, serialisable facts.

An event records something that happened; ``apply`` folds it into the state without judging
it. Decisions that need the rules (who brings in, who wins) are made by ``decide`` and written
into the events, so replaying events never re-evaluates a hand. Each event maps one to one
onto a protobuf message of the table service's log.

Seats are the table's seat numbers, cards are ints (see :mod:`riverboat.engine.cards`).
``event_to_dict`` and ``event_from_dict`` give the JSON form, with cards as text.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from riverboat.engine.cards import card_str, parse_card
from riverboat.engine.errors import InvalidCommand


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """A player dealt into the hand, with the chips they had on the table at the start."""

    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand begins: who plays, the button, the rules and the size of the dealer's deck.

    The deck itself is not here: undealt cards stay with the dealer, and only dealt cards
    enter the log (``CardDealt``), so reading the log mid-hand reveals no future card.
    """

    hand_id: str
    variant: str
    button: int
    seats: tuple[SeatEntry, ...]
    deck_size: int
    options: dict[str, Any]


@dataclass(frozen=True, slots=True)
class AntePosted:
    """A forced ante went into the pot (dead money, not a bet)."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class CardDealt:
    """One card from the top of the deck to one seat, face up or down."""

    seat: int
    card: int
    face_up: bool


@dataclass(frozen=True, slots=True)
class CommunityCardDealt:
    """Stud's single face-up community card, when the deck cannot give everyone a 7th card."""

    card: int


@dataclass(frozen=True, slots=True)
class BettingRoundStarted:
    """A betting round opens; ``first_to_act`` is None when nobody can act (all-in)."""

    street: int
    bet_size: int
    first_to_act: int | None
    forced_bring_in: bool


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """A player's action. ``amount`` is the chips added; ``to`` the street total after it."""

    seat: int
    action: str
    amount: int
    to: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class UncalledBetReturned:
    """The part of a bet nobody called goes back to its owner."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class HandShown:
    """A hand at showdown, with its high and (if any) low value and their descriptions."""

    seat: int
    cards: tuple[int, ...]
    high: int
    low: int | None
    high_text: str
    low_text: str | None


@dataclass(frozen=True, slots=True)
class RakeTaken:
    """The house's rake, taken once from the whole pot (main pot first, then side pots)."""

    amount: int
    from_pots: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """One pot (0 = main, then side pots) paid out; ``shares`` pairs each seat with its chips."""

    pot: int
    amount: int
    eligible: tuple[int, ...]
    high_winners: tuple[int, ...]
    low_winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The hand is over; ``stacks`` are the final chips per seat."""

    stacks: tuple[tuple[int, int], ...]


Event = (
    HandStarted
    | AntePosted
    | CardDealt
    | CommunityCardDealt
    | BettingRoundStarted
    | ActionTaken
    | UncalledBetReturned
    | HandShown
    | RakeTaken
    | PotAwarded
    | HandEnded
)

EVENT_TYPES: Final[dict[str, type[Any]]] = {
    cls.__name__: cls
    for cls in (
        HandStarted,
        AntePosted,
        CardDealt,
        CommunityCardDealt,
        BettingRoundStarted,
        ActionTaken,
        UncalledBetReturned,
        HandShown,
        RakeTaken,
        PotAwarded,
        HandEnded,
    )
}

# Fields holding cards: written as text in the JSON form so people and other tools can read them.
_CARD_FIELDS: Final = frozenset({"card"})
_CARDS_FIELDS: Final = frozenset({"cards"})


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready form: ``{"type": "ActionTaken", "seat": 3, ...}`` with cards as text."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name in _CARD_FIELDS:
            value = card_str(value)
        elif f.name in _CARDS_FIELDS:
            value = [card_str(c) for c in value]
        elif f.name == "seats" and isinstance(event, HandStarted):
            value = [{"seat": s.seat, "player": s.player, "stack": s.stack} for s in value]
        elif f.name in ("shares", "stacks"):
            value = [[a, b] for a, b in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict`."""
    try:
        cls = EVENT_TYPES[data["type"]]
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            value = data[f.name]
            if f.name in _CARD_FIELDS:
                value = parse_card(value)
            elif f.name in _CARDS_FIELDS:
                value = tuple(parse_card(c) for c in value)
            elif f.name == "seats":
                value = tuple(SeatEntry(s["seat"], s["player"], s["stack"]) for s in value)
            elif f.name in ("shares", "stacks"):
                value = tuple((a, b) for a, b in value)
            elif isinstance(value, list):
                value = tuple(value)
            kwargs[f.name] = value
        event: Event = cls(**kwargs)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidCommand(f"malformed event {data!r}: {exc}") from None
    return event
