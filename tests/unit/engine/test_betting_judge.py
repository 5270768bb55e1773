"""verify / can / do: what ``legal_actions`` lists is exactly what ``decide`` accepts, and a
refusal names one of the betting rules (riverboat.engine.betting.judge is the one place).

The oracle is the engine's own front door, asked twice, by a client that knows only the
command API: for every betting action name and every street total the list offers (and one it
does not), ``decide`` must accept the listed ones and refuse the others, in random hands with
short stacks, all-ins, caps and the open pair, at Pacific and at the dealer's choice table.
"""

from __future__ import annotations

import random

import pytest

from bench._studgen import random_start
from riverboat.engine.commands import ACTIONS, Act, StartHand
from riverboat.engine.errors import EngineError, IllegalAction
from riverboat.engine.game import legal_actions, step
from riverboat.engine.options import dealers_choice_options
from riverboat.engine.state import HandState

#: Every rule a betting refusal may name (docs/engine.md).
BETTING_RULES = {
    "short_all_in_does_not_reopen",
    "betting_capped",
    "bring_in_required",
    "wager_not_allowed",
    "cannot_check_facing_a_bet",
    "nothing_to_call",
    "action_not_allowed",
    "wrong_amount",
}


def _accepted(state: HandState, command: Act, deck: tuple[int, ...]) -> str | None:
    """None if ``decide`` takes the command, else the rule it names."""
    try:
        step(state, command, deck)
    except IllegalAction as err:
        return err.rule
    except EngineError as err:  # pragma: no cover - shown by the assertion below
        return f"not a betting refusal: {err.rule}"
    return None


def _check_every_action(state: HandState, deck: tuple[int, ...]) -> None:
    assert state.to_act is not None
    seat = state.seats[state.to_act]
    listed = {a.action: a.to for a in legal_actions(state)}
    for name in sorted(ACTIONS):
        rule = _accepted(state, Act(seat, name), deck)
        if name in listed:
            assert rule is None, (name, rule, listed)
            for to in listed[name]:
                assert _accepted(state, Act(seat, name, to), deck) is None, (name, to)
            wrong = max(listed[name]) + 1
            assert _accepted(state, Act(seat, name, wrong), deck) == "wrong_amount"
        else:
            assert rule in BETTING_RULES, (name, rule, listed)


def _hands(dealers_choice: bool, count: int) -> list[StartHand]:
    rng = random.Random(20261202 + dealers_choice)
    starts = []
    for k in range(count):
        start = random_start(rng, f"judge-{k}")
        if dealers_choice:
            dc = dealers_choice_options()
            # The dealer's choice table's stud: dealer's ante, no bring-in, Final Bet Rule.
            options = dc.with_changes(max_players=start.options.max_players)
            seats = tuple(start.seats)
            start = StartHand(
                start.hand_id, start.variant, options, seats[0].seat, seats, start.deck
            )
        starts.append(start)
    return starts


@pytest.mark.parametrize("dealers_choice", [False, True], ids=["pacific", "dealers_choice"])
def test_legal_actions_are_exactly_what_decide_accepts(dealers_choice: bool) -> None:
    rng = random.Random(7)
    checked = 0
    for start in _hands(dealers_choice, 40):
        state = step(None, start)[1]
        while not state.finished:
            _check_every_action(state, start.deck)
            checked += 1
            legal = legal_actions(state)
            move = rng.choice(legal)
            seat = state.seats[state.to_act or 0]
            state = step(state, Act(seat, move.action, rng.choice(move.to)), start.deck)[1]
    assert checked > 200
