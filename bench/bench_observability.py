"""What observability costs per call: the RPC metrics in the error interceptor, and tracing.

A micro-benchmark in this process, no servers: the error interceptor's wrapper around a unary
handler that returns at once, awaited ``CALLS`` times, in two variants:

1. ``no metrics``: the wrapper with a recorder that records nothing (the interceptor's cost
   before metrics: the log-level check, the context variables, the timing);
2. ``metrics``: the wrapper with the real recorder (a counter and a histogram per call);

The row prints microseconds per call of each and the difference. Medians of ``ROUNDS``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import grpc

from riverboat.services.common.errors import ErrorInterceptor
from riverboat.services.common.metrics import RpcRecorder, rpc_recorder

CALLS = 20_000
ROUNDS = 5
METHOD = "/riverboat.v1.TableService/Act"


class _NoRecorder(RpcRecorder):
    def observe(self, code: grpc.StatusCode, seconds: float) -> None:
        return None


class _Context:
    """Just enough of a servicer context for the OK path."""

    def code(self) -> None:
        return None


class _Request:
    table_id = "t-1"


async def _handler(request: Any, context: Any) -> str:
    return "ok"


def _wrapped(recorder: RpcRecorder) -> Any:
    interceptor = ErrorInterceptor(context_fields=["table_id"], quiet_prefixes=(METHOD,))
    return interceptor._wrap_unary(_handler, METHOD, True, recorder, unary_request=True)


async def _per_call(behavior: Any) -> float:
    request, context = _Request(), _Context()
    started = time.perf_counter()
    for _ in range(CALLS):
        await behavior(request, context)
    return (time.perf_counter() - started) / CALLS * 1e6


def _measure(behavior: Any) -> float:
    async def rounds() -> list[float]:
        await _per_call(behavior)  # warm-up
        return [await _per_call(behavior) for _ in range(ROUNDS)]

    return statistics.median(asyncio.run(rounds()))


def run() -> None:
    bare = _measure(_wrapped(_NoRecorder(METHOD)))
    metered = _measure(_wrapped(rpc_recorder(METHOD)))
    print(f"error interceptor, no metrics : {bare:7.2f} us/call")
    print(f"error interceptor, metrics    : {metered:7.2f} us/call  (+{metered - bare:.2f} us)")
