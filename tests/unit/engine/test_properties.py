"""Properties over random legal play (hypothesis): chips conserved at every event, no
negative stacks, the state is exactly the fold of its events, and every illegal command is
refused without changing anything."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riverboat.engine.commands import ACTIONS, Act, StartHand, TimeOut
from riverboat.engine.errors import EngineError
from riverboat.engine.events import Event, SeatEntry, event_from_dict, event_to_dict
from riverboat.engine.game import decide, fold, legal_actions
from riverboat.engine.options import pacific_options
from riverboat.engine.state import HandState, apply

STACKS = st.sampled_from([1, 30, 50, 75, 120, 260, 500, 1000, 5000])


@st.composite
def hands(draw: st.DrawFn) -> tuple[StartHand, list[int]]:
    n = draw(st.integers(2, 8))
    seats = draw(st.lists(st.integers(1, 10), min_size=n, max_size=n, unique=True))
    stacks = draw(st.lists(STACKS, min_size=n, max_size=n))
    deck = draw(st.permutations(list(range(52))))
    options = pacific_options(
        ante=draw(st.sampled_from([0, 5, 25])),
        open_pair_double_bet=draw(st.booleans()),
        uncap_heads_up=draw(st.booleans()),
        low_qualifier=draw(st.sampled_from([8, None])),
        odd_chip_order=draw(st.sampled_from(["card_by_suit", "seat"])),
    )
    start = StartHand(
        "prop",
        "seven_card_stud_hi_lo",
        options,
        draw(st.integers(1, 10)),
        tuple(SeatEntry(s, f"p{s}", k) for s, k in zip(seats, stacks, strict=True)),
        tuple(deck),
    )
    choices = draw(st.lists(st.integers(0, 10_000), min_size=200, max_size=200))
    return start, choices


def _check_invariants(state: HandState, total: int) -> None:
    assert state.total_chips == total
    assert min(state.stacks) >= 0
    assert state.pot_total >= 0


def _illegal_commands(state: HandState) -> list[Act | TimeOut]:
    """Commands that must be refused now: other seats, unknown actions, wrong amounts."""
    out: list[Act | TimeOut] = [Act(11, "call"), Act(state.seats[0], "shove")]
    legal = {a.action: a for a in legal_actions(state)}
    if state.to_act is not None:
        me = state.seats[state.to_act]
        out += [Act(s, "call") for s in state.seats if s != me][:2]
        out += [TimeOut(s) for s in state.seats if s != me][:1]
        out += [Act(me, name) for name in sorted(ACTIONS - set(legal))]
        for a in legal.values():
            out.append(Act(me, a.action, max(a.to) + 1))
    else:
        out += [Act(s, "check") for s in state.seats]
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_random_legal_play_keeps_every_invariant(case: tuple[StartHand, list[int]]) -> None:
    start, choices = case
    total = sum(s.stack for s in start.seats)
    events: list[Event] = decide(None, start)
    state = fold(events)
    _check_invariants(state, total)
    for choice in choices:
        if state.finished:
            break
        for bad in _illegal_commands(state):
            before = state
            try:
                decide(state, bad, start.deck)
            except EngineError:
                pass
            else:
                raise AssertionError(f"{bad} was accepted")
            assert state == before
        options = legal_actions(state)
        pick = options[choice % len(options)]
        command = Act(state.seats[state.to_act or 0], pick.action, pick.to[choice % len(pick.to)])
        new = decide(state, command, start.deck)
        assert new, "an accepted command causes at least one event"
        for event in new:
            state = apply(state, event)
            _check_invariants(state, total)
        events.extend(new)
    assert state.finished, "a hand ends within 200 decisions"
    assert sum(state.stacks) + state.rake == total
    # The state is exactly the fold of its events, also through their JSON form.
    assert fold(events) == state
    assert fold([event_from_dict(event_to_dict(e)) for e in events]) == state
    paid = sum(a.amount for a in state.awards)
    assert paid + state.rake == sum(state.committed)
