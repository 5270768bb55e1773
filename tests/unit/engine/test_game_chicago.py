"""Chicago, golden scenarios: the high spade in the hole, declarations, the stud deal."""

from __future__ import annotations

from typing import Any

from riverboat.engine.scenario import run
from tests.unit.engine._games_kit import (
    CHECKS,
    Step,
    deal_deck,
    events_of,
    expand,
    net,
    play,
    play_plan,
    refused,
    scenario,
)

NO_RAKE = {"rake_percent": 0}
# Per player: two down, one up (3rd street), three up, one down (7th).
P1 = "As 2h Kc Kd 9c 8c 3h"  # the ace of spades in the hole; kings
P2 = "5s 4d Qh Qd Qc 7d 6c"  # the five of spades in the hole; queens
P3 = "Jh Th 2c 3c 4c Jd Td"  # no spade in the hole; jacks and tens
DECK = deal_deck(P1, P2, P3)
OPENING: list[Step] = [(1, "bet"), (2, "call"), (3, "call")]  # 100 + 600 = 700
STREETS: list[Step] = [*OPENING, CHECKS, CHECKS, CHECKS, CHECKS]


def chicago(declarations: list[Step], **kw: Any) -> dict[str, Any]:
    return play_plan("chicago", DECK, [*STREETS, *declarations], rules=NO_RAKE, **kw)


def test_stud_deal_five_rounds_opened_by_the_best_hand_showing() -> None:
    result = chicago([(1, "declare", "spade"), (2, "declare", "high"), (3, "declare", "high")])
    rounds = events_of(result, "BettingRoundStarted")
    assert [r["first_to_act"] for r in rounds] == [1, 1, 2, 2, 2]  # K, KK, QQQ...
    assert [r["bet_size"] for r in rounds] == [200, 200, 200, 200, 500]
    ups = [e["face_up"] for e in events_of(result, "CardDealt") if e["seat"] == 1]
    assert ups == [False, False, True, True, True, True, False]


def test_high_spade_in_the_hole_and_high_hand_split() -> None:
    result = chicago([(1, "declare", "spade"), (2, "declare", "high"), (3, "declare", "high")])
    pot = result["pots"][0]
    assert (pot["low_winners"], pot["high_winners"]) == (["p1"], ["p2"])
    assert net(result) == {"p1": 150, "p2": 150, "p3": -300}
    shown = {e["seat"]: e["low_text"] for e in events_of(result, "HandShown")}
    assert shown == {1: "high spade in the hole, As", 2: "high spade in the hole, 5s", 3: None}


def test_no_spade_in_the_hole_no_spade_declaration() -> None:
    steps = expand("chicago", DECK, STREETS, rules=NO_RAKE)
    error = refused("chicago", DECK, [*steps, (3, "declare", "spade")], rules=NO_RAKE)
    assert error["rule"] == "bad_declaration"
    error = refused("chicago", DECK, [*steps, (3, "declare", "both")], rules=NO_RAKE)
    assert error["rule"] == "bad_declaration"


def test_nobody_declaring_spade_gives_the_high_hand_everything() -> None:
    result = chicago([(1, "declare", "high"), (2, "declare", "high"), (3, "declare", "high")])
    assert result["pots"][0]["shares"] == {"p2": 700}


def test_chicago_with_no_hole_spade_at_all() -> None:
    deck = deal_deck("Ah 2h Kc Kd 9c 8c 3h", "5d 4d Qh Qd Qc 7d 6c", "Jh Th 2c 3c 4s Jd Td")
    plan: list[Step] = [
        *STREETS,
        (1, "declare", "high"), (2, "declare", "high"), (3, "declare", "high"),
    ]  # fmt: skip
    result = play_plan("chicago", deck, plan, rules=NO_RAKE)
    assert result["pots"][0]["shares"] == {"p2": 700}  # the 4s is face up: it does not count
    speak = play_plan("chicago", deck, STREETS, rules=NO_RAKE, options={"split": "cards_speak"})
    assert speak["pots"][0]["shares"] == {"p2": 700}


def test_face_up_spades_do_not_count_for_the_spade_half() -> None:
    # p3 shows the As but holds only the 2s in the hole; p1 holds the 3s in the hole.
    deck = deal_deck("3s 2h Kc Kd 9c 8c 3h", "5d 4d Qh Qd Qc 7d 6c", "2s Th As 3c 4c Jd Td")
    plan: list[Step] = [
        *[CHECKS] * 5,
        (1, "declare", "spade"), (2, "declare", "high"), (3, "declare", "spade"),
    ]  # fmt: skip
    result = play_plan("chicago", deck, plan, rules=NO_RAKE)
    assert result["pots"][0]["low_winners"] == ["p1"]


