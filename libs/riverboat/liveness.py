"""Does a gRPC server answer at an address right now: the standard health check, asked once.

A table-service instance names a table's owner in a redirect only if the owner answers now.
An owner killed -9 keeps its leases until they run out (the TTL: 10 s by default), and the
instances' presence leases say it is there for as long, but its port refuses connections at
once: asking its health (readiness, service ``""``: SERVING only while it is connected to
NATS) costs one round trip when it is alive and a refused connection when it is dead.
Concurrent questions about one address share one check.
"""

from __future__ import annotations

import asyncio
import contextlib

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

__all__ = ["AddressProbe"]


class AddressProbe:
    """Asks addresses' gRPC health, over a channel per address.

    Args:
        timeout: seconds an answer may take; a slower one counts as no answer (a live but
            overloaded server is not a good place to send a client either).
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._asking: dict[str, asyncio.Future[bool]] = {}

    async def answers(self, address: str) -> bool:
        """True if the server at ``address`` says SERVING within the timeout."""
        asking = self._asking.get(address)
        if asking is None:
            asking = asyncio.ensure_future(self._ask(address))
            self._asking[address] = asking
            asking.add_done_callback(lambda _: self._asking.pop(address, None))
        return await asyncio.shield(asking)

    async def _ask(self, address: str) -> bool:
        channel = self._channels.get(address)
        if channel is None:
            channel = self._channels[address] = grpc.aio.insecure_channel(address)
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=self.timeout)
        except (TimeoutError, grpc.aio.AioRpcError):
            # A fresh channel next time: one left in its reconnect backoff would keep failing
            # fast for a while after the address answers again (a restarted instance).
            self._channels.pop(address, None)
            with contextlib.suppress(Exception):
                await channel.close(None)
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

    async def close(self) -> None:
        """Close every channel."""
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            with contextlib.suppress(Exception):
                await channel.close(None)
