"""Refusing a call before any of it is decoded: the in-flight cap and the early rate checks.

:class:`Admission` is the outermost interceptor of every service (:class:`~riverboat.services.
common.grpcserver.GrpcServer` puts it first). It sees a call's method and metadata only, and
refuses there, so a refused call costs gRPC's own handling of a call and little more: its
request bytes are never deserialized, validated or logged at info, and none of the other
interceptors (errors, auth, limits, validation) runs for it. Two refusals are made here:

* **Overload**: at most ``max_in_flight`` unary calls are handled at once by the instance
  (``--max-in-flight``, default :data:`DEFAULT_MAX_IN_FLIGHT`); one more is refused with
  ``RESOURCE_EXHAUSTED``, reason ``OVERLOADED``, and a ``RetryInfo`` of about half a second
  (spread, so that refused clients do not all come back at once). A busy instance thus answers
  at once rather than queueing work until its callers' deadlines pass. Streams (``Watch``,
  ``Play``) are long-lived and capped per account instead; health checks, reflection and
  Riverboat's own services (role ``service``: a table's call to the dealer is part of work
  already admitted) are never refused.
* **Early checks** (``checks``): functions of the method and the metadata that may return a
  refusal, such as :meth:`~riverboat.services.common.limits.RateLimitInterceptor.early`, which
  refuses an account already over its rate from the token alone.

A refusal is answered as the :class:`~riverboat.services.common.errors.ErrorInterceptor` would
answer it (the same ``google.rpc.Status``), counted in the RPC metrics, and logged at debug
only: a flood's refusals must not become a flood of log lines.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import grpc
import grpc.aio

from riverboat.auth import Identity
from riverboat.services.common.auth import OPEN_PREFIXES
from riverboat.services.common.errors import ResourceExhausted, ServiceError, refuse
from riverboat.services.common.metrics import RpcRecorder, rpc_recorder
from riverboat.services.common.wrappers import WrapperCache

__all__ = [
    "DEFAULT_MAX_IN_FLIGHT",
    "ENV_MAX_IN_FLIGHT",
    "REASON_OVERLOADED",
    "Admission",
    "EarlyCheck",
]

Handler = Any  # grpc.RpcMethodHandler
Metadata = Any  # the call's invocation metadata: (key, value) pairs

#: A check of a call from its method and metadata alone: a refusal, or None to go on.
EarlyCheck = Callable[[str, Metadata], ServiceError | None]

#: Unary calls one instance handles at once by default: a few seconds of an instance's work
#: (a table service handles a few hundred Acts a second), so a caller waiting behind all of
#: them still has time left of a usual deadline.
DEFAULT_MAX_IN_FLIGHT = 512
ENV_MAX_IN_FLIGHT = "RIVERBOAT_MAX_IN_FLIGHT"
REASON_OVERLOADED = "OVERLOADED"
#: The retry delay of an overload refusal, in seconds: spread over this range.
OVERLOAD_RETRY = (0.25, 0.75)


class Admission(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """The in-flight cap and the early checks (see the module docstring).

    Args:
        max_in_flight: unary calls handled at once; one more is refused (``OVERLOADED``).
        checks: early checks, in order; the first refusal wins.
        open_prefixes: methods never refused (health checks, reflection).
        identify: the verified caller of a call's metadata (``AuthInterceptor.identify``): calls
            by ``exempt_roles`` are never refused for overload. Without it, none is exempt.
        exempt_roles: see ``identify``.
    """

    def __init__(
        self,
        *,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        checks: Sequence[EarlyCheck] = (),
        open_prefixes: tuple[str, ...] = OPEN_PREFIXES,
        identify: Callable[[Metadata], Identity | None] | None = None,
        exempt_roles: Sequence[str] = ("service",),
    ) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight is at least 1")
        self.max_in_flight = max_in_flight
        self.checks = list(checks)
        self._open = open_prefixes
        self._identify = identify
        self._exempt = frozenset(exempt_roles)
        self.in_flight = 0
        self._kinds: dict[str, Callable[..., Handler]] = {}  # method -> its handler's maker
        self._recorders: dict[str, RpcRecorder] = {}
        self._wrappers = WrapperCache(self._counted)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        details: grpc.HandlerCallDetails,
    ) -> Handler:
        method = details.method
        if method.startswith(self._open):
            return await continuation(details)
        handler = None
        make = self._kinds.get(method)
        if make is None:  # the method's first call: learn its kind once
            handler = await continuation(details)
            if handler is None:
                return None
            make = self._kinds[method] = _maker(handler)
        unary = make is grpc.unary_unary_rpc_method_handler
        error = self._refusal(method, details.invocation_metadata, unary=unary)
        if error is not None:
            return make(self._refuser(method, error), None, None)
        if handler is None:
            handler = await continuation(details)
            if handler is None:
                return None
        if not unary or not inspect.iscoroutinefunction(handler.unary_unary):
            return handler  # streams are not counted; nor are synchronous handlers
        return self._wrappers.get(handler, method)

    def _refusal(self, method: str, metadata: Metadata, *, unary: bool) -> ServiceError | None:
        if unary and self.in_flight >= self.max_in_flight and not self._exempted(metadata):
            return ResourceExhausted(
                f"this server is handling {self.max_in_flight} calls already, the most it "
                "takes at once; retry in a moment",
                retry_delay=random.uniform(*OVERLOAD_RETRY),
                reason=REASON_OVERLOADED,
            )
        for check in self.checks:
            error = check(method, metadata)
            if error is not None:
                return error
        return None

    def _exempted(self, metadata: Metadata) -> bool:
        if self._identify is None:
            return False
        identity = self._identify(metadata)
        return identity is not None and identity.role in self._exempt

    def _refuser(self, method: str, error: ServiceError) -> Callable[..., Awaitable[None]]:
        rec = self._recorders.get(method)
        if rec is None:
            rec = self._recorders[method] = rpc_recorder(method)

        async def refused(request: Any, context: Any) -> None:
            # The request (bytes, or a stream of them) is never read.
            await refuse(context, error, method, rec)

        return refused

    def _counted(self, handler: Handler, method: str) -> Handler:
        behavior = handler.unary_unary

        async def counted(request: Any, context: Any) -> Any:
            self.in_flight += 1
            try:
                return await behavior(request, context)
            finally:
                self.in_flight -= 1

        return grpc.unary_unary_rpc_method_handler(
            counted, handler.request_deserializer, handler.response_serializer
        )


def _maker(handler: Handler) -> Callable[..., Handler]:
    """The ``grpc.*_rpc_method_handler`` that makes a handler of ``handler``'s kind."""
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler
    return grpc.unary_unary_rpc_method_handler
