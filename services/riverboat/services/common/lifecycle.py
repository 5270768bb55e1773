"""How every service connects to NATS at start-up, serves until signalled, and stops.

One idiom for the four services::

    server = LobbyServer(config)               # has async start() and stop()
    return await serve(server, "lobby")         # the process's exit status

:func:`serve` races ``start()`` against SIGTERM/SIGINT, so a service still waiting for NATS
stops at once when told to; a :class:`StartupError` from ``start()`` is one log line and exit
status 1, never a traceback. :func:`connect_nats` is the first connection every service makes:
nats-py keeps retrying it, so the start-up deadline (``--connect-timeout``) is a timeout around
the whole connect, after which it raises :class:`StartupError` naming the servers.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

import nats.errors
import structlog
from nats.aio.client import Client as NATS

from riverboat.services.common.config import ServiceConfig
from riverboat.services.common.grpcserver import ShutdownSignals
from riverboat.services.common.natshealth import ConnectionHealth

__all__ = ["Service", "StartupError", "connect_nats", "serve"]

_log = structlog.get_logger("riverboat.service")


class StartupError(RuntimeError):
    """Something the service needs did not answer at start-up (NATS, the database, a port,
    a store); the message says what, never a secret."""


class Service(Protocol):
    """What :func:`serve` runs."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


async def connect_nats(
    config: ServiceConfig, *, name: str, health: ConnectionHealth, **options: Any
) -> NATS:
    """Connect to ``config``'s NATS servers, reconnecting for ever once connected (``health``
    follows the connection); raise :class:`StartupError` if the first connection takes longer
    than ``config.connect_timeout``. ``options`` go to ``nats.connect`` (e.g. ``no_echo``)."""
    nc = NATS()
    connecting = asyncio.ensure_future(
        nc.connect(
            name=name,
            connect_timeout=2,
            allow_reconnect=True,
            max_reconnect_attempts=-1,  # keep trying; health says NOT_SERVING meanwhile
            reconnect_time_wait=1,
            **options,
            **config.nats.connect_options(),
            **health.callbacks(),
        )
    )
    try:
        await asyncio.wait({connecting}, timeout=config.connect_timeout)
    finally:  # the deadline passed, or we are cancelled ourselves (a signal)
        await _cancel_for_good(connecting)
    ended = connecting.done() and not connecting.cancelled()
    failure = connecting.exception() if ended else None
    if not ended or failure is not None:
        if failure is not None and not isinstance(failure, OSError | nats.errors.Error):
            raise failure
        await nc.close()
        detail = f": {failure}" if failure is not None and str(failure) else ""
        raise StartupError(
            f"cannot connect to NATS at {config.nats_url} within "
            f"{config.connect_timeout:g}s{detail}"
        ) from None
    return nc


async def serve(server: Service, name: str) -> int:
    """Start ``server``, serve until SIGTERM or SIGINT, stop it; the process's exit status.

    A signal during start-up cancels it (0); a :class:`StartupError` is logged (1). Either way
    whatever had started is stopped again.
    """
    async with ShutdownSignals() as signals:
        _log.info("starting", service=name)  # from here a signal stops it cleanly
        starting = asyncio.ensure_future(server.start())
        stopping = asyncio.ensure_future(signals.wait())
        done, _ = await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if starting not in done:
            await _cancel_for_good(starting)
            await _stop_quietly(server)
            _log.info("stopped_before_ready", service=name)
            return 0
        failure = starting.exception()
        if failure is not None:
            stopping.cancel()
            await _stop_quietly(server)
            if isinstance(failure, StartupError):
                _log.error("cannot_start", service=name, error=str(failure))
                return 1
            raise failure
        await stopping
        _log.info("stopping", service=name)
        await server.stop()  # still inside: a second signal does not cut the hand-over short
    _log.info("stopped", service=name)
    return 0


async def _cancel_for_good(task: asyncio.Future[Any], attempts: int = 20) -> None:
    """Cancel ``task`` and wait until it has ended, cancelling again if it swallowed one.

    nats-py's first-connection loop catches ``CancelledError`` while it closes a failed
    attempt and then tries the next server: one cancel landing there is lost (a SIGTERM
    right after start-up left the service connecting for ever), so a cancel alone, or
    ``asyncio.wait_for``'s, cannot be trusted to end it.
    """
    for _ in range(attempts):
        if task.done():
            return
        task.cancel()
        await asyncio.wait({task}, timeout=0.5)


async def _stop_quietly(server: Service) -> None:
    # A start cut short left some parts unset; stopping what there is must not mask why.
    with contextlib.suppress(Exception):
        await server.stop()
