"""Which table-service instance owns a table, as a status detail clients can read.

A table is owned by one table-service instance at a time. An instance that does not own a
table answers every call about it with ``FAILED_PRECONDITION`` and a ``google.rpc.ErrorInfo``
(reason :data:`REASON_NOT_OWNER`, domain :data:`ERROR_DOMAIN`) whose metadata names the
owner: ``table_id``, ``owner`` (the instance id) and ``owner_address`` (its gRPC address). A
client reconnects to ``owner_address`` and sends the call again, once. While nobody owns the
table (an owner died and its lease has not yet expired) the answer is ``UNAVAILABLE`` with
reason :data:`REASON_NO_OWNER` and a ``google.rpc.RetryInfo``.

Servers build the detail with :func:`not_owner_status`; clients read it with
:func:`owner_address`. Both sides use only ``grpcio-status`` and the standard protos, so any
gRPC client (grpcurl included) can read the same detail.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

__all__ = [
    "ERROR_DOMAIN",
    "REASON_NOT_OWNER",
    "REASON_NO_OWNER",
    "Owner",
    "not_owner_status",
    "owner_address",
    "owner_of",
]

ERROR_DOMAIN = "riverboat"
"""The ``ErrorInfo.domain`` of every Riverboat error."""

REASON_NOT_OWNER = "NOT_OWNER"
"""This instance does not own the table; the detail's metadata names the one that does."""

REASON_NO_OWNER = "NO_OWNER"
"""No instance owns the table right now (a hand-over is under way); retry after the delay."""


@dataclass(frozen=True, slots=True)
class Owner:
    """The instance that owns a table, as a redirect names it."""

    table_id: str
    instance: str
    address: str


def not_owner_status(owner: Owner, message: str) -> status_pb2.Status:
    """The ``google.rpc.Status`` a non-owner answers with (send as grpc-status-details-bin)."""
    info = error_details_pb2.ErrorInfo(
        reason=REASON_NOT_OWNER,
        domain=ERROR_DOMAIN,
        metadata={
            "table_id": owner.table_id,
            "owner": owner.instance,
            "owner_address": owner.address,
        },
    )
    packed = any_pb2.Any()
    packed.Pack(info)
    return status_pb2.Status(code=code_pb2.FAILED_PRECONDITION, message=message, details=[packed])


def owner_of(error: grpc.RpcError) -> Owner | None:
    """The owner a ``NOT_OWNER`` error names, or None for any other error."""
    trailers = getattr(error, "trailing_metadata", None)
    if trailers is None:
        return None
    raw = trailers() if callable(trailers) else trailers
    for key, value in raw or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            if not detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                continue
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.reason == REASON_NOT_OWNER and info.domain == ERROR_DOMAIN:
                meta = info.metadata
                if meta.get("owner_address"):
                    return Owner(
                        table_id=meta.get("table_id", ""),
                        instance=meta.get("owner", ""),
                        address=meta["owner_address"],
                    )
    return None


def owner_address(error: grpc.RpcError) -> str | None:
    """The owner's gRPC address a ``NOT_OWNER`` error names, or None for any other error."""
    owner = owner_of(error)
    return owner.address if owner else None
