"""What ``riverboat play`` understands: a typed command checked against the view's legal moves.

:func:`choose_action` maps a betting command (``c``, ``r 4``, ``f`` ...) to an ``Act``
request's action and amount; :func:`choose_move` maps any command (``g draw draws=2``,
``d Qh 7c``, ``dec low``, ``a ACTION ...``) to a whole :class:`~riverboat.client.Move`, or
explains in a sentence (:class:`ActionError`) why it cannot be done now.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from riverboat.cli.clientkit import AmountError, money, parse_amount
from riverboat.cli.play.text import (
    BETTING,
    CARD_ACTIONS,
    SUITS,
    VARIANTS,
    card_label,
    cards_count,
    choices,
    choices_line,
    my_seat,
    owes_move,
    seat_name,
)
from riverboat.client import Move
from riverboat.engine.games import GAMES
from riverboat.handtext import RANK_NAMES
from riverboat.v1 import table_pb2

# What each command does, for ``h`` (drawn by :func:`riverboat.cli.play.render.help_table`).
HELP = [
    ("t", "list the tables"),
    ("j TABLE [BUY-IN]", "buy in and sit down (TABLE: its number in the list or its id)"),
    ("w TABLE", "watch a table without sitting down"),
    ("wait TABLE", "join a full table's waiting list (unwait TABLE leaves it)"),
    ("c", "check, or call when there is a bet"),
    ("b / r [TO]", "bet or raise (or complete); TO is a street total, e.g. r 4"),
    ("i", "bring in"),
    ("k", "complete the bring-in to a full bet"),
    ("f", "fold"),
    ("", "Dealer's choice (your turn line lists the moves you have now):"),
    ("g GAME [OPT=VALUE ...]", "as dealer, choose the game and options (g alone lists games)"),
    ("g GAME limits=S/B", "... and declare the deal's limits: small bet S, big bet B (e.g. 3/6)"),
    ("g GAME ?", "a game's options: their defaults and the values they take"),
    ("d CARDS", "draw or discard those cards (d alone stands pat when you may)"),
    ("p CARDS", "pass those cards to the left"),
    ("o CARDS", "order all your cards, the first to turn up first"),
    ("x CARD", "expose a face-down card"),
    ("take / stand", "take the card offered, or stand"),
    ("m", "match the pot (f folds)"),
    ("dec low|high|both", "declare (Chicago: spade|high|both; 1, 2 or 3 coins work too)"),
    ("a ACTION [ARGS]", "any move the table lists, by its name (a draw 1 4)"),
    ("", "CARDS: as typed (Qh 7c, 10h, Q♥) or their positions on the Your cards line (1 4)."),
    ("s  (or Enter)", "show the table again"),
    ("so / si", "sit out from the next hand (dealt out, no antes owed) / sit in again"),
    ("l", "leave the table with your chips (after the hand if you are in one)"),
    ("bal", "your wallet"),
    ("hands [N]", "your last N hands at this table (5 unless said)"),
    ("hand N", "one of them as you saw it (N: the hand's number, #N in hands, or its id)"),
    ("h", "this help"),
    ("q", "quit"),
]

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


# --- actions ---------------------------------------------------------------------------------


class ActionError(ValueError):
    """A command that cannot be sent now; the message is a sentence for the player."""


def _owes(view: table_pb2.TableView) -> None:
    """:class:`ActionError` unless the viewer sits here and the view waits for their move."""
    if my_seat(view) is None:
        raise ActionError("You do not sit at this table.")
    if owes_move(view):
        return
    if view.choosing_game and view.dealer:
        raise ActionError(
            f"It is not your turn: {seat_name(view, view.dealer)} is choosing the game."
        )
    raise ActionError("It is not your turn.")


def _cannot(what: str, view: table_pb2.TableView) -> ActionError:
    """``"You cannot bet or raise now; you may: c call $0.75 · f fold."``"""
    return ActionError(f"You cannot {what} now; you may: {choices_line(view)}.")


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
            raise _cannot(what, view)
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
        game, options, limits = parse_game(args, legal)
        small, big = limits
        return Move(action, choice=game, options=options or None, small_bet=small, big_bet=big)
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
        raise ActionError(f"You {verb} {cards_count(legal)} (you named {len(cards)}).")
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


def parse_game(
    words: Sequence[str], legal: table_pb2.LegalAction
) -> tuple[str, dict[str, Any], tuple[int, int]]:
    """``draw draws=2 limits=3/6`` -> ``("draw", {"draws": 2}, (300, 600))``: a game offered
    (its name, a unique start of it, or its number in the list), options it has with values it
    allows, and the limits the dealer declares for the deal (``(0, 0)``: the table's), within
    the bounds the view lists (the choose_game action's ``to``)."""
    offered = list(legal.choices)
    if not words:
        raise ActionError(f"Name the game: {', '.join(offered)} (g alone lists them).")
    name = words[0].lower()
    matches = [g for g in offered if g == name] or [g for g in offered if g.startswith(name)]
    if name.isdigit() and 1 <= int(name) <= len(offered):
        matches = [offered[int(name) - 1]]
    if len(matches) != 1:
        raise ActionError(f"Choose one of {', '.join(offered)}; {words[0]!r} is not one.")
    game = matches[0]
    specs = {spec.name: spec for spec in (GAMES[game].specs if game in GAMES else ())}
    options: dict[str, Any] = {}
    limits = (0, 0)
    for word in words[1:]:
        key, eq, text = word.partition("=")
        if not eq:
            raise ActionError(f"Options are key=value (for example: g draw draws=2); not {word!r}.")
        if key == LIMITS:
            limits = parse_limits(text, legal)
            continue
        spec = specs.get(key)
        if spec is None:
            names = ", ".join(specs) or "none"
            raise ActionError(
                f"{VARIANTS.get(game, game)} has no option {key!r} (options: {names}; and "
                f"{LIMITS}=SMALL/BIG for the deal's limits)."
            )
        value = _option_value(text, spec.allowed)
        problem = spec.check(value)
        if problem is not None:
            raise ActionError(f"In {VARIANTS.get(game, game)}, {problem}.")
        options[key] = value
    return game, options, limits


#: The ``g`` word declaring the deal's limits (no game has an option of that name).
LIMITS = "limits"


def limit_bounds(legal: table_pb2.LegalAction) -> str:
    """The limits a dealer may declare here, from the choose_game action's ``to``:
    ``"small bet $2.00, big bet $5.00"`` or ``"small bet $1.00 to $3.00, big bet ..."``."""
    if len(legal.to) != 4:
        return "the table's own"
    low_s, high_s, low_b, high_b = legal.to

    def span(low: int, high: int) -> str:
        return money(low) if low == high else f"{money(low)} to {money(high)}"

    return f"small bet {span(low_s, high_s)}, big bet {span(low_b, high_b)}"


def parse_limits(text: str, legal: table_pb2.LegalAction) -> tuple[int, int]:
    """``"3/6"`` or ``"$3/$6"`` -> ``(300, 600)``: the small bet and the big bet (the last
    round's) a dealer declares, within the table's bounds (a refusal names them)."""
    small_text, slash, big_text = text.partition("/")
    if not slash:
        raise ActionError(f"Limits are SMALL/BIG, e.g. {LIMITS}=3/6; not {text!r}.")
    try:
        small, big = parse_amount(small_text), parse_amount(big_text)
    except AmountError as exc:
        raise ActionError(f"Limits are SMALL/BIG, e.g. {LIMITS}=3/6: {exc}") from None
    if len(legal.to) == 4:
        low_s, high_s, low_b, high_b = legal.to
        if not (low_s <= small <= high_s and low_b <= big <= high_b and small <= big):
            raise ActionError(
                f"This table lets the dealer declare {limit_bounds(legal)} (the big bet at "
                f"least the small); not {money(small)}/{money(big)}."
            )
    return small, big


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
        raise _cannot(wanted.get(key or "", word), view)
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
