"""Seven-card stud hi/lo offered as a dealer's choice: Pacific's game on Buderick's table
(the dealer's $1 ante, $2 bets with $5 on 7th street, the cap kept heads-up)."""

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
# Door cards 9c, 2c, Kd: p2 brings in.
HANDS = ("Ah 2h 9c 3c 4c 5c 8d", "As Ks 2c Qs Js Ts 7d", "Ac Kc Kd 7h 6h 5h 4h")


def stud(steps: list[Step], **kw: Any) -> dict[str, Any]:
    return play(GAME, deal_deck(*HANDS), steps, rules=DC, **kw)


STREET_3: list[Step] = [(2, "bring_in"), (3, "call"), (1, "call")]


def rest(opener_first: list[int]) -> list[Step]:
    return [(s, "check") for s in opener_first]


def test_only_the_dealer_antes_a_dollar() -> None:
    result = stud([])
    assert events_of(result, "AntePosted") == [{"type": "AntePosted", "seat": 3, "amount": 100}]
    assert result["to_act"] == 2  # the lowest door card brings in, for $1


def test_final_bet_rule_two_dollars_until_seventh_then_five() -> None:
    steps = [*STREET_3, *rest([3, 1, 2]), *rest([3, 1, 2]), *rest([3, 1, 2]), *rest([3, 1, 2])]
    result = stud(steps)
    sizes = [e["bet_size"] for e in events_of(result, "BettingRoundStarted")]
    assert sizes == [200, 200, 200, 200, 500]


def test_bring_in_completes_to_two_dollars() -> None:
    result = stud([(2, "complete")])
    taken = events_of(result, "ActionTaken")[0]
    assert (taken["action"], taken["to"]) == ("complete", 200)


def test_no_open_pair_big_bet_on_this_table() -> None:
    # 4th street: p3 shows K-K. Pacific would allow the $5 bet; the dealer's choice does not.
    steps = [*STREET_3]
    error = refused(GAME, deal_deck(*HANDS), [*steps, (3, "bet", 500)], rules=DC)
    assert error["rule"] == "wrong_amount"


def test_the_cap_holds_heads_up() -> None:
    steps: list[Step] = [(2, "bring_in"), (3, "fold"), (1, "complete"), (2, "raise"), (1, "raise")]
    steps.append((2, "raise"))
    error = refused(GAME, deal_deck(*HANDS), [*steps, (1, "raise")], rules=DC)
    assert error["rule"] == "betting_capped"


def test_the_dealers_ante_is_dead_money_at_showdown() -> None:
    steps = [*STREET_3, *rest([3, 1, 2]) * 4]
    result = stud(steps)
    assert len(result["pots"]) == 1
    assert result["pots"][0]["eligible"] == ["p1", "p2", "p3"]
    assert sum(result["pots"][0]["shares"].values()) == 400  # $1 ante + three $1 calls


def test_cards_speak_eight_or_better_as_in_pacific() -> None:
    steps = [*STREET_3, *rest([3, 1, 2]) * 4]
    result = stud(steps)
    pot = result["pots"][0]
    # p1: 5-4-3-2-A, the best low; p2's royal flush wins high.
    assert pot["low_winners"] == ["p1"] and pot["high_winners"] == ["p2"]
    assert net(result) == {"p1": 100, "p2": 100, "p3": -200}


def test_stud_takes_no_game_options() -> None:
    assert game_options(GAME) == {}
    with pytest.raises(InvalidOptions):
        game_options(GAME, {"draws": 2})
    doc = scenario(GAME, deal_deck(*HANDS), [], rules=DC, options={"draws": 2})
    assert run(doc)["error"]["rule"] == "invalid_command"


def test_stud_never_takes_a_carried_pot() -> None:
    doc = scenario(GAME, deal_deck(*HANDS), [], rules=DC, carried=500)
    assert run(doc)["error"]["rule"] == "invalid_command"


def test_pacific_table_keeps_its_own_limits() -> None:
    opts = pacific_options()
    assert not opts.final_bet_rule and opts.ante_mode == "per_player"
    result = play(GAME, deal_deck(*HANDS), STREET_3)
    assert events_of(result, "BettingRoundStarted")[-1]["bet_size"] == 100
