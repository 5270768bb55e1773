"""Natural hands: high values (against eval7), ace-to-five lows (against PokerKit), stud boards."""

from __future__ import annotations

import doctest
import itertools
import random
from collections.abc import Sequence

import eval7
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import EightOrBetterLowHand, RegularLowHand

from riverboat.engine import evaluation
from riverboat.engine.cards import Card, card_str, cards_str, parse_cards
from riverboat.engine.evaluation import (
    FIVE_OF_A_KIND,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    HIGH_CATEGORY_NAMES,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    board_value,
    describe_high,
    describe_low,
    high_category,
    high_value,
    low_value,
    reference_high_value,
)

E7 = tuple(eval7.Card(card_str(c)) for c in range(52))


def high(text: str) -> int:
    return high_value(parse_cards(text))


def low(text: str, qualifier: int | None = 8) -> int | None:
    return low_value(parse_cards(text), qualifier)


def some_low(text: str, qualifier: int | None = 8) -> int:
    value = low(text, qualifier)
    assert value is not None, text
    return value


def board(text: str) -> int:
    return board_value(parse_cards(text))


def e7(cards: Sequence[Card]) -> int:
    return int(eval7.evaluate([E7[c] for c in cards]))


def test_module_doctests() -> None:
    result = doctest.testmod(evaluation)
    assert result.failed == 0
    assert result.attempted >= 10


# --- high hands -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ac Kd 9h 5s 3c", 0x00CB731),
        ("Ac Ad 9h 5s 3c", 0x10C7310),
        ("Ac Ad Kh Ks Qc", 0x20CBA00),
        ("Ac Ad Ah 5s 3c", 0x30C3100),
        ("Ac 2d 3h 4s 5c", 0x4030000),
        ("Tc Jd Qh Ks Ac", 0x40C0000),
        ("Ac Jc 9c 5c 3c", 0x50C9731),
        ("Ac Ad Ah 5s 5c", 0x60C3000),
        ("9c 9d 9h 9s 2c", 0x7070000),
        ("Ac 2c 3c 4c 5c", 0x8030000),
        ("As Ks Qs Js Ts", 0x80C0000),
        ("Ac Ad Ah As Kc 2d 2h", 0x70CB000),
    ],
)
def test_layout_matches_eval7(text: str, expected: int) -> None:
    cards = parse_cards(text)
    assert e7(cards) == expected  # the layout we promise is eval7's own
    assert high_value(cards) == expected
    assert reference_high_value(cards) == expected


def test_categories_in_order() -> None:
    ladder = [
        "Ac Kd 9h 5s 3c",
        "2c 2d 3h 4s 6c",
        "2c 2d 3h 3s 4c",
        "2c 2d 2h 3s 4c",
        "Ac 2d 3h 4s 5c",
        "2c 3c 4c 5c 7c",
        "2c 2d 2h 3s 3c",
        "2c 2d 2h 2s 3c",
        "Ac 2c 3c 4c 5c",
    ]
    values = [high(text) for text in ladder]
    assert values == sorted(values)
    assert len(set(values)) == len(values)
    assert [high_category(v) for v in values] == list(range(9))
    assert [HIGH_CATEGORY_NAMES[high_category(v)] for v in values][:2] == ["high card", "pair"]
    assert len(HIGH_CATEGORY_NAMES) == 10
    assert HIGH_CATEGORY_NAMES[FIVE_OF_A_KIND] == "five of a kind"


def test_straights() -> None:
    wheel = high("Ac 2d 3h 4s 5c")
    six_high = high("2c 3d 4h 5s 6c")
    broadway = high("Tc Jd Qh Ks Ac")
    assert wheel < six_high < broadway
    assert high_category(wheel) == STRAIGHT
    # No wrap-around: Q-K-A-2-3 is ace high.
    assert high_category(high("Qc Kd Ah 2s 3c")) == HIGH_CARD
    # A seven-card hand with both a wheel and a six-high straight plays the six high.
    assert high("Ac 2d 3h 4s 5c 6d Kh") == six_high


