"""The engine's events: plain, typed, serialisable facts.

An event records something that happened; ``apply`` folds it into the state without judging
it. Decisions that need the rules (who brings in, who wins) are made by ``decide`` and written
into the events, so replaying events never re-evaluates a hand. Each event maps one to one
onto a protobuf message of the table service's log.

Seats are the table's seat numbers, cards are ints (see :mod:`riverboat.engine.cards`).
``event_to_dict`` and ``event_from_dict`` give the JSON form, with cards as text.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, Final

from riverboat.engine.cards import RANK_CHARS, card_str, parse_card
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


# --- dealer's choice games ---------------------------------------------------------------------
#
# Visibility (see riverboat.engine.visibility): events are public unless said otherwise here.


@dataclass(frozen=True, slots=True)
class GameOptionsSet:
    """The options of the game being dealt, every key resolved (defaults filled in).

    Emitted right after ``HandStarted`` by every dealer's choice game (not by Pacific stud).
    """

    options: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PotCarriedIn:
    """A pot that rode from the previous deal joins this deal's main pot (dead money)."""

    amount: int


@dataclass(frozen=True, slots=True)
class PhaseStarted:
    """A non-betting phase opens: ``seats_to_act`` must each act once, in that order when not
    ``simultaneous`` (draws, exposes, card offers, matches) or in any order when it is (passes,
    discards, ordering, declarations). Card actions take ``min_cards``..``max_cards`` cards."""

    phase: str
    seats_to_act: tuple[int, ...]
    simultaneous: bool
    min_cards: int
    max_cards: int


@dataclass(frozen=True, slots=True)
class CardsDiscarded:
    """A player threw ``cards`` away face down (a draw, or Anaconda's two). Only the player
    sees which cards; everyone sees how many."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsToPass:
    """A player put down ``cards`` to pass (sealed: only the player sees them until every
    player has put theirs down and ``CardsPassed`` delivers them)."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsPassed:
    """``cards`` go from ``seat`` to ``to_seat``. Seen by the giver and the receiver only."""

    seat: int
    to_seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsOrdered:
    """A player stacked their cards face down in the order they will be turned up (first
    element first). Only the player sees the order."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardTurnedUp:
    """One of a player's face-down cards is turned face up (a roll, or an exposed card)."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class OfferAnswered:
    """A player took the card offered (it follows as ``CardDealt``) or stood."""

    seat: int
    took: bool


@dataclass(frozen=True, slots=True)
class DeclarationSealed:
    """A player committed their declaration. Sealed: only the player sees ``choice`` until
    ``DeclarationsRevealed``; the others see only that the seat has declared."""

    seat: int
    choice: str


@dataclass(frozen=True, slots=True)
class DeclarationsRevealed:
    """Every declaration, revealed at once: ``(seat, choice)`` pairs in dealing order."""

    declarations: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class CardPaymentPosted:
    """A face-up card cost its owner ``amount`` (a wild card, a seven...): dead money."""

    seat: int
    card: int
    amount: int


@dataclass(frozen=True, slots=True)
class WildRankChanged:
    """Follow the Queen: ``rank`` (0 deuce .. 12 ace) is now wild besides the queens, or None.
    ``awaiting``: a face-up queen was the last face-up card, so the next one names the rank."""

    rank: int | None
    awaiting: bool


@dataclass(frozen=True, slots=True)
class MatchDue:
    """Match the pot or fold: ``seat`` must put in ``amount`` (the pot when their card fell)."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class PotMatched:
    """A player matched the pot (dead money, not a bet)."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class MatchDeclined:
    """A player would not (or could not) match the pot, and folds."""

    seat: int


@dataclass(frozen=True, slots=True)
class TableRowDealt:
    """Elimination: ``count`` table cards are laid face down in a row (their faces stay with
    the dealer until turned)."""

    count: int


@dataclass(frozen=True, slots=True)
class TableCardTurned:
    """Elimination: a table card turned up, from the row or (a repeated rank) from the stock."""

    card: int
    from_stock: bool


@dataclass(frozen=True, slots=True)
class RankEliminated:
    """Elimination: every card of ``rank`` must go."""

    rank: int


@dataclass(frozen=True, slots=True)
class CardsEliminated:
    """Elimination: a player's cards of the eliminated rank, thrown away face up."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ReshuffleRequested:
    """The stub ran out during a draw: the dealer must shuffle ``cards`` (the discards of the
    players who drew before ``seat``) and send them back with the ``Reshuffle`` command;
    ``owed`` cards are still due to ``seat``. ``cards`` are seen by no player."""

    seat: int
    cards: tuple[int, ...]
    owed: int


@dataclass(frozen=True, slots=True)
class DiscardsReshuffled:
    """The dealer's shuffle of the requested discards became the new stub (``count`` cards,
    appended to the hand's deck)."""

    count: int


