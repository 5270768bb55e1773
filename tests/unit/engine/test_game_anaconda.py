"""Anaconda, golden scenarios: passes, discards, rolls, declarations and the PIG rules."""

from __future__ import annotations

from typing import Any

from riverboat.engine.events import DeclarationSealed
from riverboat.engine.scenario import run
from riverboat.engine.visibility import redact
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

# Hand A: after the passes p1 holds a 6-4-3-2-A low, p2 kings and queens, p3 tens full.
A = deal_deck("Ac 2c 3c 4d 5d Kh Ks", "Qc Qd Jh Js 9c 9d 8h", "7c 7d 6h 6s Tc Td Th")
A_PASSES: list[Step] = [(1, "pass", "Kh Ks 5d"), (2, "pass", "8h 9c 9d"), (3, "pass", "7c 7d 6h")]
A_PREPARE: list[Step] = [
    *A_PASSES,
    (1, "discard", "7c 7d"), (2, "discard", "Jh Js"), (3, "discard", "6s 8h"),
    (1, "order", "6h 4d 3c 2c Ac"), (2, "order", "Kh Ks Qc Qd 5d"),
    (3, "order", "Tc Td Th 9c 9d"),
]  # fmt: skip
OPENING: list[Step] = [(1, "bet"), (2, "call"), (3, "call")]  # the pot: 100 + 600


def hand_a(declarations: list[Step], **kw: Any) -> dict[str, Any]:
    plan = [*OPENING, *A_PREPARE, CHECKS, CHECKS, CHECKS, CHECKS, *declarations]
    return play_plan("anaconda", A, plan, rules=NO_RAKE, **kw)


# Hand B (PIG ties): p1 and p2 both hold 5-4-3-2-A; p3 kings and queens.
B = deal_deck("5c 4c 3d 2d Ad 9h 8s", "5s 4s 3h 2h 7h Th Tc", "Kc Kd Qc Qd Ah 9s 8c")
B_PREPARE: list[Step] = [
    (1, "pass", "Ad 9h 8s"), (2, "pass", "7h Th Tc"), (3, "pass", "Ah 9s 8c"),
    (1, "discard", "9s 8c"), (2, "discard", "9h 8s"), (3, "discard", "Th Tc"),
    (1, "order", "5c 4c 3d 2d Ah"), (2, "order", "5s 4s 3h 2h Ad"),
    (3, "order", "Kc Kd Qc Qd 7h"),
]  # fmt: skip


def hand_b(declarations: list[Step], **kw: Any) -> dict[str, Any]:
    plan = [*OPENING, *B_PREPARE, CHECKS, CHECKS, CHECKS, CHECKS, *declarations]
    return play_plan("anaconda", B, plan, rules=NO_RAKE, **kw)


def test_passes_reach_the_next_player_on_the_left_once_all_have_passed() -> None:
    result = play("anaconda", A, [*OPENING, *A_PASSES[:2]], rules=NO_RAKE)
    assert events_of(result, "CardsPassed") == []  # nobody picks up before all have passed
    assert result["waiting_for"] == [3]
    result = play("anaconda", A, [*OPENING, *A_PASSES], rules=NO_RAKE)
    passed = [(e["seat"], e["to_seat"], e["cards"]) for e in events_of(result, "CardsPassed")]
    assert passed == [
        (1, 2, ["Kh", "Ks", "5d"]),
        (2, 3, ["8h", "9c", "9d"]),
        (3, 1, ["7c", "7d", "6h"]),
    ]
    assert result["phase"] == "discard" and result["waiting_for"] == [1, 2, 3]


def test_a_folded_player_is_skipped_by_the_passes() -> None:
    deck = deal_deck(
        "Ac 2c 3c 4d 5d Kh Ks", "Qc Qd Jh Js 9c 9d 8h", "7c 7d 6h 6s Tc Td Th",
        "2s 3s 4s 5s 6c 6d 8c",
    )  # fmt: skip
    steps: list[Step] = [
        (1, "bet"), (2, "fold"), (3, "call"), (4, "call"),
        (1, "pass", "Kh Ks 5d"), (3, "pass", "Tc Td Th"), (4, "pass", "6c 6d 8c"),
    ]  # fmt: skip
    result = play("anaconda", deck, steps, players=4, rules=NO_RAKE)
    passed = [(e["seat"], e["to_seat"]) for e in events_of(result, "CardsPassed")]
    assert passed == [(1, 3), (3, 4), (4, 1)]


