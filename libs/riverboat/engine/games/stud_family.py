"""The seven-card stud deal shared by Chicago, Deuces & Jacks, Follow the Queen and Woolworth.

Two cards down and one up, a betting round, three more up with a round after each, the last
card down and the last round at the big bet (Final Bet Rule): five rounds, each opened by the
best hand showing (the game's wild cards count; ties clockwise from the dealer). No bring-in:
the dealer's ante is the only forced bet. With eight players the deck may not reach 7th
street: then one face-up community card is everyone's 7th card (as in Pacific stud).

A face-up card may cost its owner money (the game's payments) or oblige them to match the
pot or fold (``match_pot_rank``, a match phase before the next betting round).
"""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.cards import RANK_CHARS, rank_of
from riverboat.engine.evaluation import WildPredicate, describe_low, low_value
from riverboat.engine.events import CardPaymentPosted, MatchDue
from riverboat.engine.flow import (
    Game,
    Recorder,
    begin_phase,
    begin_round,
    best_showing,
    deal_round,
    deal_street,
    finish,
)
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.state import HandState
from riverboat.engine.wild import describe, special_board, special_high

STREETS = 5

#: The split of a wild stud game (Buderick: high only).
SPLIT_SPEC = OptionSpec(
    "split",
    "high",
    ("high", "declare"),
    "Buderick; house rules (wild cards in lows)",
    "high: the best high hand takes the pot; declare: low (1 coin), high (2) or both (3) with "
    "PIG rules, lows ace-to-five with no qualifier, a wild card as the lowest missing rank.",
)


class StudFamily(Game):
    """A dealer's choice stud game; subclasses set the wild cards, payments and showdown."""

    first_cards: ClassVar[int] = 3
    stud_odd_chips: ClassVar[bool] = True
    #: A natural pair of sevens is the best hand (Deuces & Jacks).
    sevens: ClassVar[bool] = False

    def wild(self, s: HandState) -> WildPredicate | None:
        """The wild cards now."""
        return None

    def step(self, rec: Recorder) -> None:
        s = rec.s
        if s.deck_pos == 0:
            deal_round(rec, self, (False, False, True))
            return
        due = [i for i in s.in_hand() if s.match_due[i]]
        if due:
            begin_phase(rec, "match", due, simultaneous=False)
            return
        dealt = streets_dealt(s)
        if s.street < dealt:
            begin_round(rec, self, big=dealt == STREETS)
        elif dealt < STREETS:
            deal_street(rec, self, last=dealt + 1 == STREETS)
        else:
            finish(rec, self)

    def board(self, s: HandState, i: int) -> int:
        """Player ``i``'s board (face-up cards and the community card), higher is better."""
        return special_board(s.up_cards(i) + s.community, self.wild(s), sevens=self.sevens)

    def opener(self, s: HandState) -> int:
        by_suit = s.game_options.get("board_tie_break") == "suit"
        return best_showing(s, lambda i: self.board(s, i), by_suit=by_suit)

    def after_face_up(self, rec: Recorder, i: int, card: int) -> None:
        s = rec.s
        rank = s.game_options.get("match_pot_rank")
        triggered = rank is not None and rank_of(card) == RANK_CHARS.index(rank)
        if triggered and s.stacks[i] > 0 and s.pot_total > 0:
            rec.emit(MatchDue(s.seats[i], s.pot_total))
        if s.game_options.get("exposed_card_payments"):
            self.pay_for(rec, i, card)

    def pay_for(self, rec: Recorder, i: int, card: int) -> None:
        """The game's payments for a face-up ``card`` dealt to player ``i``."""

    @staticmethod
    def charge(rec: Recorder, i: int, card: int, amount: int) -> None:
        """Player ``i`` pays ``amount`` for ``card`` (all they have if short)."""
        s = rec.s
        paid = min(amount, s.stacks[i])
        if paid > 0:
            rec.emit(CardPaymentPosted(s.seats[i], card, paid))


def streets_dealt(s: HandState) -> int:
    """Stud streets dealt so far: 1 after the first three cards, 5 after the seventh."""
    live = s.in_hand()
    return len(s.cards[live[0]]) + len(s.community) - 2


class WildStud(StudFamily):
    """A stud game with wild cards: one winner, the best high hand (``split: high``), or high
    and low by declaration (``split: declare``; a wild card plays in a low as the lowest rank
    missing from the hand, house rules)."""

    ways = ("low", "high")

    def declares(self, s: HandState) -> bool:
        return s.game_options.text("split") == "declare"

    def low(self, s: HandState, i: int) -> tuple[int, str] | None:
        if not self.declares(s):
            return None
        value = low_value(s.cards[i] + s.community, None, self.wild(s))
        return None if value is None else (value, describe_low(value))

    def high(self, s: HandState, i: int) -> tuple[int, str]:
        nbw = s.game_options.flag("natural_beats_wild")
        sevens = self.sevens and s.game_options.flag("natural_sevens")
        key = special_high(
            s.cards[i] + s.community, self.wild(s), sevens=sevens, natural_beats_wild=nbw
        )
        return key, describe(key, natural_beats_wild=nbw)
