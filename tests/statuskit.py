"""The tests' own reading of an error's standard details (an oracle independent of the code).

A failed call of any Riverboat service carries a ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer. This decodes it with the ``google.rpc`` protos only, the way
any client would, and checks what every such status must hold: the same code and message as the
call, exactly one ``ErrorInfo`` of domain ``riverboat`` with an UPPER_SNAKE_CASE reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

_REASON = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")


@dataclass
class Details:
    """What an error's ``google.rpc.Status`` says."""

    code: grpc.StatusCode
    message: str
    reason: str
    metadata: dict[str, str]
    fields: dict[str, str] = field(default_factory=dict)  # BadRequest: field path -> why
    retry_ms: int | None = None


def details(error: Any) -> Details:
    """The error's decoded status details; fails the test if they are missing or malformed."""
    pairs: Any = error.trailing_metadata() or ()
    raw = [value for key, value in pairs if key == "grpc-status-details-bin"]
    assert len(raw) == 1, f"no grpc-status-details-bin: {error.code()} {error.details()}"
    status = status_pb2.Status.FromString(raw[0])
    assert status.code == error.code().value[0], (status.code, error.code())
    assert status.message == (error.details() or ""), (status.message, error.details())
    infos: list[error_details_pb2.ErrorInfo] = []
    found = Details(error.code(), status.message, "", {})
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            infos.append(info)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            for violation in bad.field_violations:
                assert violation.field and violation.description, violation
                found.fields.setdefault(violation.field, violation.description)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            delay = retry.retry_delay
            found.retry_ms = delay.seconds * 1000 + delay.nanos // 1_000_000
    assert len(infos) == 1, f"expected one ErrorInfo, got {len(infos)}: {status}"
    assert infos[0].domain == "riverboat", infos[0]
    assert _REASON.fullmatch(infos[0].reason), infos[0].reason
    found.reason = infos[0].reason
    found.metadata = dict(infos[0].metadata)
    return found


def reason(error: Any) -> str:
    """The error's ``ErrorInfo.reason`` (checked as :func:`details` checks it)."""
    return details(error).reason


def maybe_reason(error: Any) -> str:
    """The reason, or ``""`` for an error without status details (a transport failure: the
    call never reached a Riverboat handler)."""
    pairs: Any = error.trailing_metadata() or ()
    if not any(key == "grpc-status-details-bin" for key, _ in pairs):
        return ""
    return reason(error)
