"""Reaching a table's owner: a gRPC channel per table-service address, one redirect followed.

Any table-service instance answers a call about a table it does not own with ``NOT_OWNER``
naming the owner (:mod:`riverboat.redirect`). :func:`call_owner` sends a call to the address
it believes owns the table; on ``NOT_OWNER`` it sends the *same* call (same request, so the
same request id) once more to the owner named. A second ``NOT_OWNER`` in a row means the
instances disagree about the lease for a moment (a hand-over in flight: the new owner has not
yet seen its lease): like ``NO_OWNER`` (nobody owns the table during a hand-over) it is
waited out, :data:`DISAGREEMENT_DELAY` or the delay the answer gives, within one budget, and
then one redirect may be followed again. Past the budget the last answer is raised. Every
other error is raised as it came.

The lobby, :class:`~riverboat.client.TableClient` (and so the bots) and ``riverboat play``
all use this one function.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc

from riverboat.redirect import no_owner_delay, owner_address

__all__ = ["DEFAULT_NO_OWNER_BUDGET", "DISAGREEMENT_DELAY", "Channels", "Connect", "call_owner"]

T = TypeVar("T")

#: Seconds a call may spend waiting out NO_OWNER answers (a lease's default TTL, and some).
DEFAULT_NO_OWNER_BUDGET = 15.0

#: Seconds to wait when a redirect's target redirects again (instances disagree for a moment
#: while a lease changes hands); counted against the same budget as NO_OWNER waits.
DISAGREEMENT_DELAY = 0.2

#: Opens a channel to an address.
Connect = Callable[[str], grpc.aio.Channel]


class Channels:
    """One channel per address, opened on first use (``connect``, insecure by default)."""

    def __init__(self, connect: Connect | None = None) -> None:
        self._connect: Connect = connect or grpc.aio.insecure_channel
        self._channels: dict[str, grpc.aio.Channel] = {}

    def get(self, address: str) -> grpc.aio.Channel:
        """The channel to ``address``."""
        channel = self._channels.get(address)
        if channel is None:
            channel = self._channels[address] = self._connect(address)
        return channel

    def adopt(self, address: str, channel: grpc.aio.Channel) -> None:
        """Use ``channel`` (opened by the caller) for ``address``."""
        self._channels.setdefault(address, channel)

    async def close(self) -> None:
        """Close every channel opened here."""
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close(None)


async def call_owner(
    send: Callable[[str], Awaitable[T]],
    address: str,
    *,
    no_owner_budget: float = DEFAULT_NO_OWNER_BUDGET,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> tuple[T, str]:
    """``send(address)``, following one ``NOT_OWNER`` redirect and waiting out ``NO_OWNER``.

    Args:
        send: makes the call to the instance at the address given (the same request each time).
        address: where to send it first (the owner as last known, or any instance).
        no_owner_budget: seconds of ``NO_OWNER`` waits allowed in all (0: raise at once).
        sleep: how to wait (tests pass their own).

    Returns:
        The answer and the address that gave it (the owner: remember it for the next call).

    Raises:
        grpc.aio.AioRpcError: any other error, or ``NOT_OWNER`` / ``NO_OWNER`` past the
            budget.
    """
    waited = 0.0
    redirected = False
    while True:
        try:
            return await send(address), address
        except grpc.aio.AioRpcError as exc:
            owner = owner_address(exc)
            if owner is not None and not redirected and owner != address:
                redirected, address = True, owner
                continue
            delay: float | None
            if owner is not None:
                # Instances disagree: a hand-over is in flight (the new owner has not yet seen
                # its lease). Wait as for NO_OWNER, then follow the latest name again.
                delay, address = DISAGREEMENT_DELAY, owner
            else:
                delay = no_owner_delay(exc)
            if delay is None or waited + delay > no_owner_budget:
                raise
        await sleep(delay)
        waited += delay
        redirected = False  # a new owner may be named now: follow it once
