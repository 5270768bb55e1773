"""The lobby's calls to the other services: their refusals passed on as the lobby's own."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

import grpc

from riverboat.redirect import no_owner_delay
from riverboat.rpcstatus import error_info
from riverboat.services.common.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NoOwner,
    NotFound,
    PermissionDenied,
    ServiceError,
    Unavailable,
)

__all__ = ["passed_on"]

T = TypeVar("T")

#: The statuses another service's answer keeps when the lobby passes it on (with its reason and
#: facts): the owner of the rule decides, the lobby does not judge again.
_PASSED: dict[grpc.StatusCode, type[ServiceError]] = {
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
}


async def passed_on(call: Awaitable[T]) -> T:
    """Await another service's answer, passing its refusals on as ours."""
    try:
        return await call
    except grpc.aio.AioRpcError as exc:
        code, details = exc.code(), exc.details() or ""
        # The machine-readable reason and its facts go along too (REQUEST_ID_REUSED, the
        # engine's rule); the other service's field violations name its fields, not ours.
        info = error_info(exc)
        reason = info.reason if info is not None else None
        meta = dict(info.metadata) if info is not None else None
        if code in _PASSED:
            raise _PASSED[code](details, reason=reason, metadata=meta) from None
        delay = no_owner_delay(exc)
        if delay is not None:
            # Nobody alive owns the table for now (its owner died and its lease runs):
            # the reason and when to retry go along, as the table service said them.
            table_id = meta.get("table_id", "") if meta else ""
            raise NoOwner(table_id, retry_delay=delay) from None
        raise Unavailable(f"a service the lobby needs did not answer ({code.name})") from None
