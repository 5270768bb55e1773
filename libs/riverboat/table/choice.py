"""Dealer's choice at a table: calling the dealer, the dealer's choice, the clock's default.

Before each deal of a ``dealers_choice`` table the service calls a dealer (``DealerUp``): the
next ready seat after the last button, or, when the pot rode, the same dealer (the next one if
they cannot deal) redealing the same game without a choice (:mod:`riverboat.engine.rotation`,
the rule the scenario API's table follows too). The dealer then chooses the game
and its options with ``Act`` (action ``choose_game``); if their clock runs out the table's
default game is taken (``GameChosen.by_clock``). Only then is the hand committed and dealt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from riverboat.engine.commands import TimeOut
from riverboat.engine.errors import EngineError, IllegalAction
from riverboat.engine.events import GameChosen
from riverboat.engine.game import step as step_hand
from riverboat.engine.rotation import dealer_up
from riverboat.table.aggregate import TableError, TableState, act, leavers
from riverboat.table.events import AnyEvent

#: The action name a dealer chooses the game with.
CHOOSE_GAME = "choose_game"


def call_dealer(state: TableState) -> list[AnyEvent]:
    """Call the dealer of the next deal (nothing if one is already called or none needed)."""
    if not state.needs_dealer() or not state.can_start_hand():
        return []
    ready = [s.seat for s in state.ready_players()]
    return [
        dealer_up(
            ready,
            state.button,
            game=state.game,
            game_options=state.game_options,
            carried=state.carried,
        )
    ]


def offered_games(state: TableState) -> tuple[str, ...]:
    """The games the dealer may choose now (those dealing to this many players)."""
    if state.rules is None:
        return ()
    return state.rules.offered(len(state.ready_players()))


def declarable_limits(state: TableState) -> tuple[int, ...]:
    """The limits the dealer may declare for the next deal: (lowest small bet, highest small
    bet, lowest big bet, highest big bet), the table's own where it sets no bounds."""
    if state.rules is None or state.options is None:
        return ()
    return state.rules.limit_bounds(state.options)


def choose_game(
    state: TableState,
    *,
    seat: int,
    game: str,
    options: Mapping[str, Any] | None,
    small_bet: int = 0,
    big_bet: int = 0,
) -> list[AnyEvent]:
    """The dealer at ``seat`` chooses the next game and any of its options, and may declare
    the deal's limits (``small_bet``, ``big_bet`` for the last round; 0 keeps the table's)
    within the table's bounds (``limits_out_of_bounds`` otherwise)."""
    _check_chooser(state, seat)
    assert state.rules is not None and state.options is not None
    # Raises InvalidOptions (a bad request) for an unknown option or a bad value.
    resolved = state.rules.choose(
        state.options, len(state.ready_players()), game, options, small_bet, big_bet
    )
    return [GameChosen(seat, game, resolved, False, small_bet, big_bet)]


def time_out_choice(state: TableState, *, seat: int) -> list[AnyEvent]:
    """The dealer's clock ran out: the table's default game with the table's options."""
    _check_chooser(state, seat)
    assert state.rules is not None
    game = state.rules.clock_game(len(state.ready_players()))
    return [GameChosen(seat, game, state.rules.options_for(game, None), True)]


def time_out(
    state: TableState, seats: Sequence[int], deck: Sequence[int], hand_id: str
) -> list[AnyEvent]:
    """The clock ran out for every seat in ``seats`` (a simultaneous phase times out all its
    laggards at once, in seat order); seats that acted meanwhile are skipped."""
    events: list[AnyEvent] = []
    hand = state.hand
    for seat in seats:
        if hand is None or hand.finished:
            break
        try:
            step_events, hand = step_hand(hand, TimeOut(seat), deck)
        except EngineError:
            continue  # this seat has nothing to do any more
        events.extend(step_events)
    if events and hand is not None and hand.finished:
        events.extend(leavers(state, hand))  # as ``act`` does when a hand ends
    return events


def _check_chooser(state: TableState, seat: int) -> None:
    if not state.dealers_choice:
        raise IllegalAction("the dealer chooses no game at this table", rule="not_dealers_choice")
    if not state.choosing:
        raise IllegalAction("the game is not being chosen now", rule="not_choosing")
    if seat != state.dealer:
        raise IllegalAction(
            f"seat {state.dealer} deals and chooses, not seat {seat}", rule="out_of_turn"
        )
    if not state.dealer_can_deal:
        raise IllegalAction(
            f"seat {seat} cannot be dealt in now (sitting out, leaving or without chips): the "
            "deal passes to the next seat",
            rule="dealer_passed",
        )


__all__ = [
    "CHOOSE_GAME",
    "TableError",
    "act",
    "call_dealer",
    "choose_game",
    "offered_games",
    "time_out",
    "time_out_choice",
]
