"""Showdown, pots, side pots, hi/lo splits, odd chips, rake and the community card."""

from __future__ import annotations

from riverboat.engine.scenario import run
from tests.unit.engine._kit import check_down, scenario, start


def _auto_run(hands: list[str], moves: list[str], **kw):  # type: ignore[no-untyped-def]
    """Run a scenario whose actions are given as names for whoever is to act."""
    from riverboat.engine.commands import Act
    from riverboat.engine.game import decide, fold

    base = scenario(hands, [], **kw)
    result = run(base)
    assert "error" not in result, result
    # Resolve the actor for each move by replaying through the engine.
    state, _ = None, None
    from riverboat.engine.scenario import _parse  # the same parsing the API uses

    start_cmd, _ = _parse(base)
    state = fold(decide(None, start_cmd))
    actions = []
    for move in moves:
        assert state.to_act is not None
        seat = state.seats[state.to_act]
        actions.append({"seat": seat, "action": move})
        state = fold(decide(state, Act(seat, move), start_cmd.deck), state)
    base["actions"] = actions
    return run(base)


def test_three_way_all_in_with_side_pots_and_split_halves() -> None:
    hands = [
        "Kc Kd 2c Kh 9s Ts Js",  # seat 1: trips, no low; all in for 150
        "Ac 3d 4h 5c 7d 9c Qd",  # seat 2: 7-5-4-3-A low; all in for 350
        "9h 9d 6s 8s Jh Qh 3c",  # seat 3: a pair of nines, no low
    ]
    moves = [
        "bring_in",
        "complete",
        "raise",
        "call",
        "call",  # 3rd: seat 1 all in calling 200
        "bet",
        "call",  # 4th
        "check",
        "bet",
        "call",  # 5th: seat 2 calls all in with 50; 150 returned to seat 3
    ]
    result = _auto_run(hands, moves, stacks=[150, 350, 1000])
    assert result["complete"], result
    assert result["rake"] == 42  # 5% of 850 = 42.5, rounded half to even
    main, side = result["pots"]
    assert main == {
        "amount": 408,  # 450 less the whole rake: taken from the main pot first
        "eligible": ["p1", "p2", "p3"],
        "high_winners": ["p1"],
        "low_winners": ["p2"],
        "shares": {"p1": 204, "p2": 204},
    }
    assert side["amount"] == 400 and side["eligible"] == ["p2", "p3"]
    assert side["shares"] == {"p2": 200, "p3": 200}
    assert result["final_stacks"] == {"p1": 204, "p2": 404, "p3": 850}
    returned = [e for e in result["events"] if e["type"] == "UncalledBetReturned"]
    assert returned == [{"type": "UncalledBetReturned", "seat": 3, "amount": 150}]


def test_quartered_low_odd_chip_to_lowest_card_by_suit() -> None:
    hands = [
        "Ac 2d 3h 4s 6c Kd Kh",  # seat 1: kings, and 6-4-3-2-A
        "As 2c 3d 4h 6s 9c Qc",  # seat 2: ace high, and 6-4-3-2-A
        "Tc Jd 7d 8s Qh 2h 2s",  # seat 3: deuces, no low
    ]
    moves = ["bring_in", "call", "call"] + ["check"] * 12
    result = _auto_run(hands, moves, rules={"rake_percent": 0})
    (pot,) = result["pots"]
    assert pot["amount"] == 150
    assert pot["high_winners"] == ["p1"] and pot["low_winners"] == ["p1", "p2"]
    # High half 75; low half 75 split 38/37, the odd chip to the Ac (lowest card by suit).
    assert pot["shares"] == {"p1": 113, "p2": 37}
    assert result["final_stacks"] == {"p1": 1063, "p2": 987, "p3": 950}


def test_no_qualifying_low_high_scoops() -> None:
    hands = ["Kc Kd 9c Kh 9s Ts Js", "Qc Qd Th 5c Td 9d Qs"]
    result = _auto_run(hands, ["bring_in", "call"] + ["check"] * 8, rules={"rake_percent": 0})
    (pot,) = result["pots"]
    # Kings full beats queens full; neither has a low, so the high hand takes it all.
    assert pot["low_winners"] == [] and pot["shares"] == {"p1": 100}


