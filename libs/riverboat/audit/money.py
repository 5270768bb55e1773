"""Chip arithmetic of one hand, checked from its recorded events alone.

This is the auditor's own arithmetic, written apart from the engine's (``riverboat.engine.pots``)
on purpose: the engine replay proves the events follow the rules; this proves, independently,
that the numbers in them add up. Per hand:

* every chip a seat put in (antes, bets, calls, less uncalled bets returned) came out of its stack,
  and no stack goes below zero;
* the chips put in equal the pots awarded plus the rake;
* main and side pots: rebuilt from each seat's total contribution and who folded, each pot's
  amount (before rake) and eligible players equal what was awarded;
* each pot's shares add up to it and go to its winners only; a hi/lo pot's high half is the
  larger one; tied winners differ by at most one odd chip per half;
* the rake is the table's published rule: basis points of the whole pot, rounded half to even,
  capped by the number of players dealt in, none when the hand ends on 3rd street (if the table
  says so), taken from the main pot first;
* the final stacks are the starting stacks less contributions plus winnings, and the chips at
  the end plus the rake equal the chips at the start;
* a voided hand refunds exactly what each seat put in, and takes no rake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from riverboat.audit.report import Check, EventRef
from riverboat.engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundStarted,
    CardPaymentPosted,
    HandEnded,
    HandShown,
    HandStarted,
    MatchDeclined,
    PotAwarded,
    PotCarriedIn,
    PotCarriedOver,
    PotMatched,
    RakeTaken,
    UncalledBetReturned,
)
from riverboat.handtext import dollars
from riverboat.table.events import AnyEvent, HandVoided

__all__ = ["MoneyProblem", "check_hand_money", "expected_rake", "side_pots"]

STUD_HI_LO = "seven_card_stud_hi_lo"
_MONEY_EVENTS = frozenset(
    {
        AntePosted,
        CardPaymentPosted,
        PotMatched,
        ActionTaken,
        MatchDeclined,
        UncalledBetReturned,
        PotCarriedIn,
        PotCarriedOver,
        BettingRoundStarted,
        HandShown,
        RakeTaken,
        PotAwarded,
        HandEnded,
        HandVoided,
    }
)


class Located(Protocol):
    """A recorded event and where it is stored (:class:`~riverboat.audit.tablelog.LoggedEvent`)."""

    @property
    def event(self) -> AnyEvent | None:
        """The event."""

    @property
    def ref(self) -> EventRef:
        """Where it is stored."""


@dataclass(frozen=True, slots=True)
class MoneyProblem:
    """One arithmetic failure."""

    check: Check
    message: str
    at: Located | None


def half_even(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded to the nearest integer, ties to the even one."""
    q, r = divmod(numerator, denominator)
    if 2 * r > denominator or (2 * r == denominator and q % 2):
        q += 1
    return q


def expected_rake(
    total: int,
    options: Mapping[str, Any],
    players: int,
    last_street: int,
    *,
    first_round: int = 3,
) -> int:
    """The rake the table's options give for a pot of ``total`` cents, in a hand whose last
    betting round was ``last_street`` (no rake when that is the first, ``first_round``, and the
    table says so: stud's "no rake on 3rd street")."""
    basis_points = int(options.get("rake_basis_points", 0))
    if basis_points == 0 or total == 0:
        return 0
    if options.get("no_rake_on_third_street", False) and last_street <= first_round:
        return 0
    rake = half_even(total * basis_points, 10_000)
    cap: int | None = None
    for minimum, amount in options.get("rake_caps", ()):
        if players >= minimum:
            cap = amount
    return rake if cap is None else min(rake, cap)


def side_pots(
    contributions: Mapping[int, int], folded: set[int]
) -> list[tuple[int, frozenset[int]]]:
    """Main pot then side pots as ``(amount, eligible seats)``.

    Each distinct total put in by a player still in the hand closes a pot; everyone pays into
    it up to that level; the players still in who reached the level can win it. Neighbouring
    pots with the same players are one pot.
    """
    live_levels = sorted({c for s, c in contributions.items() if s not in folded and c > 0})
    pots: list[tuple[int, frozenset[int]]] = []
    below = 0
    for level in live_levels:
        amount = sum(min(c, level) - min(c, below) for c in contributions.values())
        eligible = frozenset(s for s, c in contributions.items() if s not in folded and c >= level)
        if pots and pots[-1][1] == eligible:
            pots[-1] = (pots[-1][0] + amount, eligible)
        elif amount:
            pots.append((amount, eligible))
        below = level
    rest = sum(contributions.values()) - sum(a for a, _ in pots)
    if rest and pots:  # chips of folded players above every live level: they stay in play
        pots[-1] = (pots[-1][0] + rest, pots[-1][1])
    return pots


class _Ledger:
    """Running stacks and contributions while reading one hand."""

    def __init__(self, started: HandStarted) -> None:
        self.start = {s.seat: s.stack for s in started.seats}
        self.stack = dict(self.start)
        self.put_in = dict.fromkeys(self.start, 0)
        self.problems: list[MoneyProblem] = []

    def pay(self, seat: int, amount: int, ref: Located) -> None:
        if seat not in self.stack:
            self.problems.append(MoneyProblem(Check.CHIPS, f"seat {seat} is not in the hand", ref))
            return
        if amount < 0 or amount > self.stack[seat]:
            self.problems.append(
                MoneyProblem(
                    Check.CHIPS,
                    f"seat {seat} puts in {dollars(amount)} with "
                    f"{dollars(self.stack[seat])} behind",
                    ref,
                )
            )
        self.stack[seat] -= amount
        self.put_in[seat] += amount

    def refund(self, seat: int, amount: int, ref: Located) -> None:
        if amount < 0 or amount > self.put_in.get(seat, 0):
            self.problems.append(
                MoneyProblem(
                    Check.CHIPS,
                    f"seat {seat} gets {dollars(amount)} back but put in "
                    f"{dollars(self.put_in.get(seat, 0))}",
                    ref,
                )
            )
        self.stack[seat] = self.stack.get(seat, 0) + amount
        self.put_in[seat] = self.put_in.get(seat, 0) - amount


@dataclass(slots=True)
class _Hand:
    """What the arithmetic needs of one hand, gathered from its events."""

    started: HandStarted
    book: _Ledger
    folded: set[int] = field(default_factory=set)
    last_street: int = 0
    showdown: bool = False
    dead_money: bool = False
    carried_in: int = 0
    carried_over: int = 0
    rake: tuple[RakeTaken, Located] | None = None
    awards: list[tuple[PotAwarded, Located]] = field(default_factory=list)

    @property
    def plain_stud(self) -> bool:
        """Pacific stud with per-player antes: every chip in the pot is a bet, so the side
        pots follow from the contributions alone (dead money and riding pots do not)."""
        options = self.started.options
        return (
            self.started.variant == STUD_HI_LO
            and options.get("ante_mode", "per_player") == "per_player"
            and not self.dead_money
        )


def check_hand_money(started: HandStarted, events: Sequence[Located]) -> list[MoneyProblem]:
    """Check a hand's arithmetic; ``events`` follow ``HandStarted`` up to and including its
    ``HandEnded`` or ``HandVoided`` (a hand still in progress is checked as far as it went)."""
    hand = _Hand(started, _Ledger(started))
    book = hand.book
    for ref in events:
        event = ref.event
        if type(event) not in _MONEY_EVENTS:
            continue  # cards and other moves: most of a hand, nothing to count
        match event:
            case AntePosted() | CardPaymentPosted() | PotMatched():
                book.pay(event.seat, event.amount, ref)
                # A dealer's lone ante, card payments and matched pots are dead money.
                hand.dead_money |= not isinstance(event, AntePosted)
            case ActionTaken():
                book.pay(event.seat, event.amount, ref)
                if event.action == "fold":
                    hand.folded.add(event.seat)
            case MatchDeclined():
                hand.folded.add(event.seat)
            case UncalledBetReturned():
                book.refund(event.seat, event.amount, ref)
            case PotCarriedIn():
                hand.carried_in += event.amount
                hand.dead_money = True
            case PotCarriedOver():
                hand.carried_over += event.amount
            case BettingRoundStarted():
                hand.last_street = max(hand.last_street, event.street)
            case HandShown():
                hand.showdown = True
            case RakeTaken():
                hand.rake = (event, ref)
            case PotAwarded():
                hand.awards.append((event, ref))
                for seat, amount in event.shares:
                    book.stack[seat] = book.stack.get(seat, 0) + amount
            case HandEnded():
                _check_payout(hand, ref)
                _check_final(hand, event, ref)
            case HandVoided():
                _check_void(book, event, hand.rake, hand.awards, ref)
    return book.problems


