"""Each method's wrapped handler, for server interceptors that wrap handlers.

An interceptor is asked for every call's handler; gRPC hands it the same handler object for a
method each time, so the wrapper built around it the first time serves every later call. A
wrapper must therefore read whatever differs per call (metadata, the caller) from the call's
context, never capture it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

H = TypeVar("H")  # the interceptor's handler type (grpc.RpcMethodHandler)


class WrapperCache(Generic[H]):
    """Method name -> (the handler wrapped, its wrapper)."""

    def __init__(self, wrap: Callable[[H, str], H]) -> None:
        self._wrap = wrap
        self._wrapped: dict[str, tuple[H, H]] = {}

    def get(self, handler: H, method: str) -> H:
        """``handler`` wrapped for ``method``: built once, again only if gRPC's handler for
        the method is another object."""
        known = self._wrapped.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        wrapped = self._wrap(handler, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped
