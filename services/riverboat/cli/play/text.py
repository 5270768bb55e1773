"""The words every part of ``riverboat play`` shares: cards, games, streets, phases, seats and
the viewer's legal actions as the player reads them (no I/O)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from riverboat.cli.clientkit import money
from riverboat.engine.cards import parse_card
from riverboat.engine.games import GAMES
from riverboat.engine.games.totals_family import TotalsGame
from riverboat.engine.totals import show as show_total
from riverboat.engine.totals import totals
from riverboat.handtext import RANK_NAMES, STREETS
from riverboat.v1 import events_pb2, table_pb2

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RED_SUITS = {"d", "h"}
HIDDEN = "░░"

STUD = "seven_card_stud_hi_lo"
DEALERS_CHOICE = "dealers_choice"
# The games' own titles (static rule-book data, the same for every client).
VARIANTS = {
    STUD: "Seven-card stud hi/lo",
    DEALERS_CHOICE: "Dealer's choice",
    **{name: game.title for name, game in GAMES.items()},
}
SHORT_VARIANTS = {STUD: "Stud hi/lo"}  # where columns are narrow
# The key a player types for each action the table service knows (with what it takes).

KEYS = {
    "check": "c",
    "call": "c",
    "bring_in": "i",
    "complete": "k",
    "bet": "b",
    "raise": "r",
    "fold": "f",
    "choose_game": "g GAME",
    "draw": "d CARDS",
    "discard": "d CARDS",
    "pass": "p CARDS",
    "order": "o CARDS",
    "expose": "x CARD",
    "take": "take",
    "stand": "stand",
    "match": "m",
    "declare": "dec",
}
BETTING = frozenset({"bring_in", "complete", "bet", "raise", "call", "check", "fold"})
CARD_ACTIONS = frozenset({"draw", "discard", "pass", "order", "expose"})


def card_label(card: str) -> str:
    """``"Ah"`` -> ``"A♥"``; a hidden card (``""``) -> ``"░░"``."""
    if not card:
        return HIDDEN
    return card[:-1] + SUITS.get(card[-1], card[-1])


def card_text(card: str, *, face_up: bool = True) -> Text:
    """One card, coloured by suit; a face-down card the viewer may see is in brackets."""
    if not card:
        return Text(HIDDEN, style="grey50")
    label = card_label(card)
    style = "bold red" if card[-1] in RED_SUITS else "bold"
    return Text(label if face_up else f"[{label}]", style=style)


def card_row(cards: Iterable[str]) -> Text:
    """Cards in a row as they lie: ``A♥ 7♣`` (a hidden one as ``░░``)."""
    return Text(" ").join(card_text(c) for c in cards)


def cards_text(cards: Iterable[table_pb2.ViewCard]) -> Text:
    """A seat's cards in the order dealt."""
    return Text(" ").join(card_text(c.card, face_up=c.face_up) for c in cards)


def variant_name(variant: str) -> str:
    """``"seven_card_stud_hi_lo"`` -> ``"Seven-card stud hi/lo"``."""
    return VARIANTS.get(variant, variant.replace("_", " ").capitalize())


def street_name(street: int, game: str = STUD) -> str:
    """``4`` -> ``"4th street"`` in Pacific stud; the dealer's choice games count rounds."""
    if game and game != STUD:
        return f"round {street}"
    return STREETS.get(street, f"street {street}")


def wild_text(cards: Sequence[str]) -> str:
    """``["2c", "2d", "2h", "2s", "Kd"]`` -> ``"deuces, K♦"``: whole ranks by name."""
    by_rank: dict[str, list[str]] = {}
    for card in cards:
        by_rank.setdefault(card[:-1], []).append(card)
    parts = []
    for rank, held in by_rank.items():
        if len(held) == 4:
            parts.append(RANK_NAMES.get(rank, rank + "s"))
        else:
            parts.extend(card_label(c) for c in held)
    return ", ".join(parts)


def stakes(options: events_pb2.TableOptions) -> str:
    """``"$1.00/$2.00, ante $0.25"``."""
    text = f"{money(options.small_bet)}/{money(options.big_bet)}"
    return f"{text}, ante {money(options.ante)}" if options.ante else text


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action as the player sees it: the key, the action and its amounts."""

    key: str
    action: str
    to: tuple[int, ...]
    text: str


def my_seat(view: table_pb2.TableView) -> table_pb2.SeatView | None:
    """The viewer's seat in ``view``, if they sit there."""
    if not view.viewer_seat:
        return None
    return next((s for s in view.seats if s.seat == view.viewer_seat), None)


