"""Fifteen Thirty-Five (Buderick), golden scenarios: exposing, card offers, nearest and the
natural."""

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
    refused,
)

GAME = "fifteen_thirty_five"
NO_RAKE = {"rake_percent": 0}
EXPOSE: list[Step] = [(1, "expose", "5h"), (2, "expose", "Kc"), (3, "expose", "6h")]
# p1: A-A-5, then the 8s: 15 and 35 both (a natural). p2: K-9-4, then the Qd: 33.
HANDS = ("Ac Ad 5h", "Kc 9d 4s", "7c 7d 6h")
OFFERS = "8s Qd"
BEFORE_DECLARING: list[Step] = [
    *EXPOSE, CHECKS,
    (1, "take"), (2, "take"), (3, "stand"),
    CHECKS,
    (1, "stand"), (2, "stand"), (3, "stand"),
]  # fmt: skip


def hand(plan: list[Step], *hands: str, offers: str = OFFERS, **kw: Any) -> dict[str, Any]:
    deck = deal_deck(*(hands or HANDS), then=offers)
    return play_plan(GAME, deck, plan, rules=NO_RAKE, **kw)


def declare(*ways: str) -> list[Step]:
    return [(k + 1, "declare", way) for k, way in enumerate(ways)]


def test_players_expose_in_turn_and_the_highest_exposed_card_opens() -> None:
    result = hand(EXPOSE)
    turned = [(e["seat"], e["card"]) for e in events_of(result, "CardTurnedUp")]
    assert turned == [(1, "5h"), (2, "Kc"), (3, "6h")]
    assert events_of(result, "BettingRoundStarted")[0]["first_to_act"] == 2  # the king
    out_of_turn = refused(GAME, deal_deck(*HANDS), [(2, "expose", "Kc")], rules=NO_RAKE)
    assert out_of_turn["rule"] == "out_of_turn"


def test_a_natural_fifteen_and_thirty_five_takes_the_whole_pot() -> None:
    result = hand([*BEFORE_DECLARING, *declare("both", "high", "low")])
    shown = {e["seat"]: (e["high_text"], e["low_text"]) for e in events_of(result, "HandShown")}
    assert shown[1] == ("35 for 35", "15 for 15")
    assert result["pots"][0]["shares"] == {"p1": 100}
    assert net(result) == {"p1": 100, "p2": 0, "p3": -100}


