"""Seven Twenty-Seven, golden scenarios: pictures as one half, offers face down, the natural."""

from __future__ import annotations

from typing import Any

from tests.unit.engine._games_kit import CHECKS, Step, deal_deck, events_of, play_plan

GAME = "seven_twenty_seven"
NO_RAKE = {"rake_percent": 0}
# One down, one up. p1: A-5, takes the Ad (7 and 27: a natural). p2: K-6 (6½), takes the
# Jd (7). p3: 9-T (19), takes the 8s (27).
HANDS = ("Ac 5h", "Kc 6d", "9c Th")
OFFERS = "Ad Jd 8s"
TAKE_ALL: list[Step] = [
    CHECKS, (1, "take"), (2, "take"), (3, "take"),
    CHECKS, (1, "stand"), (2, "stand"), (3, "stand"),
]  # fmt: skip


def hand(plan: list[Step], *hands: str, offers: str = OFFERS, **kw: Any) -> dict[str, Any]:
    return play_plan(GAME, deal_deck(*(hands or HANDS), then=offers), plan, rules=NO_RAKE, **kw)


def declare(*ways: str) -> list[Step]:
    return [(k + 1, "declare", way) for k, way in enumerate(ways)]


def test_one_down_one_up_and_offers_dealt_face_down() -> None:
    result = hand([*TAKE_ALL, *declare("both", "low", "high")])
    dealt = [(e["seat"], e["face_up"]) for e in events_of(result, "CardDealt")]
    assert dealt[:6] == [(1, False), (2, False), (3, False), (1, True), (2, True), (3, True)]
    assert all(not up for _, up in dealt[6:])
    # Round 1 opens left of the dealer, round 2 with the second player (Buderick).
    assert [e["first_to_act"] for e in events_of(result, "BettingRoundStarted")] == [1, 2]


def test_a_natural_seven_and_twenty_seven_takes_everything() -> None:
    result = hand([*TAKE_ALL, *declare("both", "low", "high")])
    texts = {e["seat"]: (e["low_text"], e["high_text"]) for e in events_of(result, "HandShown")}
    assert texts[1] == ("7 for 7", "27 for 27")
    assert result["pots"][0]["shares"] == {"p1": 100}


def test_without_the_natural_rule_a_pig_who_ties_fails() -> None:
    result = hand([*TAKE_ALL, *declare("both", "low", "high")], options={"natural_sweeps": False})
    pot = result["pots"][0]
    assert (pot["low_winners"], pot["high_winners"]) == (["p2"], ["p3"])


def test_pictures_count_one_half() -> None:
    plan: list[Step] = [CHECKS, (1, "stand"), (2, "stand"), (3, "stand")]
    result = hand([*plan, *declare("high", "low", "high")])
    texts = {e["seat"]: e["low_text"] for e in events_of(result, "HandShown")}
    assert texts[2] == "6½ for 7"
    assert result["pots"][0]["low_winners"] == ["p2"]


def test_pictures_may_count_ten_when_the_dealer_says_so() -> None:
    plan: list[Step] = [CHECKS, (1, "stand"), (2, "stand"), (3, "stand")]
    result = hand([*plan, *declare("low", "high", "high")], options={"pictures": "either"})
    texts = {e["seat"]: e["high_text"] for e in events_of(result, "HandShown")}
    assert texts[2] == "16 for 27"  # the king as 10, and the 6


def test_equal_distance_splits_the_half() -> None:
    # p1: 6 (one under 7), p2: 8 (one over): they split the low half.
    plan: list[Step] = [CHECKS, (1, "stand"), (2, "stand"), (3, "stand")]
    result = hand([*plan, *declare("low", "low", "high")], "4c 2h", "5c 3d", "9c Th")
    pot = result["pots"][0]
    assert (pot["low_winners"], pot["high_winners"]) == (["p1", "p2"], ["p3"])
    assert pot["shares"] == {"p1": 25, "p2": 25, "p3": 50}


def test_two_down_one_up_deal_option() -> None:
    plan: list[Step] = [CHECKS]
    result = hand(plan, "Ac 5h 2c", "Kc 6d 2d", "9c Th 2h", options={"deal": "two_down_one_up"})
    ups = [e["face_up"] for e in events_of(result, "CardDealt") if e["seat"] == 1]
    assert ups == [False, False, True]


def test_offered_cards_face_up_option() -> None:
    result = hand([CHECKS, (1, "take")], options={"offer_face_up": True})
    assert events_of(result, "CardDealt")[-1] == {
        "type": "CardDealt", "seat": 1, "card": "Ad", "face_up": True,
    }  # fmt: skip


def test_everyone_going_high_plays_for_the_high_half_only() -> None:
    result = hand([*TAKE_ALL, *declare("high", "high", "high")], options={"natural_sweeps": False})
    # p1's 27 and p3's 27 tie: they split the whole pot.
    assert result["pots"][0]["shares"] == {"p1": 50, "p3": 50}


def test_over_twenty_seven_is_bust_with_the_option() -> None:
    # p3 takes the Qs and the 9s: 19½ then 28½, over 27; p1 stands on 16.
    plan: list[Step] = [
        CHECKS, (1, "stand"), (2, "stand"), (3, "take"),
        CHECKS, (1, "stand"), (2, "stand"), (3, "take"),
        CHECKS, (1, "stand"), (2, "stand"), (3, "stand"),
        *declare("high", "low", "high"),
    ]  # fmt: skip
    plain = hand(plan, offers="Qs 9s")
    assert plain["pots"][0]["high_winners"] == ["p3"]  # 1½ over beats 11 under
    bust = hand(plan, offers="Qs 9s", options={"nearest_rule": "over_is_bust"})
    assert bust["pots"][0]["high_winners"] == ["p1"]


def test_the_clock_stands_on_an_offer() -> None:
    result = hand([CHECKS, (1, "timeout"), (2, "timeout"), (3, "timeout")])
    assert [e["took"] for e in events_of(result, "OfferAnswered")] == [False, False, False]
    assert result["phase"] == "declare"
