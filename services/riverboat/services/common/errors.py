"""Service errors that carry their gRPC status, and the interceptor that sends them.

THE error model of every Riverboat service (lobby, table, dealer, settlement). Handlers raise a
:class:`ServiceError` subclass (``NotFound("hand 'h1' is unknown", reason="NO_HAND")``); the
:class:`ErrorInterceptor` answers with that status and message and, through ``grpcio-status``
(``grpc_status.rpc_status``), the standard ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer, so grpcurl and any gRPC client read it:

- always one ``google.rpc.ErrorInfo``: domain ``riverboat``, a stable UPPER_SNAKE_CASE ``reason``
  (the engine's rule upper-cased for a refused move, else the service's own code, else the status
  code's name) and string ``metadata`` (for example the engine's ``rule``, a ``table_id``);
- a ``google.rpc.BadRequest`` with ``field_violations`` when request fields are at fault
  (``field=`` or ``violations=``; the request validation of :mod:`riverboat.services.common.
  validation` fills it from the ``buf.validate`` rules in the protos);
- a ``google.rpc.RetryInfo`` when waiting helps (:class:`ResourceExhausted`, :class:`NoOwner`).

Clients read the details with :mod:`riverboat.rpcstatus` (or any status library). Any other
exception becomes ``INTERNAL`` with an incident id (also in the ErrorInfo's metadata): the client
never sees a traceback or an exception's text, and the log line with the same incident id has
the details. Nothing answers ``UNKNOWN``.

Every status message is capped at :data:`MAX_MESSAGE` characters here, in one place, so an
error that quotes the caller's input never echoes megabytes back (or into the log).

The interceptor also wraps each method's request deserializer
(:mod:`riverboat.services.common.decoding`), so the request bytes are judged before any handler
runs, each message of a request stream as it comes: over ``max_request_bytes`` (64 KiB) is
``RESOURCE_EXHAUSTED``, reason ``REQUEST_TOO_LARGE`` (:class:`RequestTooLarge`: the size and the
limit in the ErrorInfo's metadata, a ``BadRequest`` naming the field that holds most of it, no
``RetryInfo``: the same request never passes); bytes that do not decode as the request message
are ``INVALID_ARGUMENT``, reason ``UNDECODABLE_REQUEST``, rather than gRPC's own ``UNKNOWN``
with a logged traceback.

The interceptor also logs one line per RPC (method, status code, duration), records the same
in the RPC metrics (:mod:`riverboat.services.common.metrics`), and binds chosen
request fields (for example ``table_id``) to structlog's context variables, so every line a
handler logs carries them.

:func:`log_error` is the one mapping of an event-log failure to a status: a log that does not
answer is ``UNAVAILABLE`` with a message saying to retry with the same request id (the store's
idempotency returns the original result if the change did land) and a reason,
``LOG_UNAVAILABLE`` (not reachable) or ``OUTCOME_UNKNOWN`` (sent, never confirmed).

A :class:`riverboat.paging.PageTokenError` (a list RPC's bad ``page_size`` or ``page_token``)
is ``INVALID_ARGUMENT`` with its reason, like an :class:`InvalidArgument`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
import time
import uuid
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

import grpc
import grpc.aio
import structlog
from google.protobuf.message import Message as ProtoMessage
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from riverboat.engine.cards import redact_cards
from riverboat.eventstore.errors import (
    AppendOutcomeUnknownError,
    ConcurrencyError,
    CorruptHistoryError,
    EventStoreError,
    StoreUnavailableError,
)
from riverboat.paging import PageTokenError
from riverboat.redirect import REASON_NO_OWNER, REASON_NOT_OWNER, Owner
from riverboat.rpcstatus import ERROR_DOMAIN
from riverboat.services.common.decoding import (
    MAX_REQUEST_BYTES,
    Refused,
    TooLarge,
    tolerant,
)
from riverboat.services.common.metrics import RpcRecorder, rpc_recorder
from riverboat.services.common.wrappers import WrapperCache

__all__ = [
    "MAX_MESSAGE",
    "REASON_LOG_UNAVAILABLE",
    "REASON_OUTCOME_UNKNOWN",
    "RETRY_SAME_REQUEST",
    "Aborted",
    "AlreadyExists",
    "DataLoss",
    "DeadlineExceeded",
    "ErrorInterceptor",
    "FailedPrecondition",
    "Internal",
    "InvalidArgument",
    "MessageOutcomes",
    "NoOwner",
    "NotFound",
    "NotOwner",
    "OutOfRange",
    "PermissionDenied",
    "RequestTooLarge",
    "ResourceExhausted",
    "ServiceError",
    "Unauthenticated",
    "Unavailable",
    "cap_message",
    "error_for_code",
    "log_error",
    "refuse",
]

_MAX_BOUND_VALUE = 160  # request fields are client input: cap what goes into each log line

MAX_MESSAGE = 400
"""Longest status message sent (longer ones are cut, with a note): messages may quote input."""

_MAX_METADATA_VALUE = 200  # ErrorInfo metadata may quote input too

_log = structlog.get_logger("riverboat.rpc")
_stdlib_log = logging.getLogger("riverboat.rpc")  # the logger behind _log, for level checks


class ServiceError(Exception):
    """An error with a definite gRPC status; its message is sent to the client as is.

    Subclasses fix :attr:`code`. Messages must be written for the caller (what was wrong and,
    where useful, what to do) and must never contain secrets or hidden cards.

    Args:
        message: the status message sent to the client.
        reason: stable, machine-readable cause in UPPER_SNAKE_CASE (``ErrorInfo.reason``);
            without one the reason is the status code's name (``INVALID_ARGUMENT``).
        metadata: ``ErrorInfo.metadata``: facts a client may act on (``{"rule": "out_of_turn"}``).
        field: the request field at fault (a ``BadRequest`` field violation with the message).
        violations: several fields at fault, as ``(field path, description)`` pairs.
    """

    code: ClassVar[grpc.StatusCode] = grpc.StatusCode.UNKNOWN

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
        field: str | None = None,
        violations: Iterable[tuple[str, str]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.metadata = dict(metadata or {})
        self.violations = list(violations)
        if field is not None:
            self.violations.insert(0, (field, message))

    @property
    def error_reason(self) -> str:
        """The ``ErrorInfo.reason`` sent: :attr:`reason`, else the status code's name."""
        return self.reason or self.code.name

    def status(self, message: str | None = None) -> status_pb2.Status:
        """The ``google.rpc.Status`` this error is sent as (``message``: the capped message)."""
        text = self.message if message is None else message
        info = error_details_pb2.ErrorInfo(
            reason=self.error_reason,
            domain=ERROR_DOMAIN,
            metadata={k: cap_message(v, _MAX_METADATA_VALUE) for k, v in self.metadata.items()},
        )
        details: list[ProtoMessage] = [info]
        if self.violations:
            details.append(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=name, description=cap_message(why)
                        )
                        for name, why in self.violations
                    ]
                )
            )
        details.extend(self.extra_details())
        status = status_pb2.Status(code=self.code.value[0], message=text)
        for detail in details:
            status.details.add().Pack(detail)
        return status

    def extra_details(self) -> Sequence[ProtoMessage]:
        """Status details beyond ErrorInfo and BadRequest (e.g. ``RetryInfo``); none here."""
        return ()


