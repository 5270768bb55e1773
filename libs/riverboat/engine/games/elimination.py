"""Elimination (Buderick): card totals, a row of table cards, six betting rounds.

Five cards down to each player and a row of five table cards face down; a betting round.
Then five times: the dealer turns the next table card and every player throws away all their
cards of its rank, face up; a betting round (the sixth, last one at the big bet). A table card
of a rank already turned is set aside and stock cards are turned until a new rank appears
(``repeated_rank``). Every round begins with the first player on the dealer's left. A player
whose five cards are all eliminated wins the pot at once (two at once split). Survivors
declare: high = the highest total, low = the lowest (aces 11 or 1, pictures 10 or one half,
valued per way).
"""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.cards import rank_of
from riverboat.engine.declare import Outcome
from riverboat.engine.events import CardsEliminated, RankEliminated, TableCardTurned, TableRowDealt
from riverboat.engine.flow import (
    Game,
    Recorder,
    begin_round,
    cards_speak,
    deal_round,
    finish,
    left_opener,
    rotate_opener,
    settle,
    stub_left,
)
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import DECLARE_SPECS, opener_spec
from riverboat.engine.state import HandState
from riverboat.engine.totals import show, totals

ROW = 5
ROUNDS = 6


class Elimination(Game):
    """Elimination."""

    name = "elimination"
    title = "Elimination"
    first_cards = 5
    ways = ("low", "high")
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "repeated_rank",
            "turn_stock",
            ("turn_stock", "no_elimination"),
            "A-16",
            "A table card of a rank already turned: turn stock cards until a new rank appears "
            "and eliminate that (turn_stock); or eliminate nothing this time (no_elimination). "
            "If the stock runs out, nothing is eliminated.",
        ),
        OptionSpec(
            "simultaneous_elimination",
            "split",
            ("split",),
            "A-17",
            "Two or more players eliminated to no cards by the same table card split the pot.",
        ),
        OptionSpec(
            "showdown",
            "declare",
            ("declare", "cards_speak"),
            "A-18",
            "declare: low (1 coin), high (2), both (3), PIG rules apply; cards_speak: the "
            "highest and the lowest totals split.",
        ),
        opener_spec("dealer_left", ("dealer_left", "rotate"), "Buderick (pagat)"),
        *DECLARE_SPECS,
    )

    def cards_needed(self, players: int) -> int:
        return 5 * players + ROW

    def step(self, rec: Recorder) -> None:
        s = rec.s
        if s.deck_pos == 0:
            deal_round(rec, self, (False,) * 5)
            rec.emit(TableRowDealt(ROW))
            begin_round(rec, self, big=False)
            return
        if s.street < ROUNDS and s.row_turned < s.street:
            self._turn(rec)
            if not rec.s.finished:
                begin_round(rec, self, big=rec.s.street + 1 == ROUNDS)
            return
        finish(rec, self)

    def _turn(self, rec: Recorder) -> None:
        s = rec.s
        card = rec.deck[s.row_start + s.row_turned]
        rec.emit(TableCardTurned(card, False))
        rank: int | None = rank_of(card)
        if rank in s.eliminated:
            rank = None
            if s.game_options.text("repeated_rank") == "turn_stock":
                while stub_left(rec) > 0:
                    extra = rec.deck[rec.s.deck_pos]
                    rec.emit(TableCardTurned(extra, True))
                    if rank_of(extra) not in rec.s.eliminated:
                        rank = rank_of(extra)
                        break
        if rank is None:
            return
        rec.emit(RankEliminated(rank))
        for i in rec.s.in_hand():
            gone = tuple(c for c in rec.s.cards[i] if rank_of(c) == rank)
            if gone:
                rec.emit(CardsEliminated(rec.s.seats[i], gone))
        after = rec.s
        emptied = [i for i in after.in_hand() if not after.cards[i]]
        if emptied:
            highs = {i: self._high(after, i) for i in after.in_hand()}
            lows = {i: self._low(after, i) for i in after.in_hand()}

            def resolver(eligible: list[int]) -> Outcome:
                won = tuple(i for i in eligible if i in emptied)
                if won:
                    return Outcome(won, (), False, ())
                return cards_speak(eligible, highs, lows)

            settle(rec, self, resolver)

    def opener(self, s: HandState) -> int:
        if s.game_options.text("opener") == "rotate":
            return rotate_opener(s)
        return left_opener(s)

    def declares(self, s: HandState) -> bool:
        return s.game_options.text("showdown") == "declare"

    @staticmethod
    def _high(s: HandState, i: int) -> int:
        return max(totals(s.cards[i]))

    @staticmethod
    def _low(s: HandState, i: int) -> int:
        return min(totals(s.cards[i]))

    def high(self, s: HandState, i: int) -> tuple[int, str]:
        value = self._high(s, i)
        return value, f"high total {show(value)}"

    def low(self, s: HandState, i: int) -> tuple[int, str]:
        value = self._low(s, i)
        return value, f"low total {show(value)}"
