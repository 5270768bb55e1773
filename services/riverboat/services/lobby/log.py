"""The lobby's log: appends with optimistic concurrency, and following other lobby instances.

Every lobby instance holds the whole :class:`~riverboat.lobby.aggregate.LobbyAggregate` in
memory. It folds its own appends as it makes them and everyone else's as it follows stream
RB_LOBBY: a core-NATS nudge per publish makes it read that aggregate's new records (within
milliseconds), and a sweep of the stream's per-subject counts every ``sweep_seconds`` (and
after a reconnect) finds anything a nudge missed. Two instances never both win a conflicting
change: each append expects the aggregate's version the instance folded, so the second writer
gets :class:`~riverboat.eventstore.ConcurrencyError` and reads the winner's record.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

import structlog
from google.protobuf.timestamp_pb2 import Timestamp

from riverboat.eventstore import ConcurrencyError, EventStore, EventStoreError
from riverboat.lobby.aggregate import Folded, LobbyAggregate
from riverboat.lobby.state import LobbyState
from riverboat.services.common.auth import current_identity
from riverboat.services.common.errors import log_error
from riverboat.services.common.metrics import set_consumer_lag
from riverboat.services.lobby.config import DEFAULT_SWEEP_SECONDS
from riverboat.v1 import lobby_pb2

__all__ = ["Lobby"]

log = structlog.get_logger("riverboat.lobby")

# A nudge can arrive before the stream has stored the record: read again for this long.
_NUDGE_RETRY_SECONDS = 2.0
_NUDGE_RETRY_SLEEP = 0.05
_FOLLOWER = "lobby-follow"  # its lag in riverboat_consumer_lag_records


class Watch(Protocol):
    """A running watch of appends (:class:`riverboat.eventstore.jetstream.AppendWatch`)."""

    async def stop(self) -> None: ...


class Followable(Protocol):
    """What following needs of a store (:class:`~riverboat.eventstore.JetStreamEventStore`
    has it: per-subject counts and append nudges)."""

    async def aggregate_versions(self) -> dict[str, int]: ...

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
        self._sweeper: asyncio.Task[None] | None = None
        self._nudged: set[asyncio.Task[None]] = set()
        self._sweep_now = asyncio.Event()

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

    async def follow(
        self, store: Followable, *, sweep_seconds: float = DEFAULT_SWEEP_SECONDS
    ) -> None:
        """Load the whole log, then keep folding what other instances append to it."""
        self._followed = store
        self._watch = await store.watch(self._on_nudge)
        # Listed after the watch started: nothing appended in between is missed.
        await self.sweep()
        self._sweeper = asyncio.create_task(self._sweep_every(sweep_seconds), name="lobby-sweep")

    async def sweep(self) -> int:
        """Read every aggregate whose log is ahead of the fold (after a reconnect, or now and
        then for a missed nudge); how many there were."""
        if self._followed is None:
            return 0
        versions = await self._followed.aggregate_versions()
        behind = sorted(a for a, v in versions.items() if v > self.aggregate.version(a))
        await self.load(behind)
        if behind:
            log.info("lobby_swept", aggregates=len(behind))
        return len(behind)

    async def stop_following(self) -> None:
        """Stop the nudges and the sweeps; idempotent."""
        if self._watch is not None:
            await self._watch.stop()
            self._watch = None
        tasks = [t for t in (self._sweeper, *self._nudged) if t is not None]
        self._sweeper = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _on_nudge(self, aggregate_id: str, version: int) -> None:
        if version and version <= self.aggregate.version(aggregate_id):
            return  # our own append, or one already read
        # Off the subscription's callback: a slow read must not hold up the next nudge.
        task = asyncio.create_task(self._follow_nudge(aggregate_id, version))
        self._nudged.add(task)
        task.add_done_callback(self._nudge_done)
        set_consumer_lag(_FOLLOWER, len(self._nudged))

    def _nudge_done(self, task: asyncio.Task[None]) -> None:
        self._nudged.discard(task)
        # Catch-ups still running: how many aggregates this instance knows it trails.
        set_consumer_lag(_FOLLOWER, len(self._nudged))

    async def _follow_nudge(self, aggregate_id: str, version: int) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _NUDGE_RETRY_SECONDS
        try:
            while True:
                await self._catch_up(aggregate_id)
                # A rejected append announces a version someone else already wrote, so this
                # ends; a nudge that raced the stream's write is read again.
                if not version or self.aggregate.version(aggregate_id) >= version:
                    return
                if loop.time() >= deadline:
                    return  # the sweep will find it if it exists
                await asyncio.sleep(_NUDGE_RETRY_SLEEP)
        except EventStoreError as exc:
            log.warning("lobby_follow_failed", aggregate_id=aggregate_id, reason=str(exc))
            self._sweep_now.set()  # try again soon

    async def _sweep_every(self, every: float) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._sweep_now.wait(), every)
            self._sweep_now.clear()
            try:
                await self.sweep()
            except EventStoreError as exc:
                log.warning("lobby_sweep_failed", reason=str(exc))

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
                identity = current_identity()
                event.actor = f"{identity.role}:{identity.subject}"
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
