"""Deuces & Jacks & the Man with the Axe (Buderick, via pagat)."""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.cards import rank_of
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
from riverboat.engine.wild import SEVEN, axe_wild, special_board


class DeucesJacksAxe(WildStud):
    """Deuces & Jacks & the Man with the Axe: 2s, jacks and the K♦ wild; a natural pair of
    sevens beats every hand; $1 per wild card and $5 per seven dealt face up."""

    name = "deuces_jacks_axe"
    title = "Deuces & Jacks & the Man with the Axe"
    sevens = True
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "natural_sevens",
            True,
            (True, False),
            "A-14",
            "A hand with a natural pair of sevens beats every other hand, five aces included; "
            "two such hands split.",
        ),
        payments_spec(
            "$1 (wild_payment) per wild card and $5 (seven_payment) per seven dealt "
            "face up, dead money, paid at once (all in if short)."
        ),
        OptionSpec("wild_payment", 100, "cents", "Buderick (pagat)", "Per wild card face up."),
        OptionSpec("seven_payment", 500, "cents", "Buderick (pagat)", "Per seven face up."),
        natural_spec(),
        SPLIT_SPEC,
        *DECLARE_SPECS,
        *BOARD_SPECS,
        *MATCH_SPECS,
    )

    def wild(self, s: HandState) -> WildPredicate:
        return axe_wild

    def board(self, s: HandState, i: int) -> int:
        sevens = s.game_options.flag("natural_sevens")
        return special_board(s.up_cards(i) + s.community, axe_wild, sevens=sevens)

    def pay_for(self, rec: Recorder, i: int, card: int) -> None:
        opts = rec.s.game_options
        if axe_wild(card):
            self.charge(rec, i, card, opts.number("wild_payment"))
        elif rank_of(card) == SEVEN:
            self.charge(rec, i, card, opts.number("seven_payment"))
