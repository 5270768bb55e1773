"""Every game, registered under its stable variant name: Pacific stud (``pacific.py``) and
the dealer's choice games, all played by the one hand state machine (flow, phases).

>>> sorted(GAMES)[:3]
['anaconda', 'chicago', 'deuces_jacks_axe']
>>> DEALERS_CHOICE[-1]
'seven_card_stud_hi_lo'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from riverboat.engine.betting import LegalAction
from riverboat.engine.errors import InvalidCommand, InvalidOptions
from riverboat.engine.flow import Game
from riverboat.engine.game_options import NO_OPTIONS, RULE_BOOK, GameOptions
from riverboat.engine.games.anaconda import Anaconda
from riverboat.engine.games.chicago import Chicago
from riverboat.engine.games.deuces_jacks_axe import DeucesJacksAxe
from riverboat.engine.games.draw import Draw
from riverboat.engine.games.elimination import Elimination
from riverboat.engine.games.fifteen_thirty_five import FifteenThirtyFive
from riverboat.engine.games.follow_the_queen import FollowTheQueen
from riverboat.engine.games.pacific import PACIFIC
from riverboat.engine.games.seven_twenty_seven import SevenTwentySeven
from riverboat.engine.games.woolworth import Woolworth
from riverboat.engine.phases import legal_moves
from riverboat.engine.state import BET, STUD_VARIANT, HandState

GAMES: Final[dict[str, Game]] = {
    game.name: game
    for game in (
        Draw(),
        Anaconda(),
        Chicago(),
        DeucesJacksAxe(),
        Elimination(),
        FifteenThirtyFive(),
        SevenTwentySeven(),
        FollowTheQueen(),
        Woolworth(),
    )
}

#: The games a dealer's choice table offers, in the rule book's order, Pacific stud last.
DEALERS_CHOICE: Final = (*GAMES, STUD_VARIANT)

__all__ = [
    "ALL_GAMES",
    "DEALERS_CHOICE",
    "GAMES",
    "game_for",
    "game_options",
    "half_names",
    "legal_actions",
    "moves",
    "shown_hand",
    "waiting_for",
]


#: Every game the engine plays, Pacific stud first: all on one state machine (flow, phases).
ALL_GAMES: Final[dict[str, Game]] = {PACIFIC.name: PACIFIC, **GAMES}


def game_for(variant: str) -> Game:
    """The game named ``variant`` (Pacific stud or a dealer's choice game)."""
    game = ALL_GAMES.get(variant)
    if game is None:
        known = ", ".join((*DEALERS_CHOICE,))
        raise InvalidCommand(f"unknown variant {variant!r}; known: {known}", rule="unknown_variant")
    return game


def game_options(
    variant: str, *layers: Mapping[str, Any] | None, edition: int = RULE_BOOK
) -> GameOptions:
    """A game's options resolved from its defaults (those of rule-book ``edition``) and
    ``layers`` of overrides. Pacific stud takes no game options (its rules are table options)."""
    game = game_for(variant)
    if not game.takes_options:
        if any(layers):
            raise InvalidOptions(f"{variant} takes no game options (table options only)")
        return NO_OPTIONS
    return game.resolve(*layers, edition=edition)


def half_names(variant: str, options: Mapping[str, Any] | None = None) -> tuple[str, str]:
    """What a pot's two halves are called where a player reads them: (high half, low half).

    >>> half_names("chicago", {"chicago": "low"})
    ('high hand', 'low spade')
    >>> half_names("seven_card_stud_hi_lo"), half_names("fifteen_thirty_five")
    (('high', 'low'), ('35', '15'))
    """
    options = options or {}
    if variant == "chicago":
        return "high hand", f"{options.get('chicago', 'high')} spade"
    return _HALVES.get(variant, ("high", "low"))


#: The games whose halves are not simply high and low.
_HALVES: Final = {
    "fifteen_thirty_five": ("35", "15"),
    "seven_twenty_seven": ("27", "7"),
    "elimination": ("high total", "low total"),
}
#: The games whose low text names its half itself ("high spade in the hole, As", "15 for 15").
_SELF_NAMED: Final = frozenset({"chicago", *_HALVES})


def shown_hand(variant: str, high_text: str, low_text: str | None) -> str:
    """A shown hand's texts as one phrase: ``"tens full; low 6-4-3-2-A"``; the spade half of
    Chicago, the totals of 15-35, 7-27 and Elimination speak for themselves; stud hi/lo says
    when there is no qualifying low.

    >>> shown_hand("seven_card_stud_hi_lo", "a pair of kings", None)
    'a pair of kings; no low'
    >>> shown_hand("chicago", "three queens", "low spade in the hole, 2s")
    'three queens; low spade in the hole, 2s'
    """
    if low_text:
        return (
            f"{high_text}; {low_text}" if variant in _SELF_NAMED else f"{high_text}; low {low_text}"
        )
    return f"{high_text}; no low" if variant == STUD_VARIANT else high_text


def legal_actions(state: HandState) -> list[LegalAction]:
    """What the player to act may do, in any game (in a dealer's choice game: betting rounds
    and the phases played in turn: draw, expose, take or stand, match; :func:`moves` answers
    for the simultaneous phases)."""
    if state.to_act is None:
        return []
    return moves(state, state.seats[state.to_act])


def moves(state: HandState, seat: int) -> list[LegalAction]:
    """What ``seat`` may do now, in any game (simultaneous phases included)."""
    return legal_moves(game_for(state.variant), state, seat)


def waiting_for(state: HandState) -> tuple[int, ...]:
    """The seats that must act before the hand can go on (several in a simultaneous phase;
    none while the dealer reshuffles or once the hand is over)."""
    if state.finished:
        return ()
    if state.phase != BET and state.simultaneous:
        return tuple(seat for seat, p in zip(state.seats, state.pending, strict=True) if p)
    return () if state.to_act is None else (state.seats[state.to_act],)