def test_the_natural_wins_even_when_someone_ties_fifteen() -> None:
    # p3's A-7-7 also makes 15 exactly, and declares low: the natural still takes all.
    hands = ("Ac Ad 5h", "Kc 9d 4s", "7c 7d Ah")
    expose: list[Step] = [(1, "expose", "5h"), (2, "expose", "Kc"), (3, "expose", "Ah")]
    plan: list[Step] = [
        *expose, CHECKS, (1, "take"), (2, "take"), (3, "stand"), CHECKS,
        (1, "stand"), (2, "stand"), (3, "stand"), *declare("both", "high", "low"),
    ]  # fmt: skip
    result = hand(plan, *hands)
    assert result["pots"][0]["shares"] == {"p1": 100}
    # Without the natural rule this is the seed's own case: the PIG (p1) wins high (35 over
    # p2's 33) but ties p3 for low (15): "the person who tied for low gets the entire pot, the
    # high hand loser gets nothing" (the default, losers_never_share).
    plain = hand(plan, *hands, options={"natural_sweeps": False})
    pot = plain["pots"][0]
    assert (pot["high_winners"], pot["low_winners"], pot["shares"]) == ([], ["p3"], {"p3": 100})
    # reassign (tables created before 2026-12-01): high to p2, low to p3.
    old = hand(plan, *hands, options={"natural_sweeps": False, "pig_failure": "reassign"})
    pot = old["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == (["p2"], ["p3"])


def test_nearest_wins_each_half() -> None:
    # p1 stands on A-A-5 (7, 17 or 27); p2 takes the Qd (33); p3 stands on 20.
    plan: list[Step] = [
        *EXPOSE, CHECKS, (1, "stand"), (2, "take"), (3, "stand"), CHECKS,
        (1, "stand"), (2, "stand"), (3, "stand"), *declare("low", "high", "low"),
    ]  # fmt: skip
    result = hand(plan, offers="Qd")
    pot = result["pots"][0]
    # Low: p1's 17 is 2 from 15, p3's 20 is 5. High: p2's 33.
    assert (pot["high_winners"], pot["low_winners"]) == (["p2"], ["p1"])


def test_equal_distance_splits_the_half_unless_under_beats_over() -> None:
    # p1: 7-4-2 = 13, p3: 7-7-3 = 17: both 2 from 15.
    hands = ("7h 4s 2c", "Kc 9d 5s", "7c 7d 3h")
    expose: list[Step] = [(1, "expose", "7h"), (2, "expose", "Kc"), (3, "expose", "7c")]
    plan: list[Step] = [*expose, CHECKS, (1, "stand"), (2, "stand"), (3, "stand")]
    plan += declare("low", "high", "low")
    result = hand(plan, *hands)
    assert result["pots"][0]["low_winners"] == ["p1", "p3"]
    under = hand(plan, *hands, options={"nearest_rule": "under_beats_over"})
    assert under["pots"][0]["low_winners"] == ["p1"]


def test_over_is_bust_option() -> None:
    hands = ("Kh Qh Jh", "Kc 9d 5s", "7c 7d 3h")
    expose: list[Step] = [(1, "expose", "Kh"), (2, "expose", "Kc"), (3, "expose", "7c")]
    plan: list[Step] = [
        *expose, CHECKS, (1, "take"), (2, "take"), (3, "stand"), CHECKS,
        (1, "stand"), (2, "stand"), (3, "stand"), *declare("high", "high", "low"),
    ]  # fmt: skip
    # p1: K-Q-J (30) + 6c = 36, 1 over; p2: K-9-5 (24) + 9h = 33, 2 under.
    result = hand(plan, *hands, offers="6c 9h")
    assert result["pots"][0]["high_winners"] == ["p1"]
    bust = hand(plan, *hands, offers="6c 9h", options={"nearest_rule": "over_is_bust"})
    # Over 35 is bust: p1's best total under 35 is 26½ (two pictures as 10, one as ½).
    assert bust["pots"][0]["high_winners"] == ["p2"]


def test_offers_deal_face_up_and_a_round_with_no_taker_ends_the_offers() -> None:
    result = hand([*BEFORE_DECLARING, *declare("both", "high", "low")])
    taken = [(e["seat"], e["card"], e["face_up"]) for e in events_of(result, "CardDealt")][9:]
    assert taken == [(1, "8s", True), (2, "Qd", True)]
    phases = [e["phase"] for e in events_of(result, "PhaseStarted")]
    assert phases == ["expose", "offer", "offer", "declare"]
    # $2 throughout (house rules): 15-35 has no known last round.
    assert [e["bet_size"] for e in events_of(result, "BettingRoundStarted")] == [200, 200]


def test_a_last_round_at_the_big_bet_after_all_stand_option() -> None:
    plan: list[Step] = [*BEFORE_DECLARING, CHECKS, *declare("both", "high", "low")]
    result = hand(plan, options={"open_ended_final_bet": "after_all_stand"})
    assert [e["bet_size"] for e in events_of(result, "BettingRoundStarted")] == [200, 200, 500]


def test_two_stands_in_a_row_freeze_a_player_with_the_option() -> None:
    plan: list[Step] = [
        *EXPOSE, CHECKS, (1, "stand"), (2, "take"), (3, "stand"), CHECKS,
        (1, "stand"), (2, "take"), (3, "take"), CHECKS,
    ]  # fmt: skip
    result = hand(plan, offers="Qd 2c 3c", options={"stand_freezes": True})
    offers = [e["seats_to_act"] for e in events_of(result, "PhaseStarted") if e["phase"] == "offer"]
    assert offers == [[1, 2, 3], [1, 2, 3], [2, 3]]  # p1 stood twice: no more offers


def test_the_clock_stands_and_exposes_the_first_card() -> None:
    plan: list[Step] = [(1, "timeout"), (2, "expose", "Kc"), (3, "expose", "6h"), CHECKS]
    result = hand([*plan, (1, "timeout"), (2, "stand"), (3, "stand")])
    assert events_of(result, "CardTurnedUp")[0]["card"] == "Ac"
    assert events_of(result, "OfferAnswered")[0] == {
        "type": "OfferAnswered",
        "seat": 1,
        "took": False,
    }
    assert result["phase"] == "declare"


def test_taking_a_card_in_a_betting_round_is_refused() -> None:
    deck = deal_deck(*HANDS, then=OFFERS)
    error = refused(GAME, deck, [*EXPOSE, (2, "take")], rules=NO_RAKE)
    assert error["rule"] == "wrong_phase"
    played = play(GAME, deck, EXPOSE, rules=NO_RAKE)
    assert played["to_act"] == 2


# Later rounds (docs/games.md; Buderick via pagat: "the highest exposed card (A > K > Q > J >
# 10 ...; ties first in rotation)"). p1 shows the Ah alone; p2 shows 4c and takes the 2s face
# up, so p2 shows more cards but p1 still shows the highest card: p1 opens round 2.
ACE_HANDS = ("Ah 9c 2d", "4c 6d 7d", "3d 8c 5s")
ACE_EXPOSE: list[Step] = [(1, "expose", "Ah"), (2, "expose", "4c"), (3, "expose", "3d")]
ACE_PLAN: list[Step] = [*ACE_EXPOSE, CHECKS, (1, "stand"), (2, "take"), (3, "stand")]


def test_a_later_round_opens_with_the_highest_exposed_card_not_the_most_cards() -> None:
    result = hand(ACE_PLAN, *ACE_HANDS, offers="2s")
    ups = {e["seat"]: e["card"] for e in events_of(result, "CardDealt") if e["face_up"]}
    assert ups == {2: "2s"}  # p2 now shows 4c 2s, p1 the Ah alone
    rounds = events_of(result, "BettingRoundStarted")
    assert [r["first_to_act"] for r in rounds] == [1, 1]


def test_equal_highest_exposed_cards_the_first_in_rotation_opens() -> None:
    # p1 shows the Ah; p3 shows the Ad and takes the Kd: both show an ace, p1 is first.
    hands = ("Ah 9c 2d", "4c 6d 7d", "Ad 8c 5s")
    expose: list[Step] = [(1, "expose", "Ah"), (2, "expose", "4c"), (3, "expose", "Ad")]
    plan: list[Step] = [*expose, CHECKS, (1, "stand"), (2, "stand"), (3, "take")]
    rounds = events_of(hand(plan, *hands, offers="Kd"), "BettingRoundStarted")
    assert [r["first_to_act"] for r in rounds] == [1, 1]


def test_a_table_recorded_before_the_fix_keeps_its_opener() -> None:
    # A deal chosen at a table created before 2026-12-01 records edition 1's options (no
    # rule_book): its hands replay as they were played, the player showing more cards first.
    from riverboat.engine.games import game_options

    old = game_options(GAME, edition=1).to_dict()
    assert "rule_book" not in old
    result = hand(ACE_PLAN, *ACE_HANDS, offers="2s", options=old)
    assert [r["first_to_act"] for r in events_of(result, "BettingRoundStarted")] == [1, 2]
