"""OpenTelemetry tracing of the services, off by default.

``--otel EXPORTER`` (env ``RIVERBOAT_OTEL_EXPORTER``) turns it on: ``console`` prints each span
as one JSON line on standard output; ``http://HOST:PORT`` (or ``https://``) sends them to an
OTLP/gRPC collector. With tracing on:

* every gRPC server span (one per call, named ``package.Service/Method``) continues the
  caller's trace from the W3C ``traceparent`` in the call's metadata (the interceptor
  :class:`~riverboat.services.common.grpcserver.GrpcServer` puts first);
* the services' own gRPC clients (the table's dealer client, the lobby's table and settlement
  channels) send the current trace in ``traceparent`` (:func:`client_interceptors`);
* each event-store append carries ``traceparent`` in its NATS headers (through the store's
  observer port), and settlement's consumers continue that trace when they apply the record
  (:func:`consumed`).

So an Act's trace holds the table's span, the dealer calls it causes (a reveal, the next deal)
and settlement's application of its records.

Off, nothing is installed: no interceptor, no header, one ``if`` per consumed record. The SDK is
not even imported.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import grpc
import grpc.aio

from riverboat.services.common import metrics
from riverboat.services.common.wrappers import WrapperCache

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Tracer

__all__ = [
    "ENV_OTEL_EXPORTER",
    "add_tracing_arguments",
    "client_interceptors",
    "configure_tracing",
    "consumed",
    "enabled",
    "server_interceptors",
    "start_tracing",
]

ENV_OTEL_EXPORTER: Final = "RIVERBOAT_OTEL_EXPORTER"

_tracer: Tracer | None = None
_provider: TracerProvider | None = None
_OFF: Final = contextlib.nullcontext()


def enabled() -> bool:
    """Whether tracing is on in this process."""
    return _tracer is not None


def add_tracing_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--otel EXPORTER`` (env ``RIVERBOAT_OTEL_EXPORTER``; empty: off)."""
    parser.add_argument(
        "--otel",
        metavar="EXPORTER",
        help="trace with OpenTelemetry: 'console' (spans as JSON lines on stdout) or an OTLP/gRPC "
        f"collector's http://HOST:PORT (env {ENV_OTEL_EXPORTER}; default: off)",
    )


def start_tracing(args: argparse.Namespace, service: str, prog: str) -> None:
    """A service's start-up step: turn tracing on if ``--otel`` or the environment asks.

    Raises:
        SystemExit: the exporter is not one this module knows.
    """
    flag = getattr(args, "otel", None)
    spec = (flag if flag is not None else os.environ.get(ENV_OTEL_EXPORTER, "")).strip()
    if not spec:
        return
    try:
        configure_tracing(spec, service)
    except ValueError as exc:
        raise SystemExit(f"{prog}: --otel {spec}: {exc}") from None


def configure_tracing(
    spec: str, service: str, *, exporter: SpanExporter | None = None
) -> TracerProvider:
    """Turn tracing on for this process (``spec``: ``console`` or an OTLP URL).

    ``exporter`` replaces the one ``spec`` names and is called synchronously (tests pass an
    in-memory exporter). Returns the provider (``shutdown()`` flushes it).

    Raises:
        ValueError: ``spec`` is neither ``console`` nor an ``http(s)://`` URL.
    """
    global _tracer, _provider
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
    )

    processor: SpanProcessor
    if exporter is not None:
        processor = SimpleSpanProcessor(exporter)
    elif spec == "console":
        # One line per span, written as it ends: the console is for a developer watching.
        processor = SimpleSpanProcessor(
            ConsoleSpanExporter(
                out=sys.stdout, formatter=lambda span: span.to_json(indent=None) + "\n"
            )
        )
    elif spec.startswith(("http://", "https://")):
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        processor = BatchSpanProcessor(
            OTLPSpanExporter(endpoint=spec, insecure=spec.startswith("http://"))
        )
    else:
        raise ValueError("the exporter is 'console' or an OTLP collector's http(s)://HOST:PORT")
    provider = TracerProvider(resource=Resource.create({"service.name": f"riverboat-{service}"}))
    provider.add_span_processor(processor)
    if _provider is None:
        trace.set_tracer_provider(provider)  # once per process: later calls are tests'
    _provider = provider
    _tracer = provider.get_tracer("riverboat")
    metrics.set_append_headers(_trace_headers)
    return provider


def disable_tracing() -> None:
    """Turn tracing off again (for tests that turned it on in their process)."""
    global _tracer
    _tracer = None
    metrics.set_append_headers(None)


def _trace_headers() -> Mapping[str, str] | None:
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier or None


# -- consumers ----------------------------------------------------------------------------------