def test_straight_flushes() -> None:
    steel_wheel = high("Ac 2c 3c 4c 5c")
    assert high_category(steel_wheel) == STRAIGHT_FLUSH
    assert high("9c 9d 9h 9s Ac") < steel_wheel < high("2d 3d 4d 5d 6d") < high("As Ks Qs Js Ts")
    # A flush and a straight in the same seven cards are not a straight flush.
    assert high_category(high("2c 3c 4c 5c 9c 6d Kh")) == FLUSH
    assert high_category(high("2c 3c 4c 5c 6c 7d 8h")) == STRAIGHT_FLUSH


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("Ac Kd 9h 5s 4c", "Ac Kd 9h 5s 3c"),  # last kicker
        ("Ac Kd 9h 5s 3c", "Ac Qd Jh 9s 8c"),  # second card
        ("Ac Ad Kh 5s 3c", "Ac Ad Qh Js Tc"),  # pair kicker
        ("Kc Kd 2h 3s 4c", "Qc Qd Ah Ks Jc"),  # higher pair beats better kickers
        ("Ac Ad Kh Ks Qc", "Ac Ad Kh Ks Jc"),  # two pair kicker
        ("Ac Ad 3h 3s 2c", "Kc Kd Qh Qs Jc"),  # top pair first
        ("Ac Ad 4h 4s 2c", "Ac Ad 3h 3s Kc"),  # then second pair
        ("7c 7d 7h As 2c", "7c 7d 7h Ks Qc"),  # trips kicker
        ("Ac Ad Ah 2s 2c", "Kc Kd Kh As Ac"),  # full house: trips first
        ("Ac Ad Ah 3s 3c", "Ac Ad Ah 2s 2c"),  # then the pair
        ("9c 9d 9h 9s 3c", "9c 9d 9h 9s 2c"),  # quads kicker
        ("Ac Jc 9c 5c 3c", "Ac Jc 9c 5c 2c"),  # flush, all five cards
        ("Kc Kd Kh 2s 2c 2d Qh", "Kc Kd Kh Qs Jc 9d 8h"),  # two sets of trips make a boat
    ],
)
def test_comparisons(better: str, worse: str) -> None:
    assert high(better) > high(worse)


def test_suits_never_break_ties() -> None:
    assert high("Ac Kd 9h 5s 3c") == high("Ad Kh 9s 5c 3d")
    assert high("As Ks Qs Js Ts") == high("Ah Kh Qh Jh Th")


def test_best_five_of_seven() -> None:
    assert high("Ac Ad Kh Ks Qc Qd 2s") == high("Ac Ad Kh Ks Qc")  # three pairs: best two
    assert high("Ac Ad Kh Ks 2c 2d Qs") == high("Ac Ad Kh Ks Qc")
    assert high("Kc Kd Kh 2s 2c Qd Qh") == high("Kc Kd Kh Qs Qc")  # boat picks the best pair
    assert high("Ac Ad Ah As Kc Kd Kh") == high("Ac Ad Ah As Kc")


def test_fewer_than_five_cards() -> None:
    assert high("Ac") == 0x0C0000
    assert high("Ac Ad") == 0x10C0000
    assert high("Ac Ad Kh") == 0x10CB000
    assert high("2c 3d 4h 5s") == 0x32100  # four to a straight is only five high
    assert high("Ac Ad Ah As") == 0x70C0000
    assert high("Kc Kd") > high("Ac Qd")


def test_eight_and_nine_cards() -> None:
    rng = random.Random(8)
    for _ in range(300):
        cards = rng.sample(range(52), rng.choice((8, 9)))
        best = max(e7(five) for five in itertools.combinations(cards, 5))
        assert high_value(cards) == best, cards_str(cards)


def test_reference_equals_eval7_on_random_hands() -> None:
    rng = random.Random(20240601)
    for _ in range(20_000):
        cards = rng.sample(range(52), rng.randint(5, 7))
        assert reference_high_value(cards) == e7(cards), cards_str(cards)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
def test_seven_cards_equal_eval7(cards: list[Card]) -> None:
    """high_value's own seven-card lookup (not eval7) against eval7 on the same cards."""
    assert high_value(cards) == e7(cards) == reference_high_value(cards), cards_str(cards)


