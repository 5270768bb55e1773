"""Where a table-service instance's lease renewals run: on a thread of their own, or in the loop.

A renewal round renews every table lease this instance holds and its presence, every third of
the TTL (:meth:`LeaseKeeper.renew_round <riverboat.services.table.owners.LeaseKeeper>`). In the
service's one event loop a round waits its turn behind everything else that is ready: at 1,000
tables on one instance a busy loop delayed the rounds past the TTL, and the instance lost its
own leases while busy (clients saw ``UNAVAILABLE ... changing hands``). So the service renews
on :class:`RenewalThread`: a thread with its own event loop and its own NATS connection, which
the Python interpreter switches to every few milliseconds however busy the service's loop is
(``sys.getswitchinterval()``, 5 ms). :class:`LoopRenewals` keeps rounds in the caller's loop
(unit tests over in-memory leases).

The thread renews only while the service's loop still turns: each round asks the loop to note
the time, and once the loop has not done so for :data:`STALL_TTLS` TTLs (a loop wedged for
good), the thread stops renewing, so the tables of an instance that can no longer serve them
move to the others when their leases run out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

import structlog

from riverboat.leases import LeaseStore

log = structlog.get_logger("riverboat.table.owners")

__all__ = ["STALL_TTLS", "LoopRenewals", "RenewalStores", "RenewalThread", "Renewals"]

#: TTLs without the service's loop turning after which the renewal thread stops renewing.
STALL_TTLS = 2.0

#: Opens, in the thread's own loop, the lease stores the renewals write through (a connection
#: of their own) and returns them with what closes them.
Closer = Callable[[], Awaitable[None]]
RenewalStores = Callable[[], Awaitable[tuple[LeaseStore, LeaseStore, Closer]]]

#: One renewal round through the given stores (table leases, presence); ``post`` runs a
#: callback in the service's loop.
Round = Callable[[LeaseStore, LeaseStore, Callable[[Callable[[], None]], None]], Awaitable[None]]


class Renewals(Protocol):
    """Runs a keeper's renewal rounds every third of the TTL until stopped."""

    async def start(self, round_: Round, tables: LeaseStore, instances: LeaseStore) -> None:
        """Start the rounds (``tables``, ``instances``: the keeper's own stores)."""

    async def stop(self) -> None:
        """Stop the rounds (the last one in flight is cut off)."""


class LoopRenewals:
    """Rounds as a task of the caller's loop, through the keeper's own stores."""

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self._task: asyncio.Task[None] | None = None

    async def start(self, round_: Round, tables: LeaseStore, instances: LeaseStore) -> None:
        async def rounds() -> None:
            while True:
                await asyncio.sleep(self.ttl / 3)
                try:
                    await round_(tables, instances, lambda callback: callback())
                except asyncio.CancelledError:
                    raise
                except Exception:  # the loop must outlive anything: a stopped loop loses all
                    log.exception("lease_renew_round_failed")

        self._task = asyncio.ensure_future(rounds())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class RenewalThread:
    """Rounds on a thread with its own event loop, through stores of its own (``open_stores``,
    opened on that loop: a NATS connection belongs to one loop)."""

    def __init__(self, ttl: float, open_stores: RenewalStores) -> None:
        self.ttl = ttl
        self._open_stores = open_stores
        self._thread: threading.Thread | None = None
        self._thread_loop: asyncio.AbstractEventLoop | None = None
        self._halt: asyncio.Event | None = None
        #: time.monotonic() when the service's loop last ran a callback the thread posted.
        self.loop_seen = time.monotonic()
        #: Rounds done (each renewing every lease held then), for tests and the log.
        self.rounds = 0

    async def start(self, round_: Round, tables: LeaseStore, instances: LeaseStore) -> None:
        """Start the thread; return once its stores are open.

        Raises:
            Exception: opening its stores failed (what ``open_stores`` raised).
        """
        main = asyncio.get_running_loop()
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.loop_seen = time.monotonic()
        self._thread = threading.Thread(
            target=self._run, args=(main, round_, ready), name="table-lease-renewals", daemon=True
        )
        self._thread.start()
        await asyncio.wrap_future(ready)

    def _run(
        self,
        main: asyncio.AbstractEventLoop,
        round_: Round,
        ready: concurrent.futures.Future[None],
    ) -> None:
        loop = asyncio.new_event_loop()
        self._thread_loop = loop
        try:
            loop.run_until_complete(self._rounds(main, round_, ready))
        finally:
            loop.close()

    async def _rounds(
        self,
        main: asyncio.AbstractEventLoop,
        round_: Round,
        ready: concurrent.futures.Future[None],
    ) -> None:
        self._halt = asyncio.Event()
        try:
            tables, instances, close = await self._open_stores()
        except BaseException as exc:
            ready.set_exception(exc)
            return
        ready.set_result(None)

        def post(callback: Callable[[], None]) -> None:
            with contextlib.suppress(RuntimeError):  # the service's loop is closed: exiting
                main.call_soon_threadsafe(callback)

        def seen() -> None:
            self.loop_seen = time.monotonic()

        stalled = False
        try:
            while not self._halt.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._halt.wait(), self.ttl / 3)
                    break
                post(seen)
                late = time.monotonic() - self.loop_seen
                if late > STALL_TTLS * self.ttl:
                    if not stalled:
                        log.error("table_loop_stalled", seconds=round(late, 1))
                    stalled = True
                    continue  # let the leases run out: the others take the tables
                stalled = False
                try:
                    await round_(tables, instances, post)
                    self.rounds += 1
                except Exception:  # the thread must outlive anything, as the loop's task did
                    log.exception("lease_renew_round_failed")
        finally:
            with contextlib.suppress(Exception):
                await close()

    async def stop(self) -> None:
        """Stop the thread and wait for it (at most a TTL: a round's requests are bounded)."""
        thread, loop, halt = self._thread, self._thread_loop, self._halt
        self._thread = None
        if thread is None:
            return
        if loop is not None and halt is not None:
            with contextlib.suppress(RuntimeError):  # its loop already ended
                loop.call_soon_threadsafe(halt.set)
        await asyncio.to_thread(thread.join, self.ttl)
