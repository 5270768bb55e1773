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
from riverboat.engine.evaluation import (
    board_value,
    describe_high,
    describe_low,
    high_value,
    low_value,
)
from riverboat.engine.flow import (
    Game,
    Recorder,
    begin_round,
    best_showing,
    deal_round,
    deal_street,
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
        if s.street >= SEVENTH:
            showdown(rec, self)
            return
        street = s.street + 1 if s.street else 3
        if street == 3:
            deal_round(rec, self, (False, False, True))
        else:
            deal_street(rec, self, last=street == SEVENTH)
        opts = s.options
        # Pacific's limits: the small bet on 3rd and 4th street, the big bet from 5th; with
        # the Final Bet Rule (dealer's choice) the big bet on 7th only.
        big = street == SEVENTH if opts.final_bet_rule else street >= 5
        begin_round(rec, self, big=big, forced_bring_in=street == 3 and not opts.no_bring_in)

    def opener(self, s: HandState) -> int:
        if s.street == 0 and not s.options.no_bring_in:
            # The lowest door card by suit brings in; ace high, so the card's integer order
            # is the rule.
            return min(range(s.player_count), key=lambda i: s.up_cards(i)[0])
        # Later streets, and 3rd street without a bring-in (dealer's choice stud, Buderick: the
        # high door card by rank bets first and may check): the best board showing, straights
        # and flushes not counted; ties first clockwise from the button.
        return best_showing(s, lambda i: board_value(s.up_cards(i) + s.community))

    # --- betting ----------------------------------------------------------------------------

    def wager_kind(self, s: HandState) -> str:
        if s.street == 3 and s.bets_made == 0 and not s.options.no_bring_in:
            return "complete"
        return "bet" if s.level == 0 else "raise"

    def increments(self, s: HandState, i: int) -> tuple[int, ...] | range:
        opts = s.options
        if s.big_bet_round:  # someone bet the big bet over an open pair: the rest is big
            fixed: tuple[int, ...] = (opts.big_bet,)
        elif s.street == 4 and opts.open_pair_double_bet and open_pair_showing(s):
            # An open pair on 4th street: the small or the big bet (the fold makes a big one
            # the round's bet: state.big_bet_round).
            fixed = (s.bet_size, opts.big_bet)
        else:
            fixed = (s.bet_size,)  # the round's own size (begin_round: Pacific's limits)
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
