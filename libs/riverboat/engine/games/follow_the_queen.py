"""Follow the Queen, Buderick's version (via pagat)."""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.cards import rank_of
from riverboat.engine.evaluation import WildPredicate
from riverboat.engine.events import WildRankChanged
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
from riverboat.engine.wild import QUEEN, queens_and


class FollowTheQueen(WildStud):
    """Follow the Queen (Buderick): queens always wild; the card dealt face up after a face-up
    queen makes its rank wild until the next face-up queen; one ante for a wild card dealt
    face up (or a face-up card that becomes wild), two for a face-up queen."""

    name = "follow_the_queen"
    title = "Follow the Queen"
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "queens_wild",
            True,
            (True, False),
            "Buderick (pagat)",
            "Queens are always wild (Buderick); off: only the followed rank is.",
        ),
        payments_spec("ante_payment per wild card dealt face up, twice that per face-up queen."),
        OptionSpec(
            "made_wild_payment",
            True,
            (True, False),
            "A-15",
            "A face-up card that becomes wild when its rank follows a queen costs its owner one "
            "ante (each card is charged once in a hand).",
        ),
        OptionSpec("ante_payment", 100, "cents", "Buderick (pagat)", "One ante: the dealer's $1."),
        natural_spec(),
        SPLIT_SPEC,
        *DECLARE_SPECS,
        *BOARD_SPECS,
        *MATCH_SPECS,
    )

    def wild(self, s: HandState) -> WildPredicate:
        if s.game_options.flag("queens_wild"):
            return queens_and(s.wild_rank)
        rank = s.wild_rank
        return lambda card: rank is not None and rank_of(card) == rank

    def after_face_up(self, rec: Recorder, i: int, card: int) -> None:
        self._follow(rec, card)
        super().after_face_up(rec, i, card)

    def after_community(self, rec: Recorder, card: int) -> None:
        self._follow(rec, card)
        opts = rec.s.game_options
        defined = rank_of(card) != QUEEN and rec.s.wild_rank == rank_of(card)
        if defined and opts.flag("exposed_card_payments") and opts.flag("made_wild_payment"):
            self._charge_made_wild(rec, rank_of(card), skip=-1)

    @staticmethod
    def _follow(rec: Recorder, card: int) -> None:
        """The wild rank after a face-up ``card``: a queen cancels it and waits for the next."""
        s = rec.s
        rank = rank_of(card)
        if rank == QUEEN:
            if s.wild_rank is not None or not s.wild_awaiting:
                rec.emit(WildRankChanged(None, True))
        elif s.wild_awaiting:
            rec.emit(WildRankChanged(rank, False))

    def pay_for(self, rec: Recorder, i: int, card: int) -> None:
        s = rec.s
        unit = s.game_options.number("ante_payment")
        rank = rank_of(card)
        if rank == QUEEN:
            self.charge(rec, i, card, 2 * unit)
            return
        if rank != s.wild_rank:
            return
        if self._charged(s, card):
            return
        self.charge(rec, i, card, unit)
        if s.game_options.flag("made_wild_payment"):
            self._charge_made_wild(rec, rank, skip=card)

    def _charge_made_wild(self, rec: Recorder, rank: int, *, skip: int) -> None:
        """Everyone still in pays one ante per face-up card of the newly wild ``rank``."""
        s = rec.s
        unit = s.game_options.number("ante_payment")
        for j in s.in_hand():
            for other in s.up_cards(j):
                if other != skip and rank_of(other) == rank and not self._charged(rec.s, other):
                    self.charge(rec, j, other, unit)

    @staticmethod
    def _charged(s: HandState, card: int) -> bool:
        return any(c == card for _, c, _ in s.payments)
