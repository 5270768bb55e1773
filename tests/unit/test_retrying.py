"""The room's one retry helper (riverboat.retrying) on a clock that moves only when it sleeps."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from riverboat import retrying
from riverboat.retrying import Policy, RepeatedFailure


@dataclass
class FakeClock:
    now: float = 0.0
    sleeps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Flaky:
    """Fails with ``error`` ``failures`` times, then answers ``"ok"``."""

    def __init__(self, failures: int, error: Exception | None = None) -> None:
        self.failures = failures
        self.error = error or ConnectionError("down")
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return "ok"


async def _call(step: Flaky, policy: Policy, clock: FakeClock, **kwargs: object) -> str:
    return await retrying.call(
        step,
        policy,
        transient=lambda exc: isinstance(exc, ConnectionError),
        sleep=clock.sleep,
        clock=clock,
        **kwargs,  # type: ignore[arg-type]
    )


async def test_pauses_double_up_to_the_cap() -> None:
    clock = FakeClock()
    told: list[tuple[str, float, int]] = []
    answer = await _call(
        Flaky(6),
        Policy(first=0.25, maximum=2.0),
        clock,
        on_retry=lambda exc, pause, n: told.append((str(exc), pause, n)),
    )
    assert answer == "ok"
    assert clock.sleeps == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert told[0] == ("down", 0.25, 1) and told[-1] == ("down", 2.0, 6)


async def test_a_failure_not_transient_is_raised_at_once() -> None:
    clock, step = FakeClock(), Flaky(1, ValueError("bad request"))
    with pytest.raises(ValueError, match="bad request"):
        await _call(step, Policy(first=0.1, maximum=1.0), clock)
    assert step.calls == 1 and clock.sleeps == []


async def test_a_cancellation_is_never_retried() -> None:
    clock, step = FakeClock(), Flaky(1, asyncio.CancelledError())  # type: ignore[arg-type]
    with pytest.raises(asyncio.CancelledError):
        await retrying.call(
            step, Policy(first=0.1, maximum=1.0), transient=lambda exc: True, sleep=clock.sleep
        )
    assert step.calls == 1


async def test_the_time_budget_ends_with_the_last_failure_and_no_pause_past_it() -> None:
    clock, step = FakeClock(), Flaky(100)
    with pytest.raises(ConnectionError):
        await _call(step, Policy(first=0.5, maximum=1.0, total=3.0), clock)
    assert clock.sleeps == [0.5, 1.0, 1.0] and clock.now <= 3.0
    # No budget: the first failure stands.
    clock, step = FakeClock(), Flaky(100)
    with pytest.raises(ConnectionError):
        await _call(step, Policy(first=0.5, maximum=1.0, total=0), clock)
    assert step.calls == 1


async def test_the_attempt_budget_counts_tries_in_all() -> None:
    clock, step = FakeClock(), Flaky(100)
    with pytest.raises(ConnectionError):
        await _call(step, Policy(first=0.1, maximum=0.1, attempts=3), clock)
    assert step.calls == 3 and len(clock.sleeps) == 2


async def test_a_pause_the_failure_asks_for_is_taken_instead() -> None:
    clock = FakeClock()
    await _call(Flaky(2), Policy(first=0.1, maximum=1.0), clock, after=lambda exc: 0.7)
    assert clock.sleeps == [0.7, 0.7]


def test_jitter_stays_within_its_bound_and_is_added_at_the_cap_too() -> None:
    policy = Policy(first=0.1, maximum=5.0, jitter=0.1)
    firsts = {policy.pause(1) for _ in range(50)}
    capped = {policy.pause(20) for _ in range(50)}
    assert all(0.1 <= p <= 0.2 for p in firsts) and len(firsts) > 1
    assert all(5.0 <= p <= 5.1 for p in capped) and len(capped) > 1


def test_a_policy_refuses_nonsense() -> None:
    for bad in (
        {"first": -1.0, "maximum": 1.0},
        {"first": 2.0, "maximum": 1.0},
        {"first": 0.1, "maximum": 1.0, "total": -1.0},
        {"first": 0.1, "maximum": 1.0, "attempts": 0},
        {"first": 0.1, "maximum": 1.0, "jitter": -0.1},
    ):
        with pytest.raises(ValueError):
            Policy(**bad)  # type: ignore[arg-type]


def test_a_repeated_failure_doubles_its_delay_and_reports_at_powers_of_two() -> None:
    run = RepeatedFailure(Policy(first=0.25, maximum=4.0))
    assert run.pending == 0.25
    retries = [run.failed("down") for _ in range(9)]
    assert [r.delay for r in retries] == [0.25, 0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0]
    assert [r.count for r in retries if r.report] == [1, 2, 4, 8]
    # Another reason is another run, reported at once.
    other = run.failed("refused")
    assert (other.count, other.report, other.delay) == (1, True, 0.25)
    assert run.succeeded() == 1
    assert run.succeeded() == 0
    with pytest.raises(ValueError):
        RepeatedFailure(Policy(first=0, maximum=1))
