"""A dealer's choice table across hands: the dealer's rotation, the choice and its clock,
pots that ride, and the scenario shape for several hands."""

from __future__ import annotations

from typing import Any

import pytest

from riverboat.engine.cards import card_str
from riverboat.engine.commands import Act, TimeOut
from riverboat.engine.errors import EngineError, InvalidOptions
from riverboat.engine.events import DealerUp, GameChosen, SeatEntry
from riverboat.engine.scenario import run
from riverboat.engine.session import (
    ChooseGame,
    DealersChoiceRules,
    DealHand,
    OpenSession,
    SessionState,
    fold_session,
    step_session,
)
from tests.unit.engine._games_kit import CHECKS, Step, action, expand
from tests.unit.engine.test_game_anaconda import A_PREPARE, OPENING, A

NO_RAKE = {"rake_percent": 0}
SEATS = [{"seat": k, "player": f"p{k}", "stack": 10_000} for k in (1, 2, 3)]
ROLLS: list[Step] = [CHECKS, CHECKS, CHECKS, CHECKS]


def anaconda_steps(declarations: list[Step], **kw: Any) -> list[dict[str, Any]]:
    """The actions of an Anaconda hand dealt by seat 3 (the checks written out)."""
    plan = [*OPENING, *A_PREPARE, *ROLLS, *declarations]
    return [action(s) for s in expand("anaconda", A, plan, rules=NO_RAKE, **kw)]


TWO_PIGS: list[Step] = [(1, "declare", "both"), (2, "declare", "high"), (3, "declare", "both")]
SPLIT: list[Step] = [(1, "declare", "low"), (2, "declare", "high"), (3, "declare", "high")]
DRAW_DECK = [
    "As",
    "Kd",
    "Qh",
    "Jc",
    "9s",
    "2c",
    "3d",
    "4h",
    "6s",
    "8c",
    "2d",
    "3h",
    "5c",
    "7s",
    "9d",
]


def table(hands: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "rules": NO_RAKE,
        "dealers_choice": {"default_game": "draw", "game_defaults": {"draw": {"draws": 2}}},
        "seats": kw.pop("seats", SEATS),
        "button": 3,
        "hands": hands,
    }
    result = run(doc)
    assert "error" not in result, result["error"]
    return result


def full_deck(top: list[str]) -> list[str]:
    return top + [card_str(c) for c in range(52) if card_str(c) not in top]


RIDE = {"deck": A, "actions": [action((3, "choose_game", "anaconda")), *anaconda_steps(TWO_PIGS)]}
REDEAL = {"deck": A, "actions": anaconda_steps(SPLIT)}
CLOCK = {
    "deck": full_deck(DRAW_DECK),
    "actions": [
        action((1, "timeout")),
        action((2, "bet")),
        action((3, "fold")),
        action((1, "fold")),
    ],
}


def test_a_pot_that_rides_is_redealt_by_the_same_dealer_with_the_same_game() -> None:
    result = table([RIDE, REDEAL, CLOCK])
    first, second, third = result["hands"]
    assert (first["dealer"], first["game"], first["carried_out"]) == (3, "anaconda", 700)
    # The redeal: nobody chooses; the pot rides in, plus a new ante.
    assert (second["dealer"], second["redeal"], second["game"]) == (3, True, "anaconda")
    assert second["carried_in"] == 700
    assert second["pots"][0]["shares"] == {"p1": 700, "p3": 700}
    assert second["final_stacks"] == {"p1": 10_300, "p2": 9_600, "p3": 10_100}
    assert result["carried_pot"] == 0
    assert sum(result["final_stacks"].values()) == 30_000
    assert third["carried_in"] == 0


def test_the_button_moves_left_and_the_clock_chooses_the_default() -> None:
    result = table([RIDE, REDEAL, CLOCK])
    third = result["hands"][2]
    assert (third["dealer"], third["game"], third["chosen_by_clock"]) == (1, "draw", True)
    # The table's draw default, and the rule-book edition the table was created under.
    assert third["options"] == {"draws": 2, "opener": "rotate", "rule_book": 2}
    assert third["final_stacks"] == {"p1": 10_200, "p2": 9_700, "p3": 10_100}
    assert result["next_dealer"] == "p2"
    dealers = [e["seat"] for e in result["events"] if e["type"] == "DealerUp"]
    assert dealers == [3, 3, 1, 2]