class InvalidArgument(ServiceError):
    """The request itself is malformed; retrying it unchanged cannot succeed."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(ServiceError):
    """The named resource does not exist."""

    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(ServiceError):
    """The resource to be created exists already."""

    code = grpc.StatusCode.ALREADY_EXISTS


class PermissionDenied(ServiceError):
    """The caller may not do this."""

    code = grpc.StatusCode.PERMISSION_DENIED


class FailedPrecondition(ServiceError):
    """The system is not in the state the operation needs; retry only once that changes."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class Aborted(ServiceError):
    """A concurrency conflict: re-read, decide again, then retry."""

    code = grpc.StatusCode.ABORTED


class Unavailable(ServiceError):
    """A transient failure (a dependency is unreachable); retrying later is safe."""

    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(ServiceError):
    """The call's deadline passed (or its client went away) before it could be done."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


def _retry_info(delay: float) -> error_details_pb2.RetryInfo:
    millis = math.ceil(delay * 1000)  # whole milliseconds, rounded up: never too early
    seconds, rest = divmod(millis, 1000)
    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.seconds, retry.retry_delay.nanos = seconds, rest * 1_000_000
    return retry


class ResourceExhausted(ServiceError):
    """The caller is over a limit (a rate, a cap, a busy queue); retry after ``retry_delay``.

    Args:
        message: the status message sent to the client.
        retry_delay: seconds after which a retry may succeed (sent as ``google.rpc.RetryInfo``,
            rounded up to whole ms).
        reason: as for :class:`ServiceError` (for example ``RATE_LIMITED``).
    """

    code = grpc.StatusCode.RESOURCE_EXHAUSTED

    def __init__(self, message: str, *, retry_delay: float, reason: str | None = None) -> None:
        super().__init__(message, reason=reason)
        self.retry_delay = max(0.001, retry_delay)

    def extra_details(self) -> Sequence[ProtoMessage]:
        return (_retry_info(self.retry_delay),)


class RequestTooLarge(ServiceError):
    """A request message over the size limit: ``RESOURCE_EXHAUSTED``, reason
    ``REQUEST_TOO_LARGE``, the sizes in the metadata and, in a ``BadRequest``, the top-level
    field holding most of it (its number if the message does not define it; none when the
    bytes do not decode); no ``RetryInfo``, as waiting cannot help."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED

    def __init__(self, size: int, limit: int, field: str = "") -> None:
        where = f" ({field} holds most of it)" if field else ""
        super().__init__(
            f"the request is {size:,} bytes{where}; at most {limit:,} are accepted",
            reason="REQUEST_TOO_LARGE",
            metadata={"size_bytes": str(size), "limit_bytes": str(limit)},
            violations=[(field, f"{field} makes the request {size:,} bytes, over {limit:,}")]
            if field
            else (),
        )


