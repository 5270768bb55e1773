"""Request validation from the API itself: the ``buf.validate`` rules in the protos.

Every request message of the room's services carries its limits in ``protos/riverboat/v1``
(``[(buf.validate.field).string = {min_len: 1, max_len: 64, ...}]``), so a client reads them
where it reads the API. :class:`ValidationInterceptor` checks each request against them with
the ``protovalidate`` package before the handler runs; a request that breaks one is answered
``INVALID_ARGUMENT``, reason ``INVALID_REQUEST``, with a ``google.rpc.BadRequest`` naming every
field at fault (``cards[0]``: the path protovalidate reports) and what is wrong with it, and
nothing is done. It raises :class:`~riverboat.services.common.errors.InvalidArgument`, so it sits
inside the :class:`~riverboat.services.common.errors.ErrorInterceptor` and after the
``AuthInterceptor``: a caller without a token learns nothing, not even which input is wrong.

The handlers keep the checks the rules cannot say (a buy-in within the table's limits, a seat
the table has): the rules are the first gate, not the only one.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
import protovalidate
from google.protobuf.message import Message

from riverboat.services.common.errors import InvalidArgument
from riverboat.services.common.wrappers import WrapperCache

__all__ = ["REASON_INVALID_REQUEST", "ValidationInterceptor", "check_request"]

REASON_INVALID_REQUEST = "INVALID_REQUEST"
"""The ``ErrorInfo.reason`` of a request that breaks its message's ``buf.validate`` rules."""

Handler = Any  # grpc.RpcMethodHandler; the stubs' generics add nothing here
Context = Any

_SUBSCRIPTS = ("index", "bool_key", "int_key", "uint_key", "string_key")


def _path(violation: protovalidate.Violation) -> str:
    """``cards[0]``, ``options.small_bet``: the field path protovalidate reports, as AIP-193's
    ``FieldViolation.field`` writes it."""
    out = ""
    path = violation.proto.field
    for element in path.elements if path is not None else ():
        out += ("." if out else "") + element.field_name
        subscript = element.subscript
        if subscript is not None and subscript.field in _SUBSCRIPTS:
            value = subscript.value
            out += f'["{value}"]' if isinstance(value, str) else f"[{value}]"
    return out


def check_request(request: Message) -> None:
    """Raise :class:`InvalidArgument` (with every field violation) if ``request`` breaks the
    ``buf.validate`` rules of its message; messages without rules always pass."""
    violations = protovalidate.collect_violations(request)
    if not violations:
        return
    found = [(_path(v), f"{_path(v)} {v.proto.message}") for v in violations]
    fields = list(dict.fromkeys(path for path, _ in found))
    first = violations[0].proto
    raise InvalidArgument(
        "; ".join(why for _, why in found),
        reason=REASON_INVALID_REQUEST,
        metadata={"field": found[0][0], "rule_id": first.rule_id, "fields": ",".join(fields)},
        violations=found,
    )


class ValidationInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Server interceptor: each unary request checked against its ``buf.validate`` rules."""

    def __init__(self) -> None:
        self._wrappers = WrapperCache(self._wrap)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_streaming:
            return handler
        return self._wrappers.get(handler, handler_call_details.method)

    def _wrap(self, handler: Handler, method: str) -> Handler:
        if handler.unary_unary is not None and inspect.iscoroutinefunction(handler.unary_unary):
            behavior = handler.unary_unary

            async def unary(request: Any, context: Context) -> Any:
                check_request(request)
                return await behavior(request, context)

            return grpc.unary_unary_rpc_method_handler(
                unary, handler.request_deserializer, handler.response_serializer
            )
        if handler.unary_stream is not None and inspect.isasyncgenfunction(handler.unary_stream):
            streaming = handler.unary_stream

            async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
                check_request(request)
                async for reply in streaming(request, context):
                    yield reply

            return grpc.unary_stream_rpc_method_handler(
                stream, handler.request_deserializer, handler.response_serializer
            )
        return handler
