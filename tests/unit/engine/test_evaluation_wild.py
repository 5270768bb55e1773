"""Wild cards: high hands, lows and boards, against brute-force substitution oracles."""

from __future__ import annotations

import itertools
import random
from collections.abc import Collection, Sequence

import eval7
from hypothesis import given, settings
from hypothesis import strategies as st

from riverboat.engine.cards import Card, card_str, cards_str, parse_card, parse_cards, rank_of
from riverboat.engine.evaluation import (
    FIVE_OF_A_KIND,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    WildPredicate,
    board_value,
    describe_high,
    describe_low,
    high_category,
    high_value,
    low_value,
    reference_high_value,
)

E7 = tuple(eval7.Card(card_str(c)) for c in range(52))
FIVE_ACES = FIVE_OF_A_KIND << 24 | 12 << 16


def deuces(card: Card) -> bool:
    return rank_of(card) == 0


def wild_set(cards: Collection[Card]) -> WildPredicate:
    frozen = frozenset(cards)
    return frozen.__contains__


def high(text: str, wild: WildPredicate = deuces) -> int:
    return high_value(parse_cards(text), wild)


def low(text: str, qualifier: int | None = 8, wild: WildPredicate = deuces) -> int | None:
    return low_value(parse_cards(text), qualifier, wild)


# --- oracles ---------------------------------------------------------------------------------


def oracle_high_five(naturals: Sequence[Card], jokers: int) -> int:
    """Try every set of distinct cards the wild cards could stand for; add five of a kind."""
    if jokers == 0:
        return int(eval7.evaluate([E7[c] for c in naturals]))
    ranks = {c >> 2 for c in naturals}
    if len(ranks) <= 1:
        return FIVE_OF_A_KIND << 24 | (ranks.pop() if ranks else 12) << 16
    pool = [c for c in range(52) if c not in naturals]
    return max(
        int(eval7.evaluate([E7[c] for c in (*naturals, *stand_ins)]))
        for stand_ins in itertools.combinations(pool, jokers)
    )


def oracle_high(cards: Sequence[Card], wild: WildPredicate) -> int:
    best = 0
    for five in itertools.combinations(cards, 5):
        naturals = [c for c in five if not wild(c)]
        best = max(best, oracle_high_five(naturals, 5 - len(naturals)))
    return best


def oracle_low(cards: Sequence[Card], qualifier: int | None, wild: WildPredicate) -> int | None:
    """Each wild card tries every rank (suits do not matter to a low); natural lows decide."""
    values: list[int] = []
    for five in itertools.combinations(cards, 5):
        naturals = [c for c in five if not wild(c)]
        for ranks in itertools.product(range(13), repeat=5 - len(naturals)):
            hand = list(naturals)
            for rank in ranks:
                free = [rank * 4 + s for s in range(4) if rank * 4 + s not in hand]
                if not free:
                    break
                hand.append(free[0])
            else:
                value = low_value(hand, qualifier)
                if value is not None:
                    values.append(value)
    return min(values, default=None)


# --- high hands ------------------------------------------------------------------------------


def test_flush_takes_the_highest_missing_card() -> None:
    assert describe_high(high("As Js 9s 5s 2c")) == "flush, A-K-J-9-5"  # no double-ace flush
    assert describe_high(high("Ks Js 8s 2c 2d")) == "flush, A-K-Q-J-8"
    assert high("As Js 9s 5s 2c") == high("As Ks Js 9s 5s", wild=wild_set(()))


def test_straight_flushes_with_wilds() -> None:
    assert describe_high(high("As Ks Qs Js 2c")) == "royal flush"
    assert describe_high(high("Ah 3h 4h 2c 2d")) == "straight flush, five high"  # steel wheel
    assert describe_high(high("9h 7h 2c 2d 2s")) == "straight flush, jack high"
    assert describe_high(high("9h 7h 2c 2d Kd")) == "three of a kind, kings, 9-7 kickers"
    assert high_category(high("9h 7h 2c 2d Kd 8h")) == STRAIGHT_FLUSH


def test_five_of_a_kind() -> None:
    five_aces = high("Ah Ad Ac As 2c")
    assert five_aces == FIVE_ACES
    assert describe_high(five_aces) == "five of a kind, aces"
    five_kings = high("Kc Kd Kh 2c 2d")
    assert describe_high(five_kings) == "five of a kind, kings"
    assert high("Kc 2s 2c 2d 2h") == five_kings
    assert high("2c 2d 2h 2s", wild=deuces) < FIVE_ACES  # four cards: four aces only
    assert high_value(parse_cards("2c 2d 2h 2s 3c"), wild_set(parse_cards("2c 2d 2h 2s 3c"))) == (
        FIVE_ACES
    )
    assert high("As Ks Qs Js Ts", wild=wild_set(())) < five_kings < five_aces
    assert high("Qc Qd 2c 2d 2h Kc Ac") == FIVE_OF_A_KIND << 24 | 10 << 16  # five queens


