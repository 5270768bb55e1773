"""A grpc.aio server with health checking, server reflection and orderly shutdown.

Usage, in a service's start-up code::

    server = GrpcServer("127.0.0.1:50053", service_names=["riverboat.v1.DealerService"],
                        interceptors=[ErrorInterceptor(context_fields=["table_id"])])
    dealer_pb2_grpc.add_DealerServiceServicer_to_server(servicer, server.server)
    await server.start()            # bound and answering; health says NOT_SERVING
    ...connect to dependencies...
    await server.set_serving(True)  # health says SERVING
    async with ShutdownSignals() as signals:
        await signals.wait()        # SIGTERM or SIGINT
    await server.stop()             # health NOT_SERVING, drain for `grace` seconds, stop

Health follows the standard ``grpc.health.v1`` protocol: the overall status (service ``""``)
and each named service report ``NOT_SERVING`` until :meth:`GrpcServer.set_serving`, and
``NOT_SERVING`` for good once shutdown begins, so load balancers stop routing before the port
closes: that is READINESS. The name ``liveness`` (:data:`LIVENESS`) is LIVENESS: ``SERVING``
from :meth:`GrpcServer.start` while the event loop runs, whatever NATS does. Reflection
(``grpc.reflection.v1`` and ``v1alpha``: :mod:`~riverboat.services.common.reflection`) lists
the named services plus health and reflection themselves, which makes ``grpcurl`` work without
proto files.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, Protocol, Self

import grpc
import grpc.aio
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from riverboat.auth import Identity
from riverboat.services.common.addresses import split_address
from riverboat.services.common.admission import DEFAULT_MAX_IN_FLIGHT, Admission, EarlyCheck
from riverboat.services.common.decoding import TRANSPORT_MAX_BYTES
from riverboat.services.common.reflection import V1_SERVICE_NAME, enable_reflection
from riverboat.services.common.tracing import server_interceptors

__all__ = ["LIVENESS", "BindError", "GrpcServer", "ShutdownSignals"]

HEALTH_SERVICE_NAME: str = health.SERVICE_NAME

LIVENESS: str = "liveness"
"""The health name that answers LIVENESS: ``SERVING`` from :meth:`GrpcServer.start` for as long
as the process's event loop runs (it answers from that loop), whatever NATS does. ``""`` and the
service's own names answer READINESS (``SERVING`` only when started and connected). Kubernetes:
``livenessProbe: {grpc: {port, service: liveness}}``, ``readinessProbe: {grpc: {port}}``."""
REFLECTION_SERVICE_NAME: str = V1_SERVICE_NAME

_log = structlog.get_logger("riverboat.grpc")

# SO_REUSEPORT (gRPC's default on Linux) would let a second server bind the same port and
# silently share its traffic; a port clash must be an error instead. The transport takes
# messages up to 4 MiB so that the ErrorInterceptor refuses those over the API's 64 KiB in the
# one error model (gRPC's own refusal has no details): riverboat.services.common.decoding.
_DEFAULT_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.so_reuseport", 0),
    ("grpc.max_receive_message_length", TRANSPORT_MAX_BYTES),
)


class _AsyncHealth(Protocol):
    # grpc_health.v1.health.aio.HealthServicer, which the type stubs do not describe.
    async def set(self, service: str, status: int) -> None: ...
    async def enter_graceful_shutdown(self) -> None: ...


class BindError(RuntimeError):
    """The server could not listen on the requested address."""


class GrpcServer:
    """One ``grpc.aio`` server: health and reflection added, bound to one insecure address.

    Args:
        address: ``host:port`` to listen on; port ``0`` picks a free port (see :attr:`port`).
        service_names: fully qualified names of the application services registered on
            :attr:`server` (for health and reflection).
        interceptors: server interceptors, outermost first.
        grace: default seconds :meth:`stop` lets in-flight RPCs finish.
        options: extra channel options for ``grpc.aio.server``.
        max_in_flight: unary calls handled at once; more are refused at once
            (:class:`~riverboat.services.common.admission.Admission`, outside every interceptor).
        early_checks: refusals judged from a call's method and metadata alone, before any
            interceptor runs or anything is decoded (for example ``RateLimitInterceptor.early``).
        identify: the verified caller of a call's metadata (``AuthInterceptor.identify``), so
            that Riverboat's own services are never refused for overload.
    """

    def __init__(
        self,
        address: str,
        *,
        service_names: Sequence[str],
        interceptors: Sequence[grpc.aio.ServerInterceptor] = (),  # type: ignore[type-arg]
        grace: float = 5.0,
        options: Iterable[tuple[str, Any]] = (),
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        early_checks: Sequence[EarlyCheck] = (),
        identify: Callable[[Any], Identity | None] | None = None,
    ) -> None:
        self._host, _ = split_address(address)
        self._requested = address
        self._service_names = tuple(service_names)
        self._grace = grace
        self._port: int | None = None
        self.admission = Admission(
            max_in_flight=max_in_flight, checks=early_checks, identify=identify
        )
        # Admission outermost, so that what it refuses costs nothing more; then tracing (when
        # on): its span covers the rest of the call, the other refusals included.
        self._server = grpc.aio.server(
            interceptors=[self.admission, *server_interceptors(), *interceptors],
            options=[*_DEFAULT_OPTIONS, *options],
        )
        self._health: _AsyncHealth = health.aio.HealthServicer()  # type: ignore[attr-defined]
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._server)
        enable_reflection((*self._service_names, HEALTH_SERVICE_NAME), self._server)
        self._stopped = False

    @property
    def server(self) -> grpc.aio.Server:
        """The underlying server, for ``add_XServicer_to_server`` before :meth:`start`."""
        return self._server

    @property
    def port(self) -> int:
        """The bound port (valid after :meth:`start`)."""
        if self._port is None:
            raise RuntimeError("the server is not started")
        return self._port

    @property
    def address(self) -> str:
        """``host:port`` actually bound (valid after :meth:`start`)."""
        return f"{self._host}:{self.port}"

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` has been called (health then says ``NOT_SERVING`` for good)."""
        return self._stopped

    async def start(self) -> None:
        """Bind and start serving; health reports ``NOT_SERVING`` until :meth:`set_serving`.

        Raises:
            BindError: the address is in use, not local, or otherwise not bindable.
        """
        await self._set_status(health_pb2.HealthCheckResponse.NOT_SERVING)
        try:
            port = self._server.add_insecure_port(self._requested)
        except RuntimeError as exc:  # grpcio >= 1.5x raises; older versions returned 0
            raise BindError(f"cannot listen on {self._requested}: {exc}") from None
        if port == 0:
            raise BindError(f"cannot listen on {self._requested}")
        self._port = port
        await self._server.start()
        # Liveness is not readiness: it never follows NATS, only the loop that answers it.
        await self._health.set(LIVENESS, health_pb2.HealthCheckResponse.SERVING)
        _log.info("grpc server listening", address=self.address, services=self._service_names)

    async def set_serving(self, serving: bool) -> None:
        """Report every named service (and the server overall) as serving or not.

        Ignored once shutdown has begun: a stopping server never turns healthy again.
        """
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if serving
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        await self._set_status(status)

    async def stop(self, grace: float | None = None) -> None:
        """Report ``NOT_SERVING``, refuse new RPCs, let running ones finish; idempotent.

        Args:
            grace: seconds in-flight RPCs get before they are cancelled (default: the
                constructor's).
        """
        if self._stopped:
            return
        self._stopped = True
        await self._health.enter_graceful_shutdown()
        await self._server.stop(self._grace if grace is None else grace)
        _log.info(
            "grpc server stopped", address=self._requested if self._port is None else self.address
        )

    async def wait_for_termination(self) -> None:
        """Return once the server has stopped."""
        await self._server.wait_for_termination()

    async def _set_status(self, status: int) -> None:
        for name in ("", *self._service_names):  # "" is the overall health of the server
            await self._health.set(name, status)


