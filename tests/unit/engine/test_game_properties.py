"""Properties of every dealer's choice game over random legal play (hypothesis): chips are
conserved after every event, every hand ends, illegal commands are refused and change
nothing, and the state is exactly the fold of its events (also through their JSON form)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riverboat.engine.commands import Act, Command, Reshuffle, StartHand, TimeOut
from riverboat.engine.errors import EngineError
from riverboat.engine.events import SeatEntry, event_from_dict, event_to_dict
from riverboat.engine.game import VARIANTS, fold, step
from riverboat.engine.games import GAMES, moves, waiting_for
from riverboat.engine.options import dealers_choice_options
from riverboat.engine.state import RESHUFFLE, HandState, apply

STACKS = st.sampled_from([100, 250, 700, 2000, 10_000])

#: Option sets the random hands also play with (beside each game's defaults).
VARIATIONS: dict[str, list[dict[str, Any]]] = {
    "draw": [{"draws": 2}],
    "anaconda": [{"pig_failure": "losers_never_share", "bet_after_declare": True}],
    "chicago": [{"split": "cards_speak", "match_pot_rank": "7"}],
    "deuces_jacks_axe": [{"split": "declare", "natural_beats_wild": True}],
    "elimination": [{"showdown": "cards_speak", "repeated_rank": "no_elimination"}],
    "fifteen_thirty_five": [{"open_ended_final_bet": "after_all_stand", "stand_freezes": True}],
    "seven_twenty_seven": [{"pictures": "either", "nearest_rule": "over_is_bust"}],
    "follow_the_queen": [{"match_pot_rank": "Q", "match_short_stack": "all_in"}],
    "woolworth": [{"split": "declare", "pig_ride": "any_pig_tie"}],
    "seven_card_stud_hi_lo": [],
}


@st.composite
def hands(draw: st.DrawFn, variant: str) -> tuple[StartHand, int]:
    most = GAMES[variant].max_players if variant in GAMES else 8
    n = draw(st.integers(2, most))
    seats = draw(st.lists(st.integers(1, 10), min_size=n, max_size=n, unique=True))
    stacks = draw(st.lists(STACKS, min_size=n, max_size=n))
    deck = tuple(draw(st.permutations(list(range(52)))))
    options = draw(st.sampled_from([None, *VARIATIONS[variant]]))
    carried = 0 if variant not in GAMES else draw(st.sampled_from([0, 0, 450]))
    start = StartHand(
        "prop",
        variant,
        dealers_choice_options(rake_percent=draw(st.sampled_from([0, 5]))),
        draw(st.sampled_from(seats)),
        tuple(SeatEntry(s, f"p{s}", k) for s, k in zip(seats, stacks, strict=True)),
        deck,
        game_options=options,
        carried_pot=carried,
    )
    return start, draw(st.integers(0, 2**32))


def random_move(state: HandState, rng: random.Random) -> Command:
    """A random legal command for one of the seats the hand waits for."""
    if isinstance(state, HandState) and state.phase == RESHUFFLE:
        cards = list(state.reshuffle_cards)
        rng.shuffle(cards)
        return Reshuffle(tuple(cards))
    seat = rng.choice(waiting_for(state))
    if rng.random() < 0.05:
        return TimeOut(seat)
    pick = rng.choice(moves(state, seat))
    i = state.seats.index(seat)
    held = list(state.cards[i])
    if pick.action in ("draw", "discard", "pass"):
        return Act(seat, pick.action, cards=tuple(rng.sample(held, rng.choice(pick.to))))
    if pick.action == "order":
        rng.shuffle(held)
        return Act(seat, "order", cards=tuple(held))
    if pick.action == "expose":
        down = [c for c, up in zip(state.cards[i], state.face_up[i], strict=True) if not up]
        return Act(seat, "expose", cards=(rng.choice(down),))
    if pick.action == "declare":
        return Act(seat, "declare", amount=rng.choice(pick.to))
    return Act(seat, pick.action, rng.choice(pick.to))


def illegal_commands(state: HandState) -> list[Command]:
    """Commands that must be refused now."""
    out: list[Command] = [Act(11, "call"), Act(state.seats[0], "shove"), TimeOut(11)]
    waiting = set(waiting_for(state))
    idle = [s for s in state.seats if s not in waiting]
    out += [Act(s, "check") for s in idle[:1]] + [TimeOut(s) for s in idle[:1]]
    if isinstance(state, HandState) and state.phase != RESHUFFLE:
        out.append(Reshuffle((1, 2)))
        for seat in sorted(waiting)[:1]:
            legal = {m.action: m for m in moves(state, seat)}
            for name, move in legal.items():
                if name in ("draw", "discard", "pass", "expose"):
                    out.append(Act(seat, name, cards=(99,)))
                    theirs = next(c for j, c in _others(state, seat))
                    out.append(Act(seat, name, cards=(theirs,) * max(move.to)))
                elif name == "declare":
                    out.append(Act(seat, "declare", choice="sideways"))
                elif move.to:
                    out.append(Act(seat, name, max(move.to) + 1))
    return out


def _others(state: HandState, seat: int) -> list[tuple[int, int]]:
    return [(j, c) for j, s in enumerate(state.seats) if s != seat for c in state.cards[j]] or [
        (0, 0)
    ]


def check(state: HandState, total: int) -> None:
    assert state.total_chips == total
    assert min(state.stacks) >= 0 and state.pot_total >= 0


def play_out(start: StartHand, seed: int) -> None:
    rng = random.Random(seed)
    total = sum(s.stack for s in start.seats) + start.carried_pot
    events, state = step(None, start)
    deck = start.deck
    check(state, total)
    for _ in range(600):
        if state.finished:
            break
        for bad in illegal_commands(state):
            before = state
            try:
                step(state, bad, deck)
            except EngineError:
                pass
            else:
                phase = getattr(state, "phase", "bet")
                raise AssertionError(f"{bad} was accepted ({phase}, waiting {waiting_for(state)})")
            assert state == before
        command = random_move(state, rng)
        new, after = step(state, command, deck)
        assert new, "an accepted command causes at least one event"
        for event in new:
            state = apply(state, event)
            check(state, total)
        assert state == after
        if isinstance(command, Reshuffle):
            deck = (*deck, *command.cards)
        events.extend(new)
    assert state.finished, "every hand ends"
    assert fold(events) == state
    assert fold([event_from_dict(event_to_dict(e)) for e in events]) == state
    carried = getattr(state, "carried_out", 0)
    assert sum(state.stacks) + state.rake + carried == total


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_legal_play_keeps_every_invariant(variant: str) -> None:
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hands(variant))
    def check_hand(case: tuple[StartHand, int]) -> None:
        play_out(*case)

    check_hand()
