"""Fixed-limit stud betting: bring-in, completion, cap, heads-up, open pair, short all-in."""

from __future__ import annotations

from typing import Any

import pytest

from riverboat.engine.commands import Act, TimeOut
from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.game import decide, fold, legal_actions
from riverboat.engine.state import HandState
from tests.unit.engine._kit import actor, auto, deck_of, play, start

# Three players; door cards (3rd card) 2h, 2c, 5s: seat 2's 2c is the lowest card by suit.
THREE = ["Ah Kd 2h 9c Tc Jc Qc", "As Ks 2c 9d Td Jd Qd", "Ac Kc 5s 9h Th Jh Qh"]


def legal(state: HandState) -> dict[str, tuple[int, ...]]:
    return {a.action: a.to for a in legal_actions(state)}


def test_lowest_door_card_brings_in_ties_broken_by_suit() -> None:
    state, _ = start(THREE)
    assert actor(state) == 2
    assert legal(state) == {"bring_in": (50,), "complete": (100,)}


def test_ace_is_high_for_the_bring_in() -> None:
    state, _ = start(["Kd Qd Ac", "Kc Qc Kh"])
    assert actor(state) == 2  # Kh is lower than Ac


def test_bring_in_player_cannot_fold_or_check() -> None:
    state, _ = start(THREE)
    for action in ("fold", "check", "call", "bet", "raise"):
        with pytest.raises(IllegalAction) as err:
            decide(state, Act(2, action), deck_of(state))
        assert err.value.rule in (
            "bring_in_required",
            "wager_not_allowed",
            "action_not_allowed",
            "nothing_to_call",
            "cannot_check_facing_a_bet",
        )


def test_completion_then_raises_by_the_small_bet() -> None:
    state, _ = start(THREE)
    state = play(state, (2, "bring_in"))
    assert legal(state) == {"fold": (0,), "call": (50,), "complete": (100,)}
    state = play(state, (3, "complete"))
    assert legal(state) == {"fold": (0,), "call": (100,), "raise": (200,)}


def test_bring_in_may_complete_directly() -> None:
    state, _ = start(THREE)
    state = play(state, (2, "complete"))
    assert state.level == 100 and state.bets_made == 1
    assert legal(state)["raise"] == (200,)


def test_everyone_calling_the_bring_in_closes_the_round() -> None:
    state, _ = start(THREE)
    state = play(state, (2, "bring_in"), (3, "call"), (1, "call"))
    assert state.street == 4


def test_cap_is_one_bet_plus_three_raises_bring_in_not_counted() -> None:
    state, _ = start(THREE)
    state = play(state, (2, "bring_in"), (3, "complete"), (1, "raise"), (2, "raise"), (3, "raise"))
    assert state.level == 400
    assert legal(state) == {"fold": (200,), "call": (400,)}
    with pytest.raises(IllegalAction) as err:
        decide(state, Act(1, "raise"), deck_of(state))
    assert err.value.rule == "betting_capped"


def test_heads_up_the_cap_is_lifted() -> None:
    state, _ = start(THREE[:2], button=2)  # dealing order 1, 2: seat 2 (2c) brings in
    state = play(state, (2, "bring_in"), (1, "complete"), (2, "raise"), (1, "raise"), (2, "raise"))
    assert state.level == 400
    assert legal(state)["raise"] == (500,)


def test_heads_up_cap_kept_when_option_off() -> None:
    state, _ = start(THREE[:2], button=2, uncap_heads_up=False)
    state = play(state, (2, "bring_in"), (1, "complete"), (2, "raise"), (1, "raise"), (2, "raise"))
    assert "raise" not in legal(state)


def test_a_capped_round_is_not_uncapped_by_a_fold() -> None:
    state, _ = start(THREE)
    state = play(
        state,
        (2, "bring_in"),
        (3, "complete"),
        (1, "raise"),
        (2, "raise"),
        (3, "raise"),
        (1, "fold"),
    )
    assert actor(state) == 2
    assert legal(state) == {"fold": (300,), "call": (400,)}


def test_cap_reached_heads_up_then_uncapped() -> None:
    state, _ = start(THREE)
    state = play(state, (2, "bring_in"), (3, "complete"), (1, "fold"), (2, "raise"), (3, "raise"))
    state = play(state, (2, "raise"))  # 4th bet made heads-up: not capped
    assert legal(state)["raise"] == (500,)


# Open pair on 4th street: seat 1 shows 7c 7d.
OPEN_PAIR = ["Ah Kd 7c 7d", "As Ks 2c 9d", "Ac Kc 5s 9h"]


