"""Which tables this table-service instance owns: it claims, renews, hands over and loses leases.

One :class:`LeaseKeeper` per instance. It holds a lease per owned table in the
``RB_TABLE_OWNERS`` bucket (riverboat.leases) and a presence lease of its own in
``RB_TABLE_INSTANCES`` (so the others know it is there, with no table yet), and:

* renews them every third of the TTL (on a thread of its own in the service: renewer.py); a
  table whose lease is not confirmed within the TTL (less a safety margin) counts as not held,
  so its runner stops writing before another instance can take it, and a lease found lost
  drops the table;
* replays each table it takes, retrying until it is loaded (adoption.py);
* follows every lease change: a lease that expired (its owner died) is claimed, a lease handed
  to this instance is adopted (the table is replayed and its hand in progress resumed);
* places new tables on the least-loaded live instance (a redirect names it), and moves tables
  towards a fair share (the table count over live instances), each between hands;
* on shutdown hands every table to the least-loaded other instance (after the hand in progress,
  bounded), or releases it when it is the last.

The registry asks :meth:`LeaseKeeper.holds` before serving a table, and
:meth:`LeaseKeeper.redirect` for the error a non-owner answers with.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import re
import socket
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from riverboat import retrying
from riverboat.leases import (
    Holder,
    Lease,
    LeaseChange,
    LeaseError,
    LeaseLost,
    LeaseStore,
    LeaseStoreUnavailable,
    LeaseTaken,
)
from riverboat.redirect import Owner
from riverboat.services.common import metrics
from riverboat.services.common.errors import NoOwner, NotOwner, ServiceError
from riverboat.services.table.adoption import Adoption
from riverboat.services.table.renewer import LoopRenewals, Renewals

log = structlog.get_logger("riverboat.table.owners")

__all__ = ["LeaseKeeper", "default_instance_id"]

#: A lease counts as held until this share of its TTL has passed since the renewal that
#: confirmed it was sent: the rest is the margin against clock drift and a slow answer.
_SAFE_SHARE = 0.8

#: Free tables claimed (and replayed) at once when an instance starts or finds tables unowned.
CLAIM_CONCURRENCY = 16


class _WatchEnded(Exception):
    """A lease watch ended (NATS closed it): open it again."""


def _unavailable(exc: BaseException) -> bool:
    return isinstance(exc, LeaseStoreUnavailable)


def _log_retry(exc: BaseException, pause: float, failures: int) -> None:
    log.warning("lease_store_retry", kind="lease_store_unavailable", retry_in=pause)


def default_instance_id() -> str:
    """``hostname-pid``, with anything a lease key cannot hold replaced by ``-``."""
    return safe_id(f"{socket.gethostname()}-{os.getpid()}")


def safe_id(text: str) -> str:
    """``text`` as a lease key (letters, digits, ``-`` and ``_``; at most 128)."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", text)[:128] or "table"


async def _announce(instances: LeaseStore, me: Holder) -> Lease:
    """Take this instance's presence lease."""
    try:
        return await instances.create(me.instance, me)
    except LeaseTaken as taken:
        # Our own id from a life that ended with kill -9: it is ours again.
        if taken.current is None or taken.current.holder != me:
            raise
        return await instances.transfer(taken.current, me)


@dataclass(slots=True)
class _Owned:
    lease: Lease
    #: Loop time until which the lease is certainly ours (see _SAFE_SHARE).
    until: float


class TableLeaseHandle:
    """One table's lease as a runner sees it (the ``TableLease`` port)."""

    def __init__(self, keeper: LeaseKeeper, table_id: str) -> None:
        self._keeper = keeper
        self._table_id = table_id

    @property
    def held(self) -> bool:
        return self._keeper.holds(self._table_id)


