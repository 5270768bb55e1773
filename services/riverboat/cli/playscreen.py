"""What ``riverboat play`` shows and understands, kept free of I/O so it can be tested alone.

* :func:`table_panel` draws a ``TableView`` with Rich: every seat (name, stack, street bet,
  cards with hidden ones as ``░░``, folded and all-in marks, the button), the pot, the street,
  whose turn it is and the viewer's legal actions with their amounts.
* :class:`Narrator` turns the events of each watch update into short sentences ("bot-1 raises
  to $2.00", "You win the main pot of $6.50").
* :func:`choose_action` maps a typed betting command (``c``, ``r 4``, ``f`` ...) to an ``Act``
  request's action and amount; :func:`choose_move` maps any command (``g draw draws=2``,
  ``d Qh 7c``, ``dec low``, ``a ACTION ...``) to a whole :class:`~riverboat.client.Move`, checked
  against the view's legal moves, or explains in a sentence why it cannot be done now.

Everything reads the protobuf messages of ``riverboat.v1`` directly: this is the view a
third-party client gets, nothing more (no hidden card ever reaches it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from riverboat.cli.clientkit import AmountError, money, parse_amount
from riverboat.client import Move
from riverboat.engine.games import GAMES, half_names, shown_hand
from riverboat.v1 import events_pb2, lobby_pb2, table_pb2

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RED_SUITS = {"d", "h"}
HIDDEN = "░░"

STREETS = {3: "3rd street", 4: "4th street", 5: "5th street", 6: "6th street", 7: "7th street"}
STUD = "seven_card_stud_hi_lo"
DEALERS_CHOICE = "dealers_choice"
# The games' own titles (static rule-book data, the same for every client).
VARIANTS = {
    STUD: "Seven-card stud hi/lo",
    DEALERS_CHOICE: "Dealer's choice",
    **{name: game.title for name, game in GAMES.items()},
}
SHORT_VARIANTS = {STUD: "Stud hi/lo"}  # where columns are narrow
RANK_NAMES = dict(
    zip(
        "23456789TJQKA",
        ("deuces", "treys", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens")
        + ("jacks", "queens", "kings", "aces"),
        strict=True,
    )
)

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
# The dealer's choice shortcuts: the word typed -> the actions it may stand for, in order.
MOVE_WORDS: dict[str, tuple[str, ...]] = {
    "g": ("choose_game",),
    "game": ("choose_game",),
    "d": ("draw", "discard"),
    "draw": ("draw",),
    "discard": ("discard",),
    "p": ("pass",),
    "pass": ("pass",),
    "o": ("order",),
    "order": ("order",),
    "x": ("expose",),
    "expose": ("expose",),
    "take": ("take",),
    "stand": ("stand",),
    "m": ("match",),
    "match": ("match",),
    "dec": ("declare",),
    "declare": ("declare",),
    "a": (),  # a ACTION ...: any action the view lists, by its name
}
# Words people type for a declaration, to the engine's words.
DECLARE_WORDS = {"lo": "low", "hi": "high", "pig": "both", "swing": "both", "s": "spade"}
_WORDS = {
    "c": "c",
    "check": "c",
    "call": "c",
    "b": "b",
    "bet": "b",
    "r": "b",
    "raise": "b",
    "k": "k",
    "complete": "k",
    "i": "i",
    "bring-in": "i",
    "bring_in": "i",
    "bringin": "i",
    "f": "f",
    "fold": "f",
}
ACTION_WORDS = frozenset(_WORDS) | frozenset(MOVE_WORDS)


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


# --- actions ---------------------------------------------------------------------------------


class ActionError(ValueError):
    """A command that cannot be sent now; the message is a sentence for the player."""


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
                text = "choose the game: " + ", ".join(legal.choices) + " (g lists the options)"
            case "draw" | "discard" | "pass" | "expose":
                text = f"{legal.action} {_count(legal)}"
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


def _count(legal: table_pb2.LegalAction) -> str:
    """``"0 to 5 cards"``, ``"2 cards"``, ``"1 card"``."""
    low, high = legal.min_cards, legal.max_cards
    if low == high:
        return f"{low} card" if low == 1 else f"{low} cards"
    return f"{low} to {high} cards"


def choices_line(view: table_pb2.TableView) -> str:
    """``"c call $0.75 · r raise to $2.00 · f fold"``."""
    return " · ".join(f"{c.key} {c.text}" for c in choices(view))


def owes_move(view: table_pb2.TableView) -> bool:
    """Whether the view waits for the viewer: their turn, a simultaneous phase they owe a move
    in (several seats at once), or their choice of game as the dealer."""
    me = view.viewer_seat
    return me != 0 and bool(view.legal_actions) and (view.to_act == me or me in view.waiting_for)


def _owes(view: table_pb2.TableView) -> None:
    """:class:`ActionError` unless the viewer sits here and the view waits for their move."""
    if my_seat(view) is None:
        raise ActionError("You do not sit at this table.")
    if owes_move(view):
        return
    if view.choosing_game and view.dealer:
        raise ActionError(f"It is not your turn: {_who(view, view.dealer)} is choosing the game.")
    raise ActionError("It is not your turn.")


def choose_move(word: str, rest: str, view: table_pb2.TableView) -> Move:
    """The whole ``Act`` request (action, amount, cards, choice, options) a command stands for.

    Betting words go through :func:`choose_action`; ``g``/``d``/``p``/``o``/``x``/``take``/
    ``stand``/``m``/``dec`` pick the legal action they stand for; ``a ACTION ...`` names any
    action the view lists. Cards, counts, declarations, games and options are checked here
    against the view, so a refusal is one sentence before anything is sent.
    """
    word = word.lower()
    if word in _WORDS:
        action, amount = choose_action(word, rest or None, view)
        return Move(action, amount)
    _owes(view)
    legal = {a.action: a for a in view.legal_actions}
    args = rest.split()
    if word == "a":
        if not args:
            raise ActionError(f"a needs an action: {', '.join(legal)}.")
        name = args.pop(0).lower().replace("-", "_")
        if name not in legal:
            raise ActionError(
                f"You cannot {name.replace('_', ' ')} now; you may: {', '.join(legal)}."
            )
        found = legal[name]
    else:
        wanted = MOVE_WORDS.get(word, ())
        offered = [legal[a] for a in wanted if a in legal]
        if not offered:
            what = " or ".join(wanted) if wanted else word
            raise ActionError(f"You cannot {what} now; you may: {choices_line(view)}.")
        found = offered[0]
    return _move_for(found, args, view)


def _move_for(legal: table_pb2.LegalAction, args: list[str], view: table_pb2.TableView) -> Move:
    """One legal action with the words typed after it, checked."""
    action = legal.action
    if action in BETTING:
        amount_text = " ".join(args) or None
        return Move(*choose_action(_WORDS.get(action, action), amount_text, view))
    if action in CARD_ACTIONS:
        return Move(action, cards=parse_cards(args, legal, view))
    if action == "choose_game":
        game, options = parse_game(args, legal)
        return Move(action, choice=game, options=options or None)
    if action == "declare":
        return Move(action, choice=parse_declaration(args, legal))
    if args:
        raise ActionError(f"{action.replace('_', ' ').capitalize()} takes nothing more.")
    return Move(action, legal.to[0] if action == "match" and legal.to else 0)


_CARD_SYMBOLS = {v: k for k, v in SUITS.items()}


def parse_card(text: str) -> str | None:
    """``"qh"``, ``"Q♥"``, ``"10h"`` -> ``"Qh"``; None if it is not a card."""
    text = text.strip()
    if len(text) < 2:
        return None
    rank, suit = text[:-1].upper(), _CARD_SYMBOLS.get(text[-1], text[-1].lower())
    rank = "T" if rank == "10" else rank
    if rank not in RANK_NAMES or suit not in SUITS:
        return None
    return rank + suit


def parse_cards(
    words: Sequence[str], legal: table_pb2.LegalAction, view: table_pb2.TableView
) -> tuple[str, ...]:
    """The cards a card action names: typed (``Qh 7c``) or by position (``1 4``, as the table
    numbers them), each held once; as many as the action takes."""
    seat = my_seat(view)
    held = [c for c in seat.cards] if seat is not None else []
    mine = {c.card: c for c in held if c.card}
    verb = legal.action
    cards: list[str] = []
    for word in (w for text in words for w in text.replace(",", " ").split()):
        if word.isdigit():
            position = int(word)
            if not 1 <= position <= len(held):
                raise ActionError(f"You hold {len(held)} cards: positions 1 to {len(held)}.")
            card = held[position - 1].card
        else:
            parsed = parse_card(word)
            if parsed is None:
                raise ActionError(
                    f"{word!r} is not a card: type it like Qh or 7c, or its position (1 is "
                    "your first card)."
                )
            card = parsed
        if card not in mine:
            raise ActionError(f"You do not hold {card_label(card)}.")
        if card in cards:
            raise ActionError(f"You named {card_label(card)} twice.")
        cards.append(card)
    if verb == "order":
        if len(cards) != len(mine):
            raise ActionError(
                f"Order all your {len(mine)} cards, the first to turn up first "
                f"(for example: o {' '.join(str(n) for n in range(len(mine), 0, -1))})."
            )
    elif not legal.min_cards <= len(cards) <= legal.max_cards:
        raise ActionError(f"You {verb} {_count(legal)} (you named {len(cards)}).")
    if verb == "expose" and any(mine[c].face_up for c in cards):
        raise ActionError("Expose a face-down card; that one is already face up.")
    return tuple(cards)


def parse_declaration(words: Sequence[str], legal: table_pb2.LegalAction) -> str:
    """``low``/``high``/``both`` (Chicago ``spade``), a short form, or the coins (1, 2, 3)."""
    allowed = list(legal.choices)
    if len(words) != 1:
        raise ActionError(f"Declare one of {'|'.join(allowed)} (for example: dec {allowed[-1]}).")
    word = words[0].lower()
    if word.isdigit() and int(word) in legal.to:
        return allowed[list(legal.to).index(int(word))]
    word = DECLARE_WORDS.get(word, word)
    if word not in allowed:
        raise ActionError(f"You may declare {' or '.join(allowed)}, not {words[0]!r}.")
    return word


def parse_game(words: Sequence[str], legal: table_pb2.LegalAction) -> tuple[str, dict[str, Any]]:
    """``draw draws=2`` -> ``("draw", {"draws": 2})``: a game offered (its name, a unique start
    of it, or its number in the list) and options it has, with values it allows."""
    offered = list(legal.choices)
    if not words:
        raise ActionError(f"Name the game: {', '.join(offered)} (g alone lists the options).")
    name = words[0].lower()
    matches = [g for g in offered if g == name] or [g for g in offered if g.startswith(name)]
    if name.isdigit() and 1 <= int(name) <= len(offered):
        matches = [offered[int(name) - 1]]
    if len(matches) != 1:
        raise ActionError(f"Choose one of {', '.join(offered)}; {words[0]!r} is not one.")
    game = matches[0]
    specs = {spec.name: spec for spec in (GAMES[game].specs if game in GAMES else ())}
    options: dict[str, Any] = {}
    for word in words[1:]:
        key, eq, text = word.partition("=")
        if not eq:
            raise ActionError(f"Options are key=value (for example: g draw draws=2); not {word!r}.")
        spec = specs.get(key)
        if spec is None:
            names = ", ".join(specs) or "none"
            raise ActionError(
                f"{VARIANTS.get(game, game)} has no option {key!r} (options: {names})."
            )
        value = _option_value(text, spec.allowed)
        problem = spec.check(value)
        if problem is not None:
            raise ActionError(f"In {VARIANTS.get(game, game)}, {problem}.")
        options[key] = value
    return game, options


def _option_value(text: str, allowed: object) -> Any:
    """What a typed option value means: money for cents, true/false, null, a number, a word."""
    lowered = text.strip().lower()
    if allowed == "cents":
        try:
            return parse_amount(text)
        except AmountError as exc:
            raise ActionError(f"{exc}.") from None
    if lowered in ("null", "none", "-"):
        return None
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered.lstrip("-").isdigit():
        return int(lowered)
    return text.upper() if allowed == "rank" else text


def games_table(view: table_pb2.TableView) -> Table:
    """The games the dealer may choose now, each with its options (default first)."""
    legal = next((a for a in view.legal_actions if a.action == "choose_game"), None)
    grid = Table(
        title=Text("Games (g GAME [option=value ...], e.g. g draw draws=2)"),  # no markup
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        title_justify="left",
    )
    grid.add_column("#", justify="right")
    grid.add_column("Game")
    grid.add_column("Options: name default (values)")
    for n, game in enumerate(legal.choices if legal is not None else (), 1):
        specs = GAMES[game].specs if game in GAMES else ()
        opts = [
            f"{spec.name} {_show(spec.default)}"
            + (
                f" ({'/'.join(_show(a) for a in spec.allowed)})"
                if isinstance(spec.allowed, tuple) and len(spec.allowed) > 1
                else f" ({spec.allowed})"
                if isinstance(spec.allowed, str)
                else ""
            )
            for spec in specs
        ]
        grid.add_row(str(n), f"{game}\n{VARIANTS.get(game, game)}", "\n".join(opts) or "—")
    return grid


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def choose_action(word: str, amount_text: str | None, view: table_pb2.TableView) -> tuple[str, int]:
    """The ``Act`` action and amount for a typed command, or :class:`ActionError`.

    ``c`` checks when it can and calls otherwise; ``b`` and ``r`` bet, raise or complete,
    whichever the table allows now; an amount (a street total, "r 4") must be one the table
    lists, and without one the smallest is used.
    """
    _owes(view)
    legal = {c.action: c for c in choices(view)}
    key = _WORDS.get(word.lower())
    candidates = {
        "c": ("check", "call"),
        "b": ("bet", "raise", "complete"),
        "k": ("complete",),
        "i": ("bring_in",),
        "f": ("fold",),
    }.get(key or "", ())
    action = next((a for a in candidates if a in legal), None)
    if action is None:
        wanted = {"c": "check or call", "b": "bet or raise", "k": "complete", "i": "bring in"}
        raise ActionError(
            f"You cannot {wanted.get(key or '', word)} now; you may: {choices_line(view)}."
        )
    choice = legal[action]
    if action in ("check", "fold"):
        if amount_text:
            raise ActionError(f"{action.capitalize()} takes no amount.")
        return action, 0
    if not amount_text:
        return action, choice.to[0] if choice.to else 0
    try:
        amount = parse_amount(amount_text)
    except AmountError as exc:
        raise ActionError(str(exc)) from None
    if choice.to and amount not in choice.to:
        raise ActionError(
            f"You cannot {choice.action.replace('_', ' ')} to {money(amount)}; "
            f"you may {choice.text}."
        )
    return action, amount


# --- the table -------------------------------------------------------------------------------


def _who(view: table_pb2.TableView, seat: int) -> str:
    if seat == view.viewer_seat:
        return "you"
    return next((s.player for s in view.seats if s.seat == seat), f"seat {seat}")


def turn_line(view: table_pb2.TableView) -> Text:
    """Whose turn it is, and the viewer's choices when it is theirs (with their cards numbered
    when a move names cards: ``d 1 4`` means the first and the fourth)."""
    if owes_move(view):
        line = Text("Your turn", style="bold yellow")
        line.append(f" ({view.action_seconds} s): ", style="yellow")
        line.append(choices_line(view))
        seat = my_seat(view)
        if seat is not None and any(a.action in CARD_ACTIONS for a in view.legal_actions):
            line.append("\nYour cards: ", style="grey70")
            line.append_text(
                Text("  ").join(
                    Text(f"{n} ", style="grey70").append_text(card_text(c.card, face_up=c.face_up))
                    for n, c in enumerate(seat.cards, 1)
                )
            )
        return line
    if view.choosing_game and view.dealer:
        return Text(
            f"Waiting for {_who(view, view.dealer)} (seat {view.dealer}) to choose the game."
        )
    if len(view.waiting_for) > 1:
        names = ", ".join(_who(view, s) for s in view.waiting_for)
        return Text(f"Waiting for {names} ({phase_name(view.phase)}).")
    if view.to_act:
        doing = f" ({phase_name(view.phase)})" if view.phase not in ("", "bet") else ""
        return Text(f"Waiting for {_who(view, view.to_act)} (seat {view.to_act}){doing}.")
    if not view.hand_in_progress:
        with_chips = sum(1 for s in view.seats if s.stack > 0)
        if with_chips < 2:
            return Text("Waiting for players: a hand starts when two sit with chips.")
        return Text("Waiting for the next hand.")
    return Text("Dealing...")


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


def hand_state(view: table_pb2.TableView) -> str:
    """The title's state: ``"4th street"``, ``"round 2 · draw"``, or ``"over"``."""
    if not view.hand_in_progress:
        return "over"
    if not view.street and view.phase in ("", "bet"):
        return "dealing"
    game = view.game or view.variant
    state = street_name(view.street, game) if view.street else ""
    if view.phase and view.phase != "bet":
        state = f"{state} · {phase_name(view.phase)}" if state else phase_name(view.phase)
    return state


