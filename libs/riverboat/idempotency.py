"""Request ids: one rule for every service that takes one.

A client's request id means something only together with **who sent it**, **what kind of
command** it came with and **the command's target** (a table, a wallet). So a key is
``(caller, kind, request_id)`` inside one target, and:

* the same key with the same command (same fingerprint) answers with the original result and
  changes nothing;
* the same key with a different command is refused (ALREADY_EXISTS, reason
  :data:`REQUEST_ID_REUSED`, a message naming both commands' keys);
* another caller's, or another kind's, use of the same id is a different key: it is applied.

Services keep what they remember in their logs, so the rule survives a restart: the table
service writes :meth:`RequestKey.stored` (the key and the command's fingerprint) as each
record's request id and rebuilds its :class:`RequestMemory` by folding the log. Ids a service
forwards to another one are made with :func:`derived_id`, which keeps every part of the key.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar
from urllib.parse import quote, unquote

from google.protobuf.message import Message

__all__ = [
    "REQUEST_ID_REUSED",
    "RequestClash",
    "RequestKey",
    "RequestMemory",
    "derived_id",
    "fingerprint",
    "fingerprint_of",
]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

#: The machine-readable reason of a refused reuse (the error's ``ErrorInfo.reason``).
REQUEST_ID_REUSED = "REQUEST_ID_REUSED"

#: Stored keys must travel in a NATS header (the event store's limit on request ids).
_MAX_STORED = 256
_SEP = "/"
_FP = "#"

V = TypeVar("V")


class RequestClash(Exception):
    """A request id reused with a different command; nothing was done.

    Attributes:
        key: the key that clashed.
        message: a sentence for the caller naming the clash.
        reason: :data:`REQUEST_ID_REUSED`.
    """

    reason = REQUEST_ID_REUSED

    def __init__(self, key: RequestKey, target: str = "") -> None:
        where = f" at {target}" if target else ""
        self.key = key
        self.message = (
            f"request_id {key.request_id!r} was already used by {key.caller} for a different "
            f"{key.kind} command{where}; send a new request_id for a new command"
        )
        super().__init__(self.message)


@dataclass(frozen=True, slots=True)
class RequestKey:
    """Who asked (``caller``), for what kind of command (``kind``), with which id.

    ``caller`` is the authenticated identity (a player id, ``operator:<name>``,
    ``service:<name>``, ``clock``), never a request field.
    """

    kind: str
    caller: str
    request_id: str

    def stored(self, fingerprint: str = "") -> str:
        """The key and the command's fingerprint as one header-safe string (printable ASCII,
        no spaces, at most 256 characters): ``kind/caller/request_id#fingerprint``."""
        caller = quote(self.caller, safe=":-_.")
        text = f"{self.kind}{_SEP}{caller}{_SEP}{self.request_id}{_FP}{fingerprint}"
        if len(text) > _MAX_STORED:  # only for absurdly long callers: keep it unambiguous
            caller = "h_" + _digest(self.caller)[:32]
            text = f"{self.kind}{_SEP}{caller}{_SEP}{self.request_id}{_FP}{fingerprint}"
        return text

    @classmethod
    def parse(cls, stored: str) -> tuple[RequestKey, str] | None:
        """The key and fingerprint :meth:`stored` wrote, or None for another kind of id (a
        record written before keys were scoped)."""
        head, sep, fp = stored.rpartition(_FP)
        parts = head.split(_SEP, 2)
        if not sep or len(parts) != 3:
            return None
        kind, caller, request_id = parts
        return cls(kind, unquote(caller), request_id), fp


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint_of(parts: Iterable[object]) -> str:
    """A short fingerprint of a command given as its parts (``repr`` of each, in order)."""
    return _digest("\x1f".join(repr(p) for p in parts))[:16]


def fingerprint(message: Message, *, ignore: Iterable[str] = ("request_id",)) -> str:
    """A short fingerprint of a request message, leaving out ``ignore`` (its request id):
    two requests have the same one exactly when they ask for the same thing."""
    copy = type(message)()
    copy.CopyFrom(message)
    for name in ignore:
        copy.ClearField(name)
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).hexdigest()[:16]


def derived_id(prefix: str, *parts: str, readable: str = "") -> str:
    """An id for a request a service forwards on a caller's behalf: ``prefix-[readable-]``
    and a digest of every part, so two different keys never give the same id (ids allow
    ``-`` inside their parts, so joining them as they are could). At most 64 characters of
    letters, digits, ``-`` and ``_`` for a ``prefix`` of those of up to 14 (``readable`` is
    cut to 24 and anything else in it becomes ``_``)."""
    digest = _digest("\x1f".join(parts))[:24]
    # The label is for people reading logs; the digest alone tells keys apart.
    label = f"{_UNSAFE.sub('_', readable[:24])}-" if readable else ""
    return f"{prefix}-{label}{digest}"


class RequestMemory(Generic[V]):
    """Remembered keys of one target, each with its command's fingerprint and a result.

    Bounded: the oldest keys are forgotten first beyond ``size``.
    """

    def __init__(self, size: int = 50_000) -> None:
        self._size = size
        self._known: OrderedDict[RequestKey, tuple[str, V]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._known)

    def recall(self, key: RequestKey, fp: str, target: str = "") -> V | None:
        """The original result for ``key`` with the same fingerprint, None if ``key`` is new.

        Raises:
            RequestClash: ``key`` was used for a different command.
        """
        known = self._known.get(key)
        if known is None:
            return None
        if known[0] != fp:
            raise RequestClash(key, target)
        return known[1]

    def remember(self, key: RequestKey, fp: str, value: V) -> None:
        """Remember ``key``'s command and result (the first one wins: the log's order)."""
        if key in self._known:
            return
        self._known[key] = (fp, value)
        if len(self._known) > self._size:
            self._known.popitem(last=False)
