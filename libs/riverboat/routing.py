"""Reaching a table's owner: a gRPC channel per table-service address, one redirect followed.

Any table-service instance answers a call about a table it does not own with ``NOT_OWNER``
naming the owner (:mod:`riverboat.redirect`). :func:`call_owner` sends a call to the address
it believes owns the table; on ``NOT_OWNER`` it sends the *same* call (same request, so the
same request id) once more to the owner named. A second ``NOT_OWNER`` in a row means the
instances disagree about the lease for a moment (a hand-over in flight: the new owner has not
yet seen its lease): like ``NO_OWNER`` (nobody owns the table during a hand-over) it is
waited out, the delay the answer gives (else :data:`riverboat.retrying.NO_OWNER`'s first pause),
within one budget of waiting (that policy's ``total`` unless the caller gives its own), and
then one redirect may be followed again. Past the budget the last answer is raised. Every
other error is raised as it came.

The lobby, :class:`~riverboat.client.TableClient` (and so the bots) and ``riverboat play``
all use this one function.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TypeVar

import grpc

from riverboat import retrying
from riverboat.redirect import no_owner_delay, owner_address

__all__ = ["Channels", "Connect", "call_owner"]

T = TypeVar("T")

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
    no_owner_budget: float | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> tuple[T, str]:
    """``send(address)``, following one ``NOT_OWNER`` redirect and waiting out ``NO_OWNER``.

    Args:
        send: makes the call to the instance at the address given (the same request each time).
        address: where to send it first (the owner as last known, or any instance).
        no_owner_budget: seconds of ``NO_OWNER`` waits allowed in all (0: raise at once;
            None: :data:`riverboat.retrying.NO_OWNER`'s ``total``).
        sleep: how to wait (tests pass their own).

    Returns:
        The answer and the address that gave it (the owner: remember it for the next call).

    Raises:
        grpc.aio.AioRpcError: any other error, or ``NOT_OWNER`` / ``NO_OWNER`` past the
            budget.
    """
    policy = retrying.NO_OWNER
    if no_owner_budget is not None:
        policy = replace(policy, total=no_owner_budget)
    route = _Route(address, policy.first)
    waited = 0.0

    async def wait(seconds: float) -> None:
        nonlocal waited
        await sleep(seconds)
        waited += seconds

    answer = await retrying.call(
        lambda: send(route.address),
        policy,
        transient=lambda exc: route.pause(exc) is not None,
        after=route.pause,
        sleep=wait,
        clock=lambda: waited,  # the budget is of time spent waiting, not of calls
    )
    return answer, route.address


class _Route:
    """Where :func:`call_owner` sends next, and how long it waits first after a failure."""

    def __init__(self, address: str, disagreement: float) -> None:
        self.address = address
        self.redirected = False
        self.disagreement = disagreement
        self._seen: BaseException | None = None
        self._pause: float | None = None

    def pause(self, exc: BaseException) -> float | None:
        """Seconds to wait before sending again after ``exc`` (0: follow a redirect at once),
        or None to raise it. Asked more than once per failure: decided once."""
        if exc is not self._seen:
            self._seen, self._pause = exc, self._decide(exc)
        return self._pause

    def _decide(self, exc: BaseException) -> float | None:
        if not isinstance(exc, grpc.aio.AioRpcError):
            return None
        owner = owner_address(exc)
        if owner is not None and not self.redirected and owner != self.address:
            self.redirected, self.address = True, owner
            return 0.0
        if owner is not None:
            # Instances disagree: a hand-over is in flight (the new owner has not yet seen its
            # lease). Wait as for NO_OWNER, then follow the latest name again.
            self.address = owner
            pause: float | None = self.disagreement
        else:
            pause = no_owner_delay(exc)
        if pause is not None:
            self.redirected = False  # a new owner may be named after the wait: follow it once
        return pause
