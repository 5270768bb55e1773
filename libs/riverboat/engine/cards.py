"""Cards as small integers.

A card is an ``int`` in ``0..51``: ``rank * 4 + suit`` where rank ``0..12`` is deuce..ace and
suit ``0..3`` is clubs, diamonds, hearts, spades. The order of the integers is therefore
"rank, then suit" with clubs < diamonds < hearts < spades and the ace high, which is exactly
the order the stud bring-in and the odd-chip rules use.

>>> parse_card("Ah")
50
>>> card_str(parse_card("2c"))
'2c'
>>> rank_of(parse_card("Td")), suit_of(parse_card("Td"))
(8, 1)
>>> [card_str(c) for c in parse_cards("As Kd")]
['As', 'Kd']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

Card = int

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "cdhs"
CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3
ACE: Final = 12
DECK_SIZE: Final = 52

_STRS: Final = tuple(r + s for r in RANK_CHARS for s in SUIT_CHARS)
_PARSE: Final = {text: i for i, text in enumerate(_STRS)}


class CardError(ValueError):
    """A card or deck given as text is malformed."""


def rank_of(card: Card) -> int:
    """Rank 0 (deuce) .. 12 (ace)."""
    return card >> 2


def suit_of(card: Card) -> int:
    """Suit 0 (clubs) .. 3 (spades)."""
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0..12) and ``suit`` (0..3)."""
    return rank * 4 + suit


def card_str(card: Card) -> str:
    """Two characters, rank then suit: ``"Th"``."""
    return _STRS[card]


def parse_card(text: str) -> Card:
    """Parse ``"Ah"``-style text: rank ``23456789TJQKA`` (any case), suit ``cdhs``."""
    if not isinstance(text, str) or len(text) != 2:
        raise CardError(f"a card is two characters, rank then suit (like 'Ah'); got {text!r}")
    card = _PARSE.get(text[0].upper() + text[1].lower())
    if card is None:
        raise CardError(f"unknown card {text!r}: ranks are 23456789TJQKA, suits are cdhs")
    return card


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse space-separated text or an iterable of card strings."""
    items = text.split() if isinstance(text, str) else list(text)
    return tuple(parse_card(item) for item in items)


def cards_str(cards: Iterable[Card]) -> str:
    """Space-separated text of ``cards``."""
    return " ".join(_STRS[c] for c in cards)


# A card as people write it: "7h", "Ts", "10s", "7♥"; not inside a longer word or number.
_CARD_TEXT: Final = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[cdhsCDHS♣♦♥♠](?![A-Za-z0-9])")


def redact_cards(text: str) -> str:
    """``text`` with every card it names replaced by ``??``.

    For text that leaves the table for somewhere a player's cards must not go, such as a log
    line quoting a refusal ("you do not hold 7h" tells the log's reader about a hand).

    >>> redact_cards("you do not hold 7h or T♠")
    'you do not hold ?? or ??'
    """
    return _CARD_TEXT.sub("??", text)


def standard_deck() -> tuple[Card, ...]:
    """The 52 cards in a fixed order (2c 2d 2h 2s 3c ... As). Not a shuffle: the dealer shuffles."""
    return tuple(range(DECK_SIZE))


def validate_deck(cards: Sequence[Card]) -> None:
    """Raise :class:`CardError` unless ``cards`` holds distinct cards of the 52-card deck."""
    distinct = set(cards)
    if len(distinct) == len(cards) and distinct <= _EVERY_CARD:
        return  # every hand's start checks its deck: the whole check in C, then the why
    seen: set[int] = set()
    for card in cards:
        if not 0 <= card < DECK_SIZE:
            raise CardError(f"not a card: {card!r}")
        if card in seen:
            raise CardError(f"card {card_str(card)} appears twice in the deck")
        seen.add(card)


#: Every card of the deck, for :func:`validate_deck`.
_EVERY_CARD: Final = frozenset(range(DECK_SIZE))