def game_line(view: table_pb2.TableView) -> Text | None:
    """The dealer's choice line: the game and its options (or who is choosing it), the dealer."""
    if view.variant != DEALERS_CHOICE and not view.dealer:
        return None
    dealer = _who(view, view.dealer) if view.dealer else ""
    if view.choosing_game:
        who = "You are" if view.dealer == view.viewer_seat else f"{dealer} is"
        return Text(f"{who} choosing the game (dealer, seat {view.dealer}).", style="bold yellow")
    if not view.game:
        return None
    line = Text("Game: ", style="bold").append(variant_name(view.game), style="bold")
    options = dict(view.game_options.items()) if view.HasField("game_options") else {}
    chosen = _changed_options(view.game, options)
    if chosen:
        line.append(f" ({chosen})")
    if dealer:
        line.append(f" · dealer {dealer}")
    return line


def _changed_options(game: str, options: dict[str, Any]) -> str:
    """The options that differ from the game's defaults, as ``"draws 2"``."""
    specs = {spec.name: spec.default for spec in (GAMES[game].specs if game in GAMES else ())}
    out = []
    for key, value in options.items():
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # a Struct holds numbers as doubles
        if key in specs and value != specs[key]:
            out.append(f"{key} {_show(value)}")
    return ", ".join(out)