def test_natural_and_wild_tie() -> None:
    natural = high("As Ks Qs Js Ts", wild=wild_set(()))
    assert high("As Ks Qs Js 2c") == natural
    assert high("Ac Kc Jc 9c 5c", wild=wild_set(())) == high("Ac 2d Jc 9c 5c")


def test_other_wild_categories() -> None:
    cases = {
        "Ac 3d 4h 5s 2c": (STRAIGHT, "straight, five high"),  # the ace must play: a wheel
        "Ac 3d 4h 5s 2c 6d Kh": (STRAIGHT, "straight, seven high"),
        "Kc 7d 4h 9s 2c": (PAIR, "pair of kings, 9-7-4 kickers"),
        "Ac 9d 7h 4s 2c": (PAIR, "pair of aces, 9-7-4 kickers"),
        "Kc Kd 7h 2s 9c": (THREE_OF_A_KIND, "three of a kind, kings, 9-7 kickers"),
        "Kc 7d 2h 2s 9c": (THREE_OF_A_KIND, "three of a kind, kings, 9-7 kickers"),
        "Kc Kd 7h 7s 2c": (FULL_HOUSE, "full house, kings full of sevens"),
        "Kc Kd Kh 7s 2c": (FOUR_OF_A_KIND, "four of a kind, kings, 7 kicker"),
        "Kc 7d 2h 2s 2c": (FOUR_OF_A_KIND, "four of a kind, kings, 7 kicker"),
        "Ac Jd 2c 2d 2h": (FOUR_OF_A_KIND, "four of a kind, aces, J kicker"),
        "Ac Jc 8c 3c 2d": (FLUSH, "flush, A-K-J-8-3"),
        "Ac Jc 2c 2d 2h": (STRAIGHT_FLUSH, "royal flush"),
    }
    for text, (category, description) in cases.items():
        value = high(text)
        assert high_category(value) == category, text
        assert describe_high(value) == description, text


def test_wilds_in_short_hands() -> None:
    assert describe_high(high("Kc 2d"), size=2) == "pair of kings"
    assert describe_high(high("2d"), size=1) == "high card, A"
    assert describe_high(high("Kc 7d 2h 2s"), size=4) == "three of a kind, kings, 7 kicker"
    assert describe_high(high("Kc 7d 7h 2s"), size=4) == "three of a kind, sevens, K kicker"


def test_high_matches_oracle_on_five_cards() -> None:
    rng = random.Random(5)
    for i in range(400):
        cards = rng.sample(range(52), 5)
        jokers = cards[: 1 + i % 2]
        wild = wild_set(jokers)
        naturals = [c for c in cards if c not in jokers]
        expected = oracle_high_five(naturals, len(jokers))
        assert high_value(cards, wild) == expected, (cards_str(cards), cards_str(jokers))


def test_high_matches_oracle_with_three_wilds() -> None:
    rng = random.Random(3)
    for _ in range(12):
        cards = rng.sample(range(52), 5)
        wild = wild_set(cards[:3])
        assert high_value(cards, wild) == oracle_high_five(cards[3:], 3), cards_str(cards)


