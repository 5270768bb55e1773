"""The one rotation and riding-pot rule (riverboat.engine.rotation), against an oracle that
walks round the table seat by seat."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from riverboat.engine.rotation import dealer_up, next_seat
from riverboat.engine.seating import MAX_SEAT


def _walk(ready: set[int], after: int) -> int:
    """Step clockwise from ``after`` one seat at a time (10 wraps to 1) to a ready seat."""
    seat = after
    for _ in range(MAX_SEAT):
        seat = seat % MAX_SEAT + 1
        if seat in ready:
            return seat
    raise AssertionError("nobody is ready")


seats = st.sets(st.integers(1, MAX_SEAT), min_size=1)


@given(seats, st.integers(1, MAX_SEAT))
def test_the_button_moves_to_the_next_ready_seat_clockwise(ready: set[int], last: int) -> None:
    assert next_seat(ready, last) == _walk(ready, last)


@given(seats, st.integers(1, MAX_SEAT), st.integers(0, 500), st.sampled_from(["", "draw"]))
def test_a_riding_pot_keeps_the_dealer_and_the_game(
    ready: set[int], last: int, carried: int, game: str
) -> None:
    up = dealer_up(ready, last, game=game, game_options={"draws": 2}, carried=carried)
    if carried and game:
        assert up.redeal and up.game == game and up.options == {"draws": 2}
        assert up.seat == (last if last in ready else _walk(ready, last))
    else:
        assert not up.redeal and up.game == "" and up.options == {}
        assert up.seat == _walk(ready, last)