def test_seven_cards_every_flush_equals_eval7() -> None:
    """Every set of five to seven ranks of one suit, the other cards of another suit."""
    rng = random.Random(7)
    for size in (5, 6, 7):
        for ranks in itertools.combinations(range(13), size):
            suit, other = rng.sample(range(4), 2)
            suited = [rank << 2 | suit for rank in ranks]
            others = [rank << 2 | other for rank in rng.sample(range(13), 7 - size)]
            cards = suited + others
            rng.shuffle(cards)
            assert high_value(cards) == e7(cards), cards_str(cards)


def test_seven_cards_every_rank_multiset_equals_eval7() -> None:
    """All 49,205 multisets of seven ranks (suits spread so that none makes a flush)."""
    count = 0
    for ranks in itertools.combinations_with_replacement(range(13), 7):
        if any(ranks[i] == ranks[i + 4] for i in range(3)):
            continue  # five of a rank: no such hand without wild cards
        cards = [rank << 2 | i % 4 for i, rank in enumerate(ranks)]
        assert high_value(cards) == e7(cards), cards_str(cards)
        count += 1
    assert count == 49_205


def test_reference_equals_eval7_on_short_hands() -> None:
    rng = random.Random(4)
    for _ in range(2_000):
        cards = rng.sample(range(52), rng.randint(1, 4))
        assert reference_high_value(cards) == high_value(cards) == e7(cards), cards_str(cards)


def test_empty_hand_is_an_error() -> None:
    with pytest.raises(ValueError):
        high_value([])
    with pytest.raises(ValueError):
        board_value([])


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("Ac Kd 9h 5s 3c", "high card, A-K-9-5-3"),
        ("Ac Ad Kh Qs Jc", "pair of aces, K-Q-J kickers"),
        ("Ac Ad Kh Ks Qc", "two pair, aces and kings, Q kicker"),
        ("7c 7d 7h As Kc", "three of a kind, sevens, A-K kickers"),
        ("Ac 2d 3h 4s 5c", "straight, five high"),
        ("9c Td Jh Qs Kc", "straight, king high"),
        ("Ac Jc 9c 5c 2c", "flush, A-J-9-5-2"),
        ("Ac Ad Ah Kc Kd", "full house, aces full of kings"),
        ("6c 6d 6h 6s Kd", "four of a kind, sixes, K kicker"),
        ("Ac 2c 3c 4c 5c", "straight flush, five high"),
        ("As Ks Qs Js Ts", "royal flush"),
    ],
)
def test_describe_high(text: str, description: str) -> None:
    assert describe_high(high(text)) == description


def test_describe_high_short_and_five_of_a_kind() -> None:
    assert describe_high(FIVE_OF_A_KIND << 24 | 12 << 16) == "five of a kind, aces"
    assert describe_high(board("Ac"), size=1) == "high card, A"
    assert describe_high(board("Ac Ad"), size=2) == "pair of aces"
    assert describe_high(board("Ac Ad 2h"), size=3) == "pair of aces, 2 kicker"
    assert describe_high(board("Ac Ad Ah As"), size=4) == "four of a kind, aces"
    with pytest.raises(ValueError):
        describe_high(10 << 24)


# --- lows ------------------------------------------------------------------------------------


def test_low_encoding_reads_as_hex() -> None:
    assert low("8c 6d 4h 2s Ac") == 0x86421
    assert low("5c 4d 3h 2s Ac") == 0x54321
    assert low("8c 7d 6h 5s 4c") == 0x87654
    assert describe_low(0x86421) == "8-6-4-2-A"
    assert describe_low(0x54321) == "5-4-3-2-A"


def test_low_order() -> None:
    assert some_low("5c 4d 3h 2s Ac") < some_low("6c 4d 3h 2s Ac")  # the wheel is the best low
    assert some_low("7c 5d 4h 3s 2c") < some_low("7c 6d 3h 2s Ac")  # compare from the top down
    assert low("8c 7d 6h 5s 4c") is not None  # the worst qualifier
    assert low("9c 5d 4h 3s 2c") is None
    # Straights and flushes do not count against a low.
    assert low("5c 4c 3c 2c Ac") == low("5d 4h 3s 2c Ac")