def test_open_pair_allows_the_big_bet_on_fourth_street() -> None:
    state, _ = start(OPEN_PAIR)
    state = play(state, (2, "bring_in"), (3, "call"), (1, "call"))
    assert state.street == 4 and actor(state) == 1  # the pair of sevens acts first
    assert legal(state)["bet"] == (100, 200)
    state = play(state, (1, "bet", 200))
    assert legal(state)["raise"] == (400,)  # once a big bet is made, the round is big
    small = play(start(OPEN_PAIR)[0], (2, "bring_in"), (3, "call"), (1, "call"), (1, "bet", 100))
    assert legal(small)["raise"] == (200, 300)


def test_a_short_all_in_over_the_open_pairs_big_bet_is_judged_by_the_big_bet() -> None:
    # Seat 1 bets the big bet ($2) over the open pair; seat 2 goes all in for $0.80 more: half
    # the small bet or more, but under half the $2 the round now is, so it does not reopen the
    # betting for seat 1, who may only call or fold.
    state, _ = start(OPEN_PAIR, stacks=[1000, 330, 1000])
    state = play(state, (2, "bring_in"), (3, "call"), (1, "call"), (1, "bet", 200))
    state = play(state, (2, "raise", 280), (3, "call"))
    assert state.big_bet_round and actor(state) == 1
    assert legal(state) == {"fold": (200,), "call": (280,)}


def test_open_pair_option_off_keeps_the_small_bet() -> None:
    state, _ = start(OPEN_PAIR, open_pair_double_bet=False)
    state = play(state, (2, "bring_in"), (3, "call"), (1, "call"))
    assert legal(state)["bet"] == (100,)
    with pytest.raises(IllegalAction) as err:
        decide(state, Act(1, "bet", 200), deck_of(state))
    assert err.value.rule == "wrong_amount"


def _to_fifth(stacks: list[int]) -> HandState:
    # Seat 1 shows a pair of aces from 4th street on, so it opens every later round.
    hands = ["Kh Kd Ac Ad 9c", "2s 3s 2c 4d 8d", "6c 6d 5s 9h Th"]
    state, _ = start(hands, stacks=stacks, open_pair_double_bet=False)
    state = play(state, (2, "bring_in"), (3, "call"), (1, "call"))
    state = auto(state, "check", "check", "check")
    assert state.street == 5 and actor(state) == 1
    return state


def test_short_all_in_under_half_a_bet_does_not_reopen() -> None:
    state = _to_fifth([2000, 300, 2000])  # seat 2 has 250 left on 5th street
    state = play(state, (1, "bet"), (2, "raise"))
    assert state.level == 250 and state.stacks[state.seats.index(2)] == 0
    # Seat 3 has not acted: a raise "completes" to a full raise over the last full bet.
    assert legal(state)["raise"] == (400,)
    state = play(state, (3, "call"))
    # Seat 1 already acted on the full bet: only call or fold the extra 50.
    assert legal(state) == {"fold": (200,), "call": (250,)}
    with pytest.raises(IllegalAction) as err:
        decide(state, Act(1, "raise"), deck_of(state))
    assert err.value.rule == "short_all_in_does_not_reopen"


def test_all_in_of_half_a_bet_or_more_counts_as_a_raise() -> None:
    state = _to_fifth([2000, 350, 2000])  # seat 2 has 300 left: 100 over a 200 bet is half
    state = play(state, (1, "bet"), (2, "raise"), (3, "call"))
    assert state.bets_made == 2
    assert legal(state)["raise"] == (500,)


def test_uncalled_part_of_an_all_in_call_is_returned_and_betting_stops() -> None:
    state = _to_fifth([2000, 100, 2000])  # seat 2 has 50 left
    state = play(state, (1, "bet"), (2, "call"), (3, "call"))
    assert state.street == 6


def test_out_of_turn_is_refused_and_changes_nothing() -> None:
    state, _ = start(THREE)
    before = state
    with pytest.raises(IllegalAction) as err:
        decide(state, Act(1, "call"), deck_of(state))
    assert err.value.rule == "out_of_turn"
    assert "seat 2" in str(err.value)
    assert state == before


def test_unknown_seat_and_action_are_invalid_commands() -> None:
    state, _ = start(THREE)
    with pytest.raises(InvalidCommand):
        decide(state, Act(9, "call"), deck_of(state))
    with pytest.raises(InvalidCommand):
        decide(state, Act(2, "allin"), deck_of(state))


def test_check_facing_a_bet_is_refused() -> None:
    state, _ = start(THREE)
    state = play(state, (2, "bring_in"))
    with pytest.raises(IllegalAction) as err:
        decide(state, Act(3, "check"), deck_of(state))
    assert err.value.rule == "cannot_check_facing_a_bet"


def test_time_out_checks_when_it_can_else_folds() -> None:
    state, _ = start(THREE)
    state = fold(
        decide(state, TimeOut(2), deck_of(state)), state
    )  # the clock posts a forced bring-in
    assert state.level == 50
    state = fold(decide(state, TimeOut(3), deck_of(state)), state)
    assert state.folded[state.seats.index(3)]
    state = play(state, (1, "call"))
    state = fold(decide(state, TimeOut(actor(state) or 0), deck_of(state)), state)
    assert not any(state.folded[state.seats.index(s)] for s in (1, 2))


