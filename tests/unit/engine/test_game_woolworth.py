"""Woolworth (Buderick), golden scenarios: fives and tens wild, $1 for each dealt face up."""

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

GAME = "woolworth"
NO_RAKE = {"rake_percent": 0}
ALL_CHECK: list[Step] = [CHECKS] * 5


def showdown(*hands: str, **kw: Any) -> dict[str, Any]:
    return play_plan(GAME, deal_deck(*hands), ALL_CHECK, rules=NO_RAKE, **kw)


def payments(result: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(e["seat"], e["card"], e["amount"]) for e in events_of(result, "CardPaymentPosted")]


def shown(result: dict[str, Any]) -> dict[int, str]:
    return {e["seat"]: e["high_text"] for e in events_of(result, "HandShown")}


# p1: A-J-9-4 of hearts and the 5c (wild, in the hole); p2 a king-high diamond flush;
# p3 a natural ace-king club flush.
FLUSHES = ("Ah Jh 9h 4h 2c 3d 5c", "Kd Qd 8d 7d 3c 2d 6s", "Ac Kc 9c 8c 4c 6h 2s")


def test_a_wild_card_in_a_flush_takes_the_highest_missing_card() -> None:
    result = showdown(*FLUSHES)
    # The wild five is the king of hearts (never a second ace): A-K-J-9-4 beats A-K-9-8-4.
    assert shown(result) == {
        1: "flush, A-K-J-9-4",
        2: "flush, K-Q-8-7-2",
        3: "flush, A-K-9-8-4",
    }
    assert result["pots"][0]["high_winners"] == ["p1"]
    assert payments(result) == []  # the five was dealt face down


def test_fives_and_tens_dealt_face_up_cost_a_dollar_each() -> None:
    result = showdown("Ac Kd Th 5s 2c 3d 4h", "Qc Qd 5h 7s 8s 9d Js", "2h 3h 6c 7c Tc 9s Jd")
    assert payments(result) == [(1, "Th", 100), (2, "5h", 100), (1, "5s", 100), (3, "Tc", 100)]
    # Dead money: the pot is the $1 ante and the $4 of payments.
    assert sum(result["pots"][0]["shares"].values()) == 500
    off = showdown(
        "Ac Kd Th 5s 2c 3d 4h",
        "Qc Qd 5h 7s 8s 9d Js",
        "2h 3h 6c 7c Tc 9s Jd",
        options={"exposed_card_payments": False},
    )
    assert payments(off) == []


def test_five_of_a_kind_beats_a_straight_flush() -> None:
    result = showdown("Ac Ad Ah As Th 2c 3d", "9c 8c 7c 6c 5d 2h 3h", "Kc Kd 4h 4s 9d 9h 2s")
    assert shown(result)[1] == "five of a kind, aces"
    assert shown(result)[2] == "straight flush, ten high"
    assert result["pots"][0]["high_winners"] == ["p1"]


def test_wild_cards_fill_a_straight() -> None:
    result = showdown("9c 8d Tc 6h 2c 3d 5s", "Qc Qd 4h 4s 9h Jh 2s", "Ac Ad 3c 7s 8s Kh Kd")
    # 9-8-6 and two wild cards (the Tc and the 5s): T-9-8-7-6.
    assert shown(result)[1] == "straight, ten high"


def test_no_extra_cards_are_dealt() -> None:
    result = showdown("Ac Kd Th 5s 2c 3d 4h", "Qc Qd 5h 7s 8s 9d Js", "2h 3h 6c 7c Tc 9s Jd")
    assert [len(e["cards"]) for e in events_of(result, "HandShown")] == [7, 7, 7]


def test_natural_beats_wild_option() -> None:
    # p1: K♠ and a wild ten = a pair of kings; p2 a natural pair of kings; equal kickers.
    hands = ("Ks 2c 3d Th 7h 8s 9c", "Kh Kd 2h 3s 7d 8c 9d", "4c 6d 2d Js Qh Qc Ah")
    tied = showdown(*hands)
    assert tied["pots"][0]["high_winners"] == ["p1", "p2"]
    natural = showdown(*hands, options={"natural_beats_wild": True})
    assert natural["pots"][0]["high_winners"] == ["p2"]


def test_wild_cards_count_on_the_board() -> None:
    # 3rd street: p2's ten is wild: an ace on the board, above p1's king.
    deck = deal_deck("2c 3c Kc", "4c 6c Th", "7c 8c Qh")
    result = play(GAME, deck, [], rules=NO_RAKE)
    assert events_of(result, "BettingRoundStarted")[0]["first_to_act"] == 2


def test_declared_high_low_a_wild_card_making_the_low() -> None:
    plan: list[Step] = [
        *ALL_CHECK, (1, "declare", "high"), (2, "declare", "low"), (3, "declare", "high"),
    ]  # fmt: skip
    # p2: 2-3-4-7 and a wild ten: the lowest missing rank, an ace: 7-4-3-2-A.
    deck = deal_deck("Ac Ad Kh Ks Qh Qs Jc", "2c 3d 4h 7s Tc 9c 9h", "8c 8d 8h 6c 6d Js Jh")
    result = play_plan(GAME, deck, plan, rules=NO_RAKE, options={"split": "declare"})
    lows = {e["seat"]: e["low_text"] for e in events_of(result, "HandShown")}
    assert lows[2] == "7-4-3-2-A"
    pot = result["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == (["p3"], ["p2"])


def test_an_all_in_payer_still_plays_for_the_main_pot() -> None:
    # p1 has $1: the face-up ten takes all of it; p1 is all in and wins the main pot.
    hands = ("Ac Ad Th 2c 3d 4h 6s", "Kc Kd 2h 3s 7d 8d 9d", "Qc Qd 4c 6h 8s 9h Js")
    result = play_plan(
        GAME, deal_deck(*hands), [CHECKS] * 5, rules=NO_RAKE, stacks=[100, 5000, 5000]
    )
    assert payments(result)[0] == (1, "Th", 100)
    pots = result["pots"]
    assert pots[0]["high_winners"] == ["p1"]
    assert result["final_stacks"]["p1"] == 200  # the ante and its own dollar


def test_everyone_folds_to_a_bet() -> None:
    deck = deal_deck("2c 3c Kc", "4c 6c 9h", "7c 8c Qh")
    result = play(GAME, deck, [(1, "bet"), (2, "fold"), (3, "fold")], rules=NO_RAKE)
    assert net(result) == {"p1": 100, "p2": 0, "p3": -100}
