"""Deuces & Jacks & the Man with the Axe, golden scenarios: nine wild cards, the natural pair
of sevens, $1 per wild card and $5 per seven dealt face up."""

from __future__ import annotations

from typing import Any

from tests.unit.engine._games_kit import (
    CHECKS,
    Step,
    deal_deck,
    events_of,
    net,
    play,
    play_plan,
)

GAME = "deuces_jacks_axe"
NO_RAKE = {"rake_percent": 0}
ALL_CHECK: list[Step] = [CHECKS] * 5


def showdown(*hands: str, **kw: Any) -> dict[str, Any]:
    return play_plan(GAME, deal_deck(*hands), ALL_CHECK, rules=NO_RAKE, **kw)


def shown(result: dict[str, Any]) -> dict[int, str]:
    return {e["seat"]: e["high_text"] for e in events_of(result, "HandShown")}


def payments(result: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(e["seat"], e["card"], e["amount"]) for e in events_of(result, "CardPaymentPosted")]


# Two down, four up, one down.
SEVENS = "7c 7d 3h 4s 5h 8c 9d"  # a natural pair of sevens, in the hole
ACES = "Ac Ad Ah As 2c 6d Tc"  # four aces and a face-up deuce: five aces
QUEENS = "Qc Qd 3c 4c 6c 8h 9h"


def test_a_natural_pair_of_sevens_beats_five_aces() -> None:
    result = showdown(SEVENS, ACES, QUEENS)
    assert shown(result)[1] == "natural pair of sevens"
    assert shown(result)[2] == "five of a kind, aces"
    assert result["pots"][0]["high_winners"] == ["p1"]
    # The face-up deuce cost p2 $1: dead money in the pot.
    assert payments(result) == [(2, "2c", 100)]
    assert net(result) == {"p1": 200, "p2": -100, "p3": -100}


def test_natural_sevens_option_off() -> None:
    result = showdown(SEVENS, ACES, QUEENS, options={"natural_sevens": False})
    assert result["pots"][0]["high_winners"] == ["p2"]


def test_two_natural_pairs_of_sevens_split() -> None:
    result = showdown(SEVENS, "7h 7s 3d 4h 5c 8d 9s", QUEENS)
    assert result["pots"][0]["high_winners"] == ["p1", "p2"]


def test_a_wild_card_in_a_flush_is_the_highest_missing_card() -> None:
    # p1: A-T-9-5 of spades and the 2h (wild, in the hole): the king of spades, not an ace.
    result = showdown("As Ts 9s 5s 3c 4d 2h", "Ah Qh Th 8h 6h 3s 4s", "Kc Qc 9c 8d 6s 3d 4c")
    assert shown(result)[1] == "flush, A-K-T-9-5"
    assert shown(result)[2] == "flush, A-Q-T-8-6"
    assert result["pots"][0]["high_winners"] == ["p1"]


def test_wild_cards_and_sevens_dealt_face_up_cost_their_owners() -> None:
    deck = deal_deck("Ac Kc Jh 7s 4d 8c 9c", "Qc Qd Kd 3h 5h 6s 8s", "Tc Td Th 3c 4h 5d 6d")
    result = play_plan(GAME, deck, ALL_CHECK, rules=NO_RAKE)
    # Jh and K♦ are wild ($1 each); the 7s costs $5. Face-down wild cards cost nothing.
    assert payments(result) == [(1, "Jh", 100), (2, "Kd", 100), (1, "7s", 500)]
    off = play_plan(GAME, deck, ALL_CHECK, rules=NO_RAKE, options={"exposed_card_payments": False})
    assert payments(off) == []


def test_payments_are_dead_money_not_bets() -> None:
    deck = deal_deck("Ac Kc Jh 7s 4d 8c 9c", "Qc Qd Kd 3h 5h 6s 8s", "Tc Td Th 3c 4h 5d 6d")
    result = play(GAME, deck, [(1, "bet"), (2, "call"), (3, "fold"), (1, "check"), (2, "bet")])
    calls = [(e["seat"], e["action"], e["amount"]) for e in events_of(result, "ActionTaken")]
    # p2 calls the full $2 though p1 already paid $1 for the jack; 4th street is $2 too.
    assert calls[:2] == [(1, "bet", 200), (2, "call", 200)]
    assert calls[-1] == (2, "bet", 200)


def test_a_short_stack_pays_what_it_has_and_is_all_in() -> None:
    deck = deal_deck("Ac Kc Jh 7s 4d 8c 9c", "Qc Qd Kd 3h 5h 6s 8s", "Tc Td Th 3c 4h 5d 6d")
    result = play_plan(GAME, deck, ALL_CHECK, rules=NO_RAKE, stacks=[300, 10_000, 10_000])
    assert payments(result)[:3] == [(1, "Jh", 100), (2, "Kd", 100), (1, "7s", 200)]
    assert result["complete"] and result["final_stacks"]["p1"] in (0, 500)


def test_wild_cards_count_on_the_board_for_who_bets_first() -> None:
    # 3rd street: p2's king opens. 4th street: p1's queen and jack (wild) make a pair of
    # queens, above p2's king high.
    deck = deal_deck("3c 4c Qh Jd", "5c 6c Ks 3s", "8c 9c Th 4h")
    result = play(GAME, deck, [(2, "check"), (3, "check"), (1, "check")], rules=NO_RAKE)
    assert [e["first_to_act"] for e in events_of(result, "BettingRoundStarted")] == [2, 1]


def test_a_natural_pair_of_sevens_showing_bets_first() -> None:
    deck = deal_deck("3c 4c 7h 7s", "5c 6c Ah As", "8c 9c Th 3h")
    result = play(GAME, deck, [(2, "check"), (3, "check"), (1, "check")], rules=NO_RAKE)
    assert events_of(result, "BettingRoundStarted")[1]["first_to_act"] == 1


def test_natural_beats_wild_option_breaks_equal_hands() -> None:
    # p1: A + K♦ (wild) = a pair of aces; p2: a natural pair of aces; the same kickers.
    result = showdown("Ac Kd 4s 5s 8c 9c Th", "Ah As 4h 5h 8d 9d Tc", "3c 4d 6h 7s Qc Kh 9s")
    assert result["pots"][0]["high_winners"] == ["p1", "p2"]
    natural = showdown(
        "Ac Kd 4s 5s 8c 9c Th",
        "Ah As 4h 5h 8d 9d Tc",
        "3c 4d 6h 7s Qc Kh 9s",
        options={"natural_beats_wild": True},
    )
    assert natural["pots"][0]["high_winners"] == ["p2"]
    assert shown(natural)[2].endswith("(natural)")


def test_declared_high_low_with_a_wild_card_making_the_low() -> None:
    # split: declare. p1 holds A-3-4-6 and a deuce (wild): it plays as the 2, 6-4-3-2-A.
    deck = deal_deck("Ac 3d 4h 6c 8s 9h 2s", "Ah As Kh Ks Qs Qh Tc", "3c 5d 8c 9c Td Th Ts")
    plan: list[Step] = [
        *ALL_CHECK, (1, "declare", "low"), (2, "declare", "high"), (3, "declare", "high"),
    ]  # fmt: skip
    result = play_plan(GAME, deck, plan, rules=NO_RAKE, options={"split": "declare"})
    lows = {e["seat"]: e["low_text"] for e in events_of(result, "HandShown")}
    assert lows[1] == "6-4-3-2-A"
    pot = result["pots"][0]
    assert pot["low_winners"] == ["p1"]
