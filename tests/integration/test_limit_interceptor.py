"""The rate-limit interceptor on an in-process grpc.aio server, with a fake clock.

The server runs the services' real interceptor chain (errors, auth, limits) in front of stand-in
``Act`` and ``Watch`` handlers that count what reaches them, so the test sees what the limiter
lets through and, on the clock it moves itself, exactly when a refused caller may come back.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest

from riverboat.auth import TokenIssuer
from riverboat.ratelimit import RateLimiter
from riverboat.services.common.auth import AuthInterceptor
from riverboat.services.common.errors import ErrorInterceptor, ServiceError
from riverboat.services.common.limits import RateLimitInterceptor, RateLimits, admit_message
from riverboat.v1 import table_pb2, table_pb2_grpc
from tests import statuskit

ISSUER = TokenIssuer(bytes(range(32)))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Room:
    """What reached the handlers."""

    def __init__(self) -> None:
        self.acts = 0
        self.open_watches = 0


async def start(limits: RateLimits, clock: Clock) -> tuple[grpc.aio.Server, str, Room]:
    room = Room()

    async def act(request: table_pb2.ActRequest, context: Any) -> table_pb2.ActResponse:
        room.acts += 1
        return table_pb2.ActResponse(version=room.acts)

    async def watch(request: table_pb2.WatchRequest, context: Any) -> AsyncIterator[Any]:
        room.open_watches += 1
        try:
            yield table_pb2.WatchResponse(version=1)
            await asyncio.Event().wait()  # open until the client leaves
        finally:
            room.open_watches -= 1

    async def play(requests: Any, context: Any) -> AsyncIterator[Any]:
        # As the table service's Play: each action passes the Act limits on its own, and a
        # refusal is that action's outcome, not the stream's end.
        room.open_watches += 1
        try:
            async for request in requests:
                outcome = table_pb2.ActOutcome(request_id=request.act.request_id)
                try:
                    admit_message("Act")
                    room.acts += 1
                    outcome.version = room.acts
                except ServiceError as exc:
                    outcome.error.CopyFrom(exc.status())
                yield table_pb2.PlayResponse(outcome=outcome)
        finally:
            room.open_watches -= 1

    handlers = {
        "Play": grpc.stream_stream_rpc_method_handler(
            play,
            table_pb2.PlayRequest.FromString,
            table_pb2.PlayResponse.SerializeToString,
        ),
        "Act": grpc.unary_unary_rpc_method_handler(
            act,
            table_pb2.ActRequest.FromString,
            table_pb2.ActResponse.SerializeToString,
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            watch,
            table_pb2.WatchRequest.FromString,
            table_pb2.WatchResponse.SerializeToString,
        ),
    }
    server = grpc.aio.server(
        interceptors=[
            ErrorInterceptor(),
            AuthInterceptor(ISSUER, {"Act": {"player"}}),
            RateLimitInterceptor(limits, clock=clock),
        ]
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("riverboat.v1.TableService", handlers),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}", room


def bearer(subject: str, role: str = "player") -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {ISSUER.issue(subject, role)}"),)


def retry_ms(err: grpc.aio.AioRpcError) -> int:
    delay = statuskit.details(err).retry_ms
    assert delay is not None
    return delay


ACT = table_pb2.ActRequest(table_id="t", hand_id="h1", seat=1, action="call", request_id="r")


async def test_a_burst_a_refusal_and_exactly_the_wait_it_names() -> None:
    clock = Clock()
    server, address, room = await start(RateLimits.parse(["Act.account=3/min"]), clock)
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            for _ in range(3):
                await stub.Act(ACT, metadata=bearer("ann"))
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=bearer("ann"))
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert retry_ms(err.value) == 20_000  # one token every 20 s
            assert room.acts == 3  # the refused call never reached the handler
            await stub.Act(ACT, metadata=bearer("bob"))  # another account: its own bucket
            clock.now += 19.9
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=bearer("ann"))
            told = retry_ms(err.value)
            assert told in (100, 101)  # 0.1 s, rounded up to whole ms
            clock.now += told / 1000
            await stub.Act(ACT, metadata=bearer("ann"))  # on time, as told: allowed
            assert room.acts == 5
    finally:
        await server.stop(None)


async def test_the_peer_limit_spans_accounts_and_services_are_exempt() -> None:
    clock = Clock()
    limits = RateLimits.parse(["Act.account=off,Act.peer=2/h"])
    server, address, room = await start(limits, clock)
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            await stub.Act(ACT, metadata=bearer("ann"))
            await stub.Act(ACT, metadata=bearer("bob"))
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=bearer("cy"))
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "your address" in (err.value.details() or "")
            # Riverboat's own services are never limited (the rule lets them call Act here).
            server_token = bearer("lobby", "service")
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=server_token)
            assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED  # auth, not limits
            assert room.acts == 2
    finally:
        await server.stop(None)


async def test_the_stream_cap_counts_streams_while_they_are_open() -> None:
    clock = Clock()
    server, address, room = await start(RateLimits.parse(max_streams=2), clock)
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            request = table_pb2.WatchRequest(table_id="t")
            calls = [stub.Watch(request, metadata=bearer("ann")) for _ in range(2)]
            for call in calls:
                assert (await call.read()).version == 1
            third = stub.Watch(request, metadata=bearer("ann"))
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await third.read()
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert statuskit.reason(err.value) == "TOO_MANY_STREAMS"
            operator = stub.Watch(request, metadata=bearer("boss", "operator"))
            assert (await operator.read()).version == 1  # another account
            calls[0].cancel()
            for _ in range(500):  # the server sees the cancel a moment later
                if room.open_watches == 2:
                    break
                await asyncio.sleep(0.01)
            again = stub.Watch(request, metadata=bearer("ann"))
            assert (await again.read()).version == 1
            for call in (calls[1], operator, again):
                call.cancel()
    finally:
        await server.stop(None)


async def test_the_oracle_sees_a_bucket_that_never_empties(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted bug: taking a token spends nothing. The first test's refusal then never comes.
    monkeypatch.setattr(RateLimiter, "take", lambda self, key, now: 0.0)
    server, address, room = await start(RateLimits.parse(["Act.account=3/min"]), Clock())
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            for _ in range(4):
                await stub.Act(ACT, metadata=bearer("ann"))
        assert room.acts == 4
    finally:
        await server.stop(None)


async def test_each_action_on_a_play_stream_counts_as_an_act_and_the_stream_goes_on() -> None:
    clock = Clock()
    limits = RateLimits.parse(["Act.account=3/min"], max_streams=1)
    server, address, room = await start(limits, clock)
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            stream = stub.Play(metadata=bearer("ann"))
            outcomes = []
            for _ in range(4):
                await stream.write(table_pb2.PlayRequest(act=ACT))
                outcomes.append((await stream.read()).outcome)
            assert [o.HasField("error") for o in outcomes] == [False, False, False, True]
            refused = outcomes[3].error
            assert refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            assert "20.0 s" in refused.message  # one token every 20 s
            # The same bucket as the unary Act's: that is refused too.
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.Act(ACT, metadata=bearer("ann"))
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            # A Play stream is a stream: the cap of one holds a second one off.
            second = stub.Play(metadata=bearer("ann"))
            await second.write(table_pb2.PlayRequest(act=ACT))
            with pytest.raises(grpc.aio.AioRpcError) as capped:
                await second.read()
            assert statuskit.reason(capped.value) == "TOO_MANY_STREAMS"
            # The first stream goes on, and the clock refills the bucket.
            clock.now += 20.0
            await stream.write(table_pb2.PlayRequest(act=ACT))
            assert not (await stream.read()).outcome.HasField("error")
            assert room.acts == 4
            stream.cancel()
    finally:
        await server.stop(None)
