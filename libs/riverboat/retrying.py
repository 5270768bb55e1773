"""Retrying: one library (tenacity) and every retry policy of the room, named, in one place.

A step that may fail for a while (a stream electing its leader, the dealer restarting, a table
changing hands) is retried by :func:`call` under a :class:`Policy`: how long the first pause is,
the cap it doubles up to, random jitter, and how many attempts or seconds it may take in all.
Which errors are worth retrying is the caller's (a ``transient`` predicate), since only it knows
its errors. The policies below are the room's; a module that retries names one of them rather
than keeping constants of its own.

Time is the caller's: :func:`call` takes the ``sleep`` and ``clock`` to use, so unit tests on a
manual clock never really wait. Retries scheduled on a timer rather than awaited in a loop (a
table's next step, its reconciliation) count their run of failures with
:class:`RepeatedFailure`, whose pauses come from the same policies.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import tenacity
from tenacity.stop import stop_base
from tenacity.wait import wait_base

__all__ = [
    "ADOPTION",
    "APPEND",
    "AUDIT_FETCH",
    "CATCH_UP",
    "DEALER_CALL",
    "HAND_STEP",
    "LEASE_BUCKET_JUST_MADE",
    "LEASE_JOIN",
    "LEASE_WATCH",
    "NO_OWNER",
    "OWNER_WATCH",
    "RECONCILE",
    "REDELIVERY",
    "REPLICA_LAG",
    "SEED_REVEAL",
    "STREAM_REOPEN",
    "STREAM_SETUP",
    "THROTTLED",
    "Policy",
    "RepeatedFailure",
    "Retry",
    "call",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Policy:
    """How one kind of step is retried.

    Attributes:
        first: the first pause, seconds; each next one doubles.
        maximum: the longest pause, seconds.
        total: seconds from the first failure after which the last error stands (a pause that
            would end past it is not taken; 0: never retry); None: no time limit.
        attempts: tries in all (1: never retry); None: no count limit.
        jitter: up to this many seconds added at random to each pause, so that many callers
            that failed together do not all try again together.
    """

    first: float
    maximum: float
    total: float | None = None
    attempts: int | None = None
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if self.first < 0 or self.maximum < self.first or self.jitter < 0:
            raise ValueError("a retry Policy needs 0 <= first <= maximum and jitter >= 0")
        if (self.total is not None and self.total < 0) or (
            self.attempts is not None and self.attempts < 1
        ):
            raise ValueError("a retry Policy needs total >= 0 and attempts >= 1")

    def wait(self) -> wait_base:
        """The pauses as tenacity's wait strategy."""
        pause: wait_base = tenacity.wait_exponential(multiplier=self.first, max=self.maximum)
        if self.jitter:
            pause = pause + tenacity.wait_random(0, self.jitter)
        return pause

    def pause(self, failures: int) -> float:
        """The pause after the ``failures``-th failure in a row (1: the first)."""
        state = tenacity.RetryCallState(None, None, (), {})  # type: ignore[arg-type]
        state.attempt_number = failures
        return float(self.wait()(state))


# --- the room's policies -------------------------------------------------------------------

