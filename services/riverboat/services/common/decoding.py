"""Request bytes before they become a message: the size limit and undecodable bytes.

gRPC calls a method's request deserializer before any interceptor code runs for the call and
answers what it raises with ``UNKNOWN``; a message over the transport's limit it refuses by
itself with a ``RESOURCE_EXHAUSTED`` that carries no ``google.rpc.Status``. So the transport
accepts up to :data:`TRANSPORT_MAX_BYTES` (4 MiB, gRPC's usual default) and the
:class:`~riverboat.services.common.errors.ErrorInterceptor` wraps every deserializer with
:func:`tolerant`: bytes over the documented limit (:data:`MAX_REQUEST_BYTES`, 64 KiB) or that
are not the method's request message become a :class:`Refused` marker, which the interceptor
answers in the one error model before any handler runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError
from google.protobuf.message import Message as ProtoMessage
from google.protobuf.unknown_fields import UnknownFieldSet

__all__ = [
    "MAX_REQUEST_BYTES",
    "TRANSPORT_MAX_BYTES",
    "Refused",
    "TooLarge",
    "Undecodable",
    "tolerant",
]

MAX_REQUEST_BYTES = 64 * 1024
"""The largest request message any Riverboat RPC accepts (each message of a request stream)."""

TRANSPORT_MAX_BYTES = 4 * 1024 * 1024
"""What the transport lets through to be refused in the error model; above it gRPC refuses by
itself (``RESOURCE_EXHAUSTED``, no details) and the bytes are never read into memory."""


class Refused:
    """What a tolerant deserializer hands on instead of a request it refuses."""

    __slots__ = ()


class Undecodable(Refused):
    """The bytes are not a message of the method's request type."""

    __slots__ = ()


UNDECODABLE = Undecodable()


class TooLarge(Refused):
    """The request is over the limit: ``size`` and ``limit`` bytes, and the top-level field
    that holds most of it (``""`` when the bytes do not decode)."""

    __slots__ = ("field", "limit", "size")

    def __init__(self, size: int, limit: int, field: str) -> None:
        self.size = size
        self.limit = limit
        self.field = field


def tolerant(
    deserializer: Callable[[bytes], Any] | None, limit: int = MAX_REQUEST_BYTES
) -> Callable[[bytes], Any]:
    """``deserializer`` (None: the raw bytes) that returns a :class:`Refused` marker rather
    than a request over ``limit`` bytes or one that does not decode."""

    def deserialize(data: bytes) -> Any:
        if len(data) > limit:
            return TooLarge(len(data), limit, _largest_field(deserializer, data))
        if deserializer is None:
            return data
        try:
            return deserializer(data)
        except (DecodeError, ValueError, TypeError, UnicodeDecodeError):
            return UNDECODABLE

    return deserialize


def _largest_field(deserializer: Callable[[bytes], Any] | None, data: bytes) -> str:
    """The path of the top-level field holding most of ``data``: its name, or its number for
    a field the request message does not define; ``""`` when the bytes do not decode. Decodes
    the message (at most :data:`TRANSPORT_MAX_BYTES`): a cost paid by oversized calls only."""
    if deserializer is None:
        return ""
    try:
        message = deserializer(data)
    except (DecodeError, ValueError, TypeError, UnicodeDecodeError):
        return ""
    if not isinstance(message, ProtoMessage):
        return ""
    sizes = [(_size(field, value), field.name) for field, value in message.ListFields()]
    unknown = UnknownFieldSet(message)
    for i in range(len(unknown)):
        u = unknown[i]
        sizes.append((len(u.data) if isinstance(u.data, bytes) else 8, str(u.field_number)))
    return max(sizes)[1] if sizes else ""


def _size(field: FieldDescriptor, value: Any) -> int:
    values = value if field.is_repeated else (value,)
    total = 0
    for item in values:
        if isinstance(item, ProtoMessage):
            total += item.ByteSize()
        elif isinstance(item, str | bytes):
            total += len(item)
        else:
            total += 8  # a number: at most ten bytes on the wire
    return total