def test_passing_is_checked() -> None:
    assert refused("anaconda", A, [*OPENING, (1, "pass", "Kh Ks")])["rule"] == "wrong_card_count"
    assert refused("anaconda", A, [*OPENING, (1, "pass", "Qc Qd Jh")])["rule"] == "not_your_card"
    twice = [*OPENING, (1, "pass", "Kh Ks 5d"), (1, "pass", "Ac 2c 3c")]
    assert refused("anaconda", A, twice)["rule"] == "already_acted"
    assert refused("anaconda", A, [*OPENING, (1, "check")])["rule"] == "wrong_phase"
    bad_order = [*OPENING, *A_PREPARE[:6], (1, "order", "6h 4d 3c 2c")]
    assert refused("anaconda", A, bad_order)["rule"] == "bad_order"


def test_rolls_turn_cards_in_the_chosen_order_and_the_best_board_bets_first() -> None:
    result = hand_a([(1, "declare", "low"), (2, "declare", "high"), (3, "declare", "high")])
    rolled = [(e["seat"], e["card"]) for e in events_of(result, "CardTurnedUp")]
    assert rolled[:3] == [(1, "6h"), (2, "Kh"), (3, "Tc")]
    rounds = events_of(result, "BettingRoundStarted")
    # Round 1 from the dealer's left; then the best board: K, KK, TTT, TTT9.
    assert [r["first_to_act"] for r in rounds] == [1, 2, 2, 3, 3]
    assert [r["bet_size"] for r in rounds] == [200, 200, 200, 200, 500]