def test_eight_or_better_with_seven_cards() -> None:
    assert low("Ac Ad 2c 2d 3h 4s 5c") == 0x54321  # pairs do not spoil a low
    assert low("Ac Ad 2c 2d 3h 3s Kc") is None  # only three low ranks
    assert low("Ac Ad 2c 2d 3h 9s Kc") is None  # ... and a nine does not help
    assert low("Kc Qd 8h 7s 6c 5d 4h") == 0x87654
    assert low("Kc 8d 8h 7s 7c 6d 4h") is None  # four distinct low ranks only
    assert low("Ac 2d 3h 4s 6c 7d 8h") == 0x64321  # the best five of six low ranks
    assert low("2c 3d") is None  # fewer than five cards never make a low
    assert low("2c 3d 4h 5s") is None


def test_fifty_six_eight_lows() -> None:
    lows = set()
    for ranks in itertools.combinations(range(13), 5):
        value = low_value([rank * 4 + (i % 4) for i, rank in enumerate(ranks)])
        if value is not None:
            lows.add(value)
    assert len(lows) == 56
    assert min(lows) == 0x54321
    assert max(lows) == 0x87654


def test_other_qualifiers() -> None:
    assert low("9c 5d 4h 3s 2c", qualifier=9) == 0x95432
    assert low("9c 5d 4h 3s 2c", qualifier=8) is None
    assert low("8c 5d 4h 3s 2c", qualifier=7) is None
    assert low("Kc Qd Jh Ts 9c", qualifier=13) == 0xDCBA9
    with pytest.raises(ValueError):
        low("Kc Qd Jh Ts 9c", qualifier=4)


def test_low_without_qualifier() -> None:
    unpaired_king = some_low("Kc Qd Jh Ts 9c", None)
    pair_of_aces = some_low("Ac Ad 2h 3s 4c", None)
    assert unpaired_king == 0xDCBA9
    assert unpaired_king < pair_of_aces  # any unpaired hand beats any pair
    ladder = [
        "Ac Ad 2h 3s 4c",  # pair of aces
        "2c 2d Ah 3s 4c",  # pair of deuces
        "2c 2d Ah 3s 5c",  # same pair, worse kicker
        "Kc Kd Ah 2s 3c",  # pair of kings
        "3c 3d 2h 2s Kc",  # two pair, threes up
        "4c 4d 2h 2s Ac",  # two pair, fours up: the top pair decides
        "Ac Ad Ah 2s 3c",  # trips
        "2c 2d 2h Ks Qc",
        "Ac Ad Ah 2s 2c",  # full house
        "Ac Ad Ah As 2c",  # quads
        "2c 2d 2h 2s Ac",
    ]
    values = [some_low(text, None) for text in ladder]
    assert values == sorted(values)
    assert len(set(values)) == len(values)
    # Seven cards with few distinct ranks: the best forced pairing.
    assert low("Kc Kd Qh Qs 3c 3d Ah", None) == low("Kc Qh 3c 3d Ah", None)
    assert low("Kc Kd 3c 3d Ah Ad", None) == low("Kc 3c 3d Ah Ad", None)
    assert low("Kc Kd Kh 3c 3d 3h", None) == low("Kc Kd 3c 3d 3h", None)


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("Kc Qd Jh Ts 9c", "K-Q-J-T-9"),
        ("8c 5d 3h 3s Ac", "pair of threes, 8-5-3-3-A"),
        ("Kc 4d 4h 3s 3c", "two pair, fours and threes, K-4-4-3-3"),
        ("7c 5d Ah As Ac", "three of a kind, aces, 7-5-A-A-A"),
        ("2c 2d 2h Ks Kc", "full house, deuces full of kings, K-K-2-2-2"),
        ("6c 6d 6h 6s Kc", "four of a kind, sixes, K-6-6-6-6"),
    ],
)
def test_describe_low(text: str, description: str) -> None:
    assert describe_low(some_low(text, None)) == description


def _pokerkit_text(cards: Sequence[Card]) -> str:
    return "".join(card_str(c) for c in cards)


def _assert_same_order(ours: list[int], theirs: list[object]) -> None:
    """Ours: lower is better. PokerKit's: greater is better. Group by our value and check both."""
    groups: dict[int, list[object]] = {}
    for value, hand in zip(ours, theirs, strict=True):
        groups.setdefault(value, []).append(hand)
    ordered = [groups[value] for value in sorted(groups)]
    for group in ordered:
        assert all(hand == group[0] for hand in group)
    for better, worse in itertools.pairwise(ordered):
        assert better[0] > worse[0]  # type: ignore[operator]


