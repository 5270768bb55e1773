"""What observability costs per call: the RPC metrics in the error interceptor, and tracing.

A micro-benchmark in this process, no servers: the error interceptor's wrapper around a unary
handler that returns at once, awaited ``CALLS`` times, in three variants:

1. ``no metrics``: the wrapper with a recorder that records nothing (the interceptor's cost
   before metrics: the log-level check, the context variables, the timing);
2. ``metrics``: the wrapper with the real recorder (a counter and a histogram per call);
3. ``metrics + tracing``: (2) inside the tracing server interceptor, with the SDK's tracer
   provider and an exporter that drops every span (the cost of making spans, not of sending
   them).

Tracing off installs no interceptor at all, so (2) is also the call's cost with tracing off;
what off leaves per consumed record (settlement) is one call returning a shared null context,
timed on its own. The rows print microseconds per call and the differences. Medians of
``ROUNDS``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence
from typing import Any

import grpc
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from riverboat.services.common import tracing
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

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),)

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
    traced = _traced_cost()
    print(
        f"metrics + tracing (spans dropped): {traced:7.2f} us/call  "
        f"(+{traced - metered:.2f} us over tracing off)"
    )
    print(f"tracing off, per consumed record: {_consumed_off():.3f} us")


class _Dropping(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def _traced_cost() -> float:
    tracing.configure_tracing("console", "bench", exporter=_Dropping())
    try:
        interceptor = tracing.server_interceptors()[0]
        assert isinstance(interceptor, tracing._ServerTracing)
        return _measure(interceptor._unary(_wrapped(rpc_recorder(METHOD)), METHOD))
    finally:
        tracing.disable_tracing()


def _consumed_off() -> float:
    headers = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
    started = time.perf_counter()
    for _ in range(CALLS):
        with tracing.consumed("apply", headers):
            pass
    return (time.perf_counter() - started) / CALLS * 1e6
