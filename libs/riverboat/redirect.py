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

from riverboat.rpcstatus import ERROR_DOMAIN, error_info, retry_delay

__all__ = [
    "DEFAULT_NO_OWNER_DELAY",
    "ERROR_DOMAIN",
    "REASON_NOT_OWNER",
    "REASON_NO_OWNER",
    "Owner",
    "no_owner_delay",
    "no_owner_status",
    "not_owner_status",
    "owner_address",
    "owner_of",
]

REASON_NOT_OWNER = "NOT_OWNER"
"""This instance does not own the table; the detail's metadata names the one that does."""

REASON_NO_OWNER = "NO_OWNER"
"""No instance owns the table right now (a hand-over is under way); retry after the delay."""


#: Seconds to wait on a NO_OWNER answer that carries no RetryInfo.
DEFAULT_NO_OWNER_DELAY = 0.5


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


def no_owner_status(table_id: str, retry_delay: float, message: str) -> status_pb2.Status:
    """The ``google.rpc.Status`` of ``UNAVAILABLE`` while nobody owns ``table_id``: ErrorInfo
    reason :data:`REASON_NO_OWNER` and a RetryInfo of ``retry_delay`` seconds."""
    info = error_details_pb2.ErrorInfo(
        reason=REASON_NO_OWNER, domain=ERROR_DOMAIN, metadata={"table_id": table_id}
    )
    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.FromNanoseconds(max(0, round(retry_delay * 1e9)))
    details = []
    for message_ in (info, retry):
        packed = any_pb2.Any()
        packed.Pack(message_)
        details.append(packed)
    return status_pb2.Status(code=code_pb2.UNAVAILABLE, message=message, details=details)


def _code(error: grpc.RpcError) -> grpc.StatusCode | None:
    code = getattr(error, "code", None)
    return code() if callable(code) else None


def _error_info(error: grpc.RpcError, reason: str) -> error_details_pb2.ErrorInfo | None:
    info = error_info(error)
    return info if info is not None and info.reason == reason else None


def owner_of(error: grpc.RpcError) -> Owner | None:
    """The owner a ``NOT_OWNER`` error names, or None for any other error."""
    info = _error_info(error, REASON_NOT_OWNER)
    if info is None or not info.metadata.get("owner_address"):
        return None
    meta = info.metadata
    return Owner(
        table_id=meta.get("table_id", ""),
        instance=meta.get("owner", ""),
        address=meta["owner_address"],
    )


def no_owner_delay(error: grpc.RpcError) -> float | None:
    """Seconds to wait before retrying a ``NO_OWNER`` error (its RetryInfo, else
    :data:`DEFAULT_NO_OWNER_DELAY`), or None for any other error."""
    if _error_info(error, REASON_NO_OWNER) is None:
        return None
    delay = retry_delay(error)
    return DEFAULT_NO_OWNER_DELAY if delay is None else delay


def owner_address(error: grpc.RpcError) -> str | None:
    """The owner's gRPC address a ``NOT_OWNER`` error names, or None for any other error."""
    owner = owner_of(error)
    return owner.address if owner else None
