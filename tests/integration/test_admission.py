"""Refusing early: an account over its rate and an instance at its in-flight cap.

A :class:`GrpcServer` with the services' interceptor chain (errors, auth, limits) in front of
stand-in handlers that count what reaches them, and a request deserializer that counts what it
decodes: a refused call must cost no decoding at all, and the refusal must still be the one
error model's (``RESOURCE_EXHAUSTED`` with ``ErrorInfo`` and ``RetryInfo``), read as any gRPC
client reads it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from riverboat.auth import TokenIssuer
from riverboat.services.common.auth import AuthInterceptor
from riverboat.services.common.errors import ErrorInterceptor
from riverboat.services.common.grpcserver import GrpcServer
from riverboat.services.common.limits import RateLimitInterceptor, RateLimits
from riverboat.v1 import table_pb2, table_pb2_grpc
from tests import statuskit
from tests.waiting import until

pytestmark = pytest.mark.timeout(60)

ISSUER = TokenIssuer(bytes(range(32)))
SERVICE = "riverboat.v1.TableService"
ACT = table_pb2.ActRequest(table_id="t", hand_id="h1", seat=1, action="call", request_id="r")


class Room:
    """What the server decoded and what reached the handlers."""

    def __init__(self) -> None:
        self.decoded = 0
        self.acts = 0
        self.release = asyncio.Event()
        self.waiting = 0

    def decode(self, data: bytes) -> table_pb2.ActRequest:
        self.decoded += 1
        return table_pb2.ActRequest.FromString(data)


async def start(room: Room, limits: RateLimits, *, max_in_flight: int = 512) -> GrpcServer:
    async def act(request: table_pb2.ActRequest, context: Any) -> table_pb2.ActResponse:
        room.acts += 1
        if request.hand_id == "wait":
            room.waiting += 1
            await room.release.wait()
            room.waiting -= 1
        return table_pb2.ActResponse(version=room.acts)

    async def watch(request: table_pb2.WatchRequest, context: Any) -> AsyncIterator[Any]:
        yield table_pb2.WatchResponse(version=1)
        await room.release.wait()

    auth = AuthInterceptor(ISSUER, {"Act": {"player"}})
    limiter = RateLimitInterceptor(limits, identify=auth.identify)
    server = GrpcServer(
        "127.0.0.1:0",
        service_names=[SERVICE],
        interceptors=[ErrorInterceptor(), auth, limiter],
        early_checks=[limiter.early],
        identify=auth.identify,
        max_in_flight=max_in_flight,
        grace=0.1,
    )
    handlers = {
        "Act": grpc.unary_unary_rpc_method_handler(
            act, room.decode, table_pb2.ActResponse.SerializeToString
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            watch, table_pb2.WatchRequest.FromString, table_pb2.WatchResponse.SerializeToString
        ),
    }
    server.server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, handlers),)
    )
    await server.start()
    await server.set_serving(True)
    return server


def bearer(subject: str, role: str = "player") -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {ISSUER.issue(subject, role)}"),)


async def test_an_account_over_its_rate_is_refused_before_its_request_is_decoded() -> None:
    room = Room()
    server = await start(room, RateLimits.parse(["Act.account=2/min"]))
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            for _ in range(2):
                await stub.Act(ACT, metadata=bearer("ann"))
            assert room.decoded == 2
            for _ in range(5):
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await stub.Act(ACT, metadata=bearer("ann"))
                found = statuskit.details(err.value)
                assert found.code == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert found.reason == "RATE_LIMITED"
                assert found.retry_ms is not None and 0 < found.retry_ms <= 30_000
            assert room.decoded == 2, "a refused call's request was decoded"
            assert room.acts == 2
            await stub.Act(ACT, metadata=bearer("bob"))  # another account: its own bucket
            assert room.acts == 3
            # A bad token is not refused early: the call goes on to be refused by auth.
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=(("authorization", "Bearer nonsense"),))
            assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await server.stop(0)


async def test_calls_over_the_in_flight_cap_are_refused_at_once_with_a_retry_delay() -> None:
    room = Room()
    server = await start(room, RateLimits.parse(["Act.account=off"]), max_in_flight=2)
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            held = table_pb2.ActRequest(hand_id="wait", request_id="w")
            busy = [
                asyncio.ensure_future(stub.Act(held, metadata=bearer(f"p{k}"))) for k in range(2)
            ]
            await until(lambda: _value(room.waiting), lambda n: n == 2, "two calls in flight")
            decoded = room.decoded
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=bearer("ann"))
            found = statuskit.details(err.value)
            assert found.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert found.reason == "OVERLOADED"
            assert found.retry_ms is not None and 250 <= found.retry_ms <= 750
            assert room.decoded == decoded
            # Riverboat's own services are never refused for overload (the rule lets a
            # service call Act here: it is refused by auth, past the cap).
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=bearer("table", "service"))
            assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
            # Health checks are never refused, and streams are not counted.
            health = health_pb2_grpc.HealthStub(channel)
            reply = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            watch = stub.Watch(table_pb2.WatchRequest(table_id="t"), metadata=bearer("ann"))
            assert (await watch.read()).version == 1
            room.release.set()
            await asyncio.gather(*busy)
            assert server.admission.in_flight == 0, server.admission.in_flight
            assert (await stub.Act(ACT, metadata=bearer("ann"))).version == room.acts
            watch.cancel()
    finally:
        await server.stop(0)


async def _value(value: int) -> int:
    return value