class ShutdownSignals:
    """Async context manager that turns SIGTERM/SIGINT into an awaitable event.

    Inside the block the signals no longer raise ``KeyboardInterrupt`` or kill the process;
    :meth:`wait` returns the first one received. Repeated signals are ignored (the shutdown that
    the first one started is bounded by its grace period). Handlers are removed on exit.
    """

    def __init__(self, signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGINT)) -> None:
        self._signals = tuple(signals)
        self._event = asyncio.Event()
        self._received: signal.Signals | None = None
        self._installed: list[signal.Signals] = []

    @property
    def received(self) -> signal.Signals | None:
        """The first signal received, if any."""
        return self._received

    async def wait(self) -> signal.Signals:
        """Wait for the first signal and return it."""
        await self._event.wait()
        assert self._received is not None
        return self._received

    def trigger(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Act as if ``sig`` had been received (for embedding and tests)."""
        if self._received is None:
            self._received = sig
            _log.info("shutdown requested", signal=sig.name)
        self._event.set()

    async def __aenter__(self) -> Self:
        loop = asyncio.get_running_loop()
        for sig in self._signals:
            # Not available on Windows' proactor loop or outside the main thread: then
            # the default behaviour (KeyboardInterrupt) stays.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self.trigger, sig)
                self._installed.append(sig)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
        self._installed.clear()
