"""Fifteen Thirty-Five (Buderick, via pagat): totals nearest 15 and 35."""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.flow import Recorder, begin_phase, deal_round
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import opener_spec
from riverboat.engine.games.totals_family import TotalsGame, _specs


class FifteenThirtyFive(TotalsGame):
    """15-35 (Buderick): three cards down, each player exposes one; the highest exposed card
    opens; cards taken from offers are dealt face up."""

    name = "fifteen_thirty_five"
    title = "Fifteen Thirty-Five"
    first_cards = 3
    ways = ("low", "high")
    targets = (30, 70)
    specs: ClassVar[tuple[OptionSpec, ...]] = _specs(
        "either", True, opener_spec("highest_card", ("highest_card", "rotate"), "Buderick (pagat)")
    )

    def deal_start(self, rec: Recorder) -> None:
        deal_round(rec, self, (False,) * 3)
        begin_phase(rec, "expose", rec.s.in_hand(), simultaneous=False, cards=(1, 1))