def declaration_text(view: table_pb2.TableView, seat: table_pb2.SeatView) -> Text:
    """``declared`` while sealed, the declaration once revealed; your own, marked sealed."""
    if not seat.declaration:
        return Text("declared", style="magenta") if seat.declared else Text("")
    sealed = any(
        s.declared and not s.declaration for s in view.seats if s.seat != seat.seat
    ) or any(s.in_hand and not s.folded and not s.declared for s in view.seats)
    if seat.seat == view.viewer_seat and sealed:
        return Text(f"{seat.declaration} (sealed)", style="bold magenta")
    return Text(seat.declaration, style="bold magenta")


def table_panel(view: table_pb2.TableView, recent: Sequence[str] = (), player: str = "") -> Panel:
    """The whole table as the viewer may see it, with the last few actions.

    ``player`` (the viewer's id) marks their row; without it, the view's ``viewer_seat`` does.
    """
    grid = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    grid.add_column("", width=1)
    grid.add_column("Seat", justify="right")
    grid.add_column("Player")
    grid.add_column("Stack", justify="right")
    grid.add_column("Bet", justify="right")
    grid.add_column("Cards")
    declaring = any(s.declared or s.declaration for s in view.seats)
    if declaring:
        grid.add_column("Declared")
    grid.add_column("")
    for s in view.seats:
        mine = s.player == player if player else s.seat == view.viewer_seat
        marks = []
        if s.folded:
            marks.append("folded")
        if s.all_in:
            marks.append("all in")
        if view.hand_in_progress and not s.in_hand:
            marks.append("sitting out")
        dealer = view.dealer or view.button  # dealer's choice: the dealer, else the button
        seat_label = f"{s.seat} D" if s.seat == dealer else str(s.seat)
        acting = s.seat == view.to_act or (len(view.waiting_for) > 1 and s.seat in view.waiting_for)
        row: list[Any] = [
            Text("▶", style="bold yellow") if acting else "",
            seat_label,
            Text(f"{s.player} (you)" if mine else s.player, style="bold cyan" if mine else ""),
            money(s.stack),
            money(s.street_bet) if s.street_bet else "",
            cards_text(s.cards) if s.cards else Text("—" if s.folded else "", style="grey50"),
        ]
        if declaring:
            row.append(declaration_text(view, s))
        row.append(Text(", ".join(marks), style="grey50"))
        grid.add_row(*row)
    title = Text(f"{view.name} ({view.table_id})", style="bold")
    if view.hand_id:
        title.append(f" · hand {view.hand_id} · {hand_state(view)}")
    parts: list[Text] = []
    if view.hand_in_progress:  # between hands the pot is empty: the narration told who won it
        parts.append(Text(f"Pot {money(view.pot)}", style="bold green"))
    if view.carried_pot:
        parts.append(Text(f"Riding pot {money(view.carried_pot)}", style="bold magenta"))
    if view.wild_cards:
        parts.append(Text(f"Wild: {wild_text(view.wild_cards)}", style="bold magenta"))
    if view.table_cards:
        parts.append(
            Text("Table cards: ").append_text(
                Text(" ").join(card_text(c) for c in view.table_cards)
            )
        )
    if view.community:
        parts.append(
            Text("community card ").append_text(
                Text(" ").join(card_text(c) for c in view.community)
            )
        )
    if any(not c.face_up and c.card for s in view.seats for c in s.cards):
        parts.append(Text("[x] face down, ░░ hidden", style="grey50"))
    lines: list[Text | Table] = [grid, Text()]
    game = game_line(view)
    if game is not None:
        lines.append(game)
    if parts:
        lines.append(Text("   ").join(parts))
    if recent:
        lines.append(Text("Last: " + " · ".join(recent), style="grey70"))
    lines.append(turn_line(view))
    subtitle = f"{variant_name(view.variant)} {stakes(view.options)}"
    return Panel(Group(*lines), title=title, subtitle=subtitle, expand=False)


