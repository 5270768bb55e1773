"""Woolworth, Buderick's version (via pagat)."""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.evaluation import WildPredicate
from riverboat.engine.flow import Recorder
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import (
    BOARD_SPECS,
    DECLARE_SPECS,
    MATCH_SPECS,
    natural_spec,
    payments_spec,
)
from riverboat.engine.games.stud_family import SPLIT_SPEC, WildStud
from riverboat.engine.state import HandState
from riverboat.engine.wild import woolworth_wild


class Woolworth(WildStud):
    """Woolworth (Buderick): fives and tens wild, $1 for each dealt face up, no extra cards."""

    name = "woolworth"
    title = "Woolworth"
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        payments_spec("$1 (wild_payment) per five or ten dealt face up, dead money."),
        OptionSpec("wild_payment", 100, "cents", "Buderick (pagat)", "Per five or ten face up."),
        natural_spec(),
        SPLIT_SPEC,
        *DECLARE_SPECS,
        *BOARD_SPECS,
        *MATCH_SPECS,
    )

    def wild(self, s: HandState) -> WildPredicate:
        return woolworth_wild

    def pay_for(self, rec: Recorder, i: int, card: int) -> None:
        if woolworth_wild(card):
            self.charge(rec, i, card, rec.s.game_options.number("wild_payment"))