def test_a_pig_must_win_spade_and_high() -> None:
    # p2 (5s in the hole, trip queens) goes both but p1's As wins the spade: p2 fails.
    # The seed (the default): p3 lost high to p2's queens and "a loser can never share", so
    # p1, the spade winner, takes the whole pot.
    steps: list[Step] = [(1, "declare", "spade"), (2, "declare", "both"), (3, "declare", "high")]
    result = chicago(steps)
    pot = result["pots"][0]
    assert (pot["low_winners"], pot["high_winners"], pot["shares"]) == (["p1"], [], {"p1": 700})
    # reassign (tables created before 2026-12-01): the high half to the best remaining high
    # declarer (p3).
    old = chicago(steps, options={"pig_failure": "reassign"})
    pot = old["pots"][0]
    assert (pot["low_winners"], pot["high_winners"]) == (["p1"], ["p3"])
    scoop = chicago([(1, "declare", "high"), (2, "declare", "both"), (3, "declare", "high")])
    assert scoop["pots"][0]["shares"] == {"p2": 700}


def test_cards_speak_option_splits_without_declaring() -> None:
    result = play_plan("chicago", DECK, STREETS, rules=NO_RAKE, options={"split": "cards_speak"})
    assert events_of(result, "PhaseStarted") == []
    pot = result["pots"][0]
    assert (pot["low_winners"], pot["high_winners"]) == (["p1"], ["p2"])


def test_eight_players_share_a_community_card_on_seventh_street() -> None:
    hands = [
        "As 2h Kc Kd 9c 8c", "5s 4d Qh Qd Qc 7d", "Jh Th 2c 3c 4c Jd",
        "2d 3d 4h 5h 6h 7h", "9s Ts Js Qs Ks 8d", "3s 4s 5c 6c 7c 8h",
        "9h 6s 7s 8s 9d Tc", "Jc Ac Ad 6d Td Ah",
    ]  # fmt: skip
    deck = deal_deck(*hands, then="Kh")  # 48 dealt, 4 left: one community card
    plan: list[Step] = [CHECKS] * 5 + [(s, "declare", "high") for s in range(1, 9)]
    result = play_plan("chicago", deck, plan, players=8, rules=NO_RAKE)
    assert events_of(result, "CommunityCardDealt") == [{"type": "CommunityCardDealt", "card": "Kh"}]
    # The community king makes p1's board trip kings: p1 opens 7th street; p5's straight
    # flush (9-K of spades) wins.
    assert result["pots"][0]["high_winners"] == ["p5"]
    assert events_of(result, "BettingRoundStarted")[-1]["first_to_act"] == 1


def test_board_ties_go_clockwise_or_by_suit() -> None:
    deck = deal_deck("2h 3h Kc", "4h 5h Ks", "6h 7h 9d")
    first = play("chicago", deck, [], rules=NO_RAKE)
    assert events_of(first, "BettingRoundStarted")[0]["first_to_act"] == 1
    by_suit = play("chicago", deck, [], rules=NO_RAKE, options={"board_tie_break": "suit"})
    assert events_of(by_suit, "BettingRoundStarted")[0]["first_to_act"] == 2  # Ks > Kc


def test_match_the_pot_or_fold_and_the_matchers_bigger_bet() -> None:
    # A king dealt face up: its owner matches the pot (2,100 with a 2,000 pot carried in) or
    # folds, before the betting round; then may bet up to half the match.
    options = {"match_pot_rank": "K"}
    result = play("chicago", DECK, [], rules=NO_RAKE, options=options, carried=2000)
    assert events_of(result, "MatchDue") == [{"type": "MatchDue", "seat": 1, "amount": 2100}]
    assert result["phase"] == "match" and result["waiting_for"] == [1]
    matched = play(
        "chicago", DECK, [(1, "match"), (1, "bet", 1000), (2, "raise", 1200)],
        rules=NO_RAKE, options=options, carried=2000,
    )  # fmt: skip
    assert events_of(matched, "PotMatched") == [{"type": "PotMatched", "seat": 1, "amount": 2100}]
    too_much = refused(
        "chicago", DECK, [(1, "match"), (1, "bet", 1100)],
        rules=NO_RAKE, options=options, carried=2000,
    )  # fmt: skip
    assert too_much["rule"] == "wrong_amount"
    declined = play("chicago", DECK, [(1, "fold")], rules=NO_RAKE, options=options, carried=2000)
    assert events_of(declined, "MatchDeclined") == [{"type": "MatchDeclined", "seat": 1}]
    assert declined["to_act"] == 2  # the queens open the round without p1


