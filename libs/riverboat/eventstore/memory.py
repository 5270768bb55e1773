"""In-process event store for unit tests and the rules-engine demo. Not durable."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace
from datetime import UTC, datetime

from riverboat.eventstore.base import (
    AppendResult,
    EventStore,
    StoredRecord,
    validate_aggregate_id,
    validate_expected_version,
    validate_from_version,
    validate_request_id,
)
from riverboat.eventstore.errors import ConcurrencyError

__all__ = ["InMemoryEventStore"]


def _utcnow() -> datetime:
    return datetime.now(UTC)


class InMemoryEventStore(EventStore):
    """Dictionary-backed :class:`EventStore` with the same contract as the JetStream one.

    Repeated request ids are recognised for the aggregate's whole history (there is no
    de-duplication window here).
    """

    def __init__(self, *, clock: Callable[[], datetime] = _utcnow, page_size: int = 256) -> None:
        """Create an empty store.

        Args:
            clock: source of ``recorded_at`` timestamps (inject a fixed clock for golden tests).
            page_size: records handed out per step by :meth:`iter_records`.
        """
        if page_size < 1:
            raise ValueError("page_size must be >= 1")
        self._clock = clock
        self._page_size = page_size
        self._histories: dict[str, list[StoredRecord]] = {}
        self._by_request: dict[tuple[str, str], AppendResult] = {}
        self._sequence = 0  # global order across aggregates, like a stream sequence

    async def append(
        self,
        aggregate_id: str,
        payload: bytes,
        *,
        expected_version: int,
        request_id: str,
    ) -> AppendResult:
        """See :meth:`EventStore.append`."""
        validate_aggregate_id(aggregate_id)
        validate_request_id(request_id)
        validate_expected_version(expected_version)
        # Yield once, as a network round trip would, so concurrent writers really interleave in
        # tests; everything after this point runs without suspension and is therefore atomic.
        await asyncio.sleep(0)

        original = self._by_request.get((aggregate_id, request_id))
        if original is not None:
            return replace(original, duplicate=True)

        history = self._histories.setdefault(aggregate_id, [])
        if len(history) != expected_version:
            raise ConcurrencyError(aggregate_id, expected_version, len(history))

        self._sequence += 1
        record = StoredRecord(
            aggregate_id=aggregate_id,
            version=expected_version + 1,
            payload=bytes(payload),
            request_id=request_id,
            stream_sequence=self._sequence,
            recorded_at=self._clock(),
        )
        history.append(record)
        result = AppendResult(
            aggregate_id=aggregate_id,
            version=record.version,
            stream_sequence=record.stream_sequence,
            request_id=request_id,
        )
        self._by_request[(aggregate_id, request_id)] = result
        return result

    async def iter_records(
        self, aggregate_id: str, from_version: int = 1
    ) -> AsyncGenerator[StoredRecord, None]:
        """See :meth:`EventStore.iter_records`."""
        validate_aggregate_id(aggregate_id)
        validate_from_version(from_version)
        history = self._histories.get(aggregate_id, [])
        end = len(history)  # a snapshot of the bound: later appends are not included
        for start in range(from_version - 1, end, self._page_size):
            page = history[start : min(start + self._page_size, end)]
            for record in page:
                yield record
            await asyncio.sleep(0)

    async def last_version(self, aggregate_id: str) -> int:
        """See :meth:`EventStore.last_version`."""
        validate_aggregate_id(aggregate_id)
        return len(self._histories.get(aggregate_id, ()))
