"""Token buckets and concurrency caps, keyed by caller: pure, with the clock passed in.

A :class:`Rate` ``N/period`` is a bucket of ``N`` tokens refilled at ``N`` per ``period``: a
caller may burst ``N`` calls, then one every ``period / N`` seconds. :class:`RateLimiter` keeps
one bucket per key (an account, a peer address) and answers each :meth:`RateLimiter.take` with
the seconds to wait before the call would be allowed (``0.0``: allowed, and a token is spent).
:class:`ConcurrencyLimiter` counts what a key holds open at once (streams) against a cap.

Nothing here does I/O or reads a clock: the caller hands in ``now`` (monotonic seconds), so
the unit tests drive them with a fake clock and the services with ``time.monotonic``.
Memory is bounded: at most ``max_keys`` buckets are kept; full buckets (indistinguishable from
absent ones) are dropped first, then the least recently used.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

__all__ = ["ConcurrencyLimiter", "Rate", "RateLimiter", "parse_rate"]

_PERIODS = {"s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "hour": 3600.0}
_RATE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*")
OFF = ("off", "none", "0")
#: Tokens this close to a whole one count as one: refill arithmetic leaves float residue
#: (0.9999999999999999), which must not refuse a caller who waited exactly as told.
_WHOLE = 1.0 - 1e-9


@dataclass(frozen=True, slots=True)
class Rate:
    """``count`` calls per ``period`` seconds, bursting up to ``count``."""

    count: float
    period: float

    def __post_init__(self) -> None:
        if not (self.count >= 1 and math.isfinite(self.count)):
            raise ValueError("a rate allows at least 1 call")
        if not (self.period > 0 and math.isfinite(self.period)):
            raise ValueError("a rate's period is a positive number of seconds")

    @property
    def per_second(self) -> float:
        """Sustained calls per second."""
        return self.count / self.period

    def __str__(self) -> str:
        for unit, seconds in (("h", 3600.0), ("min", 60.0), ("s", 1.0)):
            if self.period == seconds:
                return f"{self.count:g}/{unit}"
        return f"{self.count:g}/{self.period:g}s"


def parse_rate(text: str) -> Rate | None:
    """``"30/min"``, ``"5/s"``, ``"100/h"``, ``"10/30s"`` -> :class:`Rate`; ``"off"`` -> None.

    Raises:
        ValueError: the text is neither a rate nor ``off``.
    """
    if text.strip().lower() in OFF:
        return None
    match = _RATE.fullmatch(text.lower())
    if match is None or match.group(3) not in _PERIODS:
        raise ValueError(f"{text!r} is not a rate like 30/min, 5/s, 100/h or off")
    count, multiple, unit = match.groups()
    return Rate(float(count), float(multiple or 1) * _PERIODS[unit])


class RateLimiter:
    """One token bucket per key, all with the same :class:`Rate`.

    Args:
        rate: the bucket size and refill rate.
        max_keys: most buckets kept at once (memory bound against callers inventing keys).
    """

    def __init__(self, rate: Rate, *, max_keys: int = 100_000) -> None:
        if max_keys < 1:
            raise ValueError("max_keys must be at least 1")
        self.rate = rate
        self._max_keys = max_keys
        # key -> (tokens, when they were counted); oldest use first.
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def wait(self, key: Hashable, now: float) -> float:
        """Seconds until ``key`` may make a call (``0.0``: now); spends nothing."""
        tokens, _ = self._tokens(key, now)
        return 0.0 if tokens >= _WHOLE else (1.0 - tokens) / self.rate.per_second

    def take(self, key: Hashable, now: float) -> float:
        """Spend one of ``key``'s tokens at time ``now``.

        Returns:
            ``0.0`` when the call is allowed (a token was spent), else the seconds until one
            token will be there (nothing is spent: a refused call costs the caller nothing).
        """
        tokens, stamp = self._tokens(key, now)
        if tokens >= _WHOLE:
            self._store(key, max(0.0, tokens - 1.0), stamp)
            return 0.0
        self._store(key, tokens, stamp)
        return (1.0 - tokens) / self.rate.per_second

    def _tokens(self, key: Hashable, now: float) -> tuple[float, float]:
        """``key``'s tokens at ``now`` and the time they are counted at."""
        capacity = self.rate.count
        tokens, then = self._buckets.get(key, (capacity, now))
        # A clock that steps back (it should not: monotonic) must not mint tokens.
        stamp = max(now, then)
        return min(capacity, tokens + (stamp - then) * self.rate.per_second), stamp

    def _store(self, key: Hashable, tokens: float, now: float) -> None:
        self._buckets[key] = (tokens, now)
        self._buckets.move_to_end(key)
        if len(self._buckets) > self._max_keys:
            self._evict(now)

    def _evict(self, now: float) -> None:
        capacity, refill = self.rate.count, self.rate.per_second
        full = [
            key
            for key, (tokens, then) in self._buckets.items()
            if tokens + (now - then) * refill >= capacity
        ]
        for key in full:
            del self._buckets[key]
        while len(self._buckets) > self._max_keys:
            self._buckets.popitem(last=False)


class ConcurrencyLimiter:
    """How many things each key holds open at once, against one cap.

    Args:
        limit: the most a key may hold at once (at least 1).
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a concurrency limit is at least 1")
        self.limit = limit
        self._held: dict[Hashable, int] = {}

    def held(self, key: Hashable) -> int:
        """What ``key`` holds now."""
        return self._held.get(key, 0)

    def acquire(self, key: Hashable) -> bool:
        """Take one for ``key``; False (and nothing taken) if it holds ``limit`` already."""
        count = self._held.get(key, 0)
        if count >= self.limit:
            return False
        self._held[key] = count + 1
        return True

    def release(self, key: Hashable) -> None:
        """Give one back (an unknown key is ignored: releasing never goes below zero)."""
        count = self._held.get(key, 0)
        if count <= 1:
            self._held.pop(key, None)
        else:
            self._held[key] = count - 1
