"""Server reflection under both names clients ask for: ``grpc.reflection.v1`` and ``v1alpha``.

``grpcio-reflection`` serves only ``grpc.reflection.v1alpha.ServerReflection``; current tools
(grpcurl, grpcui, Postman, buf curl) ask for ``grpc.reflection.v1`` first. The two protocols
are one: v1 is v1alpha with the package renamed, the same messages field for field, so the
same servicer answers both, its messages read and written as v1alpha's (the bytes are the
same). So that ``describe grpc.reflection.v1.ServerReflection`` works too, v1's file
descriptor is put into the default pool, made from v1alpha's with the package renamed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
import grpc.aio
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

__all__ = ["V1ALPHA_SERVICE_NAME", "V1_SERVICE_NAME", "enable_reflection"]

V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
_V1ALPHA_PACKAGE = "grpc.reflection.v1alpha"
_V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME: str = f"{_V1_PACKAGE}.ServerReflection"
_V1_FILE = "grpc/reflection/v1/reflection.proto"


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """v1alpha's file descriptor under v1's package and file name."""
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = _V1_FILE
    proto.package = _V1_PACKAGE
    proto.options.Clear()  # v1alpha's are its own (deprecated, java and go packages)
    old, new = f".{_V1ALPHA_PACKAGE}.", f".{_V1_PACKAGE}."
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name.removeprefix(old)
    for service in proto.service:
        for method in service.method:
            method.input_type = new + method.input_type.removeprefix(old)
            method.output_type = new + method.output_type.removeprefix(old)
    return proto


def _register_v1_descriptor() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(_V1_FILE)
    except KeyError:
        pool.Add(_v1_file())


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection on ``server`` as v1 and v1alpha, listing ``service_names`` and both
    reflection services."""
    _register_v1_descriptor()
    names = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    servicer: Any = reflection.aio.ReflectionServicer(names)  # type: ignore[attr-defined]
    reflection.enable_server_reflection(names, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {"ServerReflectionInfo": handler}),)
    )
