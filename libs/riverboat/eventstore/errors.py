"""Errors raised by event stores.

A repeated ``request_id`` is deliberately *not* an error: ``append`` answers it with the original
:class:`~riverboat.eventstore.base.AppendResult` flagged ``duplicate=True``.
"""

from __future__ import annotations

__all__ = [
    "AppendOutcomeUnknownError",
    "ConcurrencyError",
    "CorruptHistoryError",
    "EventStoreError",
    "InvalidAggregateIdError",
    "InvalidRequestIdError",
    "StoreUnavailableError",
    "StreamConfigError",
]


class EventStoreError(Exception):
    """Base class; also raised (chained) when the backing store fails or is unreachable.

    An append that fails this way may or may not have been recorded: retrying it with the same
    ``request_id`` and ``expected_version`` is safe and returns the original result if it was.
    """


class StoreUnavailableError(EventStoreError):
    """The store is not reachable (e.g. NATS is disconnected): nothing was sent, so this call
    wrote nothing. Retrying later, with the same request id, is safe."""


class AppendOutcomeUnknownError(EventStoreError):
    """An append was sent but its answer never came (a timeout, a lost connection).

    The record may be stored, or be stored later (a client may resend what it had buffered when
    it reconnects). Retry with the same ``request_id``: the store answers with the original
    result if the record landed, and writes it once if it did not. A writer holding the
    aggregate in memory must read the log again before its next decision.
    """


class ConcurrencyError(EventStoreError):
    """The aggregate is not at the version the writer expected: another writer got there first.

    Nothing was written. The caller should reload the aggregate and decide again.
    """

    def __init__(self, aggregate_id: str, expected_version: int, actual_version: int) -> None:
        self.aggregate_id = aggregate_id
        self.expected_version = expected_version
        self.actual_version = actual_version
        super().__init__(
            f"aggregate {aggregate_id!r}: expected version {expected_version}, "
            f"but it is at version {actual_version}"
        )


class InvalidAggregateIdError(EventStoreError, ValueError):
    """The aggregate id cannot be used (it must be a safe NATS subject token)."""


class InvalidRequestIdError(EventStoreError, ValueError):
    """The request id cannot be used (empty, too long, or not printable ASCII)."""


class CorruptHistoryError(EventStoreError):
    """Stored records do not form the contiguous version sequence 1, 2, 3, ... they must."""


class StreamConfigError(EventStoreError):
    """An existing stream's configuration conflicts with one that cannot be changed in place."""
