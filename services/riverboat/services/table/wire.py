"""The table service's registration with gRPC, sending pre-encoded replies as they are.

A table's watchers of one seat (and every observer) get the same update at each version, so
:class:`~riverboat.services.table.viewpb.TableViews` encodes it once and the handlers yield
its bytes; the generated registration would serialize a message per send. Here every method's
response serializer passes ``bytes`` through and serializes a message as before, so a handler
may answer either way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import grpc

from riverboat.v1 import table_pb2_grpc

SERVICE = "riverboat.v1.TableService"


def passthrough(serialize: Callable[..., Any] | None) -> Callable[[Any], bytes]:
    """``serialize``, except that bytes (a message already encoded) go out as they are."""
    assert serialize is not None  # the generated code gives every method one

    def serializer(message: Any) -> bytes:
        if type(message) is bytes:
            return message
        data: bytes = serialize(message)
        return data

    return serializer


class _Recorder:
    """Stands in for the server to catch the generated code's method handlers."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        pass  # the same handlers come again by name, below

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        self.handlers.update(handlers)


def add_table_service(servicer: table_pb2_grpc.TableServiceServicer, server: Any) -> None:
    """Register ``servicer`` on ``server`` (a ``grpc.aio.Server``), as the generated
    ``add_TableServiceServicer_to_server`` does but with :func:`passthrough` serializers."""
    recorder = _Recorder()
    table_pb2_grpc.add_TableServiceServicer_to_server(servicer, recorder)  # type: ignore[no-untyped-call]
    handlers = {
        name: handler._replace(  # type: ignore[attr-defined]  # grpc's handlers are namedtuples
            response_serializer=passthrough(handler.response_serializer)
        )
        for name, handler in recorder.handlers.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_registered_method_handlers(SERVICE, handlers)
