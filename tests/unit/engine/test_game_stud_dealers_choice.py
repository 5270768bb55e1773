"""Seven-card stud hi/lo offered as a dealer's choice: Pacific's game on Buderick's table,
following his general rules (the dealer's $1 ante the only forced bet, no bring-in, the high
hand showing bets first, $2 bets with $5 on 7th street, the cap kept heads-up)."""

from __future__ import annotations

from typing import Any

import pytest

from riverboat.engine.errors import InvalidOptions
from riverboat.engine.games import game_options
from riverboat.engine.options import DEALERS_CHOICE_TEMPLATE, pacific_options
from riverboat.engine.scenario import run
from tests.unit.engine._games_kit import Step, deal_deck, events_of, net, play, refused, scenario

GAME = "seven_card_stud_hi_lo"
DC = {**DEALERS_CHOICE_TEMPLATE, "rake_percent": 0}
# Door cards 9c, 2c, Kd (seat 3 deals): the Kd is the high hand showing. Boards after that:
# 9-3 / Q-2 / K-7, 9-4-3 / Q-J-2 / K-7-6, 9-5-4-3 / Q-J-T-2 / K-7-6-5: p3 opens every round.
HANDS = ("Ah 2h 9c 3c 4c 5c 8d", "As Ks 2c Qs Js Ts 7d", "Ac Kc Kd 7h 6h 5h 4h")


def stud(steps: list[Step], **kw: Any) -> dict[str, Any]:
    return play(GAME, deal_deck(*HANDS), steps, rules=DC, **kw)


def rest(opener_first: list[int]) -> list[Step]:
    return [(s, "check") for s in opener_first]


STREET_3: list[Step] = rest([3, 1, 2])


def test_only_the_dealer_antes_a_dollar_and_there_is_no_bring_in() -> None:
    # Buderick: "The dealer antes $1.00"; "Betting order in stud games where players' cards
    # are visible is to high hand bets" (house rules 2026-12-01: no bring-in at this table).
    result = stud([])
    assert events_of(result, "AntePosted") == [{"type": "AntePosted", "seat": 3, "amount": 100}]
    first = events_of(result, "BettingRoundStarted")[0]
    assert (first["first_to_act"], first["forced_bring_in"]) == (3, False)  # the Kd opens
    assert stud([(3, "check")])["to_act"] == 1  # no forced bet: the opener may check
    for action, rule in (("bring_in", "action_not_allowed"), ("complete", "wager_not_allowed")):
        assert refused(GAME, deal_deck(*HANDS), [(3, action)], rules=DC)["rule"] == rule


def test_equal_door_cards_the_first_clockwise_from_the_dealer_opens() -> None:
    # Kh (seat 1) and Kd (seat 3, the dealer): seat 1 is first clockwise from the dealer.
    hands = ("Ah 2h Kh 3c", "As Ks 2c Qs", "Ac Kc Kd 7h")
    result = play(GAME, deal_deck(*hands), [], rules=DC)
    assert events_of(result, "BettingRoundStarted")[0]["first_to_act"] == 1


def test_final_bet_rule_two_dollars_until_seventh_then_five() -> None:
    steps = [*STREET_3, *rest([3, 1, 2]), *rest([3, 1, 2]), *rest([3, 1, 2]), *rest([3, 1, 2])]
    result = stud(steps)
    rounds = events_of(result, "BettingRoundStarted")
    assert [e["bet_size"] for e in rounds] == [200, 200, 200, 200, 500]
    assert [e["first_to_act"] for e in rounds] == [3, 3, 3, 3, 3]


def test_the_high_hand_bets_two_dollars_and_others_raise_by_two() -> None:
    result = stud([(3, "bet"), (1, "raise")])
    taken = [(e["action"], e["to"]) for e in events_of(result, "ActionTaken")]
    assert taken == [("bet", 200), ("raise", 400)]


def test_no_open_pair_big_bet_on_this_table() -> None:
    # 4th street: the $5 bet is refused (Pacific's open-pair rule is off at this table).
    error = refused(GAME, deal_deck(*HANDS), [*STREET_3, (3, "bet", 500)], rules=DC)
    assert error["rule"] == "wrong_amount"


def test_the_cap_holds_heads_up() -> None:
    steps: list[Step] = [(3, "bet"), (1, "fold"), (2, "raise"), (3, "raise"), (2, "raise")]
    error = refused(GAME, deal_deck(*HANDS), [*steps, (3, "raise")], rules=DC)
    assert error["rule"] == "betting_capped"


def test_the_dealers_ante_is_dead_money_at_showdown() -> None:
    result = stud(rest([3, 1, 2]) * 5)
    assert len(result["pots"]) == 1
    assert result["pots"][0]["eligible"] == ["p1", "p2", "p3"]
    assert sum(result["pots"][0]["shares"].values()) == 100  # the dealer's $1 ante alone


def test_cards_speak_eight_or_better_as_in_pacific() -> None:
    result = stud(rest([3, 1, 2]) * 5)
    pot = result["pots"][0]
    # p1: 5-4-3-2-A, the best low; p2's royal flush wins high; the $1 splits.
    assert pot["low_winners"] == ["p1"] and pot["high_winners"] == ["p2"]
    assert net(result) == {"p1": 50, "p2": 50, "p3": -100}


def test_a_table_recorded_with_the_bring_in_keeps_it() -> None:
    # Tables created before 2026-12-01 recorded no no_bring_in: the lowest door card (2c)
    # brings in for $1, as their hands were played.
    result = play(GAME, deal_deck(*HANDS), [], rules={**DC, "no_bring_in": False})
    first = events_of(result, "BettingRoundStarted")[0]
    assert (first["first_to_act"], first["forced_bring_in"]) == (2, True)
    done = play(GAME, deal_deck(*HANDS), [(2, "complete")], rules={**DC, "no_bring_in": False})
    taken = events_of(done, "ActionTaken")[0]
    assert (taken["action"], taken["to"]) == ("complete", 200)


def test_stud_takes_no_game_options() -> None:
    assert game_options(GAME) == {}
    with pytest.raises(InvalidOptions):
        game_options(GAME, {"draws": 2})
    doc = scenario(GAME, deal_deck(*HANDS), [], rules=DC, options={"draws": 2})
    assert run(doc)["error"]["rule"] == "invalid_command"


def test_stud_never_takes_a_carried_pot() -> None:
    doc = scenario(GAME, deal_deck(*HANDS), [], rules=DC, carried=500)
    assert run(doc)["error"]["rule"] == "invalid_command"


def test_pacific_table_keeps_its_own_limits_and_bring_in() -> None:
    opts = pacific_options()
    assert not opts.final_bet_rule and opts.ante_mode == "per_player" and not opts.no_bring_in
    result = play(GAME, deal_deck(*HANDS), [(2, "bring_in"), (3, "call"), (1, "call")])
    rounds = events_of(result, "BettingRoundStarted")
    assert (rounds[0]["first_to_act"], rounds[0]["forced_bring_in"]) == (2, True)  # the 2c
    assert rounds[-1]["bet_size"] == 100
