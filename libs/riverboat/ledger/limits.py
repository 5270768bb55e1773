"""Responsible-gaming limits of one wallet (pure: the time is always passed in).

A player (or an operator for them) sets deposit and buy-in limits per rolling day (any 24
hours) and week (any 7 x 24 hours), and may exclude themself for a period. The limits are
events in the wallet's own log (:class:`LimitChanged`, :class:`SelfExcluded`), so the check and
the money move it guards are decided on one state, at one version: two deposits at once cannot
both slip under a limit.

A lower limit applies at once; a higher one (or removing one) only after a cooling-off delay,
as regulated rooms require: the moment a player wants to raise a limit is often the moment
they should not, so the change waits until the decision is no longer made in the heat of play.
Lowering again while a raise waits cancels the raise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

__all__ = [
    "KINDS",
    "WINDOWS",
    "Limit",
    "LimitChanged",
    "Limits",
    "SelfExcluded",
]

#: The limits there are, and the rolling window each counts over.
WINDOWS: dict[str, timedelta] = {
    "deposit_day": timedelta(days=1),
    "deposit_week": timedelta(days=7),
    "buy_in_day": timedelta(days=1),
    "buy_in_week": timedelta(days=7),
}
KINDS = tuple(WINDOWS)
_LONGEST = max(WINDOWS.values())


@dataclass(frozen=True, slots=True)
class LimitChanged:
    """A limit set to ``amount`` cents (0: none) from ``effective_at``; ``by`` asked."""

    kind: str
    amount: int
    effective_at: datetime
    by: str = ""


@dataclass(frozen=True, slots=True)
class SelfExcluded:
    """No deposits and no buy-ins before ``until``; ``by`` asked."""

    until: datetime
    by: str = ""


@dataclass(slots=True)
class Limit:
    """One limit: in force, and a higher one waiting for its cooling-off."""

    amount: int = 0
    pending: int | None = None
    pending_from: datetime | None = None

    def at(self, now: datetime) -> int:
        """The amount in force at ``now`` (0: none)."""
        if self.pending is not None and self.pending_from is not None and self.pending_from <= now:
            return self.pending
        return self.amount

    def settle(self, now: datetime) -> None:
        """Promote a pending change whose time has come."""
        if self.pending is not None and self.pending_from is not None and self.pending_from <= now:
            self.amount, self.pending, self.pending_from = self.pending, None, None


def stricter(new: int, current: int) -> bool:
    """Whether ``new`` is at most as generous as ``current`` (0 is no limit at all)."""
    if new == 0:
        return current == 0
    return current == 0 or new <= current


@dataclass(slots=True)
class Limits:
    """A wallet's limits and the money they count (the fold of its events)."""

    limits: dict[str, Limit] = field(default_factory=lambda: {k: Limit() for k in KINDS})
    excluded_until: datetime | None = None
    #: (when, amount) of each deposit within the longest window (older ones are dropped).
    deposits: list[tuple[datetime, int]] = field(default_factory=list)
    #: reference -> (when, amount) of each buy-in reserved and not given back.
    buy_ins: dict[str, tuple[datetime, int]] = field(default_factory=dict)

    # -- the fold ---------------------------------------------------------------------------

    def changed(self, event: LimitChanged, at: datetime) -> None:
        """Fold a :class:`LimitChanged` recorded at ``at``."""
        limit = self.limits.setdefault(event.kind, Limit())
        limit.settle(at)
        if event.effective_at <= at:
            limit.amount, limit.pending, limit.pending_from = event.amount, None, None
        else:
            limit.pending, limit.pending_from = event.amount, event.effective_at

    def excluded(self, event: SelfExcluded) -> None:
        """Fold a :class:`SelfExcluded`: the later end wins."""
        if self.excluded_until is None or event.until > self.excluded_until:
            self.excluded_until = event.until

    def deposited(self, amount: int, at: datetime) -> None:
        """Count a deposit."""
        self.deposits = [(t, a) for t, a in self.deposits if t > at - _LONGEST]
        self.deposits.append((at, amount))

    def reserved(self, reference: str, amount: int, at: datetime) -> None:
        """Count a buy-in."""
        horizon = at - _LONGEST
        self.buy_ins = {r: v for r, v in self.buy_ins.items() if v[0] > horizon}
        self.buy_ins[reference] = (at, amount)

    def released(self, reference: str) -> None:
        """A buy-in given back no longer counts."""
        self.buy_ins.pop(reference, None)

    # -- questions --------------------------------------------------------------------------

    def amount(self, kind: str, now: datetime) -> int:
        """The limit in force (0: none)."""
        return self.limits[kind].at(now)

    def used(self, kind: str, now: datetime) -> int:
        """What the limit's window holds at ``now``."""
        since = now - WINDOWS[kind]
        moves = self.deposits if kind.startswith("deposit") else list(self.buy_ins.values())
        return sum(a for t, a in moves if t > since)

    def remaining(self, kind: str, now: datetime) -> int | None:
        """What may still be moved under the limit now (None: no limit)."""
        limit = self.amount(kind, now)
        return None if limit == 0 else max(0, limit - self.used(kind, now))

    def is_excluded(self, now: datetime) -> bool:
        """Whether a self-exclusion is in force."""
        return self.excluded_until is not None and now < self.excluded_until

    def over(self, prefix: str, amount: int, now: datetime) -> tuple[str, int, int] | None:
        """The first limit of ``prefix`` ("deposit", "buy_in") that ``amount`` more would pass,
        as (kind, limit, used); None if it fits them all."""
        for kind in KINDS:
            if not kind.startswith(prefix):
                continue
            limit = self.amount(kind, now)
            used = self.used(kind, now)
            if limit and used + amount > limit:
                return kind, limit, used
        return None

    def change_for(
        self, kind: str, amount: int, now: datetime, cooling_off: timedelta
    ) -> datetime | None:
        """When setting ``kind`` to ``amount`` at ``now`` would apply: ``now`` for a stricter
        limit, after ``cooling_off`` for a more generous one; None if it changes nothing."""
        limit = self.limits[kind]
        current = limit.at(now)
        waiting = limit.pending if (limit.pending_from or now) > now else None
        if amount == current and waiting is None:
            return None
        if stricter(amount, current):
            return now
        if waiting == amount:
            return None  # that raise is already waiting
        return now + cooling_off
