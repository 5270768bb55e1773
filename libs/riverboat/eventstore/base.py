"""The event-store port: append and read one aggregate's records.

Model:

* An *aggregate* (e.g. one table) has a history of *records*, versions ``1, 2, 3, ...``.
* One record per accepted command. Its payload is opaque bytes holding every event that command
  caused (a higher layer encodes them), so a command's events are stored atomically.
* ``append`` takes the version the writer based its decision on (``expected_version``, ``0`` for
  a new aggregate). If the aggregate has moved on, :class:`ConcurrencyError` is raised and nothing
  is written (optimistic concurrency).
* ``request_id`` makes appends idempotent per aggregate: appending again with a request id that is
  already recorded for that aggregate writes nothing and returns the *original* result with
  ``duplicate=True``, whatever the payload of the repeat. Request ids are scoped to the aggregate.
  See each implementation for how far back repeats are recognised.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

from riverboat.eventstore.errors import InvalidAggregateIdError, InvalidRequestIdError

__all__ = [
    "MAX_AGGREGATE_ID_LENGTH",
    "MAX_REQUEST_ID_LENGTH",
    "AppendResult",
    "EventStore",
    "StoredRecord",
    "validate_aggregate_id",
    "validate_expected_version",
    "validate_from_version",
    "validate_request_id",
]

MAX_AGGREGATE_ID_LENGTH = 128
MAX_REQUEST_ID_LENGTH = 256

# One NATS subject token with no wildcard, separator or whitespace: the id becomes a subject.
_AGGREGATE_ID_RE = re.compile(r"[A-Za-z0-9_-]+")
# Printable ASCII without spaces: the id travels in NATS headers.
_REQUEST_ID_RE = re.compile(r"[!-~]+")


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Outcome of an append.

    Attributes:
        aggregate_id: the aggregate appended to.
        version: the record's version within the aggregate (1-based).
        stream_sequence: position in the store's global order (JetStream stream sequence).
        request_id: the request id the record was written with.
        duplicate: ``True`` when this request id was already recorded; the other fields then
            describe the original record and nothing new was written.
    """

    aggregate_id: str
    version: int
    stream_sequence: int
    request_id: str
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One stored record: the events of one accepted command, as opaque bytes.

    Attributes:
        aggregate_id: the aggregate it belongs to.
        version: 1-based version within the aggregate.
        payload: the encoded events.
        request_id: the request id it was appended with.
        stream_sequence: position in the store's global order.
        recorded_at: when the store accepted it (UTC).
    """

    aggregate_id: str
    version: int
    payload: bytes
    request_id: str
    stream_sequence: int
    recorded_at: datetime


class EventStore(ABC):
    """Append-only, per-aggregate record storage with optimistic concurrency and idempotency."""

    @abstractmethod
    async def append(
        self,
        aggregate_id: str,
        payload: bytes,
        *,
        expected_version: int,
        request_id: str,
    ) -> AppendResult:
        """Append one record at version ``expected_version + 1``.

        Args:
            aggregate_id: target aggregate (a safe NATS token: ``[A-Za-z0-9_-]``, <= 128 chars).
            payload: the encoded events of one command.
            expected_version: the aggregate's current last version as the writer knows it
                (``0`` for an aggregate with no records yet).
            request_id: idempotency key (printable ASCII, no spaces, <= 256 chars).

        Returns:
            The new record's position, or the original one with ``duplicate=True``.

        Raises:
            ConcurrencyError: the aggregate is not at ``expected_version``; nothing was written.
            InvalidAggregateIdError, InvalidRequestIdError, ValueError: bad arguments.
            EventStoreError: the store failed (retrying with the same request id is safe).
        """

    @abstractmethod
    def iter_records(self, aggregate_id: str, from_version: int = 1) -> AsyncIterator[StoredRecord]:
        """Yield the aggregate's records in version order, starting at ``from_version``.

        Streams in pages, so memory stays bounded for long histories. Records appended while
        iterating may or may not be included. To stop early and release the read's resources at
        once, wrap the iterator in :func:`contextlib.aclosing`.
        """

    @abstractmethod
    async def last_version(self, aggregate_id: str) -> int:
        """The aggregate's last version (``0`` if it has no records)."""

    async def read(self, aggregate_id: str, from_version: int = 1) -> list[StoredRecord]:
        """All records from ``from_version`` on, in version order (empty if there are none)."""
        return [record async for record in self.iter_records(aggregate_id, from_version)]


def validate_aggregate_id(aggregate_id: str) -> str:
    """Return ``aggregate_id`` if it is a safe NATS subject token, else raise."""
    if (
        not isinstance(aggregate_id, str)
        or len(aggregate_id) > MAX_AGGREGATE_ID_LENGTH
        or _AGGREGATE_ID_RE.fullmatch(aggregate_id) is None
    ):
        raise InvalidAggregateIdError(
            f"invalid aggregate id {aggregate_id!r}: use 1-{MAX_AGGREGATE_ID_LENGTH} characters "
            "from A-Z a-z 0-9 _ -"
        )
    return aggregate_id


def validate_request_id(request_id: str) -> str:
    """Return ``request_id`` if it can travel in a header, else raise."""
    if (
        not isinstance(request_id, str)
        or len(request_id) > MAX_REQUEST_ID_LENGTH
        or _REQUEST_ID_RE.fullmatch(request_id) is None
    ):
        raise InvalidRequestIdError(
            f"invalid request id {request_id!r}: use 1-{MAX_REQUEST_ID_LENGTH} printable ASCII "
            "characters without spaces"
        )
    return request_id


def validate_expected_version(expected_version: int) -> int:
    """Return ``expected_version`` if it is an int >= 0, else raise ``ValueError``."""
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise TypeError(f"expected_version must be an int, got {type(expected_version).__name__}")
    if expected_version < 0:
        raise ValueError(f"expected_version must be >= 0, got {expected_version}")
    return expected_version


def validate_from_version(from_version: int) -> int:
    """Return ``from_version`` if it is an int >= 1, else raise ``ValueError``."""
    if isinstance(from_version, bool) or not isinstance(from_version, int):
        raise TypeError(f"from_version must be an int, got {type(from_version).__name__}")
    if from_version < 1:
        raise ValueError(f"from_version must be >= 1 (versions are 1-based), got {from_version}")
    return from_version
