"""Anaconda (Pass the Trash), the seed's version: high/low with declarations.

Seven cards down; a betting round from the dealer's left; everyone puts down three cards and,
once all have, passes them to the next player still in on the left; everyone discards two and
stacks the remaining five face down in the order to turn them up; four rolls, each turning
everyone's next card and followed by a betting round begun by the best hand showing (the
last at the big bet); declare low (1 coin), high (2) or both (3); show down the five cards.
Seven cards each: at most seven players.
"""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.evaluation import (
    board_value,
    describe_high,
    describe_low,
    high_value,
    low_value,
)
from riverboat.engine.events import CardTurnedUp
from riverboat.engine.flow import (
    Game,
    Recorder,
    begin_phase,
    begin_round,
    best_showing,
    deal_round,
    finish,
    left_opener,
    rotate_opener,
)
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import DECLARE_SPECS, opener_spec
from riverboat.engine.state import HandState

ROLLS = 4


class Anaconda(Game):
    """Anaconda, pass three left."""

    name = "anaconda"
    title = "Anaconda"
    max_players = 7
    first_cards = 7
    ways = ("low", "high")
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "low_qualifier",
            None,
            (None, 8),
            "A-8",
            "Lows are ace-to-five with straights and flushes ignored; null: no qualifier "
            "(declare games, house rules); 8: eight or better.",
        ),
        opener_spec("rotate", ("rotate", "dealer_left")),
        *DECLARE_SPECS,
    )

    def step(self, rec: Recorder) -> None:
        s = rec.s
        if s.deck_pos == 0:
            deal_round(rec, self, (False,) * 7)
            begin_round(rec, self, big=False)
            return
        live = s.in_hand()
        for phase, count in (("pass", 3), ("discard", 2), ("order", 5)):
            if phase not in s.phases:
                begin_phase(rec, phase, live, simultaneous=True, cards=(count, count))
                return
        rolls = len(s.up_cards(live[0]))
        if rolls < ROLLS and s.street == rolls + 1:
            for i in live:
                rec.emit(CardTurnedUp(s.seats[i], s.cards[i][rolls]))
            begin_round(rec, self, big=rolls + 1 == ROLLS)
        else:
            finish(rec, self)

    def opener(self, s: HandState) -> int:
        if s.street >= 1:  # after a roll: the best hand showing
            return best_showing(s, lambda i: board_value(s.up_cards(i)))
        if s.game_options.text("opener") == "dealer_left":
            return left_opener(s)
        return rotate_opener(s)

    def high(self, s: HandState, i: int) -> tuple[int, str]:
        value = high_value(s.cards[i])
        return value, describe_high(value)

    def low(self, s: HandState, i: int) -> tuple[int, str] | None:
        value = low_value(s.cards[i], s.game_options.get("low_qualifier"))
        return None if value is None else (value, describe_low(value))