#: An append through JetStream's transient failures (riverboat.eventstore.retry): a NATS leader
#: election takes 4 to 9 s (nats-server's raft election timeouts); measured here: 5 to 15 s
#: from a node's kill -9 to the next acknowledged append.
APPEND = Policy(first=0.05, maximum=1.0, total=12.0)
#: Creating or checking a stream at start-up (riverboat.eventstore.streams): a cluster still
#: forming, or electing the stream's leader.
STREAM_SETUP = Policy(first=0.1, maximum=2.0, total=30.0)
#: A read from a replica that trails the stream leader (riverboat.eventstore._direct): the same
#: page asked again at this fixed pace for this long.
REPLICA_LAG = Policy(first=0.02, maximum=0.02, total=2.0)
#: Opening a lease bucket another process has just made (riverboat.leases.jetstream).
LEASE_BUCKET_JUST_MADE = Policy(first=0.05, maximum=0.5, total=5.0)
#: A table-service instance joining the instance leases at start-up (table/owners.py).
LEASE_JOIN = Policy(first=0.1, maximum=1.0, total=30.0)
#: A call to the dealer while it restarts (table/dealer_client.py); its patience is the
#: client's, given per client (``DealerClient(patience=...)``).
DEALER_CALL = Policy(first=0.05, maximum=2.0, total=120.0)
#: Replaying a table just taken, for as long as it is still ours (table/adoption.py); the
#: jitter spreads the replays of a dead instance's tables.
ADOPTION = Policy(first=0.1, maximum=5.0, jitter=0.1)
#: Asking the dealer to reveal an ended hand's seed, until it does (table/runner.py).
SEED_REVEAL = Policy(first=0.5, maximum=30.0)
#: Reading the log again while it cannot be read (table/runner.py's reconcile).
RECONCILE = Policy(first=0.25, maximum=4.0)
#: A hand's next step (a deal, a commitment) that keeps failing the same way (table/runner.py).
HAND_STEP = Policy(first=0.25, maximum=60.0)
#: The auditor's fetch of a stream's records while JetStream answers 503 (a cluster node just
#: went or came back; riverboat.audit.natsread).
AUDIT_FETCH = Policy(first=0.1, maximum=3.2, attempts=7)
#: Settlement looking again whether its ledger has caught up with a table's log (a release
#: waits for it; settlement/projector.py); the budget is the caller's.
CATCH_UP = Policy(first=0.05, maximum=0.05)
#: Settlement's redelivery of a record its handler failed to apply (``nak`` with this pause,
#: by the delivery count; settlement/consumers.py).
REDELIVERY = Policy(first=0.5, maximum=30.0)
#: Reopening the lobby's watch of the table leases (lobby/owners.py): the bucket is not made
#: yet, or NATS is away.
OWNER_WATCH = Policy(first=2.0, maximum=2.0)
#: Reopening a table-service instance's watch of the leases (table/owners.py); a quarter of the
#: default lease TTL.
LEASE_WATCH = Policy(first=1.0, maximum=1.0)
#: Waiting out NO_OWNER (nobody owns the table: a hand-over) and a redirect's target that
#: redirects again (riverboat.routing). NO_OWNER's pause is its RetryInfo (riverboat.redirect's
#: default without one); ``first`` is the pause after a second redirect in a row (instances
#: disagree for a moment while a lease changes hands); ``total`` is the default budget of
#: waiting (a lease's default TTL, and some).
NO_OWNER = Policy(first=0.2, maximum=0.2, total=15.0)
#: Sending a throttled request again (RESOURCE_EXHAUSTED with RetryInfo, riverboat.client and
#: the streaming bots): the pause is the answer's RetryInfo; ``first`` is the shortest.
THROTTLED = Policy(first=0.01, maximum=0.01, attempts=21)
#: Reopening a bot's stream that the service ended (a restart, a hand-over): the pause is the
#: answer's RetryInfo (NO_OWNER), else ``first``.
STREAM_REOPEN = Policy(first=0.2, maximum=0.2)


# --- running a step ------------------------------------------------------------------------


class _Budget(stop_base):
    """Stop once ``policy.attempts`` were made, or the next pause would end past
    ``policy.total`` seconds after the first failure (on the caller's clock)."""

    def __init__(self, policy: Policy, clock: Callable[[], float]) -> None:
        self.policy = policy
        self.clock = clock
        self.deadline: float | None = None

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        policy = self.policy
        if policy.attempts is not None and retry_state.attempt_number >= policy.attempts:
            return True
        if policy.total is None:
            return False
        now = self.clock()
        if self.deadline is None:
            self.deadline = now + policy.total
        return now + retry_state.upcoming_sleep > self.deadline


def _failure(retry_state: tenacity.RetryCallState) -> BaseException:
    assert retry_state.outcome is not None
    exc = retry_state.outcome.exception()
    assert exc is not None
    return exc


