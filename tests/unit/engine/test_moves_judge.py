"""verify / can / do in every phase of every game: what ``moves`` lists for a seat is exactly
what ``decide`` accepts from it (riverboat.engine.phases.judge_moves and betting.judge are the
one place each rule is tested).

The oracle is the engine's front door asked twice, by a client that knows only the command
API. In random hands of every game (hypothesis: players, stacks, decks, game options, the
clock now and then), at every step and for every seat, each action the game knows is sent:
listed ones with every count, coin or amount the list offers (and cards the seat holds) must
be taken, each with one value the list does not offer refused; actions not listed, and every
action of a seat with nothing listed, must be refused with a rule, never accepted and never
crash.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.bench_games import random_command
from riverboat.engine.commands import Act, Reshuffle, StartHand
from riverboat.engine.errors import EngineError
from riverboat.engine.events import SeatEntry
from riverboat.engine.game import VARIANTS, step
from riverboat.engine.games import ALL_GAMES, GAMES, moves
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.engine.state import HandState

_CARD_ACTIONS = ("draw", "discard", "pass", "order", "expose")


@st.composite
def hands(draw: st.DrawFn, variant: str) -> tuple[StartHand, int]:
    """A random hand of ``variant``, at the dealer's choice table or (stud) Pacific's."""
    game = ALL_GAMES[variant]
    n = draw(st.integers(2, min(game.max_players, 8)))
    seats = draw(st.lists(st.integers(1, 10), min_size=n, max_size=n, unique=True))
    stacks = draw(st.lists(st.sampled_from([150, 400, 900, 3_000]), min_size=n, max_size=n))
    options = dealers_choice_options(rake_percent=0)
    if variant not in GAMES and draw(st.booleans()):
        options = pacific_options(rake_percent=0)
    game_options: dict[str, Any] | None = None
    if game.takes_options:
        game_options = {
            spec.name: draw(st.sampled_from(spec.allowed))
            for spec in game.specs
            if isinstance(spec.allowed, tuple) and draw(st.booleans())
        }
        if variant in ("chicago", "follow_the_queen") and draw(st.booleans()):
            game_options["match_pot_rank"] = draw(st.sampled_from("4789QK"))
    start = StartHand(
        "judge",
        variant,
        options,
        draw(st.sampled_from(seats)),
        tuple(SeatEntry(s, f"p{s}", k) for s, k in zip(seats, stacks, strict=True)),
        tuple(draw(st.permutations(list(range(52))))),
        game_options=game_options,
    )
    return start, draw(st.integers(0, 2**32))


def _rule(state: HandState, command: Act, deck: tuple[int, ...]) -> str | None:
    """None if ``decide`` takes the command, else the rule it names."""
    try:
        step(state, command, deck)
    except EngineError as err:
        return err.rule
    return None


def _commands(state: HandState, seat: int, name: str, value: int, rng: random.Random) -> Act:
    """The command that makes move ``name`` with ``value`` (cards: that many the seat holds)."""
    i = state.seats.index(seat)
    held = list(state.cards[i])
    if name == "order":
        rng.shuffle(held)
        return Act(seat, name, cards=tuple(held[:value]))
    if name == "expose":
        held = [c for c, up in zip(state.cards[i], state.face_up[i], strict=True) if not up]
    if name in _CARD_ACTIONS:
        return Act(seat, name, cards=tuple(rng.sample(held, min(value, len(held)))))
    return Act(seat, name, value)


def _check_every_move(state: HandState, deck: tuple[int, ...], rng: random.Random) -> None:
    game = ALL_GAMES[state.variant]
    for seat in state.seats:
        listed = {m.action: m.to for m in moves(state, seat)}
        for name in sorted(game.actions):
            if name not in listed:
                rule = _rule(state, Act(seat, name), deck)
                assert rule is not None, (seat, name, "accepted but not listed", listed)
                continue
            for value in listed[name]:
                command = _commands(state, seat, name, value, rng)
                assert _rule(state, command, deck) is None, (command, listed)
            wrong = max(listed[name]) + 1
            if name == "declare":
                wrong = next((c for c in (1, 2, 3) if c not in listed[name]), 4)
            held = len(state.cards[state.seats.index(seat)])
            if name in _CARD_ACTIONS and wrong > held:
                continue  # no command holds more cards than the seat has
            refused = _rule(state, _commands(state, seat, name, wrong, rng), deck)
            assert refused is not None, (seat, name, wrong, "accepted but not listed", listed)


@pytest.mark.parametrize("variant", VARIANTS)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_moves_are_exactly_what_decide_accepts(variant: str, data: st.DataObject) -> None:
    start, seed = data.draw(hands(variant))
    rng = random.Random(seed)
    state = step(None, start)[1]
    deck = start.deck
    while not state.finished:  # (payments may put everyone all in: no move at all)
        _check_every_move(state, deck, rng)
        command = random_command(state, rng)
        state = step(state, command, deck)[1]
        if isinstance(command, Reshuffle):
            deck = (*deck, *command.cards)