def test_eight_or_better_agrees_with_pokerkit() -> None:
    rng = random.Random(77)
    ours: list[int] = []
    theirs: list[object] = []
    for _ in range(5_000):
        cards = rng.sample(range(52), 7)
        value = low_value(cards)
        hand = EightOrBetterLowHand.from_game_or_none(_pokerkit_text(cards))
        assert (value is None) == (hand is None), cards_str(cards)
        if value is not None:
            ours.append(value)
            theirs.append(hand)
    assert len(ours) > 800
    _assert_same_order(ours, theirs)


def test_unqualified_low_agrees_with_pokerkit() -> None:
    rng = random.Random(78)
    ours: list[int] = []
    theirs: list[object] = []
    for i in range(1_500):
        # Draw from a few ranks only, half of the time, so that pairs, trips and boats show up.
        if i % 2:
            ranks = rng.sample(range(13), rng.randint(2, 5))
            deck = [c for c in range(52) if c >> 2 in ranks]
        else:
            deck = list(range(52))
        cards = rng.sample(deck, min(len(deck), rng.randint(5, 7)))
        value = low_value(cards, qualifier=None)
        assert value is not None
        ours.append(value)
        theirs.append(RegularLowHand.from_game(_pokerkit_text(cards)))
    assert len({v >> 20 for v in ours}) == 6  # every pairing pattern was exercised
    _assert_same_order(ours, theirs)


# --- boards ----------------------------------------------------------------------------------


def test_board_order() -> None:
    ladder = [
        "Kc Qd",
        "Ac Qd",
        "Ac Kd",
        "2c 2d",
        "Ac Ad",
    ]
    values = [board(text) for text in ladder]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert board("2c 2d 3h 4s") > board("Ac Kd Qh Js")  # pair beats AK
    assert board("2c 2d 3h 3s") > board("Ac Ad Kh Qs")  # two pair beats a pair
    assert board("2c 2d 2h 3s") > board("Ac Ad Kh Ks")  # trips beat two pair
    assert board("2c 2d 2h 2s") > board("Ac Ad Ah Ks")  # quads beat trips
    assert board("Ac Ad 5h 4s") > board("Ac Ad 5h 3s")  # kickers count
    assert board("7c 7d 7h 2s 2c") > board("Ac Ad Ah Ks Qc")  # a full house is above trips


def test_board_ignores_straights_and_flushes() -> None:
    assert high_category(board("5c 6d 7h 8s 9c")) == HIGH_CARD
    assert high_category(board("2c 5c 7c 9c Jc")) == HIGH_CARD
    assert board("5c 6d 7h 8s") < board("2c 2d 3h 4s")


def test_board_ties() -> None:
    assert board("Ac Kd 7h") == board("Ad Kc 7s")
    assert board("9c 9d") == board("9h 9s")


def test_board_layout_is_the_high_layout() -> None:
    assert board("Ac Ad Kh") == high("Ac Ad Kh") == 0x10CB000
    assert board("Ac Ad Kh Ks 3c") == high("Ac Ad Kh Ks 3c")
    assert high_category(board("Ac Ad Ah Kc")) == THREE_OF_A_KIND
    assert high_category(board("Ac Ad Kh Kc")) == TWO_PAIR
    assert high_category(board("Ac Ad Ah Kc Kd")) == FULL_HOUSE
    assert high_category(board("Ac Ad Ah As")) == FOUR_OF_A_KIND
    assert high_category(board("Ac Ad 7h")) == PAIR


def test_boards_looked_up_by_ranks_equal_their_hands() -> None:
    # A stud board without wild cards is looked up by its ranks (filled as boards are seen).
    # Under five cards no straight or flush exists, so a board is the reference evaluator's
    # hand of the same cards: checked for every board of one to three cards, whatever was
    # looked up before, and for random boards of four.
    rng = random.Random(20261204)
    boards = [c for size in (1, 2, 3) for c in itertools.combinations(range(52), size)]
    boards += [tuple(rng.sample(range(52), 4)) for _ in range(20_000)]
    rng.shuffle(boards)
    for cards in boards:
        assert board_value(cards) == reference_high_value(cards), cards_str(cards)
