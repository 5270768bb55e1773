"""The lease port: which table-service instance holds each table, for a limited time.

Model:

* A *lease* is held on a *key* (a table id) by a *holder*: an instance id and the address it
  advertises. It lasts :attr:`LeaseStore.ttl` seconds from its last write unless renewed.
* Every write gives the key a new *revision*. :meth:`LeaseStore.renew` and
  :meth:`LeaseStore.release` name the revision the holder last saw: if the lease expired or
  someone else took it meanwhile, the write is refused (:class:`LeaseLost`) and nothing changes.
  That revision check is what makes two holders at once impossible.
* :meth:`LeaseStore.create` succeeds only while nobody holds the key (never held, released, or
  expired); otherwise :class:`LeaseTaken` names the current lease.
* :meth:`LeaseStore.watch` reports every lease held when it starts, then every change (a lease
  taken or renewed, or gone: released or expired).

The stored value is JSON ``{"instance": ..., "address": ...}`` (the readers' contract: the lobby
reads owners through this package).
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import TracebackType
from typing import Self

__all__ = [
    "Holder",
    "Lease",
    "LeaseChange",
    "LeaseError",
    "LeaseLost",
    "LeaseStore",
    "LeaseStoreUnavailable",
    "LeaseTaken",
    "LeaseWatch",
    "validate_key",
]

# A table id (one NATS subject token): the key becomes a subject.
_KEY_RE = re.compile(r"[A-Za-z0-9_-]{1,128}")


def validate_key(key: str) -> None:
    """Raise :class:`ValueError` unless ``key`` can name a lease (a table id)."""
    if not isinstance(key, str) or _KEY_RE.fullmatch(key) is None:
        raise ValueError(f"invalid lease key {key!r}")


class LeaseError(Exception):
    """Base class of lease errors."""


class LeaseTaken(LeaseError):
    """``create``: the key is held already (``current`` is that lease, None if it vanished
    while we looked)."""

    def __init__(self, key: str, current: Lease | None) -> None:
        holder = current.holder.instance if current else "another instance"
        super().__init__(f"lease {key} is held by {holder}")
        self.key = key
        self.current = current


class LeaseLost(LeaseError):
    """``renew``/``release``: the lease is no longer the one named (it expired, or another
    holder took it). Nothing was written."""

    def __init__(self, key: str) -> None:
        super().__init__(f"lease {key} was lost")
        self.key = key


class LeaseStoreUnavailable(LeaseError):
    """The store could not be reached; the call's outcome is unknown for writes (read again)."""


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a lease: an instance id and the gRPC address clients reach it at."""

    instance: str
    address: str

    def encode(self) -> bytes:
        """The stored value (JSON, as the readers' contract says)."""
        return json.dumps(
            {"instance": self.instance, "address": self.address}, separators=(",", ":")
        ).encode()

    @classmethod
    def decode(cls, data: bytes) -> Holder:
        """Read a stored value; a malformed one reads as an unknown holder (it still holds)."""
        try:
            raw = json.loads(data)
            return cls(str(raw["instance"]), str(raw.get("address", "")))
        except (ValueError, KeyError, TypeError):
            return cls("", "")


@dataclass(frozen=True, slots=True)
class Lease:
    """A lease as last written: ``revision`` is what renew and release must name."""

    key: str
    holder: Holder
    revision: int


@dataclass(frozen=True, slots=True)
class LeaseChange:
    """One change a watch reports: ``lease`` is None when the key was released or expired."""

    key: str
    lease: Lease | None


class LeaseWatch(ABC):
    """An async iterator of :class:`LeaseChange`; :meth:`close` ends it (use ``async with``)."""

    def __aiter__(self) -> Self:
        return self

    @abstractmethod
    async def __anext__(self) -> LeaseChange: ...

    @abstractmethod
    async def close(self) -> None:
        """Stop watching; iteration then ends."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


class LeaseStore(ABC):
    """Leases with a time to live and revision-checked writes (see the module docstring)."""

    #: Seconds a lease lasts after its last write.
    ttl: float

    @abstractmethod
    async def create(self, key: str, holder: Holder) -> Lease:
        """Take the key if nobody holds it.

        Raises:
            LeaseTaken: someone holds it.
            LeaseStoreUnavailable: the store could not be reached.
        """

    @abstractmethod
    async def renew(self, lease: Lease) -> Lease:
        """Extend ``lease`` by the TTL from now (the holder stays the same).

        Raises:
            LeaseLost: it expired or changed hands since ``lease.revision``.
            LeaseStoreUnavailable: the store could not be reached.
        """

    @abstractmethod
    async def transfer(self, lease: Lease, holder: Holder) -> Lease:
        """Hand ``lease`` to ``holder`` in one revision-checked write (no moment unowned).

        Raises:
            LeaseLost: it expired or changed hands since ``lease.revision``.
            LeaseStoreUnavailable: the store could not be reached.
        """

    @abstractmethod
    async def release(self, lease: Lease) -> None:
        """Give the key up now, so another holder need not wait for the TTL.

        Raises:
            LeaseLost: it was no longer ``lease`` (nothing written).
            LeaseStoreUnavailable: the store could not be reached.
        """

    @abstractmethod
    async def get(self, key: str) -> Lease | None:
        """The lease on ``key``, or None if nobody holds it."""

    @abstractmethod
    async def all(self) -> dict[str, Lease]:
        """Every lease held now, by key."""

    @abstractmethod
    async def watch(self) -> LeaseWatch:
        """Every lease held now (one change each), then every change as it happens."""
