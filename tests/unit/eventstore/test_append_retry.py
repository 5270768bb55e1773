"""Appends retry transient JetStream failures, safely: a fake log with Nats-Msg-Id semantics."""

from __future__ import annotations

from dataclasses import dataclass, field

import nats.errors
import nats.js.errors
import pytest

from riverboat.eventstore import (
    AppendOutcomeUnknownError,
    ConcurrencyError,
    StoreUnavailableError,
)
from riverboat.eventstore.retry import transient_kind, with_retries
from riverboat.retrying import APPEND, Policy


@dataclass
class FakeClock:
    """Time that moves only when the code under test sleeps."""

    now: float = 0.0
    sleeps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@dataclass
class FakeLog:
    """A subject's records keyed by message id, as JetStream dedupes them.

    ``script`` says what each attempt meets: ``"no_responders"`` (refused, nothing stored),
    ``"lost_ack"`` (stored, but the answer never came), ``"timeout"`` (nothing stored, no
    answer), ``"ok"``.
    """

    script: list[str]
    records: list[str] = field(default_factory=list)
    attempts: int = 0

    async def append(self, msg_id: str) -> tuple[int, bool]:
        step = self.script[self.attempts] if self.attempts < len(self.script) else "ok"
        self.attempts += 1
        if step == "no_responders":
            raise nats.js.errors.NoStreamResponseError
        if step == "timeout":
            raise AppendOutcomeUnknownError("no answer")
        duplicate = msg_id in self.records
        if not duplicate:
            self.records.append(msg_id)
        if step == "lost_ack":
            raise AppendOutcomeUnknownError("connection lost before the ack")
        return self.records.index(msg_id) + 1, duplicate


async def test_a_leader_election_is_ridden_out_and_the_record_stored_once() -> None:
    log = FakeLog(["no_responders", "lost_ack", "timeout", "no_responders"])
    clock = FakeClock()
    kinds: list[str] = []
    version, duplicate = await with_retries(
        lambda: log.append("t1:r1"),
        Policy(0.05, 1.0, total=6.0),
        on_retry=kinds.append,
        sleep=clock.sleep,
        clock=clock,
    )
    # The lost ack's record is found on a later attempt (the same message id), not doubled.
    assert log.records == ["t1:r1"]
    assert (version, duplicate) == (1, True)
    assert kinds == ["no_responders", "outcome_unknown", "outcome_unknown", "no_responders"]
    assert clock.sleeps == [0.05, 0.1, 0.2, 0.4]  # doubling backoff


async def test_the_budget_ends_with_outcome_unknown_if_any_attempt_may_be_stored() -> None:
    log = FakeLog(["lost_ack"] + ["no_responders"] * 100)
    clock = FakeClock()
    with pytest.raises(AppendOutcomeUnknownError):
        await with_retries(
            lambda: log.append("t1:r1"),
            Policy(first=0.1, maximum=0.5, total=2.0),
            sleep=clock.sleep,
            clock=clock,
        )
    assert clock.now <= 2.0 and log.attempts > 3
    assert log.records == ["t1:r1"]


async def test_no_retry_budget_fails_at_once() -> None:
    log = FakeLog(["no_responders"])
    clock = FakeClock()
    with pytest.raises(nats.js.errors.NoStreamResponseError):
        await with_retries(
            lambda: log.append("t1:r1"),
            Policy(0.05, 1.0, total=0),
            sleep=clock.sleep,
            clock=clock,
        )
    assert log.attempts == 1 and clock.sleeps == []


async def test_a_conflict_is_not_retried() -> None:
    attempts = 0

    async def conflict() -> None:
        nonlocal attempts
        attempts += 1
        raise ConcurrencyError("t1", 1, 2)

    clock = FakeClock()
    with pytest.raises(ConcurrencyError):
        await with_retries(conflict, APPEND, sleep=clock.sleep, clock=clock)
    assert attempts == 1 and clock.sleeps == []


async def test_it_waits_for_the_reconnection_before_trying_again() -> None:
    clock = FakeClock()
    log = FakeLog(["no_responders"])

    def connected() -> bool:
        return clock.now >= 1.0  # reconnected to another node a second later

    seen_disconnected: list[bool] = []

    async def attempt() -> tuple[int, bool]:
        seen_disconnected.append(not connected())
        return await log.append("t1:r1")

    assert await with_retries(
        attempt,
        Policy(0.05, 1.0, total=6.0),
        connected=connected,
        sleep=clock.sleep,
        clock=clock,
    ) == (1, False)
    assert seen_disconnected == [True, False]  # the retry went out only once connected


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (nats.js.errors.NoStreamResponseError(), "no_responders"),
        (nats.errors.NoRespondersError(), "no_responders"),
        (nats.errors.TimeoutError(), "timeout"),
        (nats.js.errors.ServiceUnavailableError(code=503), "jetstream_unavailable"),
        (StoreUnavailableError("not connected"), "unavailable"),
        (AppendOutcomeUnknownError("?"), "outcome_unknown"),
        (nats.js.errors.NotFoundError(code=404), None),
        (nats.js.errors.APIError(code=400), None),
        (ConcurrencyError("t1", 1, 2), None),
        (ValueError("bad"), None),
    ],
)
def test_what_counts_as_transient(error: Exception, kind: str | None) -> None:
    assert transient_kind(error) == kind