def test_a_busted_dealer_passes_the_redeal_to_the_next_player() -> None:
    seats = [*SEATS[:2], {"seat": 3, "player": "p3", "stack": 300}]
    kw = {"stacks": [10_000, 10_000, 300]}
    ride = {
        "deck": A,
        "actions": [action((3, "choose_game", "anaconda")), *anaconda_steps(TWO_PIGS, **kw)],
    }
    result = table([ride], seats=seats)
    assert result["final_stacks"]["p3"] == 0 and result["carried_pot"] == 700
    up = [e for e in result["events"] if e["type"] == "DealerUp"][-1]
    assert (up["seat"], up["redeal"], up["game"]) == (1, True, "anaconda")


def _open(**rules: Any) -> SessionState:
    seats = tuple(SeatEntry(k, f"p{k}", 10_000) for k in (1, 2, 3))
    return step_session(None, OpenSession(seats, 1, rules=DealersChoiceRules(**rules)))[1]


def test_only_the_dealer_chooses_an_offered_game_with_valid_options() -> None:
    state = _open(games=("draw", "chicago"))
    for bad, rule in (
        (ChooseGame(2, "draw"), "out_of_turn"),
        (ChooseGame(1, "anaconda"), "game_not_offered"),
    ):
        with pytest.raises(EngineError) as err:
            step_session(state, bad)
        assert err.value.rule == rule
    with pytest.raises(InvalidOptions):
        step_session(state, ChooseGame(1, "draw", {"draws": 3}))
    with pytest.raises(EngineError) as err:
        step_session(state, DealHand("h", tuple(range(52))))
    assert err.value.rule == "not_chosen"
    events, state = step_session(state, ChooseGame(1, "chicago", {"split": "cards_speak"}))
    assert isinstance(events[0], GameChosen) and events[0].options["split"] == "cards_speak"
    with pytest.raises(EngineError):
        step_session(state, ChooseGame(1, "draw"))


def test_anaconda_cannot_be_chosen_for_eight_players() -> None:
    seats = tuple(SeatEntry(k, f"p{k}", 1000) for k in range(1, 9))
    state = step_session(None, OpenSession(seats, 1))[1]
    with pytest.raises(EngineError) as err:
        step_session(state, ChooseGame(1, "anaconda"))
    assert err.value.rule == "player_count"


def test_the_session_is_the_fold_of_its_events_and_conserves_chips() -> None:
    state = _open()
    log: list[Any] = []
    events, state = step_session(state, TimeOut(1))
    log += events
    deck = tuple(range(52))
    events, state = step_session(state, DealHand("h1", deck))
    log += events
    while state.hand_in_progress:
        assert state.hand is not None and state.hand.to_act is not None
        seat = state.hand.seats[state.hand.to_act]
        phase = getattr(state.hand, "phase", "bet")
        command = Act(seat, "draw") if phase == "draw" else TimeOut(seat)
        events, state = step_session(state, command, deck)
        log += events
        assert state.total_chips == 30_000
    assert isinstance(log[-1], DealerUp) and log[-1].seat == 2
    opened = _open()
    assert fold_session(log, opened) == state


def test_table_settings_are_validated() -> None:
    with pytest.raises(InvalidOptions):
        DealersChoiceRules(games=("draw",), default_game="chicago")
    with pytest.raises(InvalidOptions):
        DealersChoiceRules.from_dict({"games": ["poker"]})
    with pytest.raises(InvalidOptions):
        DealersChoiceRules.from_dict({"game_defaults": {"draw": {"draws": 9}}})


def test_a_table_scenario_reports_an_illegal_action_with_its_hand() -> None:
    doc = {
        "seats": SEATS,
        "button": 3,
        "hands": [{"deck": A, "actions": [action((1, "choose_game", "draw"))]}],
    }
    result = run(doc)
    assert result["error"]["hand"] == 0 and result["error"]["rule"] == "out_of_turn"
