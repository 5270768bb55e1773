"""Five-card draw (Buderick): high hand only, one winner.

Five cards down, a betting round, then option 1: one draw of up to five cards and the last
round; option 2: a draw of up to three, a round, a draw of up to two, the last round. Players
draw in turn from the dealer's left. When the stub runs out the dealer reshuffles the discards
of the players who drew before (``ReshuffleRequested`` / the ``Reshuffle`` command).
"""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.evaluation import describe_high, high_value
from riverboat.engine.flow import (
    Game,
    Recorder,
    begin_phase,
    begin_round,
    deal_round,
    finish,
    left_opener,
    rotate_opener,
)
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import opener_spec
from riverboat.engine.state import HandState


class Draw(Game):
    """Five-card draw."""

    name = "draw"
    title = "Five-card draw"
    first_cards = 5
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "draws",
            1,
            (1, 2),
            "A-21, seed",
            "1: one draw of up to 5 cards; 2: two draws, up to 3 then up to 2, with a betting "
            "round after each.",
        ),
        opener_spec("rotate", ("rotate", "dealer_left")),
    )

    def step(self, rec: Recorder) -> None:
        s = rec.s
        if s.deck_pos == 0:
            deal_round(rec, self, (False,) * 5)
            begin_round(rec, self, big=False)
            return
        total = s.game_options.number("draws")
        draws = s.phases.count("draw")
        if draws < total and s.street == draws + 1:
            most = 5 if total == 1 else (3, 2)[draws]
            begin_phase(rec, "draw", s.in_hand(), simultaneous=False, cards=(0, most))
        elif s.street < total + 1:
            begin_round(rec, self, big=s.street + 1 == total + 1)
        else:
            finish(rec, self)

    def opener(self, s: HandState) -> int:
        if s.game_options.text("opener") == "dealer_left":
            return left_opener(s)
        return rotate_opener(s)

    def high(self, s: HandState, i: int) -> tuple[int, str]:
        value = high_value(s.cards[i])
        return value, describe_high(value)
