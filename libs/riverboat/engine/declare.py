"""High/low declarations (Buderick's coins) and who wins a pot by them.

Each player still in declares one way: ``low`` (1 coin), ``high`` (2 coins) or ``both``
(3 coins, "PIG"). Chicago's low way is the high spade in the hole (``spade``). A player's claim
carries a *high key* (higher is better) and a *low key* (lower is better), or None when the
hand cannot win that way at all.

The house rules (docs/games.md, "Declarations"):

- A PIG must win both ways outright: any tie or loss and the PIG gets nothing.
- All failing PIGs are removed first; each half then goes to the best remaining declarer that
  way; if one way has no remaining declarer, the other way's winner takes the whole pot
  (``pig_failure="reassign"``). Buderick's own wording, "a loser can never share in a pot",
  is ``pig_failure="losers_never_share"``: a way that a failing PIG won (or shared only with
  other failing PIGs) pays nobody, since everyone else lost it.
- The pot rides when no eligible declarer remains, or in the seed's case of two PIGs: PIGs
  alone hold the best high and the best low and all of them fail (``pig_ride="two_pigs"``).
  ``pig_ride="any_pig_tie"`` also rides whenever a PIG wins one way outright and ties the
  other; ``pig_ride="no_winner_only"`` rides only when nobody is left to pay.
- If everyone declares the same way there is one winner that way (ties split).

>>> claims = [Claim(0, "both", 90, 5), Claim(1, "low", None, 5), Claim(2, "high", 80, None)]
>>> resolve(claims)   # the PIG ties low: removed; high to player 2, low to player 1
Outcome(high=(2,), low=(1,), rides=False, failed=(0,))
>>> resolve(claims, failure="losers_never_share")   # player 2 lost high to the PIG
Outcome(high=(), low=(1,), rides=False, failed=(0,))
>>> resolve([Claim(0, "both", 90, 7), Claim(1, "both", 80, 5)])   # two PIGs split the ways
Outcome(high=(), low=(), rides=True, failed=(0, 1))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

LOW: Final = "low"
HIGH: Final = "high"
BOTH: Final = "both"
SPADE: Final = "spade"

#: Declarations by coins: 1 = the low way (low, or Chicago's spade), 2 = high, 3 = both.
COINS: Final = {1: LOW, 2: HIGH, 3: BOTH}

PIG_FAILURE: Final = ("reassign", "losers_never_share")
PIG_RIDE: Final = ("two_pigs", "any_pig_tie", "no_winner_only")


@dataclass(frozen=True, slots=True)
class Claim:
    """One player's declaration (``way`` is low, high or both) and the keys of their hand."""

    player: int
    way: str
    high: int | None
    low: int | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """Who wins the high half and the low half; a way with no winner gives its half to the
    other way; ``rides`` means nobody is paid and the pot rides to the next deal."""

    high: tuple[int, ...]
    low: tuple[int, ...]
    rides: bool
    failed: tuple[int, ...]


def _best(
    claims: Sequence[Claim], key: Callable[[Claim], int | None], *, higher: bool
) -> frozenset[int]:
    keyed = [(k, c.player) for c in claims if (k := key(c)) is not None]
    if not keyed:
        return frozenset()
    best = max(k for k, _ in keyed) if higher else min(k for k, _ in keyed)
    return frozenset(p for k, p in keyed if k == best)


def resolve(
    claims: Sequence[Claim], *, failure: str = "reassign", ride: str = "two_pigs"
) -> Outcome:
    """Who wins a pot among ``claims`` (the players eligible for it), under the PIG rules."""
    highs = [c for c in claims if c.way in (HIGH, BOTH)]
    lows = [c for c in claims if c.way in (LOW, BOTH)]
    top_h = _best(highs, lambda c: c.high, higher=True)
    top_l = _best(lows, lambda c: c.low, higher=False)
    pigs = {c.player for c in claims if c.way == BOTH}
    for pig in sorted(pigs):
        if top_h == {pig} and top_l == {pig}:
            # Won both ways outright: the whole pot (any other PIG has lost).
            return Outcome((pig,), (pig,), False, tuple(sorted(pigs - {pig})))
    failed = frozenset(pigs)
    failed_t = tuple(sorted(failed))
    if ride != "no_winner_only" and top_h and top_l and top_h <= failed and top_l <= failed:
        return Outcome((), (), True, failed_t)
    if ride == "any_pig_tie":
        for pig in failed:
            if (top_h == {pig} and pig in top_l) or (top_l == {pig} and pig in top_h):
                return Outcome((), (), True, failed_t)
    if failure == "losers_never_share":
        win_h = frozenset() if top_h and top_h <= failed else top_h - failed
        win_l = frozenset() if top_l and top_l <= failed else top_l - failed
    else:
        win_h = _best([c for c in highs if c.player not in failed], lambda c: c.high, higher=True)
        win_l = _best([c for c in lows if c.player not in failed], lambda c: c.low, higher=False)
    if not win_h and not win_l:
        return Outcome((), (), True, failed_t)
    return Outcome(tuple(sorted(win_h)), tuple(sorted(win_l)), False, failed_t)