def test_best_board_opens_later_streets_ties_go_clockwise_from_the_button() -> None:
    # Button on seat 1: dealing order 2, 3, 1. Seats 1 and 3 both show K-7; seat 3 is first.
    hands = ["As Ks 2c 5d", "Ah 2h Kc 7d", "Qc Jc Kd 7c"]  # index order: seats 2, 3, 1
    state, _ = start(hands, button=1)
    assert state.seats == (2, 3, 1)
    state = auto(state, "bring_in", "call", "call")
    assert state.street == 4 and actor(state) == 3


def test_all_in_best_board_passes_first_action_clockwise() -> None:
    hands = ["Kh Kd 2h Ac", "2s 3s 3c 4d", "6c 6d 5s 9h"]  # seat 1 has the best board
    state, _ = start(hands, stacks=[100, 1000, 1000])
    state = play(state, (1, "complete"), (2, "call"), (3, "call"))  # seat 1 is all in
    assert state.street == 4 and actor(state) == 2


# Several short all-ins (house rules 2026-12-01; Robert's Rules: multiple all-ins reopen "if
# the resulting wager size to a player qualifies as a raise"): they reopen the betting for a
# player who has acted when together they raise what that player faces by half a bet or more.
# Four players on 5th street (big bet 200); seat 1 shows aces and opens; each has paid 50.
FOUR = ["Kh Kd Ac Ad 9c", "2s 3s 2c 4d 8d", "6c 6d 5s 9h Th", "7c 7d 6s Jh Qh"]


def _four_on_fifth(stacks: list[int], **rules: Any) -> HandState:
    state, _ = start(FOUR, stacks=stacks, open_pair_double_bet=False, **rules)
    state = play(state, (2, "bring_in"), (3, "call"), (4, "call"), (1, "call"))
    state = auto(state, "check", "check", "check", "check")
    assert state.street == 5 and actor(state) == 1
    return state


def test_two_short_all_ins_making_half_a_bet_together_reopen() -> None:
    # 200 bet; seat 2 all in to 260 (60 over: short), seat 3 all in to 320: seat 1 now faces
    # 120 more than the 200 it bet, at least half of 200, so it may raise again (to 520).
    state = _four_on_fifth([2000, 310, 370, 2000])
    state = play(state, (1, "bet"), (2, "raise"), (3, "raise"))
    assert state.level == 320
    state = play(state, (4, "call"))
    assert legal(state) == {"fold": (200,), "call": (320,), "raise": (520,)}
    state = play(state, (1, "raise"))
    assert state.level == 520


def test_two_short_all_ins_short_of_half_a_bet_together_do_not_reopen() -> None:
    # 200 bet; all in to 240, then to 280: seat 1 faces 80 more, under half of 200.
    state = _four_on_fifth([2000, 290, 330, 2000])
    state = play(state, (1, "bet"), (2, "raise"), (3, "raise"), (4, "call"))
    assert legal(state) == {"fold": (200,), "call": (280,)}
    with pytest.raises(IllegalAction) as err:
        decide(state, Act(1, "raise"), deck_of(state))
    assert err.value.rule == "short_all_in_does_not_reopen"


def test_a_player_who_called_the_first_short_all_in_faces_only_the_second() -> None:
    # 200 bet; seat 2 all in to 260; seat 3 calls 260; seat 4 all in to 320. Seat 1 faces 120
    # more (reopened: it may raise); seat 3 faces only 60 more (not reopened: call or fold).
    state = _four_on_fifth([2000, 310, 2000, 370])
    state = play(state, (1, "bet"), (2, "raise"), (3, "call"), (4, "raise"))
    assert legal(state) == {"fold": (200,), "call": (320,), "raise": (520,)}
    state = play(state, (1, "call"))
    assert legal(state) == {"fold": (260,), "call": (320,)}
    with pytest.raises(IllegalAction) as err:
        decide(state, Act(3, "raise"), deck_of(state))
    assert err.value.rule == "short_all_in_does_not_reopen"


def test_tables_recorded_before_the_rule_keep_reopening_for_everyone() -> None:
    # all_in_reopen "last_full" (tables created before 2026-12-01, whose options do not say):
    # a raise of half a bet over the last full bet reopened for every player who had acted.
    state = _four_on_fifth([2000, 310, 2000, 370], all_in_reopen="last_full")
    state = play(state, (1, "bet"), (2, "raise"), (3, "call"), (4, "raise"), (1, "call"))
    assert legal(state) == {"fold": (260,), "call": (320,), "raise": (520,)}
