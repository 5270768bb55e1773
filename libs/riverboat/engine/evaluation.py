"""Hand evaluation: high hands (wild cards allowed), ace-to-five lows, and stud boards.

Every function takes cards as ints (see :mod:`riverboat.engine.cards`) and returns a plain
``int`` so that hands compare with ``<``/``==``/``max`` and can be stored in events. Inputs are
trusted: cards must be valid and distinct (the hot paths do not re-check them).

High values (:func:`high_value`, :func:`board_value`) -- HIGHER is better
    ``category << 24 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5``, eval7's own layout, so
    eval7 serves as the fast path. Ranks are 0 (deuce) .. 12 (ace) in *group order*: bigger
    groups first, then higher rank; each group is stored once and unused trailing nibbles are 0.
    Categories are :data:`HIGH_CATEGORY_NAMES` indices 0..9; a straight (flush) stores only its
    top rank (the wheel's top is 3, the five); five of a kind (category 9, wild cards only) stores
    its rank in ``r1``.

Low values (:func:`low_value`) -- LOWER is better, ``None`` when there is no (qualifying) low
    ``pattern << 20 | f1 << 16 | f2 << 12 | f3 << 8 | f4 << 4 | f5`` with ace-low *face values*
    1 (ace) .. 13 (king), so an unpaired low reads as its own hex digits: 8-6-4-2-A is
    ``0x86421``. ``pattern`` is 0 no pair, 1 one pair, 2 two pair, 3 trips, 4 full house,
    5 quads: any unpaired hand beats any paired one. Faces follow group order (bigger groups
    first, then higher face), so lower pairs win and kickers compare from the top down.
    Straights and flushes do not count. Face 0 never occurs, so a value always names its five
    cards. Values from different qualifiers (8 or ``None``) are directly comparable.

>>> from riverboat.engine.cards import parse_cards, rank_of
>>> hex(high_value(parse_cards("Ac Ad Kh Ks Qc")))
'0x20cba00'
>>> describe_high(high_value(parse_cards("Ac Ad Ah Kc Kd 2s 3s")))
'full house, aces full of kings'
>>> deuces = lambda card: rank_of(card) == 0
>>> describe_high(high_value(parse_cards("As Ah Ad 2c 2d"), wild=deuces))
'five of a kind, aces'
>>> describe_high(high_value(parse_cards("As Js 9s 5s 2c"), wild=deuces))
'flush, A-K-J-9-5'
>>> hex(low_value(parse_cards("8c 6d 4h Ac Ks Kd 2s")))
'0x86421'
>>> describe_low(low_value(parse_cards("8c 6d 4h Ac 2c"), wild=deuces))
'8-6-4-2-A'
>>> low_value(parse_cards("9c 6d 4h Ac Ks Kd 2s")) is None
True
>>> board_value(parse_cards("7c 7d 2h")) > board_value(parse_cards("Ac Kd Qh"))
True
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations, product
from typing import Final

import eval7

from riverboat.engine.cards import RANK_CHARS, Card, card_str

__all__ = [
    "FIVE_OF_A_KIND",
    "FLUSH",
    "FOUR_OF_A_KIND",
    "FULL_HOUSE",
    "HIGH_CARD",
    "HIGH_CATEGORY_NAMES",
    "PAIR",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "THREE_OF_A_KIND",
    "TWO_PAIR",
    "WildPredicate",
    "board_value",
    "describe_high",
    "describe_low",
    "high_category",
    "high_value",
    "low_value",
    "reference_high_value",
]

WildPredicate = Callable[[Card], bool]
"""Tells whether a card is wild (the game decides: deuces, a rank that follows a queen...)."""

HIGH_CARD: Final = 0
PAIR: Final = 1
TWO_PAIR: Final = 2
THREE_OF_A_KIND: Final = 3
STRAIGHT: Final = 4
FLUSH: Final = 5
FULL_HOUSE: Final = 6
FOUR_OF_A_KIND: Final = 7
STRAIGHT_FLUSH: Final = 8
FIVE_OF_A_KIND: Final = 9

HIGH_CATEGORY_NAMES: Final[tuple[str, ...]] = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "five of a kind",
)

_ACE: Final = 12
_WHEEL: Final = 0x100F  # rank bits of A-2-3-4-5
_FIVE_ACES: Final = FIVE_OF_A_KIND << 24 | _ACE << 16

# Our card int -> eval7.Card, built once: creating eval7 cards per call would cost more than
# the evaluation itself.
_E7_CARDS: Final[tuple[object, ...]] = tuple(eval7.Card(card_str(c)) for c in range(52))
_eval7_evaluate: Final[Callable[[list[object]], int]] = eval7.evaluate

# Seven cards skip eval7 (building its list of cards costs more than its evaluation) and are
# looked up instead, with small arrays that stay in the CPU's cache. Each card adds a key: the
# low 16 bits count the suits (4 bits a suit); bits 16..29 count deuce..seven as base-5 digits
# (a count of 0..4 each: seven cards sum to at most 4 * 5**5 + 3 * 5**4 = 14,375, under
# 2**14); from bit 30 up, eight..ace as base-5 digits. Shifts and masks take the parts apart
# (no division). Without a flush the value depends on those rank counts only; with one (five
# or more of a suit among seven leave no room for quads or a full house) on the flush suit's
# ranks only. _LOW7[low digits] + _HIGH7[high digits] numbers the 49,205 multisets of seven
# ranks densely (by how many are low), and each value is filled from eval7 the first time its
# multiset (or flush suit's mask) is seen.
_SPLIT: Final = 14_376  # above the largest low part
_HIGH_SHIFT: Final = 30


def _rank_multisets(ranks: int) -> list[list[int]]:
    """Base-5 keys of the multisets (each rank 0..4 times) of ``ranks`` ranks, by size 0..7."""
    by_size: list[list[int]] = [[] for _ in range(8)]
    for counts in product(range(5), repeat=ranks):
        size = sum(counts)
        if size <= 7:
            by_size[size].append(sum(n * 5**i for i, n in enumerate(counts)))
    return by_size


def _dense_index() -> tuple[array[int], array[int], int]:
    low, high = _rank_multisets(6), _rank_multisets(7)
    low_index = array("I", bytes(4 * _SPLIT))
    high_index = array("I", bytes(4 * 5**7))
    base = 0
    for low_size in range(8):
        stride = len(high[7 - low_size])
        for i, key in enumerate(low[low_size]):
            low_index[key] = base + i * stride
        base += len(low[low_size]) * stride
    for high_size in range(8):
        for i, key in enumerate(high[high_size]):
            high_index[key] = i
    return low_index, high_index, base


_low7, _high7, _MULTISETS7 = _dense_index()
# Read as tuples: indexing one is a specialised bytecode returning a stored int, where an
# array's makes a new int each time (about a tenth of an evaluation).
_LOW7: Final[tuple[int, ...]] = tuple(_low7)
_HIGH7: Final[tuple[int, ...]] = tuple(_high7)
del _low7, _high7
_KEY7: Final[tuple[int, ...]] = tuple(
    (5 ** (c >> 2) << 16 if c >> 2 < 6 else 5 ** ((c >> 2) - 6) << _HIGH_SHIFT) | 1 << 4 * (c & 3)
    for c in range(52)
)


def _flush_suits() -> bytes:
    """Suit counts (the key's low 15 bits) -> 1 + the suit holding five or more, else 0."""
    table = bytearray(0x8000)
    for suit in (3, 2, 1, 0):
        width = 1 << 4 * suit
        for count in range(5, 16):
            for start in range(count * width, 0x8000, 16 * width):
                table[start : start + width] = bytes([1 + suit]) * width
    return bytes(table)


_FLUSH_SUIT7: Final[tuple[int, ...]] = tuple(_flush_suits())
_RANK_BIT: Final[tuple[int, ...]] = tuple(1 << (c >> 2) for c in range(52))
_by_ranks7 = array("I", bytes(4 * _MULTISETS7))  # 0: not seen yet (no 7-card value is 0)
_by_flush7 = array("I", bytes(4 * 8192))


def _high7_first(cards: Sequence[Card], index: int) -> int:
    value = _by_ranks7[index] = _eval7_evaluate([_E7_CARDS[card] for card in cards])
    return value


def _flush7(cards: Sequence[Card], suit: int) -> int:
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= _RANK_BIT[card]
    value = _by_flush7[mask]
    if not value:
        value = _by_flush7[mask] = _eval7_evaluate([_E7_CARDS[card] for card in cards])
    return value


def high_category(value: int) -> int:
    """The category (index into :data:`HIGH_CATEGORY_NAMES`) of a high or board value."""
    return value >> 24


def _pack(category: int, ranks: Sequence[int]) -> int:
    value = category << 24
    shift = 16
    for rank in ranks[:5]:
        value |= rank << shift
        shift -= 4
    return value


def _straight_top(mask: int) -> int:
    """Top rank of the best straight in a 13-bit rank mask, or -1."""
    runs = mask & mask << 1 & mask << 2 & mask << 3 & mask << 4
    if runs:
        return runs.bit_length() - 1
    return 3 if mask & _WHEEL == _WHEEL else -1


def _top_ranks(mask: int, count: int) -> list[int]:
    ranks: list[int] = []
    for rank in range(_ACE, -1, -1):
        if mask >> rank & 1:
            ranks.append(rank)
            if len(ranks) == count:
                break
    return ranks


def _grouped_value(counts: Sequence[int]) -> int:
    """Best value made of rank groups only (no straights or flushes) from per-rank counts."""
    groups = sorted(((n, rank) for rank, n in enumerate(counts) if n), reverse=True)
    top_n, top = groups[0]
    others = [rank for _, rank in groups[1:]]  # by (count, rank): kickers need max() below
    if top_n >= 5:
        return _pack(FIVE_OF_A_KIND, [top])
    if top_n == 4:
        return _pack(FOUR_OF_A_KIND, [top, max(others)] if others else [top])
    second_n = groups[1][0] if len(groups) > 1 else 0
    if top_n == 3:
        if second_n >= 2:
            # A second set of trips can serve as the pair.
            return _pack(FULL_HOUSE, [top, max(r for n, r in groups[1:] if n >= 2)])
        return _pack(THREE_OF_A_KIND, [top, *others[:2]])
    if top_n == 2 and second_n == 2:
        # A third pair may give the kicker, so take the highest remaining rank of any count.
        return _pack(TWO_PAIR, [top, others[0], *([max(others[1:])] if others[1:] else [])])
    if top_n == 2:
        return _pack(PAIR, [top, *others[:3]])
    return _pack(HIGH_CARD, [top, *others[:4]])


def _natural_high(cards: Sequence[Card]) -> int:
    """Pure-Python best high value of any number of natural cards."""
    if not cards:
        raise ValueError("a hand needs at least one card")
    counts = [0] * 13
    suit_masks = [0, 0, 0, 0]
    for card in cards:
        counts[card >> 2] += 1
        suit_masks[card & 3] |= 1 << (card >> 2)
    # The best hand is the best of three candidates, each the best of its kind.
    best = _grouped_value(counts)
    top = _straight_top(suit_masks[0] | suit_masks[1] | suit_masks[2] | suit_masks[3])
    if top >= 0:
        best = max(best, STRAIGHT << 24 | top << 16)
    for mask in suit_masks:
        if mask.bit_count() >= 5:
            top = _straight_top(mask)
            if top >= 0:
                best = max(best, STRAIGHT_FLUSH << 24 | top << 16)
            else:
                best = max(best, _pack(FLUSH, _top_ranks(mask, 5)))
    return best


def _window_top(mask: int) -> int:
    """Top rank of the highest five-rank straight window holding every rank in ``mask``, or -1.

    ``mask`` holds distinct natural ranks; the wild cards fill the gaps of the window.
    """
    low = (mask & -mask).bit_length() - 1
    top = min(_ACE, low + 4)
    if top >= mask.bit_length() - 1:
        return top
    return 3 if mask & ~_WHEEL == 0 else -1


def _wild_five(naturals: Sequence[Card], jokers: int) -> int:
    """Best value of ``naturals`` plus ``jokers`` wild cards, five cards in all (1 <= jokers <= 4).

    Works category by category from the top; the first category the naturals allow is the answer.
    """
    ranks = [card >> 2 for card in naturals]
    rank_mask = 0
    for rank in ranks:
        rank_mask |= 1 << rank
    distinct = rank_mask.bit_count()
    if distinct == 1:
        # The only case where a wild card may duplicate a card's rank beyond the four suits.
        return _pack(FIVE_OF_A_KIND, [ranks[0]])
    suited = len({card & 3 for card in naturals}) == 1
    window = _window_top(rank_mask) if distinct == len(ranks) else -1
    if suited and window >= 0:
        return STRAIGHT_FLUSH << 24 | window << 16
    if distinct == 2:
        high = rank_mask.bit_length() - 1
        low = (rank_mask & -rank_mask).bit_length() - 1
        n_high, n_low = ranks.count(high), ranks.count(low)
        if n_high == n_low == 2:
            return _pack(FULL_HOUSE, [high, low])
        if n_low > n_high:
            return _pack(FOUR_OF_A_KIND, [low, high])
        return _pack(FOUR_OF_A_KIND, [high, low])
    # From here on there are 3+ distinct natural ranks, so 1 or 2 wild cards.
    if suited:
        # No double-ace flush: each wild card becomes the highest rank missing from the suit.
        filled = rank_mask
        for _ in range(jokers):
            filled |= 1 << ((~filled & 0x1FFF).bit_length() - 1)
        return _pack(FLUSH, _top_ranks(filled, 5))
    if window >= 0:
        return STRAIGHT << 24 | window << 16
    desc = sorted(ranks, reverse=True)
    if jokers == 2:
        return _pack(THREE_OF_A_KIND, desc)
    if distinct == 3:
        pair = next(rank for rank in desc if ranks.count(rank) == 2)
        return _pack(THREE_OF_A_KIND, [pair, *(rank for rank in desc if rank != pair)])
    return _pack(PAIR, desc)


def _grouped_wild(naturals: Sequence[Card], jokers: int) -> int:
    """Group-only value with every wild card joining the biggest (then highest) natural group.

    A bigger top group always means a better category, so this is the best use of the wilds.
    With no naturals the wild cards are aces.
    """
    counts = [0] * 13
    for card in naturals:
        counts[card >> 2] += 1
    if jokers:  # (stud boards without wild cards, the common case, skip the search)
        best = max(range(13), key=lambda rank: (counts[rank], rank)) if naturals else _ACE
        counts[best] += jokers
    return _grouped_value(counts)


def _wild_high(cards: Sequence[Card], naturals: Sequence[Card], jokers: int) -> int:
    if len(cards) < 5:
        return _grouped_wild(naturals, jokers)
    # Playing an extra wild card instead of a natural never hurts (the wild can stand for that
    # very natural), so every hand worth checking uses min(jokers, 5) wild cards.
    used = min(jokers, 5)
    if used == 5:
        return _FIVE_ACES
    return max(_wild_five(combo, used) for combo in combinations(naturals, 5 - used))


def high_value(cards: Sequence[Card], wild: WildPredicate | None = None) -> int:
    """Value of the best five-card high hand in ``cards`` (any number of cards); higher is better.

    Fewer than five cards are ranked as they stand (a lone pair, a high card...). With ``wild``,
    the cards it accepts are wild under the house rules: a wild card stands for any card not
    already in the five-card hand, or duplicates a rank to make five of a kind (the top
    category; five wild cards are five aces); in a flush it is the highest missing card of the
    suit. A natural hand and a wild one of the same value tie.

    >>> from riverboat.engine.cards import parse_cards
    >>> describe_high(high_value(parse_cards("5c 4d 3h 2s Ac Kd Kh")))
    'straight, five high'
    >>> hex(high_value(parse_cards("Ac Ad")))
    '0x10c0000'
    """
    if wild is None:
        # Seven cards, inlined (see _KEY7) and first: the hot path of every showdown and of the
        # audit. The unpacking is the length test (a try costs nothing until it raises).
        try:
            a, b, c, d, e, f, g = cards
        except ValueError:
            pass
        else:
            k = _KEY7
            key = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
            flush = _FLUSH_SUIT7[key & 0x7FFF]
            if flush:
                return _flush7(cards, flush - 1)
            index = _LOW7[key >> 16 & 0x3FFF] + _HIGH7[key >> 30]  # 30: _HIGH_SHIFT
            return _by_ranks7[index] or _high7_first(cards, index)
        if 5 <= len(cards) <= 6:
            return _eval7_evaluate([_E7_CARDS[card] for card in cards])
        return _natural_high(cards)
    naturals = [card for card in cards if not wild(card)]
    jokers = len(cards) - len(naturals)
    if jokers == 0:
        return high_value(cards)
    return _wild_high(cards, naturals, jokers)


def reference_high_value(cards: Sequence[Card], wild: WildPredicate | None = None) -> int:
    """Same as :func:`high_value` but never calls eval7 (the pure-Python reference)."""
    naturals = cards if wild is None else [card for card in cards if not wild(card)]
    jokers = len(cards) - len(naturals)
    if jokers == 0:
        return _natural_high(cards)
    return _wild_high(cards, naturals, jokers)


def board_value(cards: Sequence[Card], wild: WildPredicate | None = None) -> int:
    """Value of a stud board (the face-up cards, 1..5) for deciding who acts first.

    Only rank groups count: five of a kind > quads > full house > trips > two pair > pair >
    high card, then the ranks in group order (same layout as :func:`high_value`); straights and
    flushes do not count. Higher is better; equal boards give equal values (the caller breaks
    the tie by seat). Wild cards all join the biggest natural group, the highest-ranked one if
    several are as big (so ``K W`` is a pair of kings and ``K 7 7 W`` trip sevens); wild cards
    alone are aces.
    """
    if not cards:
        raise ValueError("a board needs at least one card")
    if wild is None:
        # Without wild cards the value depends on the ranks alone: looked up by their
        # multiset (every street's opener compares the boards of everyone still in).
        key = sum(map(_RANK_DIGIT.__getitem__, cards))
        value = _BOARDS.get(key)
        if value is None:
            value = _grouped_wild(cards, 0)
            if len(_BOARDS) < _BOARDS_KEPT:
                _BOARDS[key] = value
        return value
    naturals = [card for card in cards if not wild(card)]
    return _grouped_wild(naturals, len(cards) - len(naturals))


#: A card's rank as a base-5 digit (a rank is held 0..4 times): a board's key is their sum.
_RANK_DIGIT: Final[tuple[int, ...]] = tuple(5 ** (c >> 2) for c in range(52))
#: Board values by rank multiset, filled as boards are seen (stud boards of 1..5 cards make
#: about 8,000 multisets; the bound keeps odd callers with long boards from growing it).
_BOARDS: dict[int, int] = {}
_BOARDS_KEPT: Final = 1 << 15


# ---------------------------------------------------------------------------------------------
# Ace-to-five lows.

_LOW_FACES: Final = tuple(1 if c >> 2 == _ACE else (c >> 2) + 2 for c in range(52))
_LOW_BITS: Final = tuple(1 << (face - 1) for face in _LOW_FACES)
# Cards above the eight contribute nothing to an 8-or-better low, so they map to no bit.
_LOW8_BITS: Final = tuple(bit if bit < 1 << 8 else 0 for bit in _LOW_BITS)
# Group sizes of each low pattern, best (0) to worst (5).
_LOW_PATTERN_COUNTS: Final = ((1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1))
_LOW_PATTERNS: Final = {counts: pattern for pattern, counts in enumerate(_LOW_PATTERN_COUNTS)}


def _unpaired_low(mask: int) -> int | None:
    """Best unpaired low (the five lowest faces) from a face mask (bit ``f - 1`` for face ``f``)."""
    if mask.bit_count() < 5:
        return None
    value = 0
    for shift in (0, 4, 8, 12, 16):
        bit = mask & -mask
        value |= bit.bit_length() << shift  # bit.bit_length() is the face value
        mask ^= bit
    return value


# Every 8-or-better low is the five lowest of the A..8 faces present, so 256 entries cover them.
_LOW8_TABLE: Final[tuple[int | None, ...]] = tuple(_unpaired_low(mask) for mask in range(256))


def _low_five(faces: Sequence[int]) -> int:
    """Low value of exactly five face values (pairs allowed)."""
    groups = sorted(((faces.count(face), face) for face in set(faces)), reverse=True)
    pattern = tuple(n for n, _ in groups)
    value = _LOW_PATTERNS[pattern] << 20
    shift = 16
    for _, face in groups:
        value |= face << shift
        shift -= 4
    return value


def _lowest_missing(faces: Sequence[int], count: int) -> tuple[int, ...]:
    missing = [face for face in range(1, 14) if face not in faces]
    return tuple(missing[:count])


def low_value(
    cards: Sequence[Card], qualifier: int | None = 8, wild: WildPredicate | None = None
) -> int | None:
    """Value of the best five-card ace-to-five low in ``cards``; lower is better.

    ``qualifier=8`` (the default, cards-speak stud hi/lo): the low needs five distinct ranks,
    none above 8 (ace counts 1), else ``None``. Any other ``qualifier`` 5..13 works the same way
    with that top face. ``qualifier=None`` (declare games): any five cards make a low, paired
    hands ranking below every unpaired one. Fewer than five cards (wild ones included) never
    make a low: ``None``. A wild card plays as the lowest rank missing from the hand.

    >>> from riverboat.engine.cards import parse_cards
    >>> describe_low(low_value(parse_cards("Kc Kd Qh Qs 3c 3d Ah"), qualifier=None))
    'pair of threes, K-Q-3-3-A'
    >>> describe_low(low_value(parse_cards("Kc Kd 3c 3d Ah Ad"), qualifier=None))
    'two pair, threes and aces, K-3-3-A-A'
    """
    if wild is None and qualifier == 8:
        mask = 0
        for card in cards:
            mask |= _LOW8_BITS[card]
        return _LOW8_TABLE[mask]
    if qualifier is not None and not 5 <= qualifier <= 13:
        raise ValueError(f"a low qualifier is a face value 5..13 or None; got {qualifier!r}")
    if len(cards) < 5:
        return None
    naturals = cards if wild is None else [card for card in cards if not wild(card)]
    jokers = len(cards) - len(naturals)
    if jokers == 0:
        mask = 0
        for card in cards:
            mask |= _LOW_BITS[card]
        if qualifier is not None:
            return _unpaired_low(mask & ((1 << qualifier) - 1))
        best = _unpaired_low(mask)
        if best is not None:
            return best
        # Fewer than five distinct ranks: some pairing is forced; few enough cases to try all.
        faces = sorted(_LOW_FACES[card] for card in cards)
        return min(_low_five(combo) for combo in set(combinations(faces, 5)))
    # As for high hands, playing a wild card in place of a natural never hurts.
    used = min(jokers, 5)
    faces = sorted(_LOW_FACES[card] for card in naturals)
    value = min(
        _low_five(combo + _lowest_missing(combo, used))
        for combo in set(combinations(faces, 5 - used))
    )
    if qualifier is not None and value > (qualifier << 16 | 0xFFFF):
        return None  # paired (pattern above 0) or its top card is above the qualifier
    return value


# ---------------------------------------------------------------------------------------------
# Descriptions.

_RANK_NAMES: Final = (
    "deuce",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_RANK_PLURALS: Final = tuple("sixes" if name == "six" else name + "s" for name in _RANK_NAMES)


def _nibbles(value: int, shift: int = 16) -> list[int]:
    return [value >> s & 0xF for s in range(shift, -1, -4)]


def _kickers(ranks: Sequence[int]) -> str:
    if not ranks:
        return ""
    noun = "kicker" if len(ranks) == 1 else "kickers"
    return ", " + "-".join(RANK_CHARS[rank] for rank in ranks) + " " + noun


@lru_cache(maxsize=8192)  # every showdown describes its hands; a few thousand values recur
def describe_high(value: int, *, size: int = 5) -> str:
    """Short text for a :func:`high_value` or :func:`board_value`, e.g. ``"pair of aces, K-Q-J
    kickers"``.

    ``size`` is how many cards made the value (default: a full hand of five or more). A deuce
    kicker and "no card" are both stored as 0, so a shorter board needs ``size`` to show the
    right number of kickers.

    >>> describe_high(0x60C3000)
    'full house, aces full of fives'
    >>> describe_high(0x10C0000, size=2)
    'pair of aces'
    """
    category = value >> 24
    if not 0 <= category <= FIVE_OF_A_KIND:
        raise ValueError(f"not a high hand value: {value!r}")
    r = _nibbles(value)
    size = min(size, 5)
    if category == FIVE_OF_A_KIND:
        return f"five of a kind, {_RANK_PLURALS[r[0]]}"
    if category == STRAIGHT_FLUSH:
        return "royal flush" if r[0] == _ACE else f"straight flush, {_RANK_NAMES[r[0]]} high"
    if category == FOUR_OF_A_KIND:
        return f"four of a kind, {_RANK_PLURALS[r[0]]}{_kickers(r[1 : size - 3])}"
    if category == FULL_HOUSE:
        return f"full house, {_RANK_PLURALS[r[0]]} full of {_RANK_PLURALS[r[1]]}"
    if category == FLUSH:
        return "flush, " + "-".join(RANK_CHARS[rank] for rank in r)
    if category == STRAIGHT:
        return f"straight, {_RANK_NAMES[r[0]]} high"
    if category == THREE_OF_A_KIND:
        return f"three of a kind, {_RANK_PLURALS[r[0]]}{_kickers(r[1 : size - 2])}"
    if category == TWO_PAIR:
        pairs = f"{_RANK_PLURALS[r[0]]} and {_RANK_PLURALS[r[1]]}"
        return f"two pair, {pairs}{_kickers(r[2 : size - 2])}"
    if category == PAIR:
        return f"pair of {_RANK_PLURALS[r[0]]}{_kickers(r[1 : size - 1])}"
    return "high card, " + "-".join(RANK_CHARS[rank] for rank in r[:size])


def _face_char(face: int) -> str:
    return "A" if face == 1 else RANK_CHARS[face - 2]


@lru_cache(maxsize=2048)
def describe_low(value: int) -> str:
    """Short text for a :func:`low_value`: ``"8-6-4-2-A"``, or the pairing then the five cards.

    >>> describe_low(0x138510)
    'pair of threes, 8-5-3-3-A'
    """
    pattern = value >> 20
    if not 0 <= pattern < len(_LOW_PATTERN_COUNTS):
        raise ValueError(f"not a low hand value: {value!r}")
    counts = _LOW_PATTERN_COUNTS[pattern]
    faces = [face for face in _nibbles(value) if face]
    if len(faces) != len(counts):
        raise ValueError(f"not a low hand value: {value!r}")
    cards = sorted((face for face, n in zip(faces, counts, strict=True) for _ in range(n)))
    text = "-".join(_face_char(face) for face in reversed(cards))
    if pattern == 0:
        return text
    names = [_RANK_PLURALS[(face - 2) % 13] for face in faces]  # face 1 (ace) -> index 12
    heads = {
        1: f"pair of {names[0]}",
        2: f"two pair, {names[0]} and {names[1]}",
        3: f"three of a kind, {names[0]}",
        4: f"full house, {names[0]} full of {names[1]}",
        5: f"four of a kind, {names[0]}",
    }
    return f"{heads[pattern]}, {text}"
