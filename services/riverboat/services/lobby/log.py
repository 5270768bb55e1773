"""The lobby's log: appends with optimistic concurrency, and following other lobby instances.

Every lobby instance holds the whole :class:`~riverboat.lobby.aggregate.LobbyAggregate` in
memory. It folds its own appends as it makes them and everyone else's as it follows stream
RB_LOBBY in stream order: it keeps the sequence of the last record it read and reads the
stream's tail after it (``JetStreamEventStore.records_after``), at once when a core-NATS nudge
says another instance published, and every ``every`` seconds (default 0.25) whatever came, so
a missed nudge (NATS away, a nudge that raced the stream's write) delays a change by at most
that. Nothing can be skipped: the tail is read by sequence, not by nudge. Two instances never
both win a conflicting change: each append expects the aggregate's version the instance
folded, so the second writer gets :class:`~riverboat.eventstore.ConcurrencyError` and reads
the winner's record.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

import structlog
from google.protobuf.timestamp_pb2 import Timestamp

from riverboat.eventstore import ConcurrencyError, EventStore, EventStoreError, StoredRecord
from riverboat.lobby.aggregate import Folded, LobbyAggregate
from riverboat.lobby.state import LobbyState
from riverboat.services.common.auth import current_caller
from riverboat.services.common.errors import log_error
from riverboat.services.common.metrics import set_consumer_lag
from riverboat.services.lobby.config import DEFAULT_FOLLOW_SECONDS
from riverboat.v1 import lobby_pb2

__all__ = ["Lobby"]

log = structlog.get_logger("riverboat.lobby")

_FOLLOWER = "lobby-follow"  # its lag in riverboat_consumer_lag_records
_TAIL_PAGE = 256  # records read per request of the tail


class Watch(Protocol):
    """A running watch of appends (:class:`riverboat.eventstore.jetstream.AppendWatch`)."""

    async def stop(self) -> None: ...


class Followable(Protocol):
    """What following needs of a store (:class:`~riverboat.eventstore.JetStreamEventStore`
    has it: the stream's tail by sequence, and append nudges)."""

    async def records_after(
        self, sequence: int, limit: int = ...
    ) -> tuple[list[StoredRecord], int]: ...

    async def watch(self, on_append: Callable[[str, int], Awaitable[None]]) -> Watch: ...


class Lobby:
    """The lobby's state (folded from the log) and its writes to the log."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.aggregate = LobbyAggregate()
        #: Aggregates with an append that got no answer: read their log before the next one.
        self._in_doubt: set[str] = set()
        self._lock = asyncio.Lock()  # one append at a time (and its fold)
        self._reads: dict[str, asyncio.Lock] = {}  # one catch-up per aggregate at a time
        self._followed: Followable | None = None
        self._watch: Watch | None = None
        self._follower: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()  # a nudge: read the tail now
        #: Stream sequence of the last record of the log read in order (its tail starts after).
        self.sequence = 0
        self._tail_lock = asyncio.Lock()

    @property
    def state(self) -> LobbyState:
        """Accounts, tables and buy-ins as folded so far."""
        return self.aggregate.state

    async def load(self, aggregate_ids: list[str]) -> None:
        """Replay every aggregate's records."""
        for aggregate_id in aggregate_ids:
            await self._catch_up(aggregate_id)

    async def _catch_up(self, aggregate_id: str) -> None:
        """Fold the aggregate's records after the version we know."""
        lock = self._reads.setdefault(aggregate_id, asyncio.Lock())
        async with lock:
            after = self.aggregate.version(aggregate_id)
            for record in await self.store.read(aggregate_id, after + 1):
                folded = self.aggregate.fold_payload(aggregate_id, record.version, record.payload)
                if folded is Folded.GAP:  # cannot happen with a store that checks versions
                    raise EventStoreError(f"{aggregate_id}: version {record.version} out of order")
            self._in_doubt.discard(aggregate_id)

    # --- following -------------------------------------------------------------------------

    async def follow(self, store: Followable, *, every: float = DEFAULT_FOLLOW_SECONDS) -> None:
        """Load the whole log, then keep folding what other instances append to it: their
        changes show within ``every`` seconds (at once when a nudge comes)."""
        self._followed = store
        self._watch = await store.watch(self._on_nudge)
        # The nudges started first: whatever is appended from now on is either read by this
        # catch-up or announced (and in any case read by the next tick).
        await self.catch_up()
        self._follower = asyncio.create_task(self._follow_every(every), name="lobby-follow")

    async def catch_up(self) -> int:
        """Read the log's tail after :attr:`sequence` to its end, folding in stream order
        (on start-up, after a reconnect, on a nudge, every tick); the records read."""
        if self._followed is None:
            return 0
        read = 0
        async with self._tail_lock:
            while True:
                records, last = await self._followed.records_after(self.sequence, _TAIL_PAGE)
                for record in records:
                    folded = self.aggregate.fold_payload(
                        record.aggregate_id, record.version, record.payload
                    )
                    if folded is Folded.GAP:  # not in stream order: cannot happen, but heal
                        await self._catch_up(record.aggregate_id)
                    self.sequence = record.stream_sequence
                read += len(records)
                set_consumer_lag(_FOLLOWER, max(0, last - self.sequence))
                if not records or self.sequence >= last:
                    return read

    async def stop_following(self) -> None:
        """Stop the nudges and the reads; idempotent."""
        if self._watch is not None:
            await self._watch.stop()
            self._watch = None
        task, self._follower = self._follower, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _on_nudge(self, aggregate_id: str, version: int) -> None:
        if version and version <= self.aggregate.version(aggregate_id):
            return  # our own append, or one already read
        self._wake.set()

    async def _follow_every(self, every: float) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), every)
            self._wake.clear()
            try:
                await self.catch_up()
            except EventStoreError as exc:
                log.warning("lobby_follow_failed", reason=str(exc))

    # --- writing ---------------------------------------------------------------------------

    async def record(
        self,
        aggregate_id: str,
        event: lobby_pb2.LobbyEvent,
        *,
        expected_version: int | None = None,
    ) -> bool:
        """Append ``event`` to ``aggregate_id`` and fold it; False if this request was a repeat.

        The append expects the version this lobby folded, or ``expected_version`` if given
        (0: the aggregate must be new).

        Raises :class:`ConcurrencyError` when the aggregate moved on (for example a username
        registered a moment ago by another lobby instance; the aggregate is caught up), and
        ``UNAVAILABLE`` (:func:`log_error`) when the log does not answer.
        """
        async with self._lock:
            try:
                return await self._record(aggregate_id, event, expected_version)
            except ConcurrencyError:
                raise
            except EventStoreError as exc:
                raise log_error(exc) from None

    async def _record(
        self, aggregate_id: str, event: lobby_pb2.LobbyEvent, expected_version: int | None
    ) -> bool:
        if aggregate_id in self._in_doubt:
            await self._catch_up(aggregate_id)
        if not event.actor:
            # Every change says who asked (the caller of the RPC being handled); the lobby's
            # own bookkeeping (start-up accounts, resolving interrupted buy-ins) has none.
            with contextlib.suppress(RuntimeError):
                event.actor = current_caller()
        if not event.HasField("occurred_at"):
            stamp = Timestamp()
            stamp.FromDatetime(datetime.now(UTC))
            event.occurred_at.CopyFrom(stamp)
        known = self.aggregate.version(aggregate_id)
        expected = known if expected_version is None else expected_version
        try:
            result = await self.store.append(
                aggregate_id,
                event.SerializeToString(),
                expected_version=expected,
                request_id=event.request_id,
            )
        except ConcurrencyError:
            await self._catch_up(aggregate_id)
            raise
        except EventStoreError:
            self._in_doubt.add(aggregate_id)  # it may be stored, now or when NATS resends it
            raise
        if result.duplicate:
            # An earlier try was stored (its answer lost, or another instance): fold the log.
            await self._catch_up(aggregate_id)
            return False
        if self.aggregate.fold(aggregate_id, result.version, event) is Folded.GAP:
            await self._catch_up(aggregate_id)  # not expected: we appended at the next version
        return True
