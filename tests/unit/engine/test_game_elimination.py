"""Elimination (Buderick), golden scenarios: the row, repeated ranks, the automatic winner,
totals declared high and low."""

from __future__ import annotations

from typing import Any

from tests.unit.engine._games_kit import CHECKS, Step, deal_deck, events_of, net, play_plan

GAME = "elimination"
NO_RAKE = {"rake_percent": 0}
SIX_ROUNDS: list[Step] = [CHECKS] * 6

P1 = "Ac Kd 7h 3s 3c"
P2 = "9c 9d 8h 2s Qh"
P3 = "4c 5d 6h Jc Tc"
ROW = "3h 8c Ks 2d 4d"


def elimination(row: str, plan: list[Step], *hands: str, **kw: Any) -> dict[str, Any]:
    deck = deal_deck(*(hands or (P1, P2, P3)), then=row)
    return play_plan(GAME, deck, plan, rules=NO_RAKE, **kw)


def declare(*ways: str) -> list[Step]:
    return [(k + 1, "declare", way) for k, way in enumerate(ways)]


def test_the_row_turns_card_by_card_and_every_round_opens_left_of_the_dealer() -> None:
    result = elimination(ROW, [*SIX_ROUNDS, *declare("low", "high", "high")])
    turned = [e["card"] for e in events_of(result, "TableCardTurned")]
    assert turned == ROW.split()
    assert [e["rank"] for e in events_of(result, "RankEliminated")] == ["3", "8", "K", "2", "4"]
    rounds = events_of(result, "BettingRoundStarted")
    assert [r["first_to_act"] for r in rounds] == [1] * 6
    assert [r["bet_size"] for r in rounds] == [200] * 5 + [500]
    assert events_of(result, "TableRowDealt") == [{"type": "TableRowDealt", "count": 5}]


def test_every_card_of_the_turned_rank_goes_face_up() -> None:
    result = elimination(ROW, [*SIX_ROUNDS, *declare("low", "high", "high")])
    gone = [(e["seat"], e["cards"]) for e in events_of(result, "CardsEliminated")]
    assert gone == [(1, ["3s", "3c"]), (2, ["8h"]), (1, ["Kd"]), (2, ["2s"]), (3, ["4c"])]
    shown = {e["seat"]: e["cards"] for e in events_of(result, "HandShown")}
    assert shown == {1: ["Ac", "7h"], 2: ["9c", "9d", "Qh"], 3: ["5d", "6h", "Jc", "Tc"]}


def test_highest_total_and_lowest_total_split_by_declaration() -> None:
    result = elimination(ROW, [*SIX_ROUNDS, *declare("low", "high", "high")])
    texts = {e["seat"]: (e["high_text"], e["low_text"]) for e in events_of(result, "HandShown")}
    assert texts[1] == ("high total 18", "low total 8")
    assert texts[2] == ("high total 28", "low total 18½")
    pot = result["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == (["p3"], ["p1"])


def test_a_repeated_rank_turns_stock_cards_until_a_new_rank() -> None:
    # The third table card repeats the 3: the stock's 8s repeats too; its Ks is new.
    row = "3h 8c 3d 2d 4d 8s Ks"
    result = elimination(row, [*SIX_ROUNDS, *declare("low", "high", "high")])
    turned = [(e["card"], e["from_stock"]) for e in events_of(result, "TableCardTurned")]
    assert turned[:5] == [("3h", False), ("8c", False), ("3d", False), ("8s", True), ("Ks", True)]
    assert [e["rank"] for e in events_of(result, "RankEliminated")] == ["3", "8", "K", "2", "4"]
    still = elimination(
        row,
        [*SIX_ROUNDS, *declare("low", "high", "high")],
        options={"repeated_rank": "no_elimination"},
    )
    assert [e["rank"] for e in events_of(still, "RankEliminated")] == ["3", "8", "2", "4"]


def test_a_player_whose_cards_are_all_eliminated_wins_at_once() -> None:
    result = elimination("3h 8s Ks 2d 4d", [CHECKS, CHECKS], "3c 3d 8c 8d 3s", P2, P3)
    assert result["complete"] is True
    assert len(events_of(result, "BettingRoundStarted")) == 2  # over before the third round
    assert result["pots"][0]["high_winners"] == ["p1"]
    assert net(result) == {"p1": 100, "p2": 0, "p3": -100}


def test_two_players_eliminated_together_split() -> None:
    # The fourth table card (a deuce) takes the last cards of p1 and p2 at once.
    result = elimination("3h 8s Ks 2d 4d", [CHECKS] * 4, "3c 8c Kc 2c 2h", "3d 8d Kd 2s 3s", P3)
    assert result["complete"] is True
    assert result["pots"][0]["high_winners"] == ["p1", "p2"]
    assert result["pots"][0]["shares"] == {"p1": 50, "p2": 50}


def test_a_pig_with_aces_and_pictures_can_win_both_ways() -> None:
    # p1 keeps A-K: 21 high (11 + 10) and 1½ low (1 + ½): the highest and the lowest.
    result = elimination(
        "3h 8c 2d 4d 6c",
        [*SIX_ROUNDS, *declare("both", "high", "low")],
        "Ac Kd 3s 3c 2s",
        "9c 9d 8h 4h 2h",
        "7c 5d 6h 4s 8d",
    )
    assert result["pots"][0]["shares"] == {"p1": 100}
    assert result["declarations"] == {"p1": "both", "p2": "high", "p3": "low"}


def test_everyone_declaring_high_leaves_one_winner() -> None:
    result = elimination(ROW, [*SIX_ROUNDS, *declare("high", "high", "high")])
    assert result["pots"][0]["shares"] == {"p3": 100}


def test_cards_speak_option_needs_no_declaration() -> None:
    result = elimination(ROW, SIX_ROUNDS, options={"showdown": "cards_speak"})
    assert events_of(result, "PhaseStarted") == []
    pot = result["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == (["p3"], ["p1"])


def test_rotating_opener_option() -> None:
    result = elimination(
        ROW, [*SIX_ROUNDS, *declare("low", "high", "high")], options={"opener": "rotate"}
    )
    rounds = events_of(result, "BettingRoundStarted")
    assert [r["first_to_act"] for r in rounds] == [1, 2, 3, 1, 2, 3]


def test_folded_players_keep_their_cards() -> None:
    plan: list[Step] = [(1, "bet"), (2, "fold"), (3, "call"), *[CHECKS] * 5]
    result = elimination(ROW, [*plan, (1, "declare", "low"), (3, "declare", "high")])
    assert all(e["seat"] != 2 for e in events_of(result, "CardsEliminated"))
    assert net(result) == {"p1": 50, "p2": 0, "p3": -50}
