"""Bot policies: given the legal actions (and what the bot can see), pick one.

Randomness lives here, outside the engine; a policy takes its own ``random.Random`` so runs
are reproducible from a seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from riverboat.engine.betting import LegalAction


class BotPolicy(Protocol):
    """Chooses one of ``legal`` and the street total to go to."""

    def choose(self, legal: Sequence[LegalAction]) -> tuple[str, int]: ...


class RandomBot:
    """Picks uniformly among legal actions, but folds rarely when it could check."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, legal: Sequence[LegalAction]) -> tuple[str, int]:
        names = {a.action for a in legal}
        options = [a for a in legal if not (a.action == "fold" and "check" in names)]
        pick = self.rng.choice(options)
        return pick.action, self.rng.choice(pick.to)


class CallingStation:
    """Checks or calls; brings in for the minimum; never folds, never raises."""

    def choose(self, legal: Sequence[LegalAction]) -> tuple[str, int]:
        by_name = {a.action: a for a in legal}
        for name in ("check", "call", "bring_in"):
            if name in by_name:
                return name, by_name[name].amount
        first = legal[0]
        return first.action, first.amount


class TightBot:
    """Mostly calls, sometimes raises, folds a fixed share of the time when facing a bet."""

    def __init__(self, rng: random.Random, fold_rate: float = 0.15, raise_rate: float = 0.2):
        self.rng = rng
        self.fold_rate = fold_rate
        self.raise_rate = raise_rate

    def choose(self, legal: Sequence[LegalAction]) -> tuple[str, int]:
        by_name = {a.action: a for a in legal}
        roll = self.rng.random()
        for name in ("raise", "bet", "complete"):
            if name in by_name and roll < self.raise_rate:
                return name, by_name[name].amount
        if "call" in by_name and roll > 1 - self.fold_rate:
            return "fold", by_name["fold"].amount
        for name in ("check", "call", "bring_in"):
            if name in by_name:
                return name, by_name[name].amount
        first = legal[0]
        return first.action, first.amount