def test_a_short_stack_cannot_match_unless_the_option_allows_all_in() -> None:
    kw: dict[str, Any] = {"rules": NO_RAKE, "carried": 2000, "stacks": [1000, 10_000, 10_000]}
    error = refused("chicago", DECK, [(1, "match")], options={"match_pot_rank": "K"}, **kw)
    assert error["rule"] == "cannot_match"
    options = {"match_pot_rank": "K", "match_short_stack": "all_in"}
    result = run(scenario("chicago", DECK, [(1, "match")], options=options, **kw))
    assert events_of(result, "PotMatched")[0]["amount"] == 1000


# Low Chicago (the seed: "Game may be played as high or low Chicago"): the spade half goes to
# the lowest spade in the hole; the ace of spades is the highest spade (pagat's Low Chicago).
# P1 holds the As in the hole, P2 the 5s, P3 none: the 5s wins the spade half.
LOW = {"chicago": "low"}


def test_low_chicago_the_lowest_spade_in_the_hole_wins_the_spade_half() -> None:
    steps: list[Step] = [(1, "declare", "spade"), (2, "declare", "spade"), (3, "declare", "high")]
    low = chicago(steps, options=LOW)
    pot = low["pots"][0]
    assert (pot["low_winners"], pot["high_winners"]) == (["p2"], ["p3"])
    assert net(low) == {"p1": -200, "p2": 150, "p3": 50}
    shown = {e["seat"]: e["low_text"] for e in events_of(low, "HandShown")}
    assert shown == {1: "low spade in the hole, As", 2: "low spade in the hole, 5s", 3: None}
    # The same hand as high Chicago: the As wins the spade half.
    high = chicago(steps)
    assert high["pots"][0]["low_winners"] == ["p1"]
    assert net(high) == {"p1": 150, "p2": -200, "p3": 50}


def test_low_chicago_cards_speak_the_five_of_spades_and_trip_queens_scoop() -> None:
    speak = {"split": "cards_speak"}
    low = play_plan("chicago", DECK, STREETS, rules=NO_RAKE, options={**speak, **LOW})
    assert low["pots"][0]["shares"] == {"p2": 700}  # lowest hole spade and the best hand
    high = play_plan("chicago", DECK, STREETS, rules=NO_RAKE, options=speak)
    assert high["pots"][0]["shares"] == {"p1": 350, "p2": 350}


def test_the_deuce_of_spades_is_the_lowest_spade() -> None:
    deck = deal_deck("3s 2h Kc Kd 9c 8c 3h", "2s 4d Qh Qd Qc 7d 6c", "Jh Th 2c 3c 4c Jd Td")
    steps: list[Step] = [(1, "declare", "spade"), (2, "declare", "spade"), (3, "declare", "high")]
    result = play_plan("chicago", deck, [*STREETS, *steps], rules=NO_RAKE, options=LOW)
    assert result["pots"][0]["low_winners"] == ["p2"]


def test_low_chicago_is_no_option_at_a_table_created_before_it() -> None:
    from riverboat.engine.errors import InvalidOptions
    from riverboat.engine.session import DealersChoiceRules

    assert DealersChoiceRules().options_for("chicago", LOW)["chicago"] == "low"
    assert "chicago" not in DealersChoiceRules(edition=1).options_for("chicago", None)
    try:
        DealersChoiceRules(edition=1).options_for("chicago", LOW)
    except InvalidOptions as exc:
        assert "unknown option" in str(exc)
    else:
        raise AssertionError("an edition-1 table accepted low Chicago")


def test_a_matchers_big_bet_leaves_the_others_at_the_rounds_bet() -> None:
    # The matcher bets exactly the table's big bet ($5) in the round after their match: their
    # own allowance, not the round's bet (house rules: the others bet by the normal $2). So p2's
    # all-in for $1.20 more is half a $2 bet or more, a full raise, and reopens the betting for
    # p1; in a round gone big ($5, as stud's open pair makes it) it would need $2.50.
    kw: dict[str, Any] = {
        "rules": NO_RAKE,
        "options": {"match_pot_rank": "K"},
        "carried": 2000,
        "stacks": [10_000, 620, 10_000],
    }
    steps: list[Step] = [(1, "match"), (1, "bet", 500), (2, "raise", 620), (3, "call")]
    result = play("chicago", DECK, [*steps, (1, "raise", 820)], **kw)
    assert events_of(result, "ActionTaken")[-1]["to"] == 820
