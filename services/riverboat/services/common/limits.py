"""Rate limits per account and per peer, and a cap on each account's open streams.

:class:`RateLimitInterceptor` is the one place any service limits its callers. For each limited
method (``Register``, ``Login``, ``Act``, ``Watch``) it keeps two sets of token buckets
(:class:`riverboat.ratelimit.RateLimiter`): one per account and one per peer address. A call
over either limit is refused before its handler runs with ``RESOURCE_EXHAUSTED``, reason
``RATE_LIMITED`` and the seconds to wait (:class:`ResourceExhausted`: a
``google.rpc.RetryInfo``); a refused call spends no tokens. Streaming methods also count each
account's open streams against ``max_streams`` (reason ``TOO_MANY_STREAMS``).

The account is the verified caller (the interceptor runs inside :class:`AuthInterceptor`), or
for the open methods the account named in the request (``username``): guessing one account's
password from many addresses is limited as much as flooding from one. The peer is the caller's
IP address without the port, so new connections do not buy new tokens. Riverboat's own
services (role ``service``) are not limited: they act for many players at once.

A flood must cost far less to refuse than to serve, so an account already over its rate is
refused earlier still: :meth:`RateLimitInterceptor.early`, run by the outermost
:class:`~riverboat.services.common.admission.Admission`, judges it from the method and the
token alone, before the request is decoded or any other interceptor runs. Only the account's
bucket is read there (the peer is not known before the call starts, nor is the account of
``Register`` and ``Login``, which is in the request); a call it lets through is judged here as
before.

Limits are configuration (``--rate-limit METHOD.SCOPE=RATE``, repeatable, over
``RIVERBOAT_RATE_LIMITS``, over :data:`DEFAULT_RATES`), for example ``Login.peer=30/min`` or
``Act.account=off``.
"""

from __future__ import annotations

import contextvars
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio

from riverboat.auth import Identity
from riverboat.ratelimit import ConcurrencyLimiter, Rate, RateLimiter, parse_rate
from riverboat.services.common.auth import OPEN_PREFIXES, current_identity
from riverboat.services.common.errors import ResourceExhausted, ServiceError
from riverboat.services.common.wrappers import WrapperCache

__all__ = [
    "DEFAULT_MAX_STREAMS",
    "DEFAULT_RATES",
    "ENV_RATE_LIMITS",
    "MESSAGE_RATES",
    "RATES_OF",
    "SCOPES",
    "RateLimitInterceptor",
    "RateLimits",
    "admit_message",
]

Handler = Any  # grpc.RpcMethodHandler
Context = Any

SCOPES = ("account", "peer")
ENV_RATE_LIMITS = "RIVERBOAT_RATE_LIMITS"

#: Generous defaults: a person or a bot never meets them, a flood does. Register and Login run
#: a 64 MiB Argon2 hash each; Act and Watch are the table's hot path (the room bench drives
#: 1,000 tables, 4,000 Watch streams, from one address).
DEFAULT_RATES: Mapping[str, str] = {
    "Register.account": "5/min",
    "Register.peer": "120/min",
    "Login.account": "30/min",
    "Login.peer": "300/min",
    "Act.account": "50/s",
    "Act.peer": "5000/s",
    "Watch.account": "120/min",
    "Watch.peer": "20000/min",
}
#: Open streams (Watch) one account may hold at once.
DEFAULT_MAX_STREAMS = 32
#: Retry delay sent with TOO_MANY_STREAMS: a stream ends when its watcher leaves, not on a clock.
STREAM_RETRY_DELAY = 5.0
#: Methods limited by another method's rates: opening a Play stream counts as opening a Watch
#: (each action on it counts as an Act: :func:`admit_message`).
RATES_OF: Mapping[str, str] = {"Play": "Watch"}

#: The request field that names the account of an unauthenticated call.
ACCOUNT_FIELDS: Mapping[str, str] = {"Register": "username", "Login": "username"}


