"""Argon2 work, bounded: a few threads, a short queue, and nothing done for a caller gone.

Each Register and Login runs one Argon2id hash (64 MiB, tenths of a second of a core). Sent to
an unbounded thread pool, a flood of them queues without end: every later Login waits behind
the flood, memory grows by 64 MiB per running hash, and requests are still hashed (and accounts
written) long after their clients gave up. :class:`PasswordHashing` runs at most ``workers``
hashes at once on its own threads and lets at most ``queue`` more wait; a call beyond that is
refused at once with ``RESOURCE_EXHAUSTED`` (reason ``PASSWORD_HASHING_BUSY``) and an
estimated retry delay. One peer address holds at most ``per_peer`` of those places (running or
waiting), so a flood from one address leaves room for everyone else's Login. A caller whose
deadline passed or who cancelled is not hashed for.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

from riverboat.ratelimit import ConcurrencyLimiter
from riverboat.services.common.errors import DeadlineExceeded, ResourceExhausted
from riverboat.services.common.limits import peer_address

T = TypeVar("T")

#: A write to the lobby's log is begun only with at least this many seconds of the caller's
#: deadline left, so that it lands before the caller gives up rather than after.
WRITE_MARGIN = 0.25
_EWMA = 0.2  # weight of the newest hash in the running estimate of one hash's duration


async def abort_if_gone(context: Any, margin: float = 0.0) -> None:
    """End the call if its client cancelled or has less than ``margin`` seconds left.

    ``context`` is the call's ``grpc.aio.ServicerContext``, or None outside an RPC (the
    lobby's own start-up), where nothing is checked.
    """
    if context is None:
        return
    remaining = context.time_remaining()
    if context.cancelled() or (remaining is not None and remaining <= margin):
        raise DeadlineExceeded(
            "the call's deadline passed before it could be done; nothing was changed",
            reason="DEADLINE_PASSED",
        )


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[..., Any], *args: Any) -> None:
    """From a hashing thread: run ``callback`` on ``loop``, unless the lobby has stopped."""
    with contextlib.suppress(RuntimeError):  # the loop is closed: nothing left to release
        loop.call_soon_threadsafe(callback, *args)


class PasswordHashing:
    """Runs password hashing on ``workers`` threads, with at most ``queue`` calls waiting.

    Args:
        workers: hashes at once (each holds 64 MiB while it runs).
        queue: calls that may wait for a thread; more are refused.
        per_peer: places (running or waiting) one peer address may hold.
    """

    def __init__(self, workers: int, queue: int, per_peer: int = 4) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("hashing needs at least 1 worker and a queue of 0 or more")
        self.workers = workers
        self.queue = queue
        self._executor = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="argon2")
        self._free = asyncio.Semaphore(workers)
        self._waiting = 0
        self._peers = ConcurrencyLimiter(per_peer)
        self._seconds = 0.2  # running estimate of one hash, for the retry delay

    @property
    def waiting(self) -> int:
        """Calls waiting for a thread now."""
        return self._waiting

    async def run(self, context: Any, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` on a hashing thread, once one is free.

        Raises:
            ResourceExhausted: ``queue`` calls are waiting already.
        """
        peer = peer_address(context.peer() or "") if context is not None else None
        full = self._waiting >= self.queue and self._free.locked()
        if full or (peer is not None and not self._peers.acquire(peer)):
            raise ResourceExhausted(
                "the lobby is checking too many passwords at once"
                + ("" if full else " for your address")
                + "; retry shortly",
                retry_delay=self._seconds * (self._waiting + 1) / self.workers,
                reason="PASSWORD_HASHING_BUSY",
            )
        self._waiting += 1
        try:
            await self._free.acquire()
        except BaseException:
            self._release_peer(peer)
            raise
        finally:
            self._waiting -= 1
        loop = asyncio.get_running_loop()
        try:
            await abort_if_gone(context)  # waited past its deadline: no hash for nobody
        except BaseException:
            self._free.release()
            self._release_peer(peer)
            raise
        started = loop.time()

        def done(_: concurrent.futures.Future[T]) -> None:
            # The thread is free only when the hash is finished, even if its caller left.
            self._seconds += _EWMA * (loop.time() - started - self._seconds)
            self._free.release()
            self._release_peer(peer)

        future = self._executor.submit(work, *args)
        future.add_done_callback(lambda f: _call_soon(loop, done, f))
        return await asyncio.wrap_future(future)

    def _release_peer(self, peer: str | None) -> None:
        if peer is not None:
            self._peers.release(peer)

    def close(self) -> None:
        """Stop the threads (hashes in progress finish)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
