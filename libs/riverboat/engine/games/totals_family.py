"""Fifteen Thirty-Five and Seven Twenty-Seven: card totals, card offers, declarations.

Both deal a few cards, bet, then offer cards: each player still in, clockwise from the
dealer's left, takes one card or stands; a betting round follows any offer round in which
someone took a card. An offer round in which nobody takes a card ends the hand: declare
(low = the low target, high = the high target, both), show down. Nearest wins each half
(absolute distance by default; equal distance splits that half); a natural (both targets
exactly, in one hand) takes the whole pot. The house rules bet $2 throughout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from riverboat.engine.cards import rank_of
from riverboat.engine.flow import (
    Game,
    Recorder,
    begin_phase,
    begin_round,
    best_showing,
    finish,
    left_opener,
    rotate_opener,
    stub_left,
)
from riverboat.engine.game_options import OptionSpec, rule_book
from riverboat.engine.games.common import DECLARE_SPECS
from riverboat.engine.state import HandState
from riverboat.engine.totals import NEAREST_RULES, PICTURES, is_natural, nearest, show, totals


def _specs(pictures: str, offer_up: bool, opener: OptionSpec) -> tuple[OptionSpec, ...]:
    return (
        OptionSpec(
            "pictures",
            pictures,
            PICTURES,
            "house rules",
            "What a king, queen or jack counts: either (one half or 10, holder's choice), "
            "half, or ten. Aces count 1 or 11.",
        ),
        OptionSpec(
            "nearest_rule",
            "absolute",
            NEAREST_RULES,
            "A-19",
            "absolute: nearest by absolute distance, equal distance splits that half; "
            "under_beats_over: at equal distance under wins; over_is_bust: over the target "
            "cannot win that way.",
        ),
        OptionSpec(
            "natural_sweeps",
            True,
            (True, False),
            "A-19",
            "A hand making both targets exactly takes the whole pot, whatever anyone declared "
            "(two naturals split).",
        ),
        OptionSpec(
            "offer_face_up",
            offer_up,
            (True, False),
            "pagat",
            "Cards taken from an offer are dealt face up (else face down).",
        ),
        OptionSpec(
            "stand_freezes",
            False,
            (False, True),
            "pagat (variant)",
            "Two stands in a row and a player is offered no more cards.",
        ),
        OptionSpec(
            "open_ended_final_bet",
            "none",
            ("none", "after_all_stand"),
            "A-5",
            "none: $2 in every round (house rules); after_all_stand: when an offer round "
            "passes with no card taken, one last round at the big bet before declaring.",
        ),
        opener,
        *DECLARE_SPECS,
    )


class TotalsGame(Game):
    """A card-total game; subclasses set the targets (half points) and the deal."""

    #: (low target, high target) in half points.
    targets: ClassVar[tuple[int, int]] = (0, 0)

    def deal_start(self, rec: Recorder) -> None:
        """The first cards, and the phase or round that follows them."""
        raise NotImplementedError

    def step(self, rec: Recorder) -> None:
        s = rec.s
        if s.deck_pos == 0:
            self.deal_start(rec)
            return
        if s.street == 0:
            begin_round(rec, self, big=False)
            return
        offers = s.phases.count("offer")
        final = s.game_options.text("open_ended_final_bet") == "after_all_stand"
        if s.street > offers:
            if offers and not s.took_any:  # the last round, after everyone stood, is over
                finish(rec, self)
                return
            freeze = s.game_options.flag("stand_freezes")
            takers = [i for i in s.in_hand() if not (freeze and s.stands[i] >= 2)]
            if takers and stub_left(rec) > 0:
                begin_phase(rec, "offer", takers, simultaneous=False)
            else:
                finish(rec, self)
        elif s.took_any:
            begin_round(rec, self, big=False)
        elif final:
            begin_round(rec, self, big=True)
        else:
            finish(rec, self)

    def opener(self, s: HandState) -> int:
        how = s.game_options.text("opener")
        if how == "highest_card":
            if rule_book(s.game_options) < 2:
                return best_showing(s, lambda i: _exposed_edition_1(s, i))
            return best_showing(s, lambda i: _highest_exposed(s, i))
        if how == "dealer_left":
            return left_opener(s)
        return rotate_opener(s)

    def offer_face_up(self, s: HandState) -> bool:
        return s.game_options.flag("offer_face_up")

    def _totals(self, s: HandState, i: int) -> frozenset[int]:
        return totals(s.cards[i], s.game_options.text("pictures"))

    def high(self, s: HandState, i: int) -> tuple[int, str] | None:
        target = self.targets[1]
        best = nearest(self._totals(s, i), target, s.game_options.text("nearest_rule"))
        if best is None:
            return None
        return -best[0], f"{show(best[1])} for {show(target)}"

    def low(self, s: HandState, i: int) -> tuple[int, str] | None:
        target = self.targets[0]
        best = nearest(self._totals(s, i), target, s.game_options.text("nearest_rule"))
        if best is None:
            return None
        return best[0], f"{show(best[1])} for {show(target)}"

    def sweepers(self, s: HandState, live: Sequence[int]) -> list[int]:
        if not s.game_options.flag("natural_sweeps"):
            return []
        low, high = self.targets
        return [i for i in live if is_natural(self._totals(s, i), low, high)]


def _highest_exposed(s: HandState, i: int) -> int:
    """The rank of the highest exposed card, ace high (A > K > Q > J > 10 ...); equal highest
    cards tie (the first clockwise opens), however many cards each player shows."""
    ups = [rank_of(c) for c in s.up_cards(i)]
    return max(ups) if ups else -1


def _exposed_edition_1(s: HandState, i: int) -> int:
    """Edition 1's key (tables created before 2026-12-01 replay with it): every exposed card
    highest first as digits, so more cards outranked a higher card (an ace lost to 4-3)."""
    key = 0
    for rank in sorted((rank_of(c) for c in s.up_cards(i)), reverse=True):
        key = key * 16 + rank + 1
    return key
