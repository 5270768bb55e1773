"""Seven-card stud hi/lo (Pacific Poker's table procedure, with the house rules), as a game of
the one hand state machine (:mod:`riverboat.engine.flow`).

What is Pacific's own, and only that, lives here: the deal of 3rd to 7th street (one face-up
community card when the deck cannot give everyone a 7th), the bring-in by the lowest door card
(or, with ``no_bring_in``, the high door card opening), the best board opening later streets,
the street limits (the open pair on 4th street, the Final Bet Rule), live per-player antes,
and the showdown's hands: best high and ace-to-five low with the table's qualifier, each pot
split on its own. Betting, pots, rake, odd chips and the payout are everyone's (flow, betting).
"""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.betting import open_pair_showing
from riverboat.engine.commands import ACTIONS
from riverboat.engine.errors import InvalidCommand
from riverboat.engine.evaluation import (
    board_value,
    describe_high,
    describe_low,
    high_value,
    low_value,
)
from riverboat.engine.events import BettingRoundStarted, CommunityCardDealt
from riverboat.engine.flow import (
    Game,
    Recorder,
    deal,
    deal_round,
    first_able,
    showdown,
)
from riverboat.engine.seating import MAX_SEAT
from riverboat.engine.state import STUD_VARIANT, HandState, spread_minimum, spread_unit

#: The last street; its betting round ends in the showdown.
SEVENTH = 7


class PacificStud(Game):
    """Pacific's seven-card stud hi/lo; ``street`` is the stud street (3rd to 7th)."""

    name: ClassVar[str] = STUD_VARIANT
    title: ClassVar[str] = "Seven-card stud hi/lo"
    max_players: ClassVar[int] = MAX_SEAT  # the table's ``max_players`` is the bound
    first_cards: ClassVar[int] = 3
    stud_odd_chips: ClassVar[bool] = True
    actions: ClassVar[frozenset[str]] = ACTIONS
    betting: ClassVar[frozenset[str]] = ACTIONS
    takes_options: ClassVar[bool] = False
    first_round: ClassVar[int] = 3
    first_deal: ClassVar[str] = "3rd street"
    lone_scoops: ClassVar[bool] = True

    def who_deals(self) -> str:
        return "this table"

    def step(self, rec: Recorder) -> None:
        s = rec.s
        if s.street == 0:
            self._third_street(rec)
        elif s.street >= SEVENTH:
            showdown(rec, self)
        else:
            self._next_street(rec)

    def _third_street(self, rec: Recorder) -> None:
        deal_round(rec, self, (False, False, True))
        s = rec.s
        if s.options.no_bring_in:
            # Dealer's choice stud (Buderick): no bring-in; the high hand showing (the door
            # card, by rank; ties first clockwise from the dealer) bets first, and may check.
            opener = self._best_board(s)
        else:
            # The lowest door card by suit brings in; ace high, so the card's integer order
            # is the rule.
            opener = min(range(s.player_count), key=lambda i: s.up_cards(i)[0])
        self._open(rec, opener, forced_bring_in=not s.options.no_bring_in)

    def _next_street(self, rec: Recorder) -> None:
        s = rec.s
        street = s.street + 1
        live = s.in_hand()
        remaining = s.deck_size - s.deck_pos
        if street == SEVENTH and remaining < len(live):
            # Not enough cards for everyone's 7th: one face-up community card for all.
            if remaining < 1:
                raise InvalidCommand("the deck ran out before 7th street", rule="deck_exhausted")
            rec.emit(CommunityCardDealt(rec.deck[s.deck_pos]))
        else:
            for i in live:
                deal(rec, self, i, face_up=street != SEVENTH)
        self._open(rec, self._best_board(rec.s), forced_bring_in=False)

    def _open(self, rec: Recorder, opener: int, *, forced_bring_in: bool) -> None:
        s = rec.s
        street = s.street + 1 if s.street else 3
        opts = s.options
        if opts.final_bet_rule:  # dealer's choice: the big bet on the last street only
            size = opts.big_bet if street == SEVENTH else opts.small_bet
        else:
            size = opts.small_bet if street in (3, 4) else opts.big_bet
        first = first_able(s, opener)
        rec.emit(
            BettingRoundStarted(
                street=street,
                bet_size=size,
                first_to_act=None if first is None else s.seats[first],
                forced_bring_in=forced_bring_in,
            )
        )

    @staticmethod
    def _best_board(s: HandState) -> int:
        """The best board showing (straights and flushes do not count); ties go to the first
        clockwise from the button."""
        best_i, best_v = -1, -1
        for i in s.in_hand():  # in dealing order, so the first of equals is first clockwise
            value = board_value(s.up_cards(i) + s.community)
            if value > best_v:
                best_i, best_v = i, value
        return best_i

    # --- betting ----------------------------------------------------------------------------

    def wager_kind(self, s: HandState) -> str:
        if s.street == 3 and s.bets_made == 0 and not s.options.no_bring_in:
            return "complete"
        return "bet" if s.level == 0 else "raise"

    def increments(self, s: HandState, i: int) -> tuple[int, ...] | range:
        opts = s.options
        if s.big_bet_round or (s.street >= 5 and not opts.final_bet_rule):
            fixed: tuple[int, ...] = (opts.big_bet,)
        elif s.street == 4 and opts.open_pair_double_bet and open_pair_showing(s):
            fixed = (opts.small_bet, opts.big_bet)
        else:
            # The round's own size: the small bet, or the big one on 7th (Final Bet Rule).
            fixed = (s.bet_size,)
        if opts.spread_limit:
            # Spread limit: any whole-dollar amount from the smallest raise up to the limit.
            return range(spread_minimum(s), max(fixed) + 1, spread_unit(s.bet_size))
        return fixed

    # --- showdown and payout ------------------------------------------------------------------

    def dead_money(self, s: HandState) -> tuple[int, ...]:
        # A per-player ante is live: it counts towards each player's all-in level. The
        # dealer's lone ante (``ante_mode: dealer``) is dead money, not a level of its own.
        if s.options.ante_mode == "dealer":
            return s.dead
        return (0,) * s.player_count

    def high(self, s: HandState, i: int) -> tuple[int, str]:
        value = high_value(s.cards[i] + s.community)
        return value, describe_high(value)

    def low(self, s: HandState, i: int) -> tuple[int, str] | None:
        value = low_value(s.cards[i] + s.community, s.options.low_qualifier)
        return None if value is None else (value, describe_low(value))


#: The one Pacific stud game.
PACIFIC: PacificStud = PacificStud()
