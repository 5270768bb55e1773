"""Seven Twenty-Seven (pagat; one of Buderick's options): totals nearest 7 and 27."""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.flow import Recorder, begin_round, deal_round
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import opener_spec
from riverboat.engine.games.totals_family import TotalsGame, _specs


class SevenTwentySeven(TotalsGame):
    """7-27: one card down and one up (or two down and one up); pictures count one half
    unless the dealer says otherwise; offered cards are dealt face down."""

    name = "seven_twenty_seven"
    title = "Seven Twenty-Seven"
    first_cards = 3
    ways = ("low", "high")
    targets = (14, 54)
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "deal",
            "one_down_one_up",
            ("one_down_one_up", "two_down_one_up"),
            "pagat",
            "The first cards: one down and one up, or two down and one up.",
        ),
        *_specs("half", False, opener_spec("rotate", ("rotate", "dealer_left"))),
    )

    def deal_start(self, rec: Recorder) -> None:
        pattern: tuple[bool, ...] = (False, True)
        if rec.s.game_options.text("deal") == "two_down_one_up":
            pattern = (False, False, True)
        deal_round(rec, self, pattern)
        begin_round(rec, self, big=False)
