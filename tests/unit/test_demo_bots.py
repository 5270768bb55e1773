"""When a demo bot counts as busted (riverboat.bots.demo.busted)."""

from __future__ import annotations

from riverboat.bots.demo import busted
from riverboat.v1 import table_pb2


def test_busted_means_no_chips_and_no_hand_in_play() -> None:
    seats = [table_pb2.SeatView(seat=1, player="ann", stack=0)]
    assert busted(table_pb2.TableView(seats=seats), "ann")
    assert not busted(table_pb2.TableView(seats=seats, hand_in_progress=True), "ann")  # all in
    assert not busted(table_pb2.TableView(seats=seats), "bob")  # not even seated