class NotOwner(ServiceError):
    """This instance does not own the table; the detail names the one that does (the
    ``riverboat.redirect`` contract: ``FAILED_PRECONDITION``, ``ErrorInfo`` reason
    ``NOT_OWNER`` with the owner's instance and address). The client calls the owner once."""

    code = grpc.StatusCode.FAILED_PRECONDITION

    def __init__(self, owner: Owner, message: str | None = None) -> None:
        super().__init__(
            message or f"table {owner.table_id} is served by {owner.address}",
            reason=REASON_NOT_OWNER,
            metadata={
                "table_id": owner.table_id,
                "owner": owner.instance,
                "owner_address": owner.address,
            },
        )
        self.owner = owner


class NoOwner(ServiceError):
    """Nobody owns the table right now (its owner died and its lease has not run out, or a
    hand-over is under way): ``UNAVAILABLE``, reason ``NO_OWNER``, retry after the delay."""

    code = grpc.StatusCode.UNAVAILABLE

    def __init__(self, table_id: str, *, retry_delay: float) -> None:
        super().__init__(
            f"table {table_id} is changing hands; retry in a moment",
            reason=REASON_NO_OWNER,
            metadata={"table_id": table_id},
        )
        self.table_id = table_id
        self.retry_delay = max(0.001, retry_delay)

    def extra_details(self) -> Sequence[ProtoMessage]:
        return (_retry_info(self.retry_delay),)


class DataLoss(ServiceError):
    """Stored data is corrupt or lost."""

    code = grpc.StatusCode.DATA_LOSS


class OutOfRange(ServiceError):
    """A position past the end (a version the log has not reached)."""

    code = grpc.StatusCode.OUT_OF_RANGE


class Internal(ServiceError):
    """A broken invariant on the server side."""

    code = grpc.StatusCode.INTERNAL