def consumed(
    name: str, headers: Mapping[str, str] | None
) -> contextlib.AbstractContextManager[Any]:
    """A span around handling one consumed message, in the trace its headers carry (a no-op
    context when tracing is off)."""
    if _tracer is None:
        return _OFF
    from opentelemetry import propagate
    from opentelemetry.trace import SpanKind

    parent = propagate.extract(dict(headers or {}))
    return _tracer.start_as_current_span(name, context=parent, kind=SpanKind.CONSUMER)


# -- gRPC ---------------------------------------------------------------------------------------


def server_interceptors() -> list[grpc.aio.ServerInterceptor]:  # type: ignore[type-arg]
    """The tracing server interceptor when tracing is on, else none."""
    return [_ServerTracing(_tracer)] if _tracer is not None else []


def client_interceptors() -> list[Any]:  # grpc's stubs type the channel's list oddly
    """Interceptors for the services' own channels: send the trace along (none when off)."""
    return [_ClientTracing(_tracer)] if _tracer is not None else []


def _split(method: str) -> tuple[str, str]:
    service, _, name = method.lstrip("/").rpartition("/")
    return service, name


# Probes and tools, not the room's work: a Kubernetes probe every few seconds is no trace.
_UNTRACED: Final = ("/grpc.health.", "/grpc.reflection.")


class _ServerTracing(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """One SERVER span per call, continuing the trace in the call's ``traceparent``."""

    def __init__(self, tracer: Tracer) -> None:
        self._tracer = tracer
        self._wrappers: WrapperCache[Any] = WrapperCache(self._wrap)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        return self._wrappers.get(handler, handler_call_details.method)

    def _wrap(self, handler: Any, method: str) -> Any:
        if method.startswith(_UNTRACED):
            return handler
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, method),
                handler.request_deserializer,
                handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._streaming(handler.unary_stream, method),
                handler.request_deserializer,
                handler.response_serializer,
            )
        return handler  # client-streaming methods: none in Riverboat's services

    def _span(self, method: str, context: Any) -> contextlib.AbstractContextManager[Any]:
        from opentelemetry import propagate
        from opentelemetry.trace import SpanKind

        service, name = _split(method)
        carrier = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
        return self._tracer.start_as_current_span(
            f"{service}/{name}",
            context=propagate.extract(carrier),
            kind=SpanKind.SERVER,
            attributes={"rpc.system": "grpc", "rpc.service": service, "rpc.method": name},
            record_exception=False,
            set_status_on_exception=False,
        )

    def _unary(self, behavior: Any, method: str) -> Any:
        async def unary(request: Any, context: Any) -> Any:
            with self._span(method, context) as span:
                try:
                    return await behavior(request, context)
                finally:
                    _end(span, context)

        return unary

    def _streaming(self, behavior: Any, method: str) -> Any:
        async def streaming(request: Any, context: Any) -> AsyncIterator[Any]:
            with self._span(method, context) as span:
                try:
                    async for response in behavior(request, context):
                        yield response
                finally:
                    _end(span, context)

        return streaming


def _end(span: Any, context: Any) -> None:
    from opentelemetry.trace import Status, StatusCode

    code = context.code() or grpc.StatusCode.OK
    if isinstance(code, int):  # grpc.aio reports the code as an int in some versions
        code = next((c for c in grpc.StatusCode if c.value[0] == code), grpc.StatusCode.UNKNOWN)
    span.set_attribute("rpc.grpc.status_code", code.value[0])
    if code is not grpc.StatusCode.OK:
        span.set_status(Status(StatusCode.ERROR, code.name))


class _ClientTracing(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[type-arg]
    """One CLIENT span per call; its context goes along as ``traceparent``."""

    def __init__(self, tracer: Tracer) -> None:
        self._tracer = tracer

    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        from opentelemetry import propagate
        from opentelemetry.trace import SpanKind, Status, StatusCode

        method = client_call_details.method
        if isinstance(method, bytes):
            method = method.decode()
        service, name = _split(method)
        with self._tracer.start_as_current_span(
            f"{service}/{name}",
            kind=SpanKind.CLIENT,
            attributes={"rpc.system": "grpc", "rpc.service": service, "rpc.method": name},
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            carrier: dict[str, str] = {}
            propagate.inject(carrier)
            metadata = grpc.aio.Metadata(*(client_call_details.metadata or ()))
            for key, value in carrier.items():
                metadata.add(key, value)
            details = grpc.aio.ClientCallDetails(
                method=client_call_details.method,
                timeout=client_call_details.timeout,
                metadata=metadata,
                credentials=client_call_details.credentials,
                wait_for_ready=client_call_details.wait_for_ready,
            )
            call = await continuation(details, request)
            code = await call.code()  # waits for the status without raising: the caller reads it
            span.set_attribute("rpc.grpc.status_code", code.value[0])
            if code is not grpc.StatusCode.OK:
                span.set_status(Status(StatusCode.ERROR, code.name))
            return call
