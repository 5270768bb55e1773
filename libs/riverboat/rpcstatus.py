"""Reading Riverboat's errors on the client side: the standard ``google.rpc.Status`` details.

Every Riverboat service answers a failed call with a ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer (sent with ``grpcio-status``), whose details hold:

- one ``google.rpc.ErrorInfo`` with ``domain`` :data:`ERROR_DOMAIN`, a stable UPPER_SNAKE_CASE
  ``reason`` (the engine's rule, upper-cased, for a refused move; otherwise the service's code,
  for example ``REQUEST_ID_REUSED``) and string ``metadata`` (for example ``rule``, ``table_id``);
- a ``google.rpc.BadRequest`` whose ``field_violations`` name the request fields at fault,
  when a field is (``INVALID_ARGUMENT``);
- a ``google.rpc.RetryInfo`` when waiting helps (``RESOURCE_EXHAUSTED``, ``NO_OWNER``).

These helpers read them from any ``grpc.RpcError`` (sync or ``grpc.aio``); any gRPC client in any
language reads the same bytes with its own status library (docs/api.md).
"""

from __future__ import annotations

from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

__all__ = [
    "DETAILS_KEY",
    "ERROR_DOMAIN",
    "StatusError",
    "error_info",
    "field_violations",
    "reason_of",
    "retry_delay",
    "status_of",
]

ERROR_DOMAIN = "riverboat"
"""The ``ErrorInfo.domain`` of every Riverboat error."""

DETAILS_KEY = "grpc-status-details-bin"
"""The trailer that carries the serialized ``google.rpc.Status`` (grpcio-status's key)."""


_CODES = {code.value[0]: code for code in grpc.StatusCode}


class StatusError(grpc.RpcError):
    """A refusal that came as a message rather than as a call's end (an action's outcome on a
    ``Play`` stream): a ``google.rpc.Status`` with the ``code()``, ``details()`` and
    ``trailing_metadata()`` of a ``grpc.aio.AioRpcError``, so the helpers below (and code that
    handles gRPC errors) read it the same way."""

    def __init__(self, status: status_pb2.Status) -> None:
        super().__init__(status.message)
        self.status = status

    def code(self) -> grpc.StatusCode:
        """The status code (UNKNOWN for a number gRPC does not define)."""
        return _CODES.get(self.status.code, grpc.StatusCode.UNKNOWN)

    def details(self) -> str:
        """The status message."""
        return str(self.status.message)

    def trailing_metadata(self) -> Any:  # the stubs' type is a private class; tuples in fact
        """The status as gRPC trailers would carry it."""
        return ((DETAILS_KEY, self.status.SerializeToString()),)


def status_of(error: grpc.RpcError | Any) -> status_pb2.Status | None:
    """The ``google.rpc.Status`` an error's trailers carry, or None (a transport failure, a
    server that is not Riverboat's)."""
    trailers = getattr(error, "trailing_metadata", None)
    if trailers is None:
        return None
    raw = trailers() if callable(trailers) else trailers
    for key, value in raw or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            try:
                return status_pb2.Status.FromString(value)
            except Exception:  # garbage from a foreign server is "no status"
                return None
    return None


def error_info(error: grpc.RpcError | Any) -> error_details_pb2.ErrorInfo | None:
    """The error's Riverboat ``ErrorInfo`` (domain :data:`ERROR_DOMAIN`), or None."""
    status = status_of(error)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.domain == ERROR_DOMAIN:
                return info
    return None


def reason_of(error: grpc.RpcError | Any) -> str:
    """The error's machine-readable reason (``ErrorInfo.reason``), or ``""``."""
    info = error_info(error)
    return info.reason if info is not None else ""


def field_violations(error: grpc.RpcError | Any) -> dict[str, str]:
    """The request fields at fault (``BadRequest.field_violations``): field path -> why."""
    status = status_of(error)
    found: dict[str, str] = {}
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            for violation in bad.field_violations:
                found.setdefault(violation.field, violation.description)
    return found


def retry_delay(error: grpc.RpcError | Any) -> float | None:
    """Seconds to wait before retrying (``RetryInfo.retry_delay``), or None if not given."""
    status = status_of(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            return float(retry.retry_delay.ToNanoseconds()) / 1e9
    return None