REASON_LOG_UNAVAILABLE = "LOG_UNAVAILABLE"
"""The event log (NATS) is not reachable right now."""

REASON_OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN"
"""A change was sent to the log but never confirmed: it may or may not be recorded."""

RETRY_SAME_REQUEST = "retry with the same request id"
"""What every log-caused ``UNAVAILABLE`` tells the caller to do."""


def log_error(exc: EventStoreError, what: str = "the change") -> ServiceError:
    """THE status of an event-log failure (``what``: the change the caller asked for).

    Not reachable or not confirmed: ``UNAVAILABLE``, and the caller retries with the same
    request id, which returns the original result if the change landed after all. A conflict
    is ``ABORTED``; a damaged history ``DATA_LOSS``.
    """
    if isinstance(exc, ConcurrencyError):
        return Aborted(f"{what} conflicts with a change made meanwhile; look and retry")
    if isinstance(exc, CorruptHistoryError):
        return DataLoss("the log is damaged; an operator must look", reason="LOG_CORRUPT")
    if isinstance(exc, StoreUnavailableError):
        return Unavailable(
            f"the log is not reachable right now: {RETRY_SAME_REQUEST}",
            reason=REASON_LOG_UNAVAILABLE,
        )
    if not isinstance(exc, AppendOutcomeUnknownError):
        # Any other failure of the log: whether it wrote is not known either.
        _log.warning("log_failure", error=str(exc) or type(exc).__name__)
    return Unavailable(
        f"the log did not confirm {what}; it may or may not be recorded: {RETRY_SAME_REQUEST}",
        reason=REASON_OUTCOME_UNKNOWN,
    )


class Unauthenticated(ServiceError):
    """The caller did not prove who they are (no token, or a bad one)."""

    code = grpc.StatusCode.UNAUTHENTICATED


_BY_CODE: dict[grpc.StatusCode, type[ServiceError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        NotFound,
        AlreadyExists,
        PermissionDenied,
        FailedPrecondition,
        Aborted,
        Unavailable,
        DataLoss,
        OutOfRange,
        Internal,
        Unauthenticated,
        DeadlineExceeded,
    )
}


def error_for_code(
    code: grpc.StatusCode,
    message: str,
    *,
    reason: str | None = None,
    metadata: Mapping[str, str] | None = None,
    field: str | None = None,
) -> ServiceError:
    """The :class:`ServiceError` for ``code`` (for handlers that choose a status by table)."""
    return _BY_CODE.get(code, Internal)(message, reason=reason, metadata=metadata, field=field)


