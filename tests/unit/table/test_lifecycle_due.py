"""The lifecycle's pure step function (riverboat.table.lifecycle.due): what a table must do
next, or when, from its state alone, in every phase of a hand."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from riverboat.engine.games import waiting_for
from riverboat.engine.options import pacific_options
from riverboat.engine.state import RESHUFFLE, STUD_VARIANT
from riverboat.shuffle import derive_deck
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent, TableClosing, TimeBankPolicy
from riverboat.table.lifecycle import (
    IDLE,
    ActForLeaver,
    CloseTable,
    DealPending,
    Reshuffle,
    RunClock,
    StartHand,
    banks_due,
    due,
)

NOW = 100.0


def _do(state: TableState, decide: Callable[[TableState], list[AnyEvent]]) -> TableState:
    return table.fold(decide(state), state)


def _open(players: int = 3, variant: str = STUD_VARIANT) -> TableState:
    state = _do(
        TableState("t1"),
        lambda s: table.create_table(
            s, name="t1", variant=variant, options=pacific_options(), action_seconds=30,
            time_bank=TimeBankPolicy(seconds=60),
        ),
    )  # fmt: skip
    for seat in range(1, players + 1):
        seated = partial(table.seat_player, seat=seat, player=f"p{seat}", stack=1000)
        state = _do(state, seated)
    return state


def _committed(state: TableState) -> TableState:
    return _do(
        state,
        lambda s: table.commit_hand(
            s, hand_id="h1", scheme="RBS1", commitment=b"c" * 32, deck_size=52
        ),
    )


def _dealt(state: TableState) -> TableState:
    return _do(_committed(state), lambda s: table.deal_hand(s, derive_deck("h1", b"s" * 32)))


def test_between_hands_the_next_hand_starts_after_the_pause() -> None:
    assert due(_open(), NOW, pause=2.0) == StartHand(NOW + 2.0)
    # Not by itself, not while paused, not with one player: nothing is due.
    assert due(_open(), NOW, auto_deal=False) is IDLE
    paused = _do(_open(), lambda s: table.pause_dealing(s, by="op"))
    assert due(paused, NOW) is IDLE
    assert due(_open(players=1), NOW) is IDLE


def test_a_committed_hand_is_dealt_or_voided_if_it_can_no_longer_be() -> None:
    state = _committed(_open())
    assert due(state, NOW) == DealPending("h1")
    # Everyone leaves in its seed phases (the hand that once hung): it is voided.
    for seat in (1, 2, 3):
        state = _do(state, partial(table.unseat_player, seat=seat))
        assert state.pending is not None
    assert due(state, NOW) == DealPending("h1", "not enough players to deal")
    voided = _do(state, table.void_undealt)
    assert voided.pending is None and due(voided, NOW) is IDLE


def test_a_hand_in_play_runs_the_clock_of_the_seats_it_waits_for() -> None:
    state = _dealt(_open())
    hand = state.hand
    assert hand is not None
    assert due(state, NOW) == RunClock("h1", waiting_for(hand), NOW + 30)


def test_a_turn_on_the_time_bank_is_due_when_the_bank_runs_out() -> None:
    state = _dealt(_open())
    hand = state.hand
    assert hand is not None
    seat = waiting_for(hand)[0]
    banked = replace(state, banking={seat: (60, False)})
    assert due(banked, NOW, bank_since={seat: NOW - 20}) == RunClock("h1", (seat,), NOW + 40)
    assert banks_due(banked, NOW, {seat: NOW - 20}) == frozenset()
    assert banks_due(banked, NOW + 40, {seat: NOW - 20}) == {seat}
    # Restarted: the bank's start is not known, so the action clock runs first.
    assert due(banked, NOW) == RunClock("h1", (seat,), NOW + 30)


def test_a_leaver_s_turn_is_due_at_once_never_on_the_clock() -> None:
    state = _dealt(_open())
    hand = state.hand
    assert hand is not None
    seat = waiting_for(hand)[0]
    state = _do(state, lambda s: table.unseat_player(s, seat=seat))
    assert state.seat_at(seat).leaving  # type: ignore[union-attr]
    assert due(state, NOW) == ActForLeaver("h1", (seat,))


def test_a_draw_out_of_cards_is_reshuffled() -> None:
    state = _dealt(_open())
    assert state.hand is not None
    waiting = replace(state, hand=replace(state.hand, phase=RESHUFFLE))
    assert due(waiting, NOW) == Reshuffle("h1")


def test_a_close_is_due_once_the_hand_it_waited_for_is_over() -> None:
    closing = table.fold([TableClosing("op", "")], _open())
    assert due(closing, NOW) == CloseTable()
    closed = _do(closing, lambda s: table.close_table(s, by="op"))
    assert due(closed, NOW) is IDLE


def test_a_dealer_s_choice_runs_the_chooser_s_clock() -> None:
    state = _do(_open(variant=table.DEALERS_CHOICE), choice.call_dealer)
    assert state.awaits_choice
    assert due(state, NOW) == RunClock("", (state.dealer,), NOW + 30)