def test_odd_chip_between_halves_goes_high() -> None:
    hands = [
        "Kc Kd 9c Kh 9s Ts Js",  # kings full: the best high
        "Ac 2d 3h 4c 5d 8c 9d",  # the wheel: the best low
        "Qc Qd Th 5c Td 9h Qs",  # queens full
    ]
    result = _auto_run(
        hands, ["bring_in", "call", "call"] + ["check"] * 12, rules={"rake_percent": 0, "ante": 1}
    )
    (pot,) = result["pots"]
    assert pot["amount"] == 153
    assert pot["high_winners"] == ["p1"] and pot["low_winners"] == ["p2"]
    assert pot["shares"] == {"p1": 77, "p2": 76}


def test_tied_high_hands_odd_chip_to_highest_card_by_suit() -> None:
    hands = [
        "Ac Kd 9c 7h 4s Ts 3s",  # A-K-T-9-7, no low
        "Ad Ks 9d 7d 4h Tc 3h",  # A-K-T-9-7 too, no low
        "2c 3d 8c 5h 6d Jh Qs",  # queen high, and 8-6-5-3-2
    ]
    result = _auto_run(
        hands, ["bring_in", "call", "call"] + ["check"] * 12, rules={"rake_percent": 0, "ante": 1}
    )
    (pot,) = result["pots"]
    # Suits never break a pot tie: seats 1 and 2 split the high half (77) 39/38, and the odd
    # chip goes to seat 2, whose highest card, the Ad, outranks seat 1's Ac by suit.
    assert pot["high_winners"] == ["p1", "p2"] and pot["low_winners"] == ["p3"]
    assert pot["shares"] == {"p1": 38, "p2": 39, "p3": 76}


def test_eight_players_to_seventh_street_share_a_community_card() -> None:
    hands = [
        "2c 2d 2h 2s 3c 3d",
        "4c 4d 4h 4s 5c 5d",
        "6c 6d 6h 6s 7c 7d",
        "8c 8d 8h 8s 9c 9d",
        "Tc Td Th Ts Jc Jd",
        "Qc Qd Qh Qs Kc Kd",
        "Ac Ad Ah As 3h 3s",
        "5h 5s 7h 7s 9h 9s",
    ]
    base = scenario(hands, [], community="Jh", rules={"rake_percent": 0})
    result = _auto_run(
        hands,
        ["bring_in"] + ["call"] * 7 + ["check"] * 32,
        community="Jh",
        rules={"rake_percent": 0},
    )
    assert result["complete"], result
    community = [e for e in result["events"] if e["type"] == "CommunityCardDealt"]
    assert community == [{"type": "CommunityCardDealt", "card": "Jh"}]
    shown = [e for e in result["events"] if e["type"] == "HandShown"]
    assert len(shown) == 8 and all(len(e["cards"]) == 6 for e in shown)
    (pot,) = result["pots"]
    assert pot["high_winners"] == ["p7"]  # four aces
    assert base["deck"][48] == "Jh"


def test_uncalled_bet_returned_and_no_rake_on_third_street() -> None:
    hands = ["As Ks Ac", "2s 3s 2c"]
    result = _auto_run(hands, ["bring_in", "complete", "fold"], button=2)
    assert result["rake"] == 0
    assert result["final_stacks"] == {"p1": 1050, "p2": 950}
    returned = [e for e in result["events"] if e["type"] == "UncalledBetReturned"]
    assert returned == [{"type": "UncalledBetReturned", "seat": 1, "amount": 50}]


def test_rake_is_capped_by_players_dealt() -> None:
    hands = ["Kc Kd 9c Kh 9s Ts Js", "Qc Qd Th 5c Td 9d Qs"]
    moves = ["complete", "raise", "raise", "raise", "call"] + ["bet", "call"] * 4
    result = _auto_run(hands, moves, button=2)
    # Pot 4x100x2 + 100x2 + 200x2x3 = 2000; 5% = 100, the two-player cap.
    assert sum(p["amount"] for p in result["pots"]) + result["rake"] == 2000
    assert result["rake"] == 100


def test_check_down_conserves_chips() -> None:
    hands = ["Kc Kd 9c Kh 9s Ts Js", "Qc Qd Th 5c Td 9d Qs", "Ac 2d 3h 4c 5d 8c 7h"]
    state, _ = start(hands, stacks=[500, 700, 900])
    state = check_down(state)
    assert sum(state.stacks) + state.rake == 2100