class LeaseKeeper:
    """This instance's table leases (see the module docstring)."""

    def __init__(
        self,
        tables: LeaseStore,
        instances: LeaseStore,
        me: Holder,
        *,
        handover_patience: float = 30.0,
        answers: Callable[[str], Awaitable[bool]] | None = None,
        renewals: Renewals | None = None,
    ) -> None:
        self.tables = tables
        self.instances = instances
        self.me = me
        self.ttl = tables.ttl
        self.handover_patience = handover_patience
        self._owned: dict[str, _Owned] = {}
        #: Every table lease as last seen (whoever holds it), and the loop time it was seen.
        self._view: dict[str, Lease] = {}
        self._seen: dict[str, float] = {}
        #: Whether another instance's address answers now (riverboat.liveness); None: trust
        #: the presence leases alone (unit tests).
        self._answers = answers
        #: Live instances (their presence leases), by instance id.
        self._live: dict[str, Holder] = {}
        self._presence: Lease | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: Tables being dropped (found lost by a renewal), apart from the renewal loop.
        self._side: set[asyncio.Task[None]] = set()
        self._leaving: set[str] = set()
        self._claiming: set[str] = set()
        #: Replays tables taken, retried until loaded (adoption.py).
        self._adopted = Adoption(self._still_ours)
        self._stopping = False
        # Monotonic seconds, as the renewal thread measures them too (a busy uvloop's own
        # time is the start of its current iteration, late by however long that takes).
        self._now = time.monotonic
        #: Where renewal rounds run: the service gives a thread of their own (renewer.py).
        self._renewals: Renewals = renewals or LoopRenewals(self.ttl)
        # Wired by the registry: replay a table now owned, drop one no longer owned, list
        # the tables the log holds.
        self._drop: Callable[[str], Awaitable[None]] | None = None
        self._hand_over: Callable[[str, float], Awaitable[bool]] | None = None
        self._cancel_hand_over: Callable[[str], None] | None = None
        self._settle: Callable[[str], Awaitable[None]] | None = None
        self._table_ids: Callable[[], Awaitable[list[str]]] | None = None

    # --- what the registry and the service ask --------------------------------------------

    def handle(self, table_id: str) -> TableLeaseHandle:
        """The runner's view of ``table_id``'s lease."""
        return TableLeaseHandle(self, table_id)

    def holds(self, table_id: str) -> bool:
        """This instance owns ``table_id`` now (and may write it)."""
        owned = self._owned.get(table_id)
        return owned is not None and table_id not in self._leaving and self._now() < owned.until

    def owned(self) -> list[str]:
        """The tables this instance holds leases on."""
        return list(self._owned)

    def owner(self, table_id: str) -> Lease | None:
        """The lease on ``table_id`` as last seen (None: nobody owns it)."""
        return self._view.get(table_id)

    async def redirect(self, table_id: str) -> ServiceError:
        """The error a call about ``table_id`` gets here: NOT_OWNER naming its owner if that
        owner answers now, else NO_OWNER with a RetryInfo: while the lease of an owner that
        does not answer (killed -9) runs, the delay is what is left of it (then a survivor
        claims the table); while a hand-over is under way or this instance's own lease is
        unconfirmed, a short one. Before, the owner's presence lease was enough, and it lasts
        the TTL after a kill -9: clients were sent to a dead address for up to the TTL."""
        lease = self._view.get(table_id)
        if lease is not None and lease.holder.instance != self.me.instance:
            holder = lease.holder
            if await self._alive(holder):
                return NotOwner(Owner(table_id, holder.instance, holder.address))
            return NoOwner(table_id, retry_delay=self._lease_left(table_id))
        return NoOwner(table_id, retry_delay=min(1.0, self.ttl / 4))

    async def _alive(self, holder: Holder) -> bool:
        """``holder`` is announced (its presence lease) and its address answers now."""
        if holder.instance not in self._live or not holder.address:
            return False
        return self._answers is None or await self._answers(holder.address)

    def _lease_left(self, table_id: str) -> float:
        """Seconds until ``table_id``'s lease, as last seen renewed, runs out (at least 0.2)."""
        seen = self._seen.get(table_id, self._now())
        return max(0.2, self.ttl - (self._now() - seen))

    async def placement(self) -> Holder:
        """Where a new table goes: the live instance owning the fewest tables if it answers
        now (this one on a tie, so a lone instance, or evenly loaded ones, open tables
        themselves)."""
        loads = self._loads()
        mine = loads.get(self.me.instance, 0)
        best = min(loads.items(), key=lambda kv: (kv[1], kv[0] != self.me.instance, kv[0]))
        if best[1] < mine:
            holder = self._live.get(best[0])
            if holder is not None and await self._alive(holder):
                return holder
        return self.me

    async def claim(self, table_id: str) -> bool:
        """Take ``table_id`` if nobody holds it (adopting it); True if this instance owns it."""
        if self.holds(table_id):
            return True
        if self._stopping or table_id in self._claiming:
            return False
        self._claiming.add(table_id)
        try:
            started = self._now()
            try:
                lease = await self.tables.create(table_id, self.me)
            except LeaseTaken as taken:
                if taken.current is not None:
                    self._view[table_id] = taken.current
                    if self._predecessor(taken.current.holder):
                        return await self._take_back(taken.current)
                return False
            except LeaseError as exc:
                log.warning("lease_claim_failed", table_id=table_id, reason=str(exc))
                return False
            self._take(lease, started)
            metrics.lease_changed("acquired")
            log.info("table_claimed", table_id=table_id, revision=lease.revision)
            await self._adopted(table_id)
            return True
        finally:
            self._claiming.discard(table_id)

    async def release(self, table_id: str) -> None:
        """Give up ``table_id``'s lease now (a table that turned out not to exist: an
        OpenTable that failed after claiming it)."""
        owned = self._owned.pop(table_id, None)
        if owned is None:
            return
        self._publish_count()
        try:
            await self.tables.release(owned.lease)
        except LeaseError as exc:  # it lapses within the TTL instead
            log.warning("lease_release_failed", table_id=table_id, reason=str(exc))
            return
        self._view.pop(table_id, None)
        metrics.lease_changed("released")
        log.info("table_released", table_id=table_id)

    # --- life --------------------------------------------------------------------------------

    async def start(
        self,
        *,
        adopt: Callable[[str], Awaitable[None]],
        drop: Callable[[str], Awaitable[None]],
        hand_over: Callable[[str, float], Awaitable[bool]],
        cancel_hand_over: Callable[[str], None],
        table_ids: Callable[[], Awaitable[list[str]]],
        settle: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        """Announce this instance, read every lease, claim the tables nobody owns (all of
        them, for a lone instance), then keep leases renewed and follow changes."""
        self._adopted.adopt, self._drop, self._hand_over = adopt, drop, hand_over
        self._cancel_hand_over, self._table_ids = cancel_hand_over, table_ids
        self._settle = settle
        # A bucket just created on a cluster may not answer for a few seconds (its stream is
        # electing a leader): joining is retried through that (past retrying.LEASE_JOIN the
        # store is down and the process says so) rather than ending the process.
        await retrying.call(
            self._join, retrying.LEASE_JOIN, transient=_unavailable, on_retry=_log_retry
        )
        # Renewing from here on: claiming and replaying many tables may outlast the TTL.
        await self._renewals.start(self.renew_round, self.tables, self.instances)
        for lease in list(self._view.values()):
            if self._predecessor(lease.holder):
                await self._take_back(lease)
        await self._claim_free()
        self._tasks = [
            asyncio.ensure_future(self._follow(self.tables, self._on_table_change)),
            asyncio.ensure_future(self._follow(self.instances, self._on_instance_change)),
            asyncio.ensure_future(self._balance_loop()),
        ]
        self._publish_count()

    async def _join(self) -> None:
        """Announce this instance and read who is live and who holds what."""
        await self._announce()
        self._live = {
            k: v.holder
            for k, v in (await self.instances.all()).items()
            if not self._predecessor(v.holder)
        }
        self._live[self.me.instance] = self.me
        self._view = await self.tables.all()
        now = self._now()
        self._seen = dict.fromkeys(self._view, now)

    def _predecessor(self, holder: Holder) -> bool:
        """``holder`` is an earlier life of this instance: the same id, or the same address
        (which this process now listens on, so whoever advertised it is gone)."""
        return holder.instance == self.me.instance or (
            bool(holder.address) and holder.address == self.me.address
        )

    async def _take_back(self, lease: Lease) -> bool:
        """Take over a lease a dead predecessor held, without waiting for its TTL."""
        started = self._now()
        self._claiming.add(lease.key)
        try:
            lease = await self.tables.transfer(lease, self.me)
        except LeaseError:
            return False
        finally:
            self._claiming.discard(lease.key)
        self._take(lease, started)
        metrics.lease_changed("acquired")
        log.info("table_taken_back", table_id=lease.key)
        await self._adopted(lease.key)
        return True

    async def _announce(self) -> None:
        self._presence = await _announce(self.instances, self.me)

    @property
    def stopped(self) -> bool:
        """:meth:`stop` was called."""
        return self._stopping

    async def stop(self) -> None:
        """Hand every table over (see the module docstring), then leave."""
        if self._stopping:
            return
        self._stopping = True
        self._adopted.cancel()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        # Renewals go on while handing over: hands in play may take a while to finish.
        try:
            others = [h for i, h in self._live.items() if i != self.me.instance and h.address]
            # Bounded whatever NATS does: the wait for hands in play, then the lease writes
            # (each request answers within the store's timeout, retried by nobody).
            giving = asyncio.gather(
                *(self._give_away(t, others, self.handover_patience) for t in self.owned())
            )
            try:
                await asyncio.wait_for(giving, self.handover_patience + 2 * self.ttl)
            except TimeoutError:
                log.warning("handover_cut_off", tables=self.owned())
        finally:
            await self._renewals.stop()
        if self._presence is not None:
            with contextlib.suppress(LeaseError):
                await self.instances.release(self._presence)
        self._publish_count()

    # --- keeping leases -------------------------------------------------------------------

    def _take(self, lease: Lease, sent_at: float) -> None:
        self._owned[lease.key] = _Owned(lease, sent_at + self.ttl * _SAFE_SHARE)
        self._view[lease.key] = lease
        self._seen[lease.key] = sent_at
        self._publish_count()

    def _still_ours(self, table_id: str) -> bool:
        return not self._stopping and table_id in self._owned and table_id not in self._leaving

    def _bounded(self, write: Awaitable[Lease]) -> Awaitable[Lease]:
        """A lease write given at most a third of the TTL (the next round retries)."""
        return asyncio.wait_for(write, self.ttl / 3)

    async def renew_round(
        self,
        tables: LeaseStore,
        instances: LeaseStore,
        post: Callable[[Callable[[], None]], None],
    ) -> None:
        """One renewal round through ``tables`` and ``instances`` (the renewal thread's own
        stores, or this keeper's), run by :mod:`~riverboat.services.table.renewer`: on the
        renewal thread it touches only what is safe across threads (a copy of the owned
        tables, each one's lease and deadline), and ``post`` hands the rest to the service's
        loop. It waits for nothing but the renewals, each bounded: a table found lost is
        dropped in a task of its own (dropping waits for the table's write in flight, which
        while NATS restarts took seconds and held every other renewal back until the leases
        ran out: the owner lost all its tables)."""
        sent = self._now()
        owned = [(k, o) for k, o in self._owned.copy().items() if k not in self._leaving]
        results = await asyncio.gather(
            *(self._bounded(tables.renew(o.lease)) for _, o in owned),
            return_exceptions=True,
        )
        for (key, o), result in zip(owned, results, strict=True):
            if isinstance(result, Lease):
                # holds() had turned False (a renewal timed out while a NATS node restarted):
                # the table's own work (deal, clock) stopped on LeaseNotHeld, and nothing else
                # restarts it once the lease is renewed.
                lapsed = o.until <= sent
                # The lease's newest revision even while leaving: the hand-over names it.
                o.lease = result
                o.until = sent + self.ttl * _SAFE_SHARE
                if lapsed:
                    post(functools.partial(self._regained, key))
            elif isinstance(result, LeaseLost):
                post(functools.partial(self._renewal_lost, key, o))
            elif isinstance(result, BaseException):
                log.warning("lease_renew_failed", table_id=key, reason=str(result) or repr(result))
        presence = self._presence
        if presence is not None:
            try:
                self._presence = await self._bounded(instances.renew(presence))
            except LeaseLost:
                with contextlib.suppress(LeaseError, TimeoutError):
                    self._presence = await self._bounded(_announce(instances, self.me))
            except (LeaseError, TimeoutError) as exc:
                log.warning("presence_renew_failed", reason=str(exc) or repr(exc))

    def _regained(self, key: str) -> None:
        """A lease renewed after its safe share had run out: resume the table's work."""
        if self._still_ours(key):
            log.info("table_lease_regained", table_id=key)
            self._spawn(self._adopted(key))

    def _renewal_lost(self, key: str, owned: _Owned) -> None:
        """A renewal found ``key``'s revision moved: recheck it unless it changed here since
        (handed over, dropped, or taken anew)."""
        if self._owned.get(key) is owned and key not in self._leaving:
            self._spawn(self._recheck_or_drop(owned.lease))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._side.add(task)
        task.add_done_callback(self._side.discard)

    async def _recheck_or_drop(self, lease: Lease) -> None:
        if not await self._recheck(lease):
            await self._lost(lease.key)

    async def _recheck(self, lease: Lease) -> bool:
        """A renewal found ``lease``'s revision moved: a renewal of ours that timed out may
        have landed after all (nats-py resends what it buffered). Renew from what the bucket
        holds if it still names this instance; True if the lease is ours, confirmed."""
        try:
            current = await asyncio.wait_for(self.tables.get(lease.key), self.ttl / 3)
            if current is None or current.holder != self.me:
                return False
            sent = self._now()
            renewed = await self._bounded(self.tables.renew(current))
        except (LeaseError, TimeoutError):
            return False
        if lease.key in self._owned and lease.key not in self._leaving:
            self._take(renewed, sent)
            self._spawn(self._adopted(lease.key))  # its work may have stopped meanwhile
        log.info("table_lease_confirmed", table_id=lease.key, revision=renewed.revision)
        return True

    async def _lost(self, table_id: str) -> None:
        owned = self._owned.pop(table_id, None)
        if owned is None:
            return
        metrics.lease_changed("lost")
        # Writing stopped when holds() turned False (the unconfirmed lease's safe share ran
        # out), which may be well before the loss is noticed here: say when, for the record.
        late = max(0.0, self._now() - owned.until)
        held_until = datetime.now(UTC) - timedelta(seconds=late)
        log.warning("table_lease_lost", table_id=table_id, held_until=held_until.isoformat())
        self._publish_count()
        assert self._drop is not None
        await self._drop(table_id)

    def _publish_count(self) -> None:
        metrics.set_tables_owned(len(self._owned))

    # --- following the others -------------------------------------------------------------

    async def _follow(
        self, store: LeaseStore, on_change: Callable[[LeaseChange], Awaitable[None]]
    ) -> None:
        """Apply every change ``store`` reports; re-watch (retrying.LEASE_WATCH, and at
        least four times a TTL) after an outage or when the watch ends."""

        async def follow() -> None:
            async with await store.watch() as watch:
                async for change in watch:
                    try:
                        await on_change(change)
                    except Exception:
                        log.exception("lease_change_failed", key=change.key)
            raise _WatchEnded

        def retried(exc: BaseException, pause: float, failures: int) -> None:
            if isinstance(exc, LeaseStoreUnavailable | OSError):
                log.warning("lease_watch_failed", reason=str(exc))
            elif not isinstance(exc, _WatchEnded):
                log.error("lease_watch_failed", exc_info=exc)

        pause = min(retrying.LEASE_WATCH.first, self.ttl / 4)
        policy = replace(retrying.LEASE_WATCH, first=pause, maximum=pause)
        await retrying.call(follow, policy, transient=lambda exc: True, on_retry=retried)

    async def _on_instance_change(self, change: LeaseChange) -> None:
        if change.key == self.me.instance:
            return
        if change.lease is None or self._predecessor(change.lease.holder):
            self._live.pop(change.key, None)
        else:
            self._live[change.key] = change.lease.holder

    async def _on_table_change(self, change: LeaseChange) -> None:
        key, lease = change.key, change.lease
        if lease is None:
            self._view.pop(key, None)
            self._seen.pop(key, None)
            if key in self._owned and key not in self._leaving:
                await self._lost(key)
            if not self._stopping and key not in self._leaving:
                # Its owner died or left it: the least loaded survivors race for it (a short
                # wait by load spreads a dead instance's tables).
                await asyncio.sleep(self._claim_delay())
                if self.owner(key) is None:
                    await self.claim(key)
            return
        self._view[key] = lease
        self._seen[key] = self._now()
        mine = lease.holder.instance == self.me.instance
        if key in self._claiming:
            return  # our own claim or take-back, still being recorded
        if mine and key not in self._owned and not self._stopping:
            # Handed to us: confirm it with a renewal of our own, then replay the table.
            started = self._now()
            try:
                self._take(await self.tables.renew(lease), started)
            except LeaseError as exc:
                log.warning("lease_adopt_failed", table_id=key, reason=str(exc))
                return
            metrics.lease_changed("acquired")
            log.info("table_handed_to_us", table_id=key)
            await self._adopted(key)
        elif not mine and key in self._owned and key not in self._leaving:
            await self._lost(key)

    def _claim_delay(self) -> float:
        loads = self._loads()
        mine = loads.get(self.me.instance, 0)
        rank = sum(1 for n in loads.values() if n < mine)
        return rank * 0.05 + random.uniform(0, 0.02)

    def _loads(self) -> dict[str, int]:
        loads = dict.fromkeys(self._live, 0)
        loads[self.me.instance] = 0
        for lease in self._view.values():
            if lease.holder.instance in loads:
                loads[lease.holder.instance] += 1
        loads[self.me.instance] = len(self._owned)
        return loads

    async def _claim_free(self) -> None:
        """Claim every table in the log that nobody holds."""
        assert self._table_ids is not None
        try:
            table_ids = await self._table_ids()
        except Exception as exc:
            log.warning("table_list_failed", reason=str(exc))
            return
        # Several at once: each claim waits on a lease write and its table's replay (reads,
        # and the dealer for a hand in play), so one after another leaves the process idle
        # most of the time (a start-up with many tables took ten times the log's read time).
        gate = asyncio.Semaphore(CLAIM_CONCURRENCY)

        async def claim(table_id: str) -> None:
            async with gate:
                if not self._stopping and self.owner(table_id) is None:
                    await self.claim(table_id)

        await asyncio.gather(*(claim(table_id) for table_id in table_ids))

    # --- balance ------------------------------------------------------------------------

    async def _balance_loop(self) -> None:
        while True:
            await asyncio.sleep(self.ttl)
            # A table nobody holds and nobody reported (a watch gap): claim it.
            await self._claim_free()
            await self._balance_once()

    async def _balance_once(self) -> None:
        """Give one table to the least-loaded instance if this one holds more than its share
        and more than one above it (between hands; a hand in play is left to finish)."""
        loads = self._loads()
        if len(loads) < 2:
            return
        mine = loads[self.me.instance]
        target_id, least = min(
            ((i, n) for i, n in loads.items() if i != self.me.instance), key=lambda kv: kv[1]
        )
        total = sum(loads.values())
        share = -(-total // len(loads))  # ceil
        target = self._live.get(target_id)
        if mine <= share or mine - least < 2 or target is None or not target.address:
            return
        candidates = [t for t in self._owned if t not in self._leaving]
        if not candidates:
            return
        await self._give_away(random.choice(candidates), [target], self.ttl * 2, cancel=True)

    async def _give_away(
        self, table_id: str, targets: list[Holder], patience: float, *, cancel: bool = False
    ) -> None:
        """Hand ``table_id`` to the least loaded of ``targets`` once between hands (or, with
        ``cancel``, not at all if a hand is still in play after ``patience``); release it when
        there is no target."""
        assert self._hand_over is not None and self._drop is not None
        # With nobody to hand to, a hand in play is left as it is (as a lone instance always
        # did on SIGTERM): the next owner, this one restarted, resumes it with its deck.
        between = await self._hand_over(table_id, patience) if targets else True
        if not between and cancel:
            assert self._cancel_hand_over is not None
            self._cancel_hand_over(table_id)
            return
        owned = self._owned.get(table_id)
        if owned is None:
            return
        self._leaving.add(table_id)  # writes stop here (holds() is False from now)
        log.info("table_leaving", table_id=table_id)
        try:
            settled = True
            if self._settle is not None:
                # A write already in flight lands first. One still unanswered after this
                # (NATS restarting) keeps the lease from being handed on: it lapses within the
                # TTL instead, and the next owner claims it then, after the write.
                try:
                    await asyncio.wait_for(self._settle(table_id), self.ttl)
                except TimeoutError:
                    settled = False
            loads = self._loads()
            live = [t for t in targets if t.instance in self._live]
            try:
                if not settled:
                    log.warning("table_left_to_lapse", table_id=table_id)
                elif live:
                    target = min(live, key=lambda h: loads.get(h.instance, 0))
                    moved = await self.tables.transfer(owned.lease, target)
                    self._view[table_id] = moved
                    log.info("table_handed_over", table_id=table_id, to=target.instance)
                else:
                    await self.tables.release(owned.lease)
                    self._view.pop(table_id, None)
                    log.info("table_released", table_id=table_id)
                metrics.lease_changed("released")
            except LeaseError as exc:
                log.warning("table_handover_failed", table_id=table_id, reason=str(exc))
            self._owned.pop(table_id, None)
            # Closed after the lease names the next owner: its Watch streams end with the
            # redirect to it.
            await self._drop(table_id)
        finally:
            self._leaving.discard(table_id)
            self._publish_count()
