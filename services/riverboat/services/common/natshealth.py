"""Health that follows the NATS connection.

A service whose every write goes to NATS cannot serve while NATS is gone: its gRPC health says
``NOT_SERVING`` from the moment nats-py reports the disconnection, and ``SERVING`` again once it
has reconnected (and the service has had a chance to reconcile, e.g. the table service reads
the log it may have missed). Usage::

    health = ConnectionHealth(grpc_server, service="table", on_reconnected=registry.reconcile)
    nc = await nats.connect(url, max_reconnect_attempts=-1, **health.callbacks())
    ...start everything...
    await health.ready()  # SERVING, if NATS is still connected
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from riverboat.services.common.grpcserver import GrpcServer

__all__ = ["ConnectionHealth"]

_log = structlog.get_logger("riverboat.nats")


class ConnectionHealth:
    """The nats-py callbacks that turn a service's health with its NATS connection.

    Args:
        server: the service's gRPC server (its health service is set).
        service: the service's name, for log lines.
        on_reconnected: awaited after a reconnection, before health says ``SERVING`` again.
    """

    def __init__(
        self,
        server: GrpcServer,
        *,
        service: str,
        on_reconnected: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._server = server
        self._service = service
        self._hook = on_reconnected
        self._ready = False
        self._connected = True  # connect() returns connected; callbacks track it from there

    @property
    def connected(self) -> bool:
        """Whether NATS is connected, as last reported by nats-py."""
        return self._connected

    def callbacks(self) -> dict[str, Any]:
        """Keyword arguments for ``nats.connect``: the error, disconnect and reconnect hooks."""
        return {
            "error_cb": self._on_error,
            "disconnected_cb": self._on_disconnected,
            "reconnected_cb": self._on_reconnected,
        }

    async def ready(self) -> None:
        """The service has started: report ``SERVING`` now (if connected) and follow NATS."""
        self._ready = True
        if self._connected:
            await self._server.set_serving(True)

    async def _on_error(self, exc: Exception) -> None:
        # Also called for every failed reconnection attempt while NATS is down.
        _log.warning("nats_error", service=self._service, error=str(exc) or type(exc).__name__)

    async def _on_disconnected(self) -> None:
        self._connected = False
        if self._ready and not self._server.stopping:  # not the drain of an orderly stop
            _log.warning("nats_disconnected; reporting NOT_SERVING", service=self._service)
            await self._server.set_serving(False)

    async def _on_reconnected(self) -> None:
        self._connected = True
        if not self._ready or self._server.stopping:
            return
        if self._hook is not None:
            try:
                await self._hook()
            except Exception:  # reconciling must not keep the service unhealthy for good
                _log.exception("reconnect_hook_failed", service=self._service)
        _log.info("nats_reconnected; reporting SERVING", service=self._service)
        await self._server.set_serving(True)
