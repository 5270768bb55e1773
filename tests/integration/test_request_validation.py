"""The buf.validate rules of the protos, checked by the interceptor before any handler runs.

An in-process server (the real ErrorInterceptor and ValidationInterceptor in front of a handler
that counts its calls) and a client that knows only the protos. The oracle: a request that
breaks a rule written in table.proto is INVALID_ARGUMENT with reason INVALID_REQUEST and a
BadRequest naming exactly the fields this test broke, and the handler never ran; a request
within the rules reaches the handler. Planted bugs (no validation, validation after the
handler, violations without their paths) each make the oracle fail.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import grpc
import grpc.aio
import pytest

from riverboat.services.common import validation
from riverboat.services.common.errors import ErrorInterceptor
from riverboat.services.common.validation import ValidationInterceptor, check_request
from riverboat.v1 import table_pb2
from tests import statuskit

ACT = "/riverboat.v1.TableService/Act"

#: (request, the fields it breaks), from the limits written in protos/riverboat/v1/table.proto.
BAD: list[tuple[table_pb2.ActRequest, set[str]]] = [
    (table_pb2.ActRequest(seat=1, action="call", request_id="r1"), {"table_id"}),
    (table_pb2.ActRequest(table_id="t" * 65, seat=1, action="call", request_id="r"), {"table_id"}),
    (table_pb2.ActRequest(table_id="t", seat=0, action="call", request_id="r"), {"seat"}),
    (table_pb2.ActRequest(table_id="t", seat=9, action="", request_id="r"), {"seat", "action"}),
    (
        table_pb2.ActRequest(table_id="t", seat=1, action="draw", request_id="r", cards=["Ah", ""]),
        {"cards[1]"},
    ),
    (
        table_pb2.ActRequest(table_id="t", seat=1, action="bet", amount=10**12 + 1, request_id="r"),
        {"amount"},
    ),
    (
        table_pb2.ActRequest(table_id="t", seat=1, action="call", request_id="no spaces"),
        {"request_id"},
    ),
    (
        table_pb2.ActRequest(
            table_id="t", seat=1, action="seed", request_id="r", client_seed=b"x" * 33
        ),
        {"client_seed"},
    ),
    (
        table_pb2.ActRequest(
            table_id="t", seat=1, action="commit_seed", request_id="r", seed_commitment=b"x" * 33
        ),
        {"seed_commitment"},
    ),
]
GOOD = table_pb2.ActRequest(table_id="t-1", hand_id="t-1-4", seat=2, action="call", request_id="r1")


class _Late(ValidationInterceptor):
    """Planted: validates only after the handler ran."""

    def _wrap(self, handler: Any, method: str) -> Any:
        behavior = handler.unary_unary

        async def unary(request: Any, context: Any) -> Any:
            reply = await behavior(request, context)
            check_request(request)
            return reply

        return grpc.unary_unary_rpc_method_handler(
            unary, handler.request_deserializer, handler.response_serializer
        )


async def _serve(interceptors: Sequence[Any], calls: list[str]) -> tuple[grpc.aio.Server, str]:
    async def act(request: table_pb2.ActRequest, context: Any) -> table_pb2.ActResponse:
        calls.append(request.request_id)
        return table_pb2.ActResponse(version=1)

    handler = grpc.unary_unary_rpc_method_handler(
        act, table_pb2.ActRequest.FromString, table_pb2.ActResponse.SerializeToString
    )
    server = grpc.aio.server(interceptors=list(interceptors))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("riverboat.v1.TableService", {"Act": handler}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


async def _problems(interceptors: Sequence[Any]) -> list[str]:
    """What the oracle finds wrong with a server built of ``interceptors``."""
    calls: list[str] = []
    server, address = await _serve(interceptors, calls)
    problems = []
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            send = channel.unary_unary(ACT, None, None)
            for request, fields in BAD:
                calls.clear()
                try:
                    await send(request.SerializeToString(), timeout=5)
                    problems.append(f"accepted {request}")
                    continue
                except grpc.aio.AioRpcError as exc:
                    error = exc
                if calls:
                    problems.append(f"the handler ran for {request}")
                if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                    problems.append(f"{error.code().name} for {request}")
                    continue
                found = statuskit.details(error)
                if found.reason != "INVALID_REQUEST" or set(found.fields) != fields:
                    problems.append(f"{found.reason} {sorted(found.fields)} != {sorted(fields)}")
            calls.clear()
            await send(GOOD.SerializeToString(), timeout=5)
            if calls != ["r1"]:
                problems.append("a good request did not reach the handler")
    finally:
        await server.stop(None)
    return problems


async def test_bad_requests_are_refused_with_their_fields_before_the_handler() -> None:
    assert await _problems([ErrorInterceptor(), ValidationInterceptor()]) == []


@pytest.mark.parametrize("plant", ["no validation", "validated late", "paths lost"])
async def test_the_oracle_catches_planted_bugs(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    chosen: dict[str, Callable[[], list[Any]]] = {
        "no validation": lambda: [ErrorInterceptor()],
        "validated late": lambda: [ErrorInterceptor(), _Late()],
        "paths lost": lambda: [ErrorInterceptor(), ValidationInterceptor()],
    }
    if plant == "paths lost":
        monkeypatch.setattr(validation, "_path", lambda v: v.proto.field.elements[0].field_name)
    assert await _problems(chosen[plant]()) != []


async def test_streams_are_validated_too() -> None:
    async def watch(request: Any, context: Any) -> AsyncIterator[table_pb2.WatchResponse]:
        yield table_pb2.WatchResponse(version=1)

    handler = grpc.unary_stream_rpc_method_handler(
        watch, table_pb2.WatchRequest.FromString, table_pb2.WatchResponse.SerializeToString
    )
    server = grpc.aio.server(interceptors=[ErrorInterceptor(), ValidationInterceptor()])
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("riverboat.v1.TableService", {"Watch": handler}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = channel.unary_stream("/riverboat.v1.TableService/Watch", None, None)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                async for _ in stub(table_pb2.WatchRequest().SerializeToString(), timeout=5):
                    pass
            assert statuskit.details(err.value).fields.keys() == {"table_id"}
            replies = [
                r async for r in stub(table_pb2.WatchRequest(table_id="t").SerializeToString())
            ]
            assert len(replies) == 1
    finally:
        await server.stop(None)