def choices(view: table_pb2.TableView) -> list[Choice]:
    """The viewer's legal actions, described with what they cost."""
    seat = my_seat(view)
    in_front = seat.street_bet if seat is not None else 0
    out: list[Choice] = []
    for legal in view.legal_actions:
        to = tuple(legal.to)
        amounts = " or ".join(money(t) for t in to)
        match legal.action:
            case "check":
                text = "check"
            case "call":
                text = f"call {money(to[0] - in_front)}" if to else "call"
            case "bring_in":
                text = f"bring in for {amounts}"
            case "complete":
                text = f"complete to {amounts}"
            case "bet":
                text = f"bet {amounts}"
            case "raise":
                text = f"raise to {amounts}"
            case "fold":
                text = "fold"
            case "choose_game":
                # Not the games themselves: nine names widen the table past any screen.
                n = len(legal.choices)
                text = f"choose the game ({n} to choose from: g lists them)"
            case "draw" | "discard" | "pass" | "expose":
                text = f"{legal.action} {cards_count(legal)}"
            case "order":
                text = f"order all {legal.max_cards} cards, the first to turn up first"
            case "take":
                text = "take the card"
            case "stand":
                text = "stand"
            case "match":
                text = f"match the pot ({money(to[0])})" if to else "match the pot"
            case "declare":
                text = "|".join(legal.choices)
            case other:
                text = other.replace("_", " ")
        key = KEYS.get(legal.action, f"a {legal.action}")
        out.append(Choice(key, legal.action, to, text))
    return out


def card_count(n: int) -> str:
    """``"1 card"``, ``"2 cards"``."""
    return "1 card" if n == 1 else f"{n} cards"


def cards_count(legal: table_pb2.LegalAction) -> str:
    """``"0 to 5 cards"``, ``"2 cards"``, ``"1 card"``."""
    low, high = legal.min_cards, legal.max_cards
    if low == high:
        return card_count(low)
    return f"{low} to {high} cards"


def choices_line(view: table_pb2.TableView) -> str:
    """``"c call $0.75 · r raise to $2.00 · f fold"``; a move whose key is its own first word
    is said once (``"take the card · stand"``, not ``"take take the card"``)."""
    return " · ".join(
        c.text if c.text == c.key or c.text.startswith(c.key + " ") else f"{c.key} {c.text}"
        for c in choices(view)
    )


def owes_move(view: table_pb2.TableView) -> bool:
    """Whether the view waits for the viewer: their turn, a simultaneous phase they owe a move
    in (several seats at once), or their choice of game as the dealer."""
    me = view.viewer_seat
    return me != 0 and bool(view.legal_actions) and (view.to_act == me or me in view.waiting_for)


def seat_name(view: table_pb2.TableView, seat: int) -> str:
    if seat == view.viewer_seat:
        return "you"
    return next((s.player for s in view.seats if s.seat == seat), f"seat {seat}")


def phase_name(phase: str) -> str:
    """A hand's phase as words: ``"offer"`` -> ``"card offers"``."""
    return {
        "bet": "betting",
        "offer": "card offers",
        "order": "ordering",
        "expose": "exposing",
        "declare": "declaring",
        "match": "match the pot",
        "reshuffle": "reshuffling",
    }.get(phase, phase)


def changed_options(game: str, options: dict[str, Any]) -> str:
    """The options that differ from the game's defaults, as ``"draws 2"`` (money in dollars:
    ``"wild_payment $1.50"``, as it is typed: ``wild_payment=1.50``)."""
    specs = {spec.name: spec for spec in (GAMES[game].specs if game in GAMES else ())}
    out = []
    for key, value in options.items():
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # a Struct holds numbers as doubles
        if key in specs and value != specs[key].default:
            out.append(f"{key} {show_value(value, specs[key].allowed)}")
    return ", ".join(out)


def show_value(value: object, allowed: object = None) -> str:
    """An option's value as a player types it: ``true``, ``null``, ``2``; an amount of money
    (an option whose values are ``"cents"``) in dollars, ``$1.50``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if allowed == "cents" and isinstance(value, int | float):
        return money(int(value))
    return str(value)


def running_count(view: table_pb2.TableView, seat: table_pb2.SeatView) -> str:
    """A card-total game's count of the cards ``seat`` shows this viewer (7-27, 15-35):
    ``"6½ or 16½"``, every total the cards can make by the game's own rule (an ace 1 or 11,
    pictures as the game's ``pictures`` option says); "" in other games or with no card seen."""
    game = GAMES.get(view.game or view.variant)
    if not isinstance(game, TotalsGame):
        return ""
    seen = [parse_card(c.card) for c in seat.cards if c.card]
    if not seen:
        return ""
    pictures = dict(view.game_options.items()).get("pictures")
    if not isinstance(pictures, str):
        pictures = next(str(s.default) for s in game.specs if s.name == "pictures")
    return " or ".join(show_total(t) for t in sorted(totals(seen, pictures)))