def cap_message(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` cut to at most ``limit`` characters (input quoted in errors is client data)."""
    if len(message) <= limit:
        return message
    note = f"... ({len(message) - limit + 40} more characters)"
    return message[: limit - len(note)] + note


_NO_MESSAGE = object()


async def _decoded_requests(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``requests`` (from a :func:`~riverboat.services.common.decoding.tolerant` deserializer)
    with its first message read now: raises the refusal of bytes it would not decode (too many,
    or no message), now for the first message and, for a later one, when the handler reaches
    it."""
    first = await anext(requests, _NO_MESSAGE)
    if isinstance(first, Refused):
        raise _refusal(first)

    async def rest() -> AsyncIterator[Any]:
        if first is _NO_MESSAGE:
            return
        yield first
        async for request in requests:
            if isinstance(request, Refused):
                raise _refusal(request)
            yield request

    return rest()


def _refusal(marker: Refused) -> ServiceError:
    """The refusal of request bytes a tolerant deserializer would not decode."""
    if isinstance(marker, TooLarge):
        return RequestTooLarge(marker.size, marker.limit, marker.field)
    return InvalidArgument(
        "the request bytes are not a valid message of this method's request type",
        reason="UNDECODABLE_REQUEST",
    )


# Codes that mean "the caller got it wrong": logged at info. Everything else is the server's
# problem and logged at warning (or error, for unexpected exceptions).
_CLIENT_CODES = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,  # a flood's refusals: the flooder's doing
    }
)

Behavior = Callable[..., Any]

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]
    Handler: TypeAlias = grpc.RpcMethodHandler[Any, Any]


class ErrorInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Server interceptor: status mapping, per-RPC log line, request fields in the log context.

    Args:
        context_fields: request fields to bind to structlog's context variables for the whole
            RPC (unary requests only; fields a message lacks are skipped).
        quiet_prefixes: method-name prefixes logged at debug rather than info, so frequent
            probes (health checks, reflection) do not flood the log.
        max_request_bytes: the largest request message accepted (see the module docstring);
            the transport must let larger ones through (:class:`~riverboat.services.common.
            grpcserver.GrpcServer` does, up to 4 MiB).
    """

    def __init__(
        self,
        *,
        context_fields: Sequence[str] = (),
        quiet_prefixes: Collection[str] = ("/grpc.health.", "/grpc.reflection."),
        max_request_bytes: int = MAX_REQUEST_BYTES,
    ) -> None:
        self._context_fields = tuple(context_fields)
        self._max_request = max_request_bytes
        self._quiet_prefixes = tuple(quiet_prefixes)
        self._wrappers = WrapperCache(self._wrap)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(handler_call_details)
        if handler is None:  # unknown method: let gRPC answer UNIMPLEMENTED
            return handler
        return self._wrappers.get(handler, handler_call_details.method)

    def _wrap(self, handler: Handler, method: str) -> Handler:
        quiet = method.startswith(self._quiet_prefixes)
        rec = rpc_recorder(method)
        if handler.unary_unary is not None:
            unary = self._wrap_unary(handler.unary_unary, method, quiet, rec, unary_request=True)
            return grpc.unary_unary_rpc_method_handler(
                unary,
                self._tolerant(handler.request_deserializer, unary is not handler.unary_unary),
                handler.response_serializer,
            )
        if handler.stream_unary is not None:
            client = self._wrap_unary(
                handler.stream_unary, method, quiet, rec, unary_request=False, requests=True
            )
            return grpc.stream_unary_rpc_method_handler(
                client,
                self._tolerant(handler.request_deserializer, client is not handler.stream_unary),
                handler.response_serializer,
            )
        if handler.unary_stream is not None:
            stream = self._wrap_streaming(
                handler.unary_stream, method, quiet, rec, unary_request=True
            )
            return grpc.unary_stream_rpc_method_handler(
                stream,
                self._tolerant(handler.request_deserializer, stream is not handler.unary_stream),
                handler.response_serializer,
            )
        if handler.stream_stream is not None:
            bidi = self._wrap_streaming(
                handler.stream_stream, method, quiet, rec, unary_request=False
            )
            return grpc.stream_stream_rpc_method_handler(
                bidi,
                self._tolerant(handler.request_deserializer, bidi is not handler.stream_stream),
                handler.response_serializer,
            )
        return handler

    def _tolerant(self, deserializer: Any, wrapped: bool) -> Any:
        """The deserializer that judges the bytes first (only for behaviours wrapped here:
        the ones that answer its markers)."""
        return tolerant(deserializer, self._max_request) if wrapped else deserializer

    # -- wrappers ---------------------------------------------------------------------------

    def _wrap_unary(
        self,
        behavior: Behavior,
        method: str,
        quiet: bool,
        rec: RpcRecorder,
        *,
        unary_request: bool,
        requests: bool = False,
    ) -> Behavior:
        """``requests``: the request is a stream of messages the behaviour iterates (a
        client-streaming method), checked as they come."""
        if not inspect.iscoroutinefunction(behavior):
            return behavior  # a synchronous handler (thread pool); not ours to wrap

        async def unary_response(request: Any, context: Context) -> Any:
            fields = self._fields(request) if unary_request else {}
            with structlog.contextvars.bound_contextvars(rpc=_short(method), **fields):
                started = time.perf_counter()
                try:
                    if isinstance(request, Refused):
                        raise _refusal(request)
                    if requests:
                        request = await _decoded_requests(request)
                    response = await behavior(request, context)
                except BaseException as exc:
                    await self._fail(exc, context, started, quiet, rec)
                    raise  # _fail re-raises or aborts; this is for the type checker
                self._finished(grpc.StatusCode.OK, started, quiet, rec)
                return response

        return unary_response

    def _wrap_streaming(
        self, behavior: Behavior, method: str, quiet: bool, rec: RpcRecorder, *, unary_request: bool
    ) -> Behavior:
        if inspect.iscoroutinefunction(behavior):
            # The reader/writer style (context.write); it returns nothing.
            return self._wrap_unary(behavior, method, quiet, rec, unary_request=unary_request)
        if not inspect.isasyncgenfunction(behavior):
            return behavior
        streams_open = rec.streams_open()

        async def streaming_response(request: Any, context: Context) -> AsyncIterator[Any]:
            fields = self._fields(request) if unary_request else {}
            with structlog.contextvars.bound_contextvars(rpc=_short(method), **fields):
                started = time.perf_counter()
                streams_open.inc()
                try:
                    if isinstance(request, Refused):
                        raise _refusal(request)
                    if not unary_request:
                        # A request stream: its first message is read here, so that bytes
                        # that are no message are refused before anything else (as a unary
                        # call's are), and every later one as the handler reads it.
                        request = await _decoded_requests(request)
                    async for response in behavior(request, context):
                        yield response
                except BaseException as exc:
                    await self._fail(exc, context, started, quiet, rec)
                    raise
                finally:
                    streams_open.dec()
                self._finished(grpc.StatusCode.OK, started, quiet, rec)

        return streaming_response

    # -- outcome ----------------------------------------------------------------------------

    def _fields(self, request: Any) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        if isinstance(request, Refused):
            return fields
        for name in self._context_fields:
            value = getattr(request, name, None)
            if isinstance(value, str):
                fields[name] = value[:_MAX_BOUND_VALUE]
            elif isinstance(value, int | float | bool):
                fields[name] = value
        return fields

    def _finished(
        self,
        code: grpc.StatusCode,
        started: float,
        quiet: bool,
        rec: RpcRecorder,
        **extra: Any,
    ) -> None:
        _finished(code, started, quiet, rec, **extra)

    async def _fail(
        self,
        exc: BaseException,
        context: Context,
        started: float,
        quiet: bool,
        rec: RpcRecorder,
    ) -> None:
        if isinstance(exc, asyncio.CancelledError):
            self._finished(grpc.StatusCode.CANCELLED, started, quiet, rec)
            raise exc
        if isinstance(exc, grpc.aio.AbortError):
            # The handler aborted by itself; the status is already set.
            self._finished(context.code() or grpc.StatusCode.UNKNOWN, started, quiet, rec)
            raise exc
        if not isinstance(exc, Exception):
            raise exc  # KeyboardInterrupt, SystemExit and the like: not an RPC outcome
        await _abort(context, _answer(exc, started, quiet, rec))


def _finished(
    code: grpc.StatusCode,
    started: float,
    quiet: bool,
    rec: RpcRecorder,
    **extra: Any,
) -> None:
    """Record one outcome (a call's, or a stream message's) and log its line."""
    elapsed = time.perf_counter() - started
    rec.observe(code, elapsed)
    level = "debug" if quiet else "info"
    if code not in _CLIENT_CODES and code is not grpc.StatusCode.OK:
        level = "warning"
    if not _stdlib_log.isEnabledFor(_LEVELS[level]):
        return  # the hot calls' debug lines: not even built when debug is off
    duration_ms = round(elapsed * 1000, 3)
    _log.log(_LEVELS[level], "rpc finished", code=code.name, duration_ms=duration_ms, **extra)


def _answer(exc: Exception, started: float, quiet: bool, rec: RpcRecorder) -> status_pb2.Status:
    """The status that answers ``exc``, recorded and logged: a :class:`ServiceError`'s own (a
    page token's as INVALID_ARGUMENT), anything else INTERNAL with an incident id (the
    traceback goes to the log, never to the caller)."""
    if isinstance(exc, PageTokenError):  # riverboat.paging is gRPC-free: its status here
        exc = InvalidArgument(exc.message, reason=exc.reason, field=exc.field)
    if isinstance(exc, ServiceError):
        reason = {"reason": exc.reason} if exc.reason else {}
        message = cap_message(exc.message)
        # The caller reads the message as is; the log gets it without cards (a refused
        # move may name one, and the log's readers must learn nothing of a hand).
        _finished(exc.code, started, quiet, rec, error=redact_cards(message), **reason)
        return exc.status(message)
    rec.observe(grpc.StatusCode.INTERNAL, time.perf_counter() - started)
    incident = uuid.uuid4().hex[:12]
    # The traceback goes to the log (plain, no local variables); the client gets the id.
    _log.error(
        "rpc failed with an unexpected error",
        code=grpc.StatusCode.INTERNAL.name,
        incident=incident,
        error_type=type(exc).__name__,
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        exc_info=exc,
    )
    internal = Internal(
        f"internal error (incident {incident})",
        reason="INTERNAL",
        metadata={"incident": incident},
    )
    return internal.status()


class MessageOutcomes:
    """The outcomes of one kind of message on a stream that answers each on its own (an
    action on ``TableService/Play``): each is recorded in the RPC metrics and logged as a
    call of its own, method ``<stream method>.<name>`` (``TableService/Play.Act``), and a
    refusal becomes the ``google.rpc.Status`` the message's answer carries, exactly as the
    :class:`ErrorInterceptor` would have sent it for a unary call.
    """

    def __init__(self, stream_method: str, name: str, *, quiet: bool = False) -> None:
        self.method = f"{stream_method}.{name}"
        self._rpc = _short(self.method)
        self._rec = rpc_recorder(self.method)
        self._quiet = quiet  # logged at debug (a hot path's lines), as the interceptor's quiet

    def accepted(self, started: float) -> None:
        """The message (handled from ``started``, a ``perf_counter``) was accepted."""
        if self._quiet and not _stdlib_log.isEnabledFor(logging.DEBUG):
            self._rec.observe(grpc.StatusCode.OK, time.perf_counter() - started)
            return  # no line to log: not even the context bound
        with structlog.contextvars.bound_contextvars(rpc=self._rpc):
            _finished(grpc.StatusCode.OK, started, self._quiet, self._rec)

    def refused(self, exc: Exception, started: float) -> status_pb2.Status:
        """The status answering a message that raised ``exc``."""
        with structlog.contextvars.bound_contextvars(rpc=self._rpc):
            return _answer(exc, started, self._quiet, self._rec)


async def refuse(context: Context, error: ServiceError, method: str, rec: RpcRecorder) -> None:
    """End a call with ``error`` as the :class:`ErrorInterceptor` would (the same status),
    for a call refused before any interceptor wrapped it (:mod:`~riverboat.services.common.
    admission`): counted in the RPC metrics and logged at debug only, as such refusals come in
    floods."""
    message = cap_message(error.message)
    rec.observe(error.code, 0.0)
    if _stdlib_log.isEnabledFor(logging.DEBUG):
        reason = {"reason": error.reason} if error.reason else {}
        _log.debug(
            "rpc finished",
            rpc=_short(method),
            code=error.code.name,
            duration_ms=0.0,
            error=redact_cards(message),
            **reason,
        )
    await _abort(context, error.status(message))


async def _abort(context: Context, status: status_pb2.Status) -> None:
    """End the call with ``status``, through grpcio-status (code, message and the details
    trailer, as ``abort_with_status`` sends them; the type stubs lack that method)."""
    sent = rpc_status.to_status(status)
    await context.abort(sent.code, sent.details, sent.trailing_metadata)


_LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40}


def _short(method: str) -> str:
    """``/riverboat.v1.DealerService/CommitHand`` -> ``DealerService/CommitHand``."""
    service, _, name = method.lstrip("/").rpartition("/")
    return f"{service.rpartition('.')[2]}/{name}" if service else method
