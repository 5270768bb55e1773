"""Issue #12 findings 1 and 8 at the level of the views (pure, no I/O).

1. Another player's row must not tell a viewer more than it tells an observer: in Anaconda a
   passer once saw the cards they passed in the receiver's row, so the receiver's discard
   (``░░ ░░ ░░ [5♠] [K♥]``: the missing one was thrown away) and stacking order
   (``8♦ [5♠] [K♥] ░░ ░░``) showed before any card was rolled. A hand shown down comes in the
   canonical order, not its holder's (which would show what a draw player drew).
8. Between ``HandEnded`` and the next ``HandStarted`` the view said ``hand_in_progress`` while
   ``hand_id`` still named the hand that was over.
"""

from __future__ import annotations

import random
from typing import Any

from riverboat.engine.cards import card_str
from riverboat.engine.commands import Act
from riverboat.engine.events import DealerUp, HandShown
from riverboat.engine.games import waiting_for
from riverboat.engine.state import HandState
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.views import SeatView, redact, seat_table_view
from tests.unit.table.test_dealers_choice_table import Room


def _start(room: Room, game: str, hand_id: str, rng: random.Random) -> None:
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp)
    if not up.redeal:
        room.do(choice.choose_game(room.state, seat=up.seat, game=game, options=None))
    room.deal(hand_id, rng)


def _row(view_seats: tuple[SeatView, ...], seat: int) -> list[str]:
    """A row as the play screen draws it: ``[x]`` a face-down card seen, ``░░`` hidden."""
    row = next(s for s in view_seats if s.seat == seat)
    return [
        "░░" if c is None else (card_str(c) if up else f"[{card_str(c)}]") for c, up in row.cards
    ]


def _hand(room: Room) -> HandState:
    hand = room.state.hand
    assert isinstance(hand, HandState)
    return hand


def _check_rows_are_public(room: Room, version: int) -> None:
    """Every seat but the viewer's own looks to each viewer exactly as to an observer."""
    public = seat_table_view(room.state, version, 0)
    for me in (s.seat for s in room.state.seats):
        mine = seat_table_view(room.state, version, me)
        for theirs, seen in zip(public.seats, mine.seats, strict=True):
            if theirs.seat != me:
                assert seen == theirs, (
                    f"seat {me} sees seat {theirs.seat} as {_row((seen,), seen.seat)}"
                )


def test_a_passer_sees_neither_the_receivers_discard_nor_their_stacking_order() -> None:
    rng = random.Random(7)
    room = Room(players=3)
    _start(room, "anaconda", "h1", rng)
    while _hand(room).phase != "pass":  # the first betting round: everyone checks or calls
        seat = waiting_for(_hand(room))[0]
        action = "check" if any(m.action == "check" for m in _moves(room, seat)) else "call"
        room.do(table.act(room.state, Act(seat, action), room.deck))
    hand = _hand(room)
    given = {}
    for seat in hand.seats:
        cards = hand.cards[hand.seats.index(seat)][:3]
        given[seat] = cards
        room.do(table.act(room.state, Act(seat, "pass", cards=cards), room.deck))
    hand = _hand(room)
    assert hand.phase == "discard"
    giver = hand.seats[0]
    receiver = next(to for frm, to, _ in hand.passes if frm == giver)
    passed = given[giver]
    _check_rows_are_public(room, 1)
    # The receiver throws away one of the passed cards and one of their own.
    held = hand.cards[hand.seats.index(receiver)]
    own = next(c for c in held if c not in passed)
    room.do(table.act(room.state, Act(receiver, "discard", cards=(passed[2], own)), room.deck))
    assert _row(seat_table_view(room.state, 2, giver).seats, receiver) == ["░░"] * 5
    _check_rows_are_public(room, 2)
    # ...and stacks the passed cards it kept second and third.
    for seat in _hand(room).seats:
        if seat != receiver and _hand(room).seat_pending(seat):
            kept = _hand(room).cards[_hand(room).seats.index(seat)][:2]
            room.do(table.act(room.state, Act(seat, "discard", cards=kept), room.deck))
    kept = _hand(room).cards[_hand(room).seats.index(receiver)]
    others = [c for c in kept if c not in passed]
    order = (others[0], passed[0], passed[1], *others[1:])
    room.do(table.act(room.state, Act(receiver, "order", cards=order), room.deck))
    assert _row(seat_table_view(room.state, 3, giver).seats, receiver) == ["░░"] * 5
    _check_rows_are_public(room, 3)


def _moves(room: Room, seat: int) -> list[Any]:
    from riverboat.engine.games import moves

    return list(moves(_hand(room), seat))


def test_every_other_players_row_is_the_public_one_at_every_step_of_every_game() -> None:
    from riverboat.engine.games import DEALERS_CHOICE

    for game in DEALERS_CHOICE:
        rng = random.Random(game)
        room = Room(players=4)
        for n in range(3):
            _start(room, game, f"{game}-{n}", rng)
            version = 0
            while (hand := room.state.hand) is not None and not hand.finished:
                version += 1
                _check_rows_are_public(room, version)
                room.play_one(rng)
            _check_rows_are_public(room, version + 1)


def test_a_hand_shown_down_comes_in_canonical_order_to_everyone_but_its_holder() -> None:
    rng = random.Random(3)
    room = Room(players=4)
    reordered = 0
    for n in range(30):
        _start(room, "draw", f"d{n}", rng)
        room.play_out(rng)
        hand = room.state.hand
        assert hand is not None
        for shown in hand.shown:
            best_first = tuple(sorted(shown.cards, reverse=True))
            reordered += shown.cards != best_first
            assert redact(shown, shown.seat) == shown
            for me in (0, *(s.seat for s in room.state.seats if s.seat != shown.seat)):
                seen = redact(shown, me)
                assert isinstance(seen, HandShown) and seen.cards == best_first
                row = next(
                    s for s in seat_table_view(room.state, 1, me).seats if s.seat == shown.seat
                )
                assert tuple(c for c, _ in row.cards) == best_first
            row = next(
                s for s in seat_table_view(room.state, 1, shown.seat).seats if s.seat == shown.seat
            )
            assert tuple(c for c, _ in row.cards) == shown.cards  # the holder's own order
    assert reordered > 0  # the holders' orders were not canonical already: the test bites


def test_between_hands_the_view_names_the_last_hand_and_says_it_is_over() -> None:
    rng = random.Random(5)
    room = Room(players=3)
    _start(room, "draw", "first", rng)
    room.play_out(rng)
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp)
    if not up.redeal:
        room.do(choice.choose_game(room.state, seat=up.seat, game="draw", options=None))
    room.do(
        table.commit_hand(
            room.state, hand_id="second", scheme="RBS1", commitment=b"c" * 32, deck_size=52
        )
    )
    assert room.state.pending is not None  # committed, not dealt
    for me in (0, 1, 2, 3):
        view = seat_table_view(room.state, 9, me)
        assert view.hand_id == "first"
        assert not view.hand_in_progress
        assert view.legal_actions == () and view.to_act == 0
    deck = list(range(52))
    rng.shuffle(deck)
    room.do(table.deal_hand(room.state, tuple(deck)))
    view = seat_table_view(room.state, 10, 0)
    assert (view.hand_id, view.hand_in_progress) == ("second", True)