@dataclass(frozen=True)
class RateLimits:
    """Every method's per-account and per-peer :class:`Rate` (None: unlimited) and the cap on
    one account's open streams."""

    rates: Mapping[str, Rate | None] = field(
        default_factory=lambda: {key: parse_rate(text) for key, text in DEFAULT_RATES.items()}
    )
    max_streams: int = DEFAULT_MAX_STREAMS

    @classmethod
    def parse(
        cls, specs: Iterable[str] = (), *, max_streams: int = DEFAULT_MAX_STREAMS
    ) -> RateLimits:
        """:data:`DEFAULT_RATES` overridden by ``specs`` in order (``"Login.peer=30/min"``;
        each may hold several, comma-separated).

        Raises:
            ValueError: a spec is malformed (the message names it).
        """
        if max_streams < 1:
            raise ValueError("the stream cap is at least 1")
        rates = {key: parse_rate(text) for key, text in DEFAULT_RATES.items()}
        for spec in specs:
            for item in filter(None, (part.strip() for part in spec.split(","))):
                key, equals, text = item.partition("=")
                method, _, scope = key.strip().partition(".")
                if not equals or not method or scope not in SCOPES:
                    raise ValueError(
                        f"rate limit {item!r}: write METHOD.SCOPE=RATE, SCOPE account or peer "
                        "(for example Login.peer=30/min or Act.account=off)"
                    )
                try:
                    rates[f"{method}.{scope}"] = parse_rate(text)
                except ValueError as exc:
                    raise ValueError(f"rate limit {item!r}: {exc}") from None
        return cls(rates, max_streams)

    @classmethod
    def from_settings(
        cls, env: Mapping[str, str], flags: Iterable[str] = (), *, max_streams: int | None = None
    ) -> RateLimits:
        """The services' idiom: flags over ``RIVERBOAT_RATE_LIMITS`` over the defaults."""
        return cls.parse(
            [env.get(ENV_RATE_LIMITS, ""), *flags],
            max_streams=DEFAULT_MAX_STREAMS if max_streams is None else max_streams,
        )

    def rate(self, method: str, scope: str) -> Rate | None:
        """The limit of ``method`` (``"Login"``) per ``scope`` (``"account"`` or ``"peer"``)."""
        return self.rates.get(f"{method}.{scope}")

    def describe(self) -> str:
        """One line for the start-up log."""
        return ", ".join(f"{key}={rate or 'off'}" for key, rate in sorted(self.rates.items()))


