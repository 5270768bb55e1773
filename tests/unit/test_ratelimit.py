"""The token bucket and the concurrency cap, on a fake clock, against an independent oracle.

The oracle is the token bucket's definition, checked on the record of allowed calls alone:
over any stretch of time d, a bucket of N tokens refilled at r per second allows at most
``N + r * d`` calls. And a caller who waits exactly the delay it was told is then allowed, one
who waits a little less is not. A planted off-by-one bucket shows the oracle fails when it
should.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riverboat import ratelimit
from riverboat.ratelimit import ConcurrencyLimiter, Rate, RateLimiter, parse_rate

EPS = 1e-6  # float slack: the bucket forgives residues below 1e-9 of a token


def allowed_in_windows_ok(times: list[float], rate: Rate) -> bool:
    """The bucket's promise, from the allowed calls' times alone: any window [a, b] holds at
    most ``count + per_second * (b - a)`` of them."""
    times = sorted(times)
    for i, start in enumerate(times):
        for j in range(i, len(times)):
            if j - i + 1 > rate.count + rate.per_second * (times[j] - start) + EPS:
                return False
    return True


calls = st.lists(st.floats(min_value=0, max_value=30, allow_nan=False), max_size=60).map(sorted)


@given(calls, st.integers(1, 6), st.sampled_from([1.0, 2.0, 10.0]))
@settings(max_examples=200, deadline=None)
def test_no_window_allows_more_than_the_bucket_holds(times: list[float], n: int, p: float) -> None:
    rate = Rate(n, p)
    limiter = RateLimiter(rate)
    allowed = [t for t in times if limiter.take("k", t) == 0.0]
    assert allowed_in_windows_ok(allowed, rate)


@given(calls, st.integers(1, 6), st.sampled_from([1.0, 2.0, 10.0]))
@settings(max_examples=200, deadline=None)
def test_waiting_the_delay_given_is_exactly_enough(times: list[float], n: int, p: float) -> None:
    limiter = RateLimiter(Rate(n, p))
    for t in times:
        delay = limiter.take("k", t)
        if delay > 1e-6:  # (shorter waits are below the clock's float resolution)
            assert limiter.wait("k", t + delay * 0.99) > 0  # a little early: still refused
        if delay > 0:
            assert limiter.wait("k", t + delay) == 0.0  # on time: allowed


def test_a_burst_then_the_refill_rate() -> None:
    limiter = RateLimiter(parse_rate("3/min"))  # type: ignore[arg-type]
    assert [limiter.take("ann", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("ann", 0.0) == pytest.approx(20.0)  # one token per 20 s
    assert limiter.take("ann", 10.0) == pytest.approx(10.0)  # refused calls spend nothing
    assert limiter.take("bob", 10.0) == 0.0  # keys are independent
    assert limiter.take("ann", 20.0) == 0.0
    assert limiter.take("ann", 20.0) == pytest.approx(20.0)


def test_a_clock_stepping_back_mints_no_tokens() -> None:
    limiter = RateLimiter(Rate(1, 10.0))
    assert limiter.take("k", 100.0) == 0.0
    assert limiter.take("k", 50.0) > 0  # earlier than the last call: nothing refilled
    assert limiter.take("k", 100.0) > 0  # and back to 100: still nothing (no double count)
    assert limiter.take("k", 110.0) == 0.0


def test_memory_is_bounded_and_full_buckets_go_first() -> None:
    limiter = RateLimiter(Rate(2, 10.0), max_keys=3)
    limiter.take("busy", 0.0)
    limiter.take("busy", 0.0)  # empty now
    for k in range(10):
        limiter.take(f"k{k}", 100.0 + k)  # "busy" has refilled by then: dropping it is harmless
    assert len(limiter) <= 3
    limiter = RateLimiter(Rate(2, 10.0), max_keys=2)
    limiter.take("a", 0.0)
    limiter.take("a", 0.0)
    limiter.take("b", 0.0)
    limiter.take("c", 0.0)  # nothing is full: the least recently used ("a") goes
    assert len(limiter) == 2 and limiter.wait("c", 0.0) == 0.0


def test_the_oracle_catches_a_planted_off_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted bug: the bucket holds one token more than its rate says.
    original = RateLimiter._tokens

    def generous(self: RateLimiter, key: object, now: float) -> tuple[float, float]:
        tokens, stamp = original(self, key, now)
        return (tokens + 1.0 if key not in self._buckets else tokens), stamp

    monkeypatch.setattr(RateLimiter, "_tokens", generous)
    rate = Rate(2, 10.0)
    limiter = RateLimiter(rate)
    allowed = [t for t in (0.0, 0.0, 0.0) if limiter.take("k", t) == 0.0]
    assert not allowed_in_windows_ok(allowed, rate)


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("30/min", Rate(30, 60.0)),
        ("5/s", Rate(5, 1.0)),
        ("100 / h", Rate(100, 3600.0)),
        ("10/30s", Rate(10, 30.0)),
        ("2.5/sec", Rate(2.5, 1.0)),
        ("off", None),
        ("0", None),
    ],
)
def test_parse_rate(text: str, rate: Rate | None) -> None:
    assert parse_rate(text) == rate


@pytest.mark.parametrize("text", ["", "30", "30/fortnight", "-1/s", "0.5/s", "x/min", "1/0s"])
def test_parse_rate_refuses_nonsense(text: str) -> None:
    with pytest.raises(ValueError, match="rate"):
        parse_rate(text)


def test_rate_prints_as_written() -> None:
    assert [str(parse_rate(t)) for t in ("30/min", "5/s", "2/h", "10/30s")] == [
        "30/min",
        "5/s",
        "2/h",
        "10/30s",
    ]


def test_concurrency_cap() -> None:
    cap = ConcurrencyLimiter(2)
    assert cap.acquire("ann") and cap.acquire("ann")
    assert not cap.acquire("ann")  # a refusal takes nothing
    assert cap.acquire("bob")
    cap.release("ann")
    assert cap.held("ann") == 1 and cap.acquire("ann")
    for _ in range(5):
        cap.release("bob")  # never below zero
    assert cap.held("bob") == 0
    with pytest.raises(ValueError):
        ConcurrencyLimiter(0)


def test_the_module_is_pure() -> None:
    # The limiter reads no clock and does no I/O: the caller hands in the time.
    source = Path(ratelimit.__file__).read_text()
    for forbidden in ("import time", "import asyncio", "import grpc", "datetime", "import os"):
        assert forbidden not in source
