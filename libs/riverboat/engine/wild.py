"""Wild cards of the dealer's choice games and their special hands.

The evaluation itself (a wild card stands for any card not in the hand, five of a kind on
top, the highest missing card in a flush, the lowest missing rank in a low) lives in
:mod:`riverboat.engine.evaluation`; this module says which cards are wild in each game and
ranks the special hands on top of it.

>>> from riverboat.engine.cards import parse_card, parse_cards
>>> [axe_wild(parse_card(c)) for c in ("2c", "Jh", "Kd", "Ks", "7s")]
[True, True, True, False, False]
>>> describe(special_high(parse_cards("7c 7d 3h 4s 9c Kh 2c"), axe_wild, sevens=True))
'natural pair of sevens'
>>> describe(special_high(parse_cards("Ac Ad Ah As 2c"), axe_wild, sevens=True))
'five of a kind, aces'
>>> natural_pair_of_sevens(parse_cards("7c 7d 3h")), natural_pair_of_sevens(parse_cards("7c 2d"))
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from riverboat.engine.cards import DIAMONDS, Card, make_card, rank_of
from riverboat.engine.evaluation import WildPredicate, board_value, describe_high, high_value

DEUCE: Final = 0
FIVE: Final = 3
SEVEN: Final = 5
TEN: Final = 8
JACK: Final = 9
QUEEN: Final = 10
KING: Final = 11
#: The man with the axe: the king of diamonds (the only king in profile, holding an axe).
KING_OF_DIAMONDS: Final = make_card(KING, DIAMONDS)

#: A natural pair of sevens ranks above every other hand, five aces included: category 10,
#: one above five of a kind in the layout of :mod:`riverboat.engine.evaluation`.
NATURAL_SEVENS: Final = 10 << 24

#: ``natural_beats_wild``: high values are doubled and a natural hand adds one.
_NATURAL_BIT: Final = 1


def axe_wild(card: Card) -> bool:
    """Deuces & Jacks & the Man with the Axe: every 2, every jack and the king of diamonds."""
    rank = rank_of(card)
    return rank in (DEUCE, JACK) or card == KING_OF_DIAMONDS


def woolworth_wild(card: Card) -> bool:
    """Woolworth: fives and tens."""
    rank = rank_of(card)
    return rank in (FIVE, TEN)


def queens_and(rank: int | None) -> WildPredicate:
    """Follow the Queen: queens, and ``rank`` (the rank that followed the last face-up queen)."""
    if rank is None:
        return lambda card: rank_of(card) == QUEEN
    return lambda card: rank_of(card) == QUEEN or rank_of(card) == rank


def natural_pair_of_sevens(cards: Sequence[Card]) -> bool:
    """Two real sevens among ``cards`` (sevens are never wild in the games that use this)."""
    return sum(1 for card in cards if rank_of(card) == SEVEN) >= 2


def special_high(
    cards: Sequence[Card],
    wild: WildPredicate | None,
    *,
    sevens: bool = False,
    natural_beats_wild: bool = False,
) -> int:
    """The high key of ``cards`` (higher is better) with a game's special rules.

    ``sevens``: a natural pair of sevens beats everything (:data:`NATURAL_SEVENS`; two such
    hands tie). ``natural_beats_wild``: of two equal hands the one that needs no wild card
    wins (the key is doubled, plus one for a natural hand). Read it back with
    :func:`describe`.
    """
    value = NATURAL_SEVENS if sevens and natural_pair_of_sevens(cards) else high_value(cards, wild)
    if not natural_beats_wild:
        return value
    naturals = [c for c in cards if wild is None or not wild(c)]
    natural = bool(naturals) and (
        value == NATURAL_SEVENS or len(naturals) == len(cards) or high_value(naturals) == value
    )
    return value << 1 | (_NATURAL_BIT if natural else 0)


def describe(key: int, *, natural_beats_wild: bool = False) -> str:
    """Text for a :func:`special_high` key."""
    value = key >> 1 if natural_beats_wild else key
    text = "natural pair of sevens" if value == NATURAL_SEVENS else describe_high(value)
    if natural_beats_wild and key & _NATURAL_BIT and value != NATURAL_SEVENS:
        text += " (natural)"
    return text


def special_board(
    up_cards: Sequence[Card], wild: WildPredicate | None, *, sevens: bool = False
) -> int:
    """Who shows the best board (higher is better): a natural pair of sevens showing is the
    best board in Deuces & Jacks; otherwise :func:`~riverboat.engine.evaluation.board_value`
    with the game's wild cards."""
    if sevens and natural_pair_of_sevens(up_cards):
        return NATURAL_SEVENS
    return board_value(up_cards, wild)