@functools.lru_cache(maxsize=4096)
def peer_address(peer: str) -> str:
    """``ipv4:127.0.0.1:5000`` -> ``ipv4:127.0.0.1``; ``ipv6:[::1]:5000`` -> ``ipv6:[::1]``."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        host, colon, port = rest.rpartition(":")
        if colon and port.isdigit():
            return f"{kind}:{host}"
    return peer


class RateLimitInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Refuses calls over their rate (per account, per peer) and streams over the cap.

    Installed inside :class:`~riverboat.services.common.errors.ErrorInterceptor` (which sends
    its refusals) and :class:`~riverboat.services.common.auth.AuthInterceptor` (whose verified
    caller is the account).

    Args:
        limits: the rates and the stream cap.
        streaming: methods whose open streams count against ``limits.max_streams``.
        clock: monotonic seconds (a fake one in unit tests).
        open_prefixes: methods never limited (health checks, reflection).
        exempt_roles: callers never limited.
        identify: the verified caller of a call's metadata (``AuthInterceptor.identify``), for
            :meth:`early`; without it :meth:`early` refuses nothing.
    """

    def __init__(
        self,
        limits: RateLimits,
        *,
        streaming: Iterable[str] = ("Watch", "Play"),
        clock: Callable[[], float] = time.monotonic,
        open_prefixes: tuple[str, ...] = OPEN_PREFIXES,
        exempt_roles: Iterable[str] = ("service",),
        identify: Callable[[Any], Identity | None] | None = None,
    ) -> None:
        self.limits = limits
        self._clock = clock
        self._open = open_prefixes
        self._exempt = frozenset(exempt_roles)
        self._streaming = frozenset(streaming)
        self._buckets: dict[str, RateLimiter] = {
            key: RateLimiter(rate) for key, rate in limits.rates.items() if rate is not None
        }
        self.streams = ConcurrencyLimiter(limits.max_streams)
        self._identify = identify
        self._early: dict[str, _Gate | None] = {}  # method -> its gate, if checked early
        self._limited: dict[str, bool] = {}  # method -> whether it has any limit
        self._wrappers = WrapperCache(self._wrap)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(details)
        method = details.method
        if handler is None:
            return handler
        limited = self._limited.get(method)
        if limited is None:
            name = method.rsplit("/", 1)[-1]
            limit = RATES_OF.get(name, name)
            limited = self._limited[method] = not method.startswith(self._open) and (
                name in self._streaming
                or any(f"{limit}.{scope}" in self._buckets for scope in SCOPES)
            )
        if not limited:
            return handler  # not limited: no wrapper, no cost
        return self._wrappers.get(handler, method)

    def early(self, method: str, metadata: Any) -> ServiceError | None:
        """The refusal of a call whose account is over its rate already, judged from the
        method and the token in ``metadata`` alone, before anything of the call is decoded (an
        :data:`~riverboat.services.common.admission.EarlyCheck`); None to let it go on, to be
        admitted (tokens spent) or refused by the interceptor as usual. Spends nothing."""
        if method not in self._early:
            name = method.rsplit("/", 1)[-1]
            limit = RATES_OF.get(name, name)
            checked = (
                self._identify is not None
                and not method.startswith(self._open)
                and name not in ACCOUNT_FIELDS  # the account is in the request: decoded later
                and f"{limit}.account" in self._buckets
            )
            self._early[method] = _Gate(self, name) if checked else None
        gate = self._early[method]
        if gate is None or self._identify is None:
            return None
        identity = self._identify(metadata)
        if identity is None or identity.role in self._exempt:
            return None
        return gate.over_account(identity.caller)

    def _wrap(self, handler: Handler, method: str) -> Handler:
        gate = _Gate(self, method.rsplit("/", 1)[-1])
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, gate),
                handler.request_deserializer,
                handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, gate),
                handler.request_deserializer,
                handler.response_serializer,
            )
        if handler.stream_stream is not None:
            return grpc.stream_stream_rpc_method_handler(
                self._stream(handler.stream_stream, gate, messages=True),
                handler.request_deserializer,
                handler.response_serializer,
            )
        return handler

    def _unary(self, behavior: Any, gate: _Gate) -> Any:
        async def limited(request: Any, context: Context) -> Any:
            exempt, account = gate.account(request)
            if not exempt:
                gate.admit(account, context)
            return await behavior(request, context)

        return limited

    def _stream(self, behavior: Any, gate: _Gate, *, messages: bool = False) -> Any:
        """A streaming method's wrapper; with ``messages`` (a request stream) the handler may
        also limit each message it answers on its own (:func:`admit_message`)."""
        capped = gate.name in self._streaming
        streams = self.streams
        gates = {name: _Gate(self, name) for name in MESSAGE_RATES} if messages else {}

        async def limited(request: Any, context: Context) -> AsyncIterator[Any]:
            exempt, account = gate.account(None if messages else request)
            if exempt:
                async for item in behavior(request, context):
                    yield item
                return
            if gates:
                # Bound before the handler starts, so tasks it starts inherit it (gRPC runs
                # each call in a task of its own: nothing to unbind).
                _MESSAGE_GATE.set(_MessageGate(gates, account, context))
            if capped and account is not None and streams.held(account) >= streams.limit:
                raise ResourceExhausted(
                    f"this account has {streams.limit} {gate.name} streams open already, the "
                    "most allowed; close one first",
                    retry_delay=STREAM_RETRY_DELAY,
                    reason="TOO_MANY_STREAMS",
                )
            gate.admit(account, context)
            if not capped or account is None:
                async for item in behavior(request, context):
                    yield item
                return
            streams.acquire(account)
            try:
                async for item in behavior(request, context):
                    yield item
            finally:
                streams.release(account)

        return limited


