"""Retrying appends through JetStream's transient failures (a stream leader election, a node lost).

While a NATS cluster elects a new leader for a stream (seconds, after the leader's node dies)
requests to the stream find no responder or time out, and a client whose server died is
reconnecting to another. An append that failed that way is retried with backoff
(:data:`riverboat.retrying.APPEND`), with the same ``Nats-Msg-Id`` and request id: if an
earlier attempt was stored after all, the server drops the repeat inside its duplicate window,
and :class:`~riverboat.eventstore.JetStreamEventStore` finds the request id in the aggregate's
history beyond it, so a retry never records twice.

:func:`transient_kind` says which failures are worth retrying; :func:`with_retries` runs an
append under a :class:`~riverboat.retrying.Policy`, waiting for the reconnection between tries.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import nats.errors
import nats.js.errors

from riverboat import retrying
from riverboat.eventstore.errors import AppendOutcomeUnknownError, StoreUnavailableError

__all__ = ["transient_kind", "with_retries"]

T = TypeVar("T")


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
    policy: retrying.Policy = retrying.APPEND,
    *,
    connected: Callable[[], bool] = lambda: True,
    on_retry: Callable[[str], None] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Run the append ``attempt`` under ``policy`` (:func:`riverboat.retrying.call`).

    Only failures :func:`transient_kind` names are retried; ``on_retry(kind)`` is told of
    each. After each pause, if the client is not ``connected``, it keeps pausing until it is
    (nats-py reconnects on its own) or the budget is spent.

    If any attempt may have been stored (:class:`AppendOutcomeUnknownError`) and the budget
    runs out, that error is raised rather than a later "not sent", so the caller knows to retry
    with the same request id.
    """
    maybe_sent: list[AppendOutcomeUnknownError] = []
    deadline: list[float] = []

    def retried(exc: BaseException, pause: float, failures: int) -> None:
        if failures == 1 and policy.total is not None:
            deadline.append(clock() + policy.total)
        if isinstance(exc, AppendOutcomeUnknownError):
            maybe_sent.append(exc)
        if on_retry is not None:
            on_retry(transient_kind(exc) or "")

    async def pause(seconds: float) -> None:
        await sleep(seconds)
        while not connected() and (not deadline or clock() + seconds <= deadline[0]):
            await sleep(seconds)

    try:
        return await retrying.call(
            attempt, policy, transient=transient_kind, on_retry=retried, sleep=pause, clock=clock
        )
    except AppendOutcomeUnknownError:
        raise
    except Exception as exc:
        if maybe_sent and transient_kind(exc) is not None:
            raise maybe_sent[-1] from exc
        raise
