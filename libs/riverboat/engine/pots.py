"""Pots, rake and splitting: integer arithmetic only.

>>> build_pots([100, 300, 300, 50], [False, False, False, True])
[Pot(amount=350, eligible=(0, 1, 2)), Pot(amount=400, eligible=(1, 2))]
>>> round_half_even(25, 10)   # 2.5 -> 2
2
>>> round_half_even(35, 10)   # 3.5 -> 4
4
>>> take_rake([350, 400], 42)   # the main pot first
[42, 0]
>>> split_evenly(101, [4, 2])
{4: 51, 2: 50}
>>> # The dealer's $1 ante is dead money: it is not a level that makes a side pot.
>>> build_pots_with_dead([300, 200, 200], [100, 0, 0], [False, False, False])
[Pot(amount=700, eligible=(0, 1, 2))]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """A main or side pot: its chips and the players (indices) who can win it."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(committed: Sequence[int], folded: Sequence[bool]) -> list[Pot]:
    """Split the chips committed by each player into a main pot and side pots.

    Each distinct commitment level of a player still in the hand closes a pot; every player
    (folded or not) pays into a pot up to that level, and only players still in who reached
    the level can win it. Pots with the same eligible players are merged.
    """
    levels = sorted({c for c, f in zip(committed, folded, strict=True) if not f and c > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in committed)
        eligible = tuple(
            i
            for i, (c, f) in enumerate(zip(committed, folded, strict=True))
            if not f and c >= level
        )
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        elif amount:
            pots.append(Pot(amount, eligible))
        previous = level
    # Once uncalled bets are returned no folded player has more in than the top live level;
    # should that ever not hold, the chips still belong to the last pot rather than vanish.
    leftover = sum(committed) - sum(p.amount for p in pots)
    if leftover and pots:
        pots[-1] = Pot(pots[-1].amount + leftover, pots[-1].eligible)
    return pots


def build_pots_with_dead(
    committed: Sequence[int], dead: Sequence[int], folded: Sequence[bool], extra: int = 0
) -> list[Pot]:
    """Pots when some chips are dead money (a dealer-only ante, card payments, a matched pot,
    and ``extra``: a pot carried in from the previous deal).

    Dead money is no bet: it does not make an all-in level. It forms the main pot, open to
    every player still in; the bets (``committed`` less ``dead``) then make the pots above it
    by all-in level, merged into the main pot when the same players can win them.
    """
    bets = [c - d for c, d in zip(committed, dead, strict=True)]
    live = tuple(i for i, f in enumerate(folded) if not f)
    pots: list[Pot] = []
    dead_money = sum(dead) + extra
    if dead_money:
        pots.append(Pot(dead_money, live))
    for pot in build_pots(bets, folded):
        if pots and pots[-1].eligible == pot.eligible:
            pots[-1] = Pot(pots[-1].amount + pot.amount, pot.eligible)
        else:
            pots.append(pot)
    # Bets with no live level to sit on (only possible when everyone still in bet nothing)
    # belong to the last pot, or to a pot of their own for the players still in.
    leftover = sum(committed) + extra - sum(p.amount for p in pots)
    if leftover:
        if pots:
            pots[-1] = Pot(pots[-1].amount + leftover, pots[-1].eligible)
        else:
            pots.append(Pot(leftover, live))
    return pots


def round_half_even(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded to the nearest integer, ties to even (banker's)."""
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient % 2 == 1):
        quotient += 1
    return quotient


def rake_amount(total_pot: int, basis_points: int, cap: int | None) -> int:
    """The rake on ``total_pot``: a percentage in basis points, rounded half to even, capped."""
    rake = round_half_even(total_pot * basis_points, 10_000)
    return rake if cap is None else min(rake, cap)


def take_rake(pot_amounts: Sequence[int], rake: int) -> list[int]:
    """How much of ``rake`` comes from each pot: the main pot first, then side pots in order."""
    taken: list[int] = []
    left = rake
    for amount in pot_amounts:
        part = min(amount, left)
        taken.append(part)
        left -= part
    if left:
        raise ValueError("rake exceeds the pot")
    return taken


def split_evenly(amount: int, winners_in_odd_chip_order: Sequence[int]) -> dict[int, int]:
    """Divide ``amount`` among winners; odd chips go one each to the first winners in order."""
    count = len(winners_in_odd_chip_order)
    share, odd = divmod(amount, count)
    return {w: share + (1 if k < odd else 0) for k, w in enumerate(winners_in_odd_chip_order)}