#: What the messages of a request stream may be limited as (:func:`admit_message`).
MESSAGE_RATES = ("Act",)


class _MessageGate:
    """One stream's caller and the gates its messages pass."""

    def __init__(self, gates: Mapping[str, _Gate], account: str | None, context: Context) -> None:
        self._gates = gates
        self._account = account
        self._context = context

    def admit(self, name: str) -> None:
        self._gates[name].admit(self._account, self._context)


_MESSAGE_GATE: contextvars.ContextVar[_MessageGate | None] = contextvars.ContextVar(
    "riverboat_message_gate", default=None
)


def admit_message(name: str) -> None:
    """Count one message of the current request stream (an action on ``Play``) against the
    rates of the unary method ``name`` (``"Act"``, one of :data:`MESSAGE_RATES`) for the
    stream's caller and peer, as if it were a call of its own.

    Raises:
        ResourceExhausted: over either rate (reason ``RATE_LIMITED``, with the delay); nothing
            is spent. Unlimited callers (services) and streams without a
            :class:`RateLimitInterceptor` always pass.
    """
    gate = _MESSAGE_GATE.get()
    if gate is not None:
        gate.admit(name)


class _Gate:
    """One method's limits, looked up once: the wrapper of every call of it uses this."""

    def __init__(self, interceptor: RateLimitInterceptor, name: str) -> None:
        self.name = name
        self._clock = interceptor._clock
        self._exempt = interceptor._exempt
        self._field = ACCOUNT_FIELDS.get(name)
        limit = RATES_OF.get(name, name)  # a Play stream opens as a Watch does
        self._account = interceptor._buckets.get(f"{limit}.account")
        self._peer = interceptor._buckets.get(f"{limit}.peer")
        self._text = {
            scope: str(interceptor.limits.rate(limit, scope) or "off") for scope in SCOPES
        }

    def account(self, request: Any) -> tuple[bool, str | None]:
        """Whether the caller is exempt, and the account the call counts against (None when
        unknown: only the peer is limited)."""
        if self._field is not None:
            value = getattr(request, self._field, "")
            return False, (f"name:{value[:64]}" if isinstance(value, str) else None)
        try:
            identity = current_identity()
        except RuntimeError:  # no AuthInterceptor in front: only the peer is known
            return False, None
        if identity.role in self._exempt:
            return True, None
        return False, identity.caller

    def admit(self, account: str | None, context: Context) -> None:
        """Spend a token of the account's and of the peer's bucket, or refuse (spending none)."""
        now = self._clock()
        # (A RateLimiter has a length, its number of keys: test it against None, not for truth.)
        by_account = self._account if account is not None else None
        by_peer = self._peer
        peer = peer_address(context.peer() or "") if by_peer is not None else None
        wait_account = by_account.wait(account, now) if by_account is not None else 0.0
        wait_peer = by_peer.wait(peer, now) if by_peer is not None else 0.0
        if wait_account > 0 or wait_peer > 0:
            scope = "account" if wait_account >= wait_peer else "peer"
            raise self._refusal(scope, max(wait_account, wait_peer))
        if by_account is not None:
            by_account.take(account, now)
        if by_peer is not None:
            by_peer.take(peer, now)

    def over_account(self, account: str) -> ResourceExhausted | None:
        """The refusal of a call by ``account`` if its bucket is empty now (nothing spent)."""
        if self._account is None:
            return None
        wait = self._account.wait(account, self._clock())
        return self._refusal("account", wait) if wait > 0 else None

    def _refusal(self, scope: str, delay: float) -> ResourceExhausted:
        who = "this account" if scope == "account" else "your address"
        return ResourceExhausted(
            f"too many {self.name} calls from {who} (at most {self._text[scope]}); "
            f"retry in {delay:.1f} s",
            retry_delay=delay,
            reason="RATE_LIMITED",
        )