def test_high_matches_oracle_on_seven_cards() -> None:
    rng = random.Random(7)
    # Deuces & Jacks & the Man with the Axe, plus random one- and two-card wild sets.
    axe = wild_set([c for c in range(52) if c >> 2 in (0, 9)] + [parse_card("Kd")])
    checked = 0
    while checked < 40:
        cards = rng.sample(range(52), 7)
        wild = axe if checked % 2 else wild_set(rng.sample(cards, 1 + checked % 4 // 2))
        if not 1 <= sum(map(wild, cards)) <= 2:
            continue
        checked += 1
        assert high_value(cards, wild) == oracle_high(cards, wild), cards_str(cards)
        assert reference_high_value(cards, wild) == high_value(cards, wild)


def test_many_wilds_and_cards() -> None:
    assert high("2c 2d 2h 2s 3c 4c 5c") == FIVE_OF_A_KIND << 24 | 3 << 16  # five fives
    assert high("2c 2d 2h 2s 3c 4c 5c 9d 9h") == FIVE_OF_A_KIND << 24 | 7 << 16
    assert high_value(parse_cards("Ac Kd Qh Js 9c"), lambda c: True) == FIVE_ACES


# --- lows ------------------------------------------------------------------------------------


def test_wild_plays_as_the_lowest_missing_rank() -> None:
    assert low("8c 6d 4h Ac 2s") == 0x86421
    assert describe_low(0x86421) == "8-6-4-2-A"
    assert low("Ac 3d 4h 5s 2c") == 0x54321  # the deuce is wild: it becomes the deuce again
    assert low("3d 4h 5s 6c 2c") == 0x65431  # here the wild is the ace
    assert low("8c 7d 6h 5s 2c") == 0x87651
    assert low("9c 7d 6h 5s 2c") is None
    assert low("9c 7d 6h 5s 2c", qualifier=None) == 0x97651
    assert low("2c 2d 2h 2s Kc") is None  # four wilds and a king: K-4-3-2-A, no qualifier
    assert low("2c 2d 2h 2s Kc", qualifier=None) == 0xD4321
    assert low("2c 2d 2h 2s 9c 8c 7c") == 0x74321
    assert low("2c 2d") is None


def test_wild_in_paired_lows() -> None:
    # The wild card is the lowest rank missing from the hand, even if that leaves a pair.
    assert low("Ac Ad 3h 4s 2c") is None
    assert low("Ac Ad 3h 4s 2c", qualifier=None) == 0x114320
    assert low("Kc Kd Qh Qs 2c", qualifier=None) == low_value(parse_cards("Kc Kd Qh Qs Ac"), None)
    # With more cards, the wild card replaces a paired natural.
    assert low("Ac Ad 3h 4s 2c Kd Kh") is None
    assert low("Ac Ad 3h 4s 2c 6d 6h") == 0x64321


def test_low_matches_oracle() -> None:
    rng = random.Random(11)
    for i in range(150):
        cards = rng.sample(range(52), 7 if i % 3 else 5)
        wild = wild_set(rng.sample(cards, 1 + i % 2))
        for qualifier in (8, None):
            expected = oracle_low(cards, qualifier, wild)
            assert low_value(cards, qualifier, wild) == expected, (cards_str(cards), qualifier)


# --- boards ----------------------------------------------------------------------------------


def test_wild_boards() -> None:
    def b(text: str) -> int:
        return board_value(parse_cards(text), deuces)

    assert b("Kc 2d") == board_value(parse_cards("Kc Kd"))  # pair of kings
    assert b("2d") == board_value(parse_cards("Ad"))  # a lone wild is an ace
    assert b("2d 2c") == board_value(parse_cards("Ad Ac"))
    assert b("Kc 7d 7h 2s") == board_value(parse_cards("7c 7d 7h Ks"))  # trips beat two pair
    assert b("Kc Kd 7h 7s 2c") == board_value(parse_cards("Kc Kd Kh 7s 7c"))  # a full house
    assert high_category(b("Kc Kd Kh Ks 2c")) == FIVE_OF_A_KIND
    assert b("Kc Qd 2h") > board_value(parse_cards("Qc Qs Ah"))
    assert b("5c 6d 7h 2s") == board_value(parse_cards("5c 6d 7h 7s"))  # no straights


# --- properties ------------------------------------------------------------------------------

hands = st.lists(st.integers(0, 51), min_size=5, max_size=9, unique=True)


@settings(max_examples=150, deadline=None)
@given(hands, st.data())
def test_turning_a_card_wild_never_hurts(cards: list[Card], data: st.DataObject) -> None:
    chosen = data.draw(st.lists(st.sampled_from(cards), min_size=1, max_size=3, unique=True))
    wild = wild_set(chosen)
    assert high_value(cards, wild) >= high_value(cards)
    for qualifier in (8, None):
        before = low_value(cards, qualifier)
        after = low_value(cards, qualifier, wild)
        if before is not None:
            assert after is not None and after <= before


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=2, max_size=9, unique=True))
def test_adding_a_wild_card_never_hurts(cards: list[Card]) -> None:
    *rest, joker = cards
    wild = wild_set([joker])
    assert high_value(cards, wild) >= high_value(rest)
    assert board_value([*rest[:4], joker], wild) >= board_value(rest[:4])
    for qualifier in (8, None):
        before = low_value(rest, qualifier)
        after = low_value(cards, qualifier, wild)
        if before is not None:
            assert after is not None and after <= before


@settings(max_examples=100, deadline=None)
@given(hands, st.randoms(use_true_random=False))
def test_order_of_cards_does_not_matter(cards: list[Card], rng: random.Random) -> None:
    shuffled = list(cards)
    rng.shuffle(shuffled)
    wild = wild_set(cards[:2])
    assert high_value(shuffled, wild) == high_value(cards, wild)
    assert low_value(shuffled, None, wild) == low_value(cards, None, wild)
    assert board_value(shuffled[:5], wild) == board_value(
        [c for c in cards if c in shuffled[:5]], wild
    )