def test_low_and_high_split_the_pot() -> None:
    result = hand_a([(1, "declare", "low"), (2, "declare", "high"), (3, "declare", "high")])
    assert result["declarations"] == {"p1": "low", "p2": "high", "p3": "high"}
    pot = result["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == (["p3"], ["p1"])
    assert net(result) == {"p1": 150, "p2": -200, "p3": 50}


def test_declarations_are_sealed_until_everyone_has_declared() -> None:
    plan = [*OPENING, *A_PREPARE, CHECKS, CHECKS, CHECKS, CHECKS]
    partial = play_plan("anaconda", A, [*plan, (3, "declare", "both")], rules=NO_RAKE)
    assert partial["phase"] == "declare" and partial["waiting_for"] == [1, 2]
    assert events_of(partial, "DeclarationsRevealed") == []
    sealed = events_of(partial, "DeclarationSealed")
    assert sealed == [{"type": "DeclarationSealed", "seat": 3, "choice": "both"}]
    assert redact(DeclarationSealed(3, "both"), 1).choice == ""  # others see only "declared"
    done = hand_a([(3, "declare", "both"), (1, "declare", "low"), (2, "declare", "high")])
    revealed = events_of(done, "DeclarationsRevealed")[0]["declarations"]
    assert revealed == [[1, "low"], [2, "high"], [3, "both"]]


def test_a_pig_who_wins_both_ways_outright_scoops() -> None:
    steps = [(1, "declare", "low"), (2, "declare", "high"), (3, "declare", "both")]
    result = hand_a(steps)
    # p3's tens full win high, but its paired low loses to p1's 6-4-3-2-A: the PIG fails.
    # The seed (the default): p2 lost high to the PIG and "a loser can never share", so p1,
    # who won low, takes the whole pot.
    assert result["pots"][0]["shares"] == {"p1": 700}
    # reassign (the default of tables created before 2026-12-01): the high half goes to the
    # best remaining high declarer, p2.
    old = hand_a(steps, options={"pig_failure": "reassign"})
    assert old["pots"][0]["shares"] == {"p1": 350, "p2": 350}
    scoop = hand_a([(1, "declare", "high"), (2, "declare", "high"), (3, "declare", "both")])
    assert scoop["pots"][0]["shares"] == {"p3": 700}


def test_a_pig_failing_by_a_tie_gets_nothing() -> None:
    steps = [(1, "declare", "both"), (2, "declare", "low"), (3, "declare", "high")]
    # p1's wheel wins high against p3 but ties p2's low: the PIG fails. The seed's own case
    # (the default): "the person who tied for low gets the entire pot, the high hand loser
    # gets nothing": p3 lost high to the PIG; p2 takes it all.
    seed = hand_b(steps)
    pot = seed["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == ([], ["p2"])
    assert net(seed) == {"p1": -200, "p2": 500, "p3": -300}
    # reassign (tables created before 2026-12-01): each half to the best remaining declarer.
    result = hand_b(steps, options={"pig_failure": "reassign"})
    pot = result["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == (["p3"], ["p2"])
    assert net(result) == {"p1": -200, "p2": 150, "p3": 50}


def test_two_pigs_splitting_the_ways_make_the_pot_ride() -> None:
    result = hand_a([(1, "declare", "both"), (2, "declare", "high"), (3, "declare", "both")])
    # p3 wins high, p1 wins low: both PIGs fail and the pot rides to the next deal.
    assert result["pots"] == []
    assert result["carried_out"] == 700
    assert events_of(result, "PotCarriedOver") == [{"type": "PotCarriedOver", "amount": 700}]
    assert net(result) == {"p1": -200, "p2": -200, "p3": -300}


def test_everyone_declaring_high_leaves_one_winner() -> None:
    result = hand_a([(1, "declare", "high"), (2, "declare", "high"), (3, "declare", "high")])
    pot = result["pots"][0]
    assert (pot["high_winners"], pot["low_winners"], pot["shares"]) == (["p3"], [], {"p3": 700})


def test_lows_have_no_qualifier_unless_the_option_says_eight() -> None:
    steps = [(1, "declare", "high"), (2, "declare", "low"), (3, "declare", "high")]
    result = hand_a(steps)  # p2's K-K-Q-Q-5 is the only low declared: it wins low
    assert result["pots"][0]["low_winners"] == ["p2"]
    eight = hand_a(steps, options={"low_qualifier": 8})
    assert eight["pots"][0]["shares"] == {"p3": 700}  # no qualifying low: high takes all


def test_declaring_by_coins_and_the_clock() -> None:
    plan = [*OPENING, *A_PREPARE, CHECKS, CHECKS, CHECKS, CHECKS]
    result = play_plan(
        "anaconda",
        A,
        [*plan, (1, "declare", 1), (2, "timeout"), (3, "declare", 3)],
        rules=NO_RAKE,
    )
    assert result["declarations"] == {"p1": "low", "p2": "high", "p3": "both"}
    bad = play_plan("anaconda", A, plan, rules=NO_RAKE)
    assert bad["waiting_for"] == [1, 2, 3]


def test_at_most_seven_players() -> None:
    result = run(scenario("anaconda", deal_deck("2c"), [], players=8))
    assert result["error"]["rule"] == "player_count"


def test_declaring_in_turn_shows_each_declaration_at_once() -> None:
    # A-7 as an option (declaration: in_turn, off by default): clockwise from the dealer's
    # left, each declaration public as it is made; the pot is settled as usual.
    steps: list[Step] = [(1, "declare", "low"), (2, "declare", "high"), (3, "declare", "high")]
    result = hand_a(steps, options={"declaration": "in_turn"})
    revealed = [e["declarations"] for e in events_of(result, "DeclarationsRevealed")]
    assert revealed == [[[1, "low"]], [[2, "high"]], [[3, "high"]]]
    phase = [e for e in events_of(result, "PhaseStarted") if e["phase"] == "declare"]
    assert phase[0]["simultaneous"] is False
    assert net(result) == net(hand_a(steps))  # the same settlement as sealed declarations
    plan = [*OPENING, *A_PREPARE, CHECKS, CHECKS, CHECKS, CHECKS]
    early = refused(
        "anaconda", A, [*expand("anaconda", A, plan, rules=NO_RAKE), (2, "declare", "high")],
        rules=NO_RAKE, options={"declaration": "in_turn"},
    )  # fmt: skip
    assert early["rule"] == "out_of_turn"
    # Off by default: sealed until everyone has declared.
    assert len(events_of(hand_a(steps), "DeclarationsRevealed")) == 1
