"""Every Prometheus metric of the Riverboat services, and the endpoint that serves them.

All metrics live here (one module, one registry: prometheus-client's default, which also
carries the process collector's ``process_cpu_seconds_total`` and memory); other modules call
the functions below rather than defining metrics. What is measured:

* RPCs, by gRPC service, method and status code: ``riverboat_rpc_handled_total`` and the
  latency histogram ``riverboat_rpc_duration_seconds``, recorded by the one server interceptor
  every service installs (:class:`~riverboat.services.common.errors.ErrorInterceptor`, through
  :func:`rpc_recorder`); server streams open now (Watch), ``riverboat_rpc_streams_open``.
* The event store: append latency by stream and outcome,
  ``riverboat_eventstore_append_duration_seconds``, and retries,
  ``riverboat_eventstore_append_retries_total``. The store is a library and cannot import
  this module: importing it installs an :class:`~riverboat.eventstore.observer.EventStoreObserver`
  that records them.
* Table ownership: ``riverboat_tables_owned`` (:func:`set_tables_owned`) and
  ``riverboat_lease_changes_total`` by change (:func:`lease_changed`).
* Consumer lag, records a consumer has yet to see: ``riverboat_consumer_lag_records``
  (:func:`set_consumer_lag`).

The endpoint is off unless ``--metrics-address HOST:PORT`` (or ``RIVERBOAT_METRICS_ADDRESS``)
names one (:func:`add_metrics_arguments`, :func:`serve_metrics`); it answers ``GET /metrics``
with the Prometheus text format from a thread of its own, so a scrape never waits on the
service's event loop.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from threading import Thread
from typing import Final
from wsgiref.simple_server import WSGIServer

import grpc
import prometheus_client
import structlog
from prometheus_client import Counter, Gauge, Histogram

from riverboat.eventstore import observer as store_observer
from riverboat.services.common.addresses import split_address

__all__ = [
    "ENV_METRICS_ADDRESS",
    "MetricsEndpoint",
    "RpcRecorder",
    "add_metrics_arguments",
    "lease_changed",
    "metrics_address",
    "rpc_recorder",
    "serve_metrics",
    "set_append_headers",
    "set_consumer_lag",
    "set_tables_owned",
    "start_metrics",
]

ENV_METRICS_ADDRESS: Final = "RIVERBOAT_METRICS_ADDRESS"

_log = structlog.get_logger("riverboat.metrics")

# Each series' *_created twin doubles the scrape for nothing Prometheus uses here.
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

# Latency buckets, seconds: a table action is a millisecond or two, a password hash 50-100 ms,
# an append during a JetStream leader election seconds.
_BUCKETS: Final = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

RPC_HANDLED: Final = Counter(
    "riverboat_rpc_handled_total",
    "RPCs finished, by gRPC service, method and status code.",
    ("service", "method", "code"),
)
RPC_DURATION: Final = Histogram(
    "riverboat_rpc_duration_seconds",
    "Time from a call's arrival to its status, by gRPC service, method and status code "
    "(for a stream: its whole life).",
    ("service", "method", "code"),
    buckets=_BUCKETS,
)
RPC_STREAMS_OPEN: Final = Gauge(
    "riverboat_rpc_streams_open",
    "Server-streaming calls (Watch) open now, by gRPC service and method.",
    ("service", "method"),
)
APPEND_DURATION: Final = Histogram(
    "riverboat_eventstore_append_duration_seconds",
    "Event store appends, by stream and outcome (ok, duplicate, conflict, unavailable, "
    "unknown, error).",
    ("stream", "outcome"),
    buckets=_BUCKETS,
)
APPEND_RETRIES: Final = Counter(
    "riverboat_eventstore_append_retries_total",
    "Appends tried again, by stream and reason.",
    ("stream", "reason"),
)
TABLES_OWNED: Final = Gauge(
    "riverboat_tables_owned",
    "Tables this table-service instance owns (replays, clocks and deals) now.",
)
LEASE_CHANGES: Final = Counter(
    "riverboat_lease_changes_total",
    "Table leases this instance gained or gave up, by change (acquired, released, lost).",
    ("change",),
)
CONSUMER_LAG: Final = Gauge(
    "riverboat_consumer_lag_records",
    "Records a consumer has yet to handle (as of the last message or poll), by consumer.",
    ("consumer",),
)


class RpcRecorder:
    """One method's RPC metrics, its labelled series looked up once per status code.

    Built once per method (the interceptor caches its wrappers), so a call costs a dict lookup,
    a counter increment and a histogram observation.
    """

    __slots__ = ("_by_code", "_method", "_service")

    def __init__(self, full_method: str) -> None:
        service, _, method = full_method.lstrip("/").rpartition("/")
        self._service = service or "unknown"
        self._method = method
        self._by_code: dict[grpc.StatusCode, tuple[Counter, Histogram]] = {}

    def streams_open(self) -> Gauge:
        """The open-streams gauge of this method (ask only for server-streaming methods: the
        series exists from the first ask)."""
        return RPC_STREAMS_OPEN.labels(self._service, self._method)

    def observe(self, code: grpc.StatusCode, seconds: float) -> None:
        """A call finished with ``code`` after ``seconds``."""
        series = self._by_code.get(code)
        if series is None:
            labels = (self._service, self._method, code.name)
            series = (RPC_HANDLED.labels(*labels), RPC_DURATION.labels(*labels))
            self._by_code[code] = series
        series[0].inc()
        series[1].observe(seconds)


def rpc_recorder(full_method: str) -> RpcRecorder:
    """The recorder for ``/package.Service/Method``."""
    return RpcRecorder(full_method)


def set_tables_owned(count: int) -> None:
    """This instance owns ``count`` tables now (the owners' lease keeper calls it)."""
    TABLES_OWNED.set(count)


def lease_changed(change: str, count: int = 1) -> None:
    """``count`` leases changed hands here: ``acquired``, ``released`` (handed over on
    shutdown or rebalancing) or ``lost`` (expired or taken while we held it)."""
    LEASE_CHANGES.labels(change).inc(count)


def set_consumer_lag(consumer: str, records: int) -> None:
    """``consumer`` has ``records`` records yet to handle."""
    CONSUMER_LAG.labels(consumer).set(records)


class _StoreMetrics(store_observer.EventStoreObserver):
    """Records the event store's observations (installed when this module is imported)."""

    def __init__(self) -> None:
        self._appends: dict[tuple[str, str], Histogram] = {}

    def appended(self, stream: str, seconds: float, outcome: str) -> None:
        series = self._appends.get((stream, outcome))
        if series is None:
            series = self._appends[(stream, outcome)] = APPEND_DURATION.labels(stream, outcome)
        series.observe(seconds)

    def retried(self, stream: str, reason: str) -> None:
        APPEND_RETRIES.labels(stream, reason).inc()

    def append_headers(self) -> Mapping[str, str] | None:
        return _headers_hook() if _headers_hook is not None else None


# Tracing (riverboat.services.common.tracing) sets this when it is on, so the store's one
# observer also carries the trace context into appended messages' headers.
_headers_hook: Callable[[], Mapping[str, str] | None] | None = None


def set_append_headers(hook: Callable[[], Mapping[str, str] | None] | None) -> None:
    """Have every append ask ``hook()`` for extra headers (None: no extra headers)."""
    global _headers_hook
    _headers_hook = hook


store_observer.install(_StoreMetrics())


# -- the endpoint -------------------------------------------------------------------------------


class MetricsEndpoint:
    """A running ``/metrics`` HTTP endpoint (a daemon thread; :meth:`close` stops it)."""

    def __init__(self, server: WSGIServer, thread: Thread) -> None:
        self._server = server
        self._thread = thread

    @property
    def address(self) -> str:
        """``host:port`` it listens on (the real port when asked for port 0)."""
        host, port = self._server.server_address[:2]
        return f"{host!s}:{port}"

    def close(self) -> None:
        """Stop serving; idempotent."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def add_metrics_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--metrics-address`` (env ``RIVERBOAT_METRICS_ADDRESS``; empty: no endpoint)."""
    parser.add_argument(
        "--metrics-address",
        metavar="HOST:PORT",
        help=f"serve Prometheus metrics at http://HOST:PORT/metrics (env {ENV_METRICS_ADDRESS}; "
        "default: off)",
    )


def metrics_address(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> str:
    """The endpoint's address: the flag, else the environment, else "" (off)."""
    flag = getattr(args, "metrics_address", None)
    if flag is not None:
        return str(flag).strip()
    return (os.environ if env is None else env).get(ENV_METRICS_ADDRESS, "").strip()


def serve_metrics(address: str) -> MetricsEndpoint | None:
    """Serve ``/metrics`` at ``address`` (``host:port``); "" serves nothing and returns None.

    Raises:
        ValueError: ``address`` is not ``host:port``.
        OSError: it cannot be bound.
    """
    if not address:
        return None
    host, port = split_address(address)
    server, thread = prometheus_client.start_http_server(port, addr=host.strip("[]"))
    endpoint = MetricsEndpoint(server, thread)
    _log.info("metrics_listening", address=endpoint.address)
    return endpoint


def start_metrics(args: argparse.Namespace, prog: str) -> MetricsEndpoint | None:
    """A service's start-up step: serve the endpoint :func:`add_metrics_arguments` asked for.

    Raises:
        SystemExit: the address is malformed or cannot be bound (``prog`` names the service).
    """
    address = metrics_address(args)
    try:
        return serve_metrics(address)
    except (ValueError, OSError) as exc:
        raise SystemExit(f"{prog}: --metrics-address {address}: {exc}") from None
