"""A scripted, in-process ``riverboat.v1.TableService`` (a real grpc.aio server) for redirect
tests: every call is recorded and answered by a function, with a response or a status (such as
``riverboat.redirect.not_owner_status``) sent as grpc-status-details-bin."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.message import Message
from google.rpc import status_pb2

from riverboat.redirect import Owner, not_owner_status
from riverboat.v1 import table_pb2

SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableService"]

#: (method name, request) -> a response message, a Status to fail with, or None (default reply).
Answer = Callable[[str, Message], Message | status_pb2.Status | None]


def redirect(address: str, table_id: str = "t1", instance: str = "owner") -> Answer:
    """Answer every call with NOT_OWNER naming ``address``."""
    status = not_owner_status(Owner(table_id, instance, address), f"{table_id} is elsewhere")
    return lambda _method, _request: status


@dataclass
class ScriptedTable:
    """The server; ``calls`` lists (method, request) in arrival order."""

    answer: Answer
    calls: list[tuple[str, Message]] = field(default_factory=list)
    address: str = ""
    _server: grpc.aio.Server | None = None

    async def start(self) -> str:
        server = grpc.aio.server()
        handlers: dict[str, Any] = {}
        for method in SERVICE.methods:
            request_type = message_factory.GetMessageClass(method.input_type)
            response_type = message_factory.GetMessageClass(method.output_type)
            if method.server_streaming:
                handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                    self._streaming(method.name, response_type),
                    request_deserializer=request_type.FromString,
                    response_serializer=response_type.SerializeToString,
                )
            else:
                handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                    self._unary(method.name, response_type),
                    request_deserializer=request_type.FromString,
                    response_serializer=response_type.SerializeToString,
                )
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),)
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        self._server, self.address = server, f"127.0.0.1:{port}"
        return self.address

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(None)

    def methods(self) -> list[str]:
        """The methods called, in order."""
        return [name for name, _ in self.calls]

    async def _reply(self, name: str, request: Message, context: Any, default: Message) -> Message:
        self.calls.append((name, request))
        answer = self.answer(name, request)
        if isinstance(answer, status_pb2.Status):
            await context.abort(
                _code(answer.code),
                answer.message,
                trailing_metadata=(("grpc-status-details-bin", answer.SerializeToString()),),
            )
        return answer if answer is not None else default

    def _unary(self, name: str, response_type: type[Message]) -> Any:
        async def handle(request: Message, context: Any) -> Message:
            return await self._reply(name, request, context, response_type())

        return handle

    def _streaming(self, name: str, response_type: type[Message]) -> Any:
        async def handle(request: Message, context: Any) -> AsyncIterator[Message]:
            yield await self._reply(name, request, context, response_type())

        return handle


def _code(number: int) -> grpc.StatusCode:
    """The grpc.StatusCode of a google.rpc code number."""
    return next(code for code in grpc.StatusCode if code.value[0] == number)