def lobby_table(tables: Sequence[lobby_pb2.LobbyTable], me: str = "") -> Table:
    """The tables of the lobby, numbered for ``j 1 40``."""
    grid = Table(header_style="bold", title="Tables", box=box.SIMPLE_HEAD, pad_edge=False)
    # Money never wraps; an id folds rather than lose characters (people type ids).
    grid.add_column("#", justify="right", no_wrap=True)
    grid.add_column("Table", overflow="fold")
    grid.add_column("Game")
    grid.add_column("Buy-in", no_wrap=True)
    grid.add_column("Seats", justify="right", no_wrap=True)
    grid.add_column("Players")
    for n, t in enumerate(tables, 1):
        players = "\n".join(
            f"{p.player} {money(p.stack)}" + (" (you)" if p.player == me else "") for p in t.seats
        )
        grid.add_row(
            str(n),
            Text(t.table_id, style="bold").append(f"\n{t.name}", style="default"),
            f"{SHORT_VARIANTS.get(t.variant, variant_name(t.variant))}\n"
            f"{money(t.small_bet)}/{money(t.big_bet)}",
            f"{money(t.min_buy_in)}-{money(t.max_buy_in)}",
            f"{len(t.seats)}/{t.max_players}",
            players,
        )
    return grid


# --- what happened ---------------------------------------------------------------------------