@dataclass(frozen=True, slots=True)
class PotCarriedOver:
    """Nobody could win (declarations): the pot rides to the next deal, same dealer, same game."""

    amount: int


# --- a dealer's choice table across hands (riverboat.engine.session) -------------------------


@dataclass(frozen=True, slots=True)
class SessionOpened:
    """A dealer's choice table begins: its options, its dealer's choice rules, the players
    and the first dealer."""

    options: dict[str, Any]
    rules: dict[str, Any]
    seats: tuple[SeatEntry, ...]
    button: int


@dataclass(frozen=True, slots=True)
class DealerUp:
    """Whose deal is next. ``redeal``: the pot rode, so the same game (``game``, with
    ``options``) is dealt again and nobody chooses; otherwise the dealer chooses."""

    seat: int
    redeal: bool
    game: str
    options: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GameChosen:
    """The dealer chose the next deal's game and its options (every key resolved);
    ``by_clock``: the dealer's clock ran out and the table's default was taken.
    ``small_bet``/``big_bet``: the limits the dealer declared for the deal (0: the table's)."""

    seat: int
    game: str
    options: dict[str, Any]
    by_clock: bool
    small_bet: int = 0
    big_bet: int = 0


SessionEvent = SessionOpened | DealerUp | GameChosen

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
    | GameOptionsSet
    | PotCarriedIn
    | PhaseStarted
    | CardsDiscarded
    | CardsToPass
    | CardsPassed
    | CardsOrdered
    | CardTurnedUp
    | OfferAnswered
    | DeclarationSealed
    | DeclarationsRevealed
    | CardPaymentPosted
    | WildRankChanged
    | MatchDue
    | PotMatched
    | MatchDeclined
    | TableRowDealt
    | TableCardTurned
    | RankEliminated
    | CardsEliminated
    | ReshuffleRequested
    | DiscardsReshuffled
    | PotCarriedOver
    | SessionOpened
    | DealerUp
    | GameChosen
)
"""Every event the engine emits: a hand's, and a dealer's choice table's across hands."""

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
        GameOptionsSet,
        PotCarriedIn,
        PhaseStarted,
        CardsDiscarded,
        CardsToPass,
        CardsPassed,
        CardsOrdered,
        CardTurnedUp,
        OfferAnswered,
        DeclarationSealed,
        DeclarationsRevealed,
        CardPaymentPosted,
        WildRankChanged,
        MatchDue,
        PotMatched,
        MatchDeclined,
        TableRowDealt,
        TableCardTurned,
        RankEliminated,
        CardsEliminated,
        ReshuffleRequested,
        DiscardsReshuffled,
        PotCarriedOver,
        SessionOpened,
        DealerUp,
        GameChosen,
    )
}

# Fields holding cards: written as text in the JSON form so people and other tools can read them.
_CARD_FIELDS: Final = frozenset({"card"})
_CARDS_FIELDS: Final = frozenset({"cards"})
# Fields holding a rank (0..12, or None): written as the rank's character ("7", "Q").
_RANK_FIELDS: Final = frozenset({"rank"})


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready form: ``{"type": "ActionTaken", "seat": 3, ...}`` with cards as text."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name in _CARD_FIELDS:
            value = card_str(value)
        elif f.name in _CARDS_FIELDS:
            value = [card_str(c) for c in value]
        elif f.name == "seats" and isinstance(event, HandStarted | SessionOpened):
            value = [{"seat": s.seat, "player": s.player, "stack": s.stack} for s in value]
        elif f.name in ("shares", "stacks", "declarations"):
            value = [[a, b] for a, b in value]
        elif f.name in _RANK_FIELDS:
            value = None if value is None else RANK_CHARS[value]
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = dict(value)
        out[f.name] = value
    return out


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict`, for any event of a hand or a table."""
    try:
        cls = EVENT_TYPES[data["type"]]
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data and f.default is not MISSING:
                continue  # a field added later: records from before it take its default
            value = data[f.name]
            if f.name in _CARD_FIELDS:
                value = parse_card(value)
            elif f.name in _CARDS_FIELDS:
                value = tuple(parse_card(c) for c in value)
            elif f.name == "seats":
                value = tuple(SeatEntry(s["seat"], s["player"], s["stack"]) for s in value)
            elif f.name in ("shares", "stacks", "declarations"):
                value = tuple((a, b) for a, b in value)
            elif f.name in _RANK_FIELDS:
                value = None if value is None else RANK_CHARS.index(value)
            elif isinstance(value, list):
                value = tuple(value)
            kwargs[f.name] = value
        event: Event = cls(**kwargs)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidCommand(f"malformed event {data!r}: {exc}") from None
    return event
