"""In-process leases for unit tests: time is the store's own, moved by :meth:`advance`."""

from __future__ import annotations

import asyncio

from riverboat.leases.base import (
    Holder,
    Lease,
    LeaseChange,
    LeaseLost,
    LeaseStore,
    LeaseTaken,
    LeaseWatch,
    validate_key,
)

__all__ = ["MemoryLeaseStore"]


class _MemoryWatch(LeaseWatch):
    def __init__(self, store: MemoryLeaseStore) -> None:
        self._store = store
        self._queue: asyncio.Queue[LeaseChange | None] = asyncio.Queue()

    def put(self, change: LeaseChange | None) -> None:
        self._queue.put_nowait(change)

    async def __anext__(self) -> LeaseChange:
        change = await self._queue.get()
        if change is None:
            self._queue.put_nowait(None)  # stays ended
            raise StopAsyncIteration
        return change

    async def close(self) -> None:
        self._store._watches.discard(self)
        self.put(None)


class MemoryLeaseStore(LeaseStore):
    """A :class:`LeaseStore` in a dict, with the same contract as the JetStream one.

    No real clock: the store's time starts at 0 and moves only by :meth:`advance`, which
    expires every lease whose TTL has run out (watchers see them go).
    """

    def __init__(self, ttl: float = 10.0) -> None:
        self.ttl = ttl
        self.now = 0.0
        self._revision = 0
        self._leases: dict[str, tuple[Lease, float]] = {}
        self._watches: set[_MemoryWatch] = set()

    def advance(self, seconds: float) -> None:
        """Move time on; leases not renewed within their TTL expire."""
        self.now += seconds
        for key, (_, expires) in list(self._leases.items()):
            if expires <= self.now:
                del self._leases[key]
                self._notify(LeaseChange(key, None))

    def _notify(self, change: LeaseChange) -> None:
        for watch in list(self._watches):
            watch.put(change)

    def _write(self, key: str, holder: Holder) -> Lease:
        self._revision += 1
        lease = Lease(key, holder, self._revision)
        self._leases[key] = (lease, self.now + self.ttl)
        self._notify(LeaseChange(key, lease))
        return lease

    def _current(self, lease: Lease) -> None:
        held = self._leases.get(lease.key)
        if held is None or held[0].revision != lease.revision:
            raise LeaseLost(lease.key)

    async def create(self, key: str, holder: Holder) -> Lease:
        validate_key(key)
        held = self._leases.get(key)
        if held is not None:
            raise LeaseTaken(key, held[0])
        return self._write(key, holder)

    async def renew(self, lease: Lease) -> Lease:
        self._current(lease)
        return self._write(lease.key, lease.holder)

    async def transfer(self, lease: Lease, holder: Holder) -> Lease:
        self._current(lease)
        return self._write(lease.key, holder)

    async def release(self, lease: Lease) -> None:
        self._current(lease)
        self._revision += 1
        del self._leases[lease.key]
        self._notify(LeaseChange(lease.key, None))

    async def get(self, key: str) -> Lease | None:
        validate_key(key)
        held = self._leases.get(key)
        return held[0] if held else None

    async def all(self) -> dict[str, Lease]:
        return {key: lease for key, (lease, _) in self._leases.items()}

    async def watch(self) -> LeaseWatch:
        watch = _MemoryWatch(self)
        for key, (lease, _) in sorted(self._leases.items()):
            watch.put(LeaseChange(key, lease))
        self._watches.add(watch)
        return watch