async def call(
    attempt: Callable[[], Awaitable[T]],
    policy: Policy,
    *,
    transient: Callable[[BaseException], object],
    after: Callable[[BaseException], float | None] | None = None,
    on_retry: Callable[[BaseException, float, int], None] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Await ``attempt()`` until it succeeds, fails for good, or ``policy`` runs out.

    Args:
        attempt: the step (the same request each time: a retry must be safe to repeat).
        policy: the pauses and the budget.
        transient: whether a failure is worth retrying (truthy); any other is raised at once,
            as is anything not an :class:`Exception` (a cancellation).
        after: the pause a failure itself asks for (a RetryInfo), or None for the policy's.
            Pauses add up towards ``policy.total`` either way.
        on_retry: told of each retry before its pause: the failure, the pause, and how many
            attempts failed so far.
        sleep: how to wait (a manual clock's in tests).
        clock: the clock the policy's ``total`` is measured on.

    Raises:
        The last failure, once it is not transient or the budget is spent.
    """

    def retryable(retry_state: tenacity.RetryCallState) -> bool:
        assert retry_state.outcome is not None
        exc = retry_state.outcome.exception()  # None: it succeeded
        return isinstance(exc, Exception) and bool(transient(exc))

    wait = policy.wait()

    def pause(retry_state: tenacity.RetryCallState) -> float:
        asked = None if after is None else after(_failure(retry_state))
        return float(wait(retry_state)) if asked is None else asked

    def told(retry_state: tenacity.RetryCallState) -> None:
        if on_retry is not None:
            on_retry(_failure(retry_state), retry_state.upcoming_sleep, retry_state.attempt_number)

    retrying = tenacity.AsyncRetrying(
        retry=retryable,
        wait=pause,
        stop=_Budget(policy, clock),
        before_sleep=told,
        sleep=sleep,
        reraise=True,
    )

    async def run() -> T:
        # A coroutine function, so that tenacity awaits it (it does not await a plain
        # callable's result, such as a lambda's coroutine).
        return await attempt()

    return await retrying(run)


# --- retries on a timer --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Retry:
    """What to do after one failure: try again in ``delay`` seconds; ``report``: write it to
    the log now (its ``count``-th failure in a row)."""

    delay: float
    report: bool
    count: int


class RepeatedFailure:
    """One run of failures of a step retried on a timer, not in a loop (a table's next step).

    If the cause stays (a dealer that refuses the same request, a service that is down),
    retrying at a fixed pace floods the log with the same line several times a second,
    forever. This keeps the count of the run: the pause before the next try follows
    ``policy`` (doubling up to its cap), and the run is reported at its first failure, then
    only at the 2nd, 4th, 8th... failure in a row (with the count), and once when it ends. A
    failure with another reason starts a new run, reported at once.

    Pure: no clock, no logging. The caller waits the pauses and writes the lines.
    """

    def __init__(self, policy: Policy) -> None:
        if policy.first <= 0:
            raise ValueError("RepeatedFailure needs a policy with a first pause > 0")
        self.policy = policy
        self.reason = ""
        self.count = 0

    def failed(self, reason: str) -> Retry:
        """The step failed with ``reason``: when to try again, and whether to report it."""
        if self.count and reason == self.reason:
            self.count += 1
        else:
            self.reason, self.count = reason, 1
        # The 1st, 2nd, 4th, 8th...: a run that never ends costs a line per doubling.
        report = self.count & (self.count - 1) == 0
        return Retry(self.policy.pause(self.count), report, self.count)

    @property
    def pending(self) -> float:
        """The pause the next failure of this run would get (the first, if none failed)."""
        return self.policy.pause(self.count + 1)

    def succeeded(self) -> int:
        """The step went through: the run of failures (if any) is over. Returns how many
        failures it had (0: none), for one line saying it ended."""
        count, self.count, self.reason = self.count, 0, ""
        return count
