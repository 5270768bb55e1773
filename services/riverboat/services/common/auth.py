"""Bearer-token checks for every RPC of every service.

:class:`AuthInterceptor` reads ``authorization: Bearer <token>`` from the call metadata,
verifies it (:class:`riverboat.auth.TokenIssuer`) and checks the method's allowed roles:
``UNAUTHENTICATED`` without a valid token (reason ``TOKEN_MISSING`` or ``TOKEN_INVALID``),
``PERMISSION_DENIED`` for the wrong role (``ROLE_NOT_ALLOWED``), raised as
:class:`~riverboat.services.common.errors.ServiceError` for the ``ErrorInterceptor`` outside it
to send. The
verified identity is available to the handler through :func:`current_identity`. Health checks
and reflection stay open, as load balancers and grpcurl need them.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator, Mapping
from typing import Any

import grpc
import grpc.aio

from riverboat.auth import Identity, TokenError, TokenIssuer
from riverboat.services.common.errors import PermissionDenied, Unauthenticated
from riverboat.services.common.wrappers import WrapperCache

Handler = Any  # grpc.RpcMethodHandler; the stubs' generics add nothing here
Context = Any

_IDENTITY: contextvars.ContextVar[Identity | None] = contextvars.ContextVar(
    "riverboat_identity", default=None
)
OPEN_PREFIXES = ("/grpc.health.", "/grpc.reflection.")
ANY_ROLE: frozenset[str] = frozenset({"player", "operator", "auditor", "service"})


def current_identity() -> Identity:
    """The caller of the RPC being handled (set by :class:`AuthInterceptor`)."""
    identity = _IDENTITY.get()
    if identity is None:
        raise RuntimeError("no authenticated caller in this context")
    return identity


def current_caller() -> str:
    """The caller of the RPC being handled as ``role:subject`` (:attr:`Identity.caller`): the
    actor the logs record and the scope of request ids."""
    return current_identity().caller


@contextlib.contextmanager
def acting_as(identity: Identity) -> Iterator[Identity]:
    """Handle calls as ``identity`` without a token check, as if :class:`AuthInterceptor` had
    verified it: for in-process callers of a servicer (the service benchmark)."""
    token = _IDENTITY.set(identity)
    try:
        yield identity
    finally:
        _IDENTITY.reset(token)


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying ``token``."""
    return (("authorization", f"Bearer {token}"),)


class AuthInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Token and role checks. ``rules`` maps a method name (``"Act"``) to the roles allowed to
    call it; methods not listed accept any valid token."""

    def __init__(
        self,
        issuer: TokenIssuer,
        rules: Mapping[str, Collection[str]] | None = None,
        *,
        open_prefixes: tuple[str, ...] = OPEN_PREFIXES,
    ) -> None:
        self._issuer = issuer
        self._rules = {name: frozenset(roles) for name, roles in (rules or {}).items()}
        self._open = open_prefixes
        # Verified tokens, until they expire: an HS256 check on every call of a busy table
        # costs more than the lookup. Bounded; cleared when full.
        self._verified: dict[str, Identity] = {}
        # The wrapper reads each call's token itself, so it is built once per method.
        self._wrappers = WrapperCache(self._wrap)

    def _verify(self, token: str) -> Identity:
        identity = self._verified.get(token)
        if identity is not None and identity.expires_at > time.time():
            return identity
        identity = self._issuer.verify(token)
        if len(self._verified) >= 10_000:
            self._verified.clear()
        self._verified[token] = identity
        return identity

    def identify(self, metadata: Any) -> Identity | None:
        """The caller a call's metadata names with a valid token, else None; no role check
        (for refusing early, :mod:`~riverboat.services.common.admission`: the call itself
        still passes this interceptor, which refuses a bad token properly)."""
        token = _bearer_token(metadata or ())
        if token is None:
            return None
        try:
            return self._verify(token)
        except TokenError:
            return None

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(details)
        method = details.method
        if handler is None or method.startswith(self._open):
            return handler
        return self._wrappers.get(handler, method)

    def _wrap(self, handler: Handler, method: str) -> Handler:
        check = self._checker(method)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                _unary(handler.unary_unary, check),
                handler.request_deserializer,
                handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _streaming(handler.unary_stream, check),
                handler.request_deserializer,
                handler.response_serializer,
            )
        if handler.stream_stream is not None:
            return grpc.stream_stream_rpc_method_handler(
                _streaming(handler.stream_stream, check),
                handler.request_deserializer,
                handler.response_serializer,
            )
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                _unary(handler.stream_unary, check),
                handler.request_deserializer,
                handler.response_serializer,
            )
        # Fail closed: a handler of a shape not wrapped here would skip the token check.
        raise TypeError(f"{method}: no token check for this kind of handler")

    def _checker(self, method: str) -> Callable[[Context], Awaitable[Identity]]:
        name = method.rsplit("/", 1)[-1]
        allowed = self._rules.get(name, ANY_ROLE)

        async def check(context: Context) -> Identity:
            token = _bearer_token(context.invocation_metadata() or ())
            if token is None:
                raise Unauthenticated(
                    "log in first: send 'authorization: Bearer <token>' in the call metadata",
                    reason="TOKEN_MISSING",
                )
            try:
                identity = self._verify(token)
            except TokenError as exc:
                raise Unauthenticated(str(exc), reason="TOKEN_INVALID") from None
            if identity.role not in allowed:
                # Raised, not aborted: the ErrorInterceptor in front of every service sends
                # it with its machine-readable reason (a client tells it from other refusals).
                raise PermissionDenied(
                    f"{name} is for {' or '.join(sorted(allowed))}, not "
                    f"{'an' if identity.role[:1] in tuple('aeiou') else 'a'} {identity.role}",
                    reason="ROLE_NOT_ALLOWED",
                    metadata={"role": identity.role, "allowed": ",".join(sorted(allowed))},
                )
            return identity

        return check


def _bearer_token(metadata: Any) -> str | None:
    """The token of the call's ``authorization: Bearer <token>`` entry (the last one wins)."""
    token = None
    for key, value in metadata:
        if key == "authorization":
            text = value if isinstance(value, str) else value.decode()
            scheme, _, rest = text.partition(" ")
            if scheme.lower() == "bearer" and rest.strip():
                token = rest.strip()
    return token


def _unary(behavior: Any, check: Callable[[Context], Awaitable[Identity]]) -> Any:
    async def wrapped(request: Any, context: Context) -> Any:
        identity = await check(context)
        token = _IDENTITY.set(identity)
        try:
            result = behavior(request, context)
            return await result if inspect.isawaitable(result) else result
        finally:
            _IDENTITY.reset(token)

    return wrapped


def _streaming(behavior: Any, check: Callable[[Context], Awaitable[Identity]]) -> Any:
    async def wrapped(request: Any, context: Context) -> AsyncIterator[Any]:
        identity = await check(context)
        token = _IDENTITY.set(identity)
        try:
            async for item in behavior(request, context):
                yield item
        finally:
            # A stream may be finalised from another context; the variable dies with it anyway.
            with contextlib.suppress(ValueError):
                _IDENTITY.reset(token)

    return wrapped