def _check_payout(hand: _Hand, end: Located) -> None:
    book, started = hand.book, hand.started
    out = book.problems
    if hand.rake is None:
        out.append(MoneyProblem(Check.RAKE, "the hand ended without a RakeTaken record", end))
        return
    rake, rake_ref = hand.rake
    put_in = sum(book.put_in.values())
    awarded = sum(a.amount for a, _ in hand.awards)
    carried = hand.carried_over
    if awarded + rake.amount + carried != put_in + hand.carried_in:
        came = dollars(put_in) + (
            f" and {dollars(hand.carried_in)} rode in" if hand.carried_in else ""
        )
        went = f"{dollars(awarded)} was awarded, {dollars(rake.amount)} raked" + (
            f" and {dollars(carried)} rides on" if carried else ""
        )
        diff = awarded + rake.amount + carried - put_in - hand.carried_in
        out.append(
            MoneyProblem(
                Check.CHIPS,
                f"the players put in {came} but {went} ({'+' if diff > 0 else ''}{dollars(diff)})",
                end,
            )
        )
    # The rake is taken from the pots that are paid (not one that rides), once, on their total;
    # stud's first betting round is 3rd street, every other game's is round 1.
    paid = awarded + rake.amount
    first_round = 3 if started.variant == STUD_HI_LO else 1
    want = expected_rake(
        paid, started.options, len(started.seats), hand.last_street, first_round=first_round
    )
    if rake.amount != want:
        out.append(
            MoneyProblem(
                Check.RAKE,
                f"rake {dollars(rake.amount)} but the table's rule gives {dollars(want)} "
                f"on a pot of {dollars(paid)} "
                f"({len(started.seats)} players dealt, last betting round {hand.last_street})",
                rake_ref,
            )
        )
    if sum(rake.from_pots) != rake.amount:
        out.append(
            MoneyProblem(
                Check.RAKE,
                f"rake {dollars(rake.amount)} but its parts "
                f"{[dollars(c) for c in rake.from_pots]} add up to {dollars(sum(rake.from_pots))}",
                rake_ref,
            )
        )
    if hand.plain_stud:
        pots = side_pots(book.put_in, hand.folded)
        _check_pots(out, pots, rake, rake_ref, hand.awards, end)
    for award, ref in hand.awards:
        _check_shares(out, award, ref, hand.showdown)


def _check_pots(
    out: list[MoneyProblem],
    pots: list[tuple[int, frozenset[int]]],
    rake: RakeTaken,
    rake_ref: Located,
    awards: list[tuple[PotAwarded, Located]],
    end: Located,
) -> None:
    if len(pots) != len(awards) or len(rake.from_pots) != len(pots):
        out.append(
            MoneyProblem(
                Check.POTS,
                f"the contributions make {len(pots)} pot(s) but {len(awards)} were awarded "
                f"and the rake names {len(rake.from_pots)}",
                end,
            )
        )
        return
    left = rake.amount
    for k, ((amount, eligible), (award, ref), cut) in enumerate(
        zip(pots, awards, rake.from_pots, strict=True)
    ):
        main_first = min(amount, left)
        left -= main_first
        if cut != main_first:
            out.append(
                MoneyProblem(
                    Check.RAKE,
                    f"{dollars(cut)} of the rake taken from pot {k}; main pot first gives "
                    f"{dollars(main_first)}",
                    rake_ref,
                )
            )
        if award.pot != k or award.amount + cut != amount:
            out.append(
                MoneyProblem(
                    Check.POTS,
                    f"pot {k} holds {dollars(amount)} ({dollars(amount - cut)} after rake) but pot "
                    f"{award.pot} awarded {dollars(award.amount)}",
                    ref,
                )
            )
        if frozenset(award.eligible) != eligible:
            out.append(
                MoneyProblem(
                    Check.POTS,
                    f"pot {k} can be won by seats {sorted(eligible)}, the award says "
                    f"{sorted(award.eligible)}",
                    ref,
                )
            )


def _check_shares(out: list[MoneyProblem], award: PotAwarded, ref: Located, showdown: bool) -> None:
    shares = dict(award.shares)
    if sum(shares.values()) != award.amount:
        out.append(
            MoneyProblem(
                Check.POTS,
                f"pot {award.pot} of {dollars(award.amount)} paid out "
                f"{dollars(sum(shares.values()))}",
                ref,
            )
        )
    winners = set(award.high_winners) | set(award.low_winners)
    if not winners <= set(award.eligible) or not set(shares) <= winners:
        out.append(
            MoneyProblem(
                Check.POTS,
                f"pot {award.pot}: winners {sorted(winners)} or paid seats {sorted(shares)} are "
                f"not among the eligible {sorted(award.eligible)}",
                ref,
            )
        )
        return
    if not award.high_winners and not award.low_winners:
        out.append(MoneyProblem(Check.POTS, f"pot {award.pot} has no winner", ref))
        return
    if award.high_winners and award.low_winners:
        low_half = award.amount // 2  # the odd chip between the halves goes to high
    else:
        low_half = 0 if award.high_winners else award.amount
    high_half = award.amount - low_half
    bounds: dict[int, list[int]] = {}
    for half, seats in ((high_half, award.high_winners), (low_half, award.low_winners)):
        if not seats:
            continue
        each, odd = divmod(half, len(seats))
        for seat in seats:
            lo_hi = bounds.setdefault(seat, [0, 0])
            lo_hi[0] += each
            lo_hi[1] += each + (1 if odd else 0)
    for seat, (low, high) in sorted(bounds.items()):
        got = shares.get(seat, 0)
        if not low <= got <= high:
            out.append(
                MoneyProblem(
                    Check.POTS,
                    f"pot {award.pot}: seat {seat} got {dollars(got)}; its share of the split is "
                    f"{dollars(low)}" + (f"..{dollars(high)}" if high != low else ""),
                    ref,
                )
            )


def _amount(cents: int | None) -> str:
    return "nothing" if cents is None else dollars(cents)


def _by_seat(amounts: Mapping[int, int]) -> str:
    """``{1: 150}`` -> ``{seat 1: $1.50}`` (people read the violations)."""
    return "{" + ", ".join(f"seat {s}: {dollars(a)}" for s, a in sorted(amounts.items())) + "}"


def _check_final(hand: _Hand, ended: HandEnded, ref: Located) -> None:
    book = hand.book
    rake = hand.rake[0].amount if hand.rake else 0
    final = dict(ended.stacks)
    if final != book.stack:
        wrong = sorted(s for s in set(final) | set(book.stack) if final.get(s) != book.stack.get(s))
        detail = ", ".join(
            f"seat {s}: {_amount(final.get(s))} recorded, "
            f"{_amount(book.stack.get(s))} by arithmetic"
            for s in wrong
        )
        book.problems.append(MoneyProblem(Check.CHIPS, f"final stacks differ ({detail})", ref))
    before = sum(book.start.values()) + hand.carried_in
    after = sum(final.values()) + rake + hand.carried_over
    if after != before:
        book.problems.append(
            MoneyProblem(
                Check.CHIPS,
                f"chips not conserved: {dollars(before)} at the start (riding pot included), "
                f"{dollars(after)} at "
                "the end with the rake and any pot that rides on",
                ref,
            )
        )


def _check_void(
    book: _Ledger,
    voided: HandVoided,
    rake: tuple[RakeTaken, Located] | None,
    awards: list[tuple[PotAwarded, Located]],
    ref: Located,
) -> None:
    owed = {seat: amount for seat, amount in book.put_in.items() if amount}
    if dict(voided.refunds) != owed:
        book.problems.append(
            MoneyProblem(
                Check.CHIPS,
                f"voided hand refunds {_by_seat(dict(voided.refunds))} but the seats put in "
                f"{_by_seat(owed)}",
                ref,
            )
        )
    if (rake is not None and rake[0].amount) or awards:
        book.problems.append(MoneyProblem(Check.RAKE, "a voided hand took rake or paid a pot", ref))