_PHASE_TITLES = {
    "draw": "Draw",
    "discard": "Discard",
    "pass": "Pass to the left",
    "order": "Order your cards to roll",
    "expose": "Expose a card",
    "offer": "Card offers: take or stand",
    "declare": "Declare",
    "match": "Match the pot or fold",
}

_VERBS = {
    # action: (second person, third person)
    "bring_in": ("bring in for", "brings in for"),
    "complete": ("complete to", "completes to"),
    "bet": ("bet", "bets"),
    "raise": ("raise to", "raises to"),
    "call": ("call", "calls"),
    "check": ("check", "checks"),
    "fold": ("fold", "folds"),
}


@dataclass
class Digest:
    """What one watch update meant for the screen."""

    lines: list[Text] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    new_hand: bool = False
    new_street: bool = False
    showdown: bool = False
    hand_ended: bool = False
    left_with: int | None = None  # the viewer stood up with this stack


class Narrator:
    """Sentences for the events of watch updates, from one player's seat (or an observer's).

    It remembers who sits where and each stack at the start of the hand, so the end of a hand
    can say what the viewer won or lost.
    """

    def __init__(self, player: str) -> None:
        self.player = player
        self.seat = 0
        self.names: dict[int, str] = {}
        self.start: dict[int, int] = {}
        self.variant = ""
        self.phase = ""  # the hand's phase: a draw's discards are told as draws
        #: The hand's game options (Chicago's high or low spade half names its half).
        self.game_options: dict[str, Any] = {}

    def _me(self, seat: int) -> bool:
        return seat != 0 and seat == self.seat

    def _subject(self, seat: int) -> str:
        return "You" if self._me(seat) else self.names.get(seat, f"seat {seat}")

    def _verb(self, seat: int, you: str, they: str) -> str:
        return f"{self._subject(seat)} {you if self._me(seat) else they}"

    def _name(self, seat: int) -> str:
        return "you" if self._me(seat) else self.names.get(seat, f"seat {seat}")

    def feed(
        self,
        events: Sequence[events_pb2.EventEnvelope],
        view: table_pb2.TableView | None = None,
    ) -> Digest:
        """Narrate one update's events; ``view`` (the view after them) fills in names."""
        if view is not None:
            self.variant = self.variant or view.variant  # joined mid-hand: no HandStarted seen
            if not self.game_options and view.HasField("game_options"):
                self.game_options = dict(view.game_options.items())
            for s in view.seats:
                self.names[s.seat] = s.player
            # By name: a view's viewer_seat can still name the seat of a hand just left.
            seat = next((s.seat for s in view.seats if s.player == self.player), 0)
            if seat:
                self.seat = seat
        digest = Digest()
        antes: list[tuple[int, int]] = []
        for env in events:
            kind = env.WhichOneof("payload")
            if kind != "ante_posted" and antes:
                digest.lines.append(self._antes(antes))
                antes = []
            if kind is None:
                continue
            self._event(kind, getattr(env, kind), digest, antes, clock=env.actor == "clock")
        if antes:
            digest.lines.append(self._antes(antes))
        return digest

    def _antes(self, antes: list[tuple[int, int]]) -> Text:
        if len(antes) == 1:
            seat, amount = antes[0]
            return Text(f"{self._verb(seat, 'ante', 'antes')} {money(amount)}.", style="grey70")
        amounts = {a for _, a in antes}
        if len(amounts) == 1:
            return Text(f"Antes: {money(amounts.pop())} each.", style="grey70")
        return Text(
            "Antes: " + ", ".join(f"{self._name(s)} {money(a)}" for s, a in antes) + ".",
            style="grey70",
        )

    def _event(
        self,
        kind: str,
        m: object,
        digest: Digest,
        antes: list[tuple[int, int]],
        *,
        clock: bool = False,
    ) -> None:
        add = digest.lines.append
        match kind:
            case "player_seated":
                assert isinstance(m, events_pb2.PlayerSeated)
                self.names[m.seat] = m.player
                if m.player == self.player:
                    self.seat = m.seat
                add(
                    Text(
                        f"{self._verb(m.seat, 'sit', 'sits')} down in seat {m.seat} "
                        f"with {money(m.stack)}."
                    )
                )
            case "leave_requested":
                assert isinstance(m, events_pb2.LeaveRequested)
                add(Text(f"{self._subject(m.seat)} will leave when this hand ends."))
            case "player_left":
                assert isinstance(m, events_pb2.PlayerLeft)
                if m.player == self.player:
                    digest.left_with = m.stack
                    add(
                        Text(
                            f"You stood up with {money(m.stack)}; it goes back to your wallet.",
                            style="bold",
                        )
                    )
                    self.seat = 0
                else:
                    add(Text(f"{m.player} left with {money(m.stack)}."))
                self.names.pop(m.seat, None)
            case "hand_started":
                assert isinstance(m, events_pb2.HandStarted)
                self.names.update({s.seat: s.player for s in m.seats})
                self.start = {s.seat: s.stack for s in m.seats}
                self.variant = m.variant
                self.game_options = {}
                for s in m.seats:
                    if s.player == self.player:
                        self.seat = s.seat
                digest.new_hand = True
                add(Text(f"── Hand {m.hand_id} ──", style="bold"))
            case "ante_posted":
                assert isinstance(m, events_pb2.AntePosted)
                antes.append((m.seat, m.amount))
            case "community_card_dealt":
                assert isinstance(m, events_pb2.CommunityCardDealt)
                add(Text("Community card: ").append_text(card_text(m.card)))
            case "betting_round_started":
                assert isinstance(m, events_pb2.BettingRoundStarted)
                digest.new_street = True
                self.phase = "bet"
                add(Text(f"── {street_name(m.street, self.variant)} ──", style="bold"))
            case "action_taken":
                assert isinstance(m, events_pb2.ActionTaken)
                you, they = _VERBS.get(m.action, (m.action, m.action + "s"))
                amount = {"check": "", "fold": "", "call": f" {money(m.amount)}"}.get(
                    m.action, f" {money(m.to)}"
                )
                text = f"{self._verb(m.seat, you, they)}{amount}"
                if m.all_in:
                    text += f" and {'are' if self._me(m.seat) else 'is'} all in"
                if clock:  # the action clock ran out and acted for the player
                    text += " (out of time)"
                digest.actions.append(text)
                add(Text(text + ".", style="bold cyan" if self._me(m.seat) else ""))
            case "uncalled_bet_returned":
                assert isinstance(m, events_pb2.UncalledBetReturned)
                add(Text(f"Uncalled {money(m.amount)} goes back to {self._name(m.seat)}."))
            case "hand_shown":
                assert isinstance(m, events_pb2.HandShown)
                digest.showdown = True
                line = Text(f"{self._verb(m.seat, 'show', 'shows')} ")
                line.append_text(Text(" ").join(card_text(c) for c in m.cards))
                # Each half by its name: Chicago's spade half is no "low" (shown_hand).
                line.append(f": {shown_hand(self.variant, m.high_text, m.low_text or None)}")
                add(line)
            case "rake_taken":
                assert isinstance(m, events_pb2.RakeTaken)
                if m.amount:
                    add(Text(f"Rake {money(m.amount)}.", style="grey70"))
            case "pot_awarded":
                assert isinstance(m, events_pb2.PotAwarded)
                add(self._pot(m))
            case "hand_ended":
                assert isinstance(m, events_pb2.HandEnded)
                digest.hand_ended = True
                add(self._result(m))
            case "hand_voided":
                assert isinstance(m, events_pb2.HandVoided)
                digest.hand_ended = True
                add(Text(f"Hand {m.hand_id} was voided ({m.reason}); every bet went back."))
            case "game_options_set":
                assert isinstance(m, events_pb2.GameOptionsSet)
                self.game_options = json.loads(m.options_json or "{}")
            case _:
                # table_created, hand_committed, card_dealt: the table shows them; the dealer's
                # choice events are told by _dealers_choice.
                self._dealers_choice(kind, m, digest)

    def _cards(self, cards: Sequence[str]) -> Text:
        return Text(" ").join(card_text(c) for c in cards)

    def _count(self, cards: Sequence[str]) -> str:
        return "1 card" if len(cards) == 1 else f"{len(cards)} cards"

    def _dealers_choice(self, kind: str, m: Any, digest: Digest) -> None:
        """Sentences for the dealer's choice events (cards only where the event shows them)."""
        add = digest.lines.append
        mine = self._me(getattr(m, "seat", 0))
        match kind:
            case "dealer_up":
                if m.redeal:
                    add(
                        Text(
                            f"The pot rides: {self._name(m.seat)} deals {variant_name(m.game)} "
                            "again.",
                            style="bold",
                        )
                    )
                else:
                    add(
                        Text(
                            f"{self._verb(m.seat, 'deal', 'deals')} next and "
                            f"{'choose' if mine else 'chooses'} the game."
                        )
                    )
            case "game_chosen":
                chosen = _changed_options(m.game, json.loads(m.options_json or "{}"))
                text = f"{self._verb(m.seat, 'choose', 'chooses')} {variant_name(m.game)}"
                text += f" ({chosen})" if chosen else ""
                if m.by_clock:
                    text += " (out of time: the table's default)"
                add(Text(text + ".", style="bold"))
            case "pot_carried_in":
                add(Text(f"The riding pot of {money(m.amount)} joins this deal.", style="bold"))
            case "phase_started":
                self.phase = m.phase
                digest.new_street = True
                add(Text(f"── {_PHASE_TITLES.get(m.phase, m.phase)} ──", style="bold"))
            case "cards_discarded":
                shown = [c for c in m.cards if c]
                if self.phase == "draw":
                    if not m.cards:
                        add(Text(f"{self._verb(m.seat, 'stand', 'stands')} pat."))
                    elif shown:  # our own draw: the cards thrown away
                        add(
                            Text("You throw away ")
                            .append_text(self._cards(shown))
                            .append(f" and draw {len(shown)}.", style="")
                        )
                    else:
                        add(Text(f"{self._verb(m.seat, 'draw', 'draws')} {self._count(m.cards)}."))
                else:
                    add(self._said(m.seat, "discard", "discards", m.cards))
            case "cards_to_pass":
                add(self._said(m.seat, "put down", "puts down", m.cards, " to pass"))
            case "cards_passed":
                who, to = self._subject(m.seat), self._name(m.to_seat)
                shown = [c for c in m.cards if c]
                line = Text(f"{who} {'pass' if mine else 'passes'} {self._count(m.cards)} to {to}")
                if shown:  # the giver and the receiver see the cards, nobody else
                    line.append(": ").append_text(self._cards(shown))
                add(line.append("."))
            case "cards_ordered":
                add(self._said(m.seat, "stack", "stacks", m.cards, " to roll"))
            case "card_turned_up":
                add(
                    Text(f"{self._verb(m.seat, 'turn', 'turns')} up ")
                    .append_text(card_text(m.card))
                    .append(".")
                )
            case "offer_answered":
                took = ("take", "takes") if m.took else ("stand", "stands")
                add(Text(f"{self._verb(m.seat, *took)}{' the card' if m.took else ''}."))
            case "declaration_sealed":
                if mine and m.choice:
                    add(
                        Text(
                            f"You declare {m.choice} (sealed until everyone has).",
                            style="bold cyan",
                        )
                    )
                else:
                    add(Text(f"{self._subject(m.seat)} declares (sealed)."))
            case "declarations_revealed":
                digest.showdown = True
                said = ", ".join(f"{self._name(d.seat)} {d.choice}" for d in m.declarations)
                add(Text(f"Declarations: {said}.", style="bold"))
            case "card_payment_posted":
                add(
                    Text(f"{self._verb(m.seat, 'pay', 'pays')} {money(m.amount)} for the ")
                    .append_text(card_text(m.card))
                    .append(" (dead money).")
                )
            case "wild_rank_changed":
                if m.HasField("rank"):
                    rank = "23456789TJQKA"[m.rank]
                    add(Text(f"Wild now: {RANK_NAMES[rank]}.", style="bold magenta"))
                elif m.awaiting:
                    add(
                        Text(
                            "A queen fell: the next face-up card's rank goes wild.", style="magenta"
                        )
                    )
                else:
                    add(Text("No rank follows the queen now.", style="magenta"))
            case "match_due":
                add(
                    Text(
                        f"{self._subject(m.seat)} must match the pot ({money(m.amount)}) or fold.",
                        style="bold" if mine else "",
                    )
                )
            case "pot_matched":
                add(
                    Text(
                        f"{self._verb(m.seat, 'match', 'matches')} the pot with {money(m.amount)}."
                    )
                )
            case "match_declined":
                add(
                    Text(
                        f"{self._verb(m.seat, 'do not match', 'does not match')} and "
                        f"{'fold' if mine else 'folds'}."
                    )
                )
            case "table_row_dealt":
                add(Text(f"{m.count} table cards dealt face down."))
            case "table_card_turned":
                line = Text("Table card: ").append_text(card_text(m.card))
                add(line.append(" (from the stock)." if m.from_stock else "."))
            case "rank_eliminated":
                rank = "23456789TJQKA"[m.rank]
                add(Text(f"{RANK_NAMES[rank].capitalize()} are eliminated.", style="bold"))
            case "cards_eliminated":
                add(
                    Text(f"{self._verb(m.seat, 'throw', 'throws')} away ")
                    .append_text(self._cards(m.cards))
                    .append(".")
                )
            case "reshuffle_requested":
                add(Text("The stub ran out: the dealer reshuffles the earlier discards."))
            case "discards_reshuffled":
                add(Text(f"{m.count} discards reshuffled into a new stub."))
            case "pot_carried_over":
                add(
                    Text(
                        f"Nobody wins: the pot of {money(m.amount)} rides to the next deal.",
                        style="bold magenta",
                    )
                )
            case _:
                pass

    def _said(
        self, seat: int, you: str, they: str, cards: Sequence[str], tail: str = "", end: str = ""
    ) -> Text:
        """``"You discard 7♣ 2♦."`` for the viewer, ``"bot discards 2 cards."`` for others:
        someone else's hidden cards arrive as ``""`` and are only counted."""
        shown = [c for c in cards if c]
        line = Text(f"{self._verb(seat, you, they)} ")
        if shown and len(shown) == len(cards):
            line.append_text(self._cards(shown))
        else:
            line.append(self._count(cards))
        return line.append(f"{tail}{end}.")

    def _halves(self) -> tuple[str, str]:
        """The pot's halves by name: high and low, Chicago's high hand and spade, 15-35's..."""
        return half_names(self.variant, self.game_options)

    def _pot(self, m: events_pb2.PotAwarded) -> Text:
        label = "main pot" if m.pot == 0 else f"side pot {m.pot}"
        if len(m.shares) == 1:
            seat = m.shares[0].seat
            how = ""
            if m.high_winners and m.low_winners and seat in m.low_winners:
                how = f" ({' and '.join(self._halves())})"
            text = f"{self._verb(seat, 'win', 'wins')} the {label} of {money(m.amount)}{how}."
            return Text(text, style="bold green" if self._me(seat) else "bold")
        parts = []
        for share in m.shares:
            halves = [
                h
                for h, winners in zip(self._halves(), (m.high_winners, m.low_winners), strict=True)
                if share.seat in winners
            ]
            parts.append(f"{self._name(share.seat)} {money(share.amount)} ({' and '.join(halves)})")
        return Text(f"{label.capitalize()} of {money(m.amount)} split: {', '.join(parts)}.")

    def _result(self, m: events_pb2.HandEnded) -> Text:
        stacks = ", ".join(f"{self._name(s.seat)} {money(s.amount)}" for s in m.stacks)
        mine = next((s.amount for s in m.stacks if self._me(s.seat)), None)
        if mine is None or self.seat not in self.start:
            return Text(f"Hand over. Stacks: {stacks}.", style="bold")
        net = mine - self.start[self.seat]
        if net > 0:
            verdict, style = f"You won {money(net)}", "bold green"
        elif net < 0:
            verdict, style = f"You lost {money(-net)}", "bold red"
        else:
            verdict, style = "You broke even", "bold"
        return Text(f"Hand over. {verdict}. Stacks: {stacks}.", style=style)
