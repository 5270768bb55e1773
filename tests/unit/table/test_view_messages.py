"""The table service's fast views (the public view built once per version, patched per seat)
equal views worked out from scratch for every viewer, at every step of random hands of every
game: the same seats, cards, moves and messages, so the shortcut can leak nothing."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from riverboat.engine import visibility
from riverboat.engine.events import DealerUp
from riverboat.engine.games import DEALERS_CHOICE
from riverboat.eventcodec import EventMeta, event_to_pb
from riverboat.services.table.runner import Update
from riverboat.services.table.viewpb import TableViews, _field, seat_to_pb, view_to_pb
from riverboat.settingscodec import options_to_pb
from riverboat.table import choice
from riverboat.table.aggregate import TableState
from riverboat.table.views import (
    _seat_view,
    personal_view,
    public_table_view,
    redact,
    seat_table_view,
)
from riverboat.v1 import table_pb2
from tests.unit.table.test_dealers_choice_table import Room

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _from_scratch_seats(state: TableState, me: int) -> tuple[object, ...]:
    hand = state.hand
    known = visibility.known_cards(hand, me) if hand is not None else ()
    return tuple(_seat_view(state, hand, known, s, me) for s in state.seats)


def _check(state: TableState, version: int, views: TableViews) -> int:
    """Every viewer's fast view against the from-scratch one; returns the viewers checked.

    The views are built both ways the service builds them: every other viewer's first through
    a Watch update (the view put together inside the update's message), the rest first asked
    for directly (as ``Act`` and ``GetTableView`` do)."""
    public = public_table_view(state, version)
    options = options_to_pb(state.options) if state.options is not None else None
    seats = [0, *(s.seat for s in state.seats)]
    for k, me in enumerate(seats):
        view = personal_view(state, public, me) if me else public
        assert view == seat_table_view(state, version, me)
        assert view.seats == _from_scratch_seats(state, me)
        assert view.viewer_seat == me
        expected = view_to_pb(view, options, [seat_to_pb(s) for s in view.seats])
        if k % 2:
            update = views.update(state, version, me, Update(version, (), "r", "a"))
            assert update.view == expected, f"seat {me} at version {version} (watch)"
        assert views.view(state, version, me) == expected, f"seat {me} at version {version}"
        if not k % 2:
            update = views.update(state, version, me, Update(version, (), "r", "a"))
            assert update.view == expected, f"seat {me} at version {version} (watch after)"
        # What the service sends: the same, encoded once per version and seat.
        sent = views.update_bytes(state, version, me, Update(version, (), "r", "a"))
        assert table_pb2.WatchResponse.FromString(sent).view == expected, f"seat {me} (bytes)"
    return len(seats)


@pytest.mark.parametrize("game", DEALERS_CHOICE)
def test_fast_views_equal_views_from_scratch_in_every_game(game: str) -> None:
    rng = random.Random(game)
    room = Room(players=4)
    views = TableViews("dc")
    version = 0
    checked = 0
    for n in range(3):
        [up] = room.do(choice.call_dealer(room.state))
        assert isinstance(up, DealerUp)
        if not up.redeal:  # a riding pot is redealt in the same game, without a choice
            room.do(choice.choose_game(room.state, seat=up.seat, game=game, options=None))
        version += 1
        checked += _check(room.state, version, views)
        room.deal(f"h{n}", rng)
        version += 1
        # Step by step: play one random move at a time, checking every viewer in between.
        while (hand := room.state.hand) is not None and not hand.finished:
            checked += _check(room.state, version, views)
            before = len(room.log)
            room.play_one(rng)
            version += 1
            assert len(room.log) > before
        checked += _check(room.state, version, views)
    assert checked > 100


def test_a_watch_update_redacts_events_per_seat_and_carries_that_seats_view() -> None:
    rng = random.Random(3)
    room = Room(players=3)
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp)
    room.do(choice.choose_game(room.state, seat=up.seat, game="draw", options=None))
    room.deal("h", rng)
    views = TableViews("dc")
    events = tuple(room.log[-12:])
    update = Update(7, events, "req", "service:table")
    for me in (0, 1, 2, 3):
        response = views.update(room.state, 7, me, update)
        assert response.view == views.view(room.state, 7, me)
        assert list(response.events) == [
            event_to_pb(redact(e, me), EventMeta("dc", 7, k, "req", "service:table", EPOCH))
            for k, e in enumerate(events)
        ]
        assert views.update(room.state, 7, me, update) is response  # built once per seat
    # An update older than the table's newest carries its events and no view.
    old = views.update(room.state, 8, 1, update)
    assert not old.HasField("view") and len(old.events) == len(events)


@pytest.mark.parametrize("start", [0, 6])
def test_the_encoded_updates_are_the_messages_each_encoded_once_per_version_and_seat(
    start: int,
) -> None:
    """What the service sends (bytes) parses to the messages the views build: the Watch
    update, the Play update and the Act reply, for every viewer, on updates with hidden
    cards and without; the same bytes object for every watcher of a seat."""
    rng = random.Random(5)
    room = Room(players=3)
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp)
    room.do(choice.choose_game(room.state, seat=up.seat, game="draw", options=None))
    room.deal("h", rng)
    views = TableViews("dc")
    update = Update(7, tuple(room.log[-12 + start :]), "req", "service:table")
    for me in (0, 1, 2, 3):
        data = views.update_bytes(room.state, 7, me, update)
        assert table_pb2.WatchResponse.FromString(data) == views.update(room.state, 7, me, update)
        assert views.update_bytes(room.state, 7, me, update) is data  # encoded once
        play = views.play_bytes(room.state, 7, me, update)
        assert table_pb2.PlayResponse.FromString(play) == table_pb2.PlayResponse(
            update=views.update(room.state, 7, me, update)
        )
        assert views.play_bytes(room.state, 7, me, update) is play
        reply = table_pb2.ActResponse.FromString(views.act_bytes(room.state, 7, me, 5))
        assert reply == table_pb2.ActResponse(version=5, view=views.view(room.state, 7, me))
    # Older than the newest: events only, as the message.
    old = views.update_bytes(room.state, 8, 1, update)
    assert table_pb2.WatchResponse.FromString(old) == views.update(room.state, 8, 1, update)


def test_an_event_an_observer_sees_whole_every_seat_sees_whole() -> None:
    """The table service sends one event list to every seat when nothing in an update is
    hidden from observers; that rests on this."""
    rng = random.Random(11)
    room = Room(players=4)
    for n, game in enumerate(DEALERS_CHOICE):
        [up] = room.do(choice.call_dealer(room.state))
        assert isinstance(up, DealerUp)
        if not up.redeal:
            room.do(choice.choose_game(room.state, seat=up.seat, game=game, options=None))
        room.deal(f"h{n}", rng)
        room.play_out(rng)
    public = [e for e in room.log if redact(e, 0) is e]
    assert 0 < len(public) < len(room.log)
    for event in public:
        assert all(redact(event, seat) is event for seat in range(1, 5)), event


@pytest.mark.parametrize("size", [0, 1, 127, 128, 300, 16383, 16384, 70000])
def test_a_nested_message_s_bytes_are_protobufs_own(size: int) -> None:
    """Bytes nested by length (one, two and more length bytes) are what protobuf writes."""
    view = table_pb2.TableView(name="x" * size)
    nested = _field(table_pb2.WatchResponse.VIEW_FIELD_NUMBER, view.SerializeToString())
    assert nested == table_pb2.WatchResponse(view=view).SerializeToString()
