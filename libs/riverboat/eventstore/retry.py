"""Retrying appends through JetStream's transient failures (a stream leader election, a node lost).

While a NATS cluster elects a new leader for a stream (seconds, after the leader's node dies)
requests to the stream find no responder or time out, and a client whose server died is
reconnecting to another. An append that failed that way is retried with backoff, with the same
``Nats-Msg-Id`` and request id: if an earlier attempt was stored after all, the server drops the
repeat inside its duplicate window, and :class:`~riverboat.eventstore.JetStreamEventStore`
finds the request id in the aggregate's history beyond it, so a retry never records twice.

:func:`with_retries` is the loop, over an ``attempt`` callable; :class:`AppendRetry` the budget.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import nats.errors
import nats.js.errors

from riverboat.eventstore.errors import AppendOutcomeUnknownError, StoreUnavailableError

__all__ = ["AppendRetry", "transient_kind", "with_retries"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class AppendRetry:
    """How long an append keeps retrying transient failures.

    Attributes:
        total: seconds from the first failure after which the last error is raised (0: never
            retry). A NATS leader election takes 4 to 9 seconds (nats-server's raft election
            timeouts); measured here: 5 to 15 s from kill -9 to the next acknowledged append.
        initial: the first pause, seconds; each next one doubles.
        maximum: the longest pause, seconds.
    """

    total: float = 12.0
    initial: float = 0.05
    maximum: float = 1.0

    def __post_init__(self) -> None:
        if self.total < 0 or self.initial <= 0 or self.maximum < self.initial:
            raise ValueError("AppendRetry needs total >= 0 and 0 < initial <= maximum")


def transient_kind(exc: BaseException) -> str | None:
    """A short name for a failure worth retrying (``no_responders``, ``timeout``, ...), or None.

    Transient: nothing answered (no stream leader yet), no answer in time, an outcome unknown
    because the connection was lost, not connected, or JetStream said it is temporarily
    unavailable (503). Anything else (a conflict, a bad stream) is the caller's to see at once.
    """
    if isinstance(exc, AppendOutcomeUnknownError):
        return "outcome_unknown"
    if isinstance(exc, StoreUnavailableError):
        return "unavailable"
    if isinstance(exc, nats.js.errors.NoStreamResponseError | nats.errors.NoRespondersError):
        return "no_responders"
    if isinstance(exc, nats.js.errors.ServiceUnavailableError):
        return "jetstream_unavailable"
    if isinstance(exc, nats.js.errors.APIError):
        return None
    if isinstance(exc, nats.errors.TimeoutError | asyncio.TimeoutError):
        return "timeout"
    if isinstance(exc, nats.errors.ConnectionClosedError | nats.errors.ConnectionReconnectingError):
        return "disconnected"
    return None


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: AppendRetry,
    *,
    connected: Callable[[], bool] = lambda: True,
    on_retry: Callable[[str], None] | None = None,
    classify: Callable[[BaseException], str | None] = transient_kind,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Run ``attempt`` until it succeeds, fails for good, or ``policy.total`` runs out.

    Between attempts it pauses (doubling from ``policy.initial`` to ``policy.maximum``) and, if
    the client is not ``connected``, keeps pausing until it is (nats-py reconnects on its own).
    Only failures ``classify`` names (by default :func:`transient_kind`) are retried;
    ``on_retry(kind)`` is told of each retry.

    If any attempt may have been stored (:class:`AppendOutcomeUnknownError`) and the budget
    runs out, that error is raised rather than a later "not sent", so the caller knows to retry
    with the same request id.
    """
    deadline: float | None = None
    delay = policy.initial
    maybe_sent: AppendOutcomeUnknownError | None = None
    while True:
        try:
            return await attempt()
        except Exception as exc:
            kind = classify(exc)
            if kind is None:
                raise
            if isinstance(exc, AppendOutcomeUnknownError):
                maybe_sent = exc
            now = clock()
            if deadline is None:
                deadline = now + policy.total
            if now + delay > deadline:
                if maybe_sent is not None and maybe_sent is not exc:
                    raise maybe_sent from exc
                raise
            if on_retry is not None:
                on_retry(kind)
            await sleep(delay)
            delay = min(delay * 2, policy.maximum)
            while not connected() and clock() + delay <= deadline:
                await sleep(delay)
