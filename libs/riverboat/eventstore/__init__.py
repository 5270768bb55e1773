"""Riverboat's event store: per-aggregate, append-only records with optimistic concurrency.

One small port (:class:`EventStore`) with two adapters: :class:`InMemoryEventStore` for unit
tests and :class:`JetStreamEventStore` for NATS JetStream. Both pass the same contract suite
(``tests/contract/eventstore.py``).
"""

from riverboat.eventstore.base import AppendResult, EventStore, StoredRecord
from riverboat.eventstore.errors import (
    AppendOutcomeUnknownError,
    ConcurrencyError,
    CorruptHistoryError,
    EventStoreError,
    InvalidAggregateIdError,
    InvalidRequestIdError,
    StoreUnavailableError,
    StreamConfigError,
)
from riverboat.eventstore.jetstream import JetStreamEventStore, StreamSettings
from riverboat.eventstore.memory import InMemoryEventStore
from riverboat.eventstore.streams import StreamCheck, ensure_stream_config

__all__ = [
    "AppendOutcomeUnknownError",
    "AppendResult",
    "ConcurrencyError",
    "CorruptHistoryError",
    "EventStore",
    "EventStoreError",
    "InMemoryEventStore",
    "InvalidAggregateIdError",
    "InvalidRequestIdError",
    "JetStreamEventStore",
    "StoreUnavailableError",
    "StoredRecord",
    "StreamCheck",
    "StreamConfigError",
    "StreamSettings",
    "ensure_stream_config",
]
