"""The lease contract: every LeaseStore implementation must pass all of it.

:class:`LeaseStoreContract` is abstract: a ``Test...`` subclass provides the ``store`` fixture
(an empty store with a TTL of :data:`TTL` seconds) and :meth:`~LeaseStoreContract.expire`. The
in-memory store (time moved by hand) runs it in ``tests/contract/test_leases.py``; the JetStream
store (a real nats-server, a fresh bucket per test) in
``tests/integration/leases/test_jetstream_contract.py``. Expiry is awaited, never timed.
"""

from __future__ import annotations

import asyncio

import pytest

from riverboat.leases import (
    Holder,
    Lease,
    LeaseChange,
    LeaseLost,
    LeaseStore,
    LeaseTaken,
    LeaseWatch,
)

TTL = 1.0
A = Holder("table-a", "127.0.0.1:7001")
B = Holder("table-b", "127.0.0.1:7002")


async def next_change(watch: LeaseWatch) -> LeaseChange:
    return await asyncio.wait_for(watch.__anext__(), timeout=20)


@pytest.mark.timeout(60)
class LeaseStoreContract:
    """What every :class:`LeaseStore` promises; subclasses provide ``store`` and ``expire``."""

    async def expire(self, store: LeaseStore, key: str) -> None:
        """Let ``key``'s lease run out (without renewing it); returns once it is gone."""
        raise NotImplementedError

    async def test_create_then_read(self, store: LeaseStore) -> None:
        lease = await store.create("t1", A)
        assert lease.holder == A and lease.key == "t1" and lease.revision > 0
        assert await store.get("t1") == lease
        assert await store.get("t2") is None
        assert await store.all() == {"t1": lease}

    async def test_second_create_is_refused_and_names_the_holder(self, store: LeaseStore) -> None:
        lease = await store.create("t1", A)
        with pytest.raises(LeaseTaken) as taken:
            await store.create("t1", B)
        assert taken.value.current == lease
        assert await store.get("t1") == lease

    async def test_renew_bumps_the_revision_and_keeps_the_holder(self, store: LeaseStore) -> None:
        lease = await store.create("t1", A)
        renewed = await store.renew(lease)
        assert renewed.holder == A and renewed.revision > lease.revision
        assert await store.get("t1") == renewed
        with pytest.raises(LeaseLost):
            await store.renew(lease)  # a stale revision: someone may have taken it since

    async def test_release_frees_the_key_and_checks_the_revision(self, store: LeaseStore) -> None:
        lease = await store.create("t1", A)
        renewed = await store.renew(lease)
        with pytest.raises(LeaseLost):
            await store.release(lease)
        assert await store.get("t1") == renewed
        await store.release(renewed)
        assert await store.get("t1") is None
        assert await store.all() == {}
        again = await store.create("t1", B)
        assert again.holder == B

    async def test_transfer_hands_the_key_over_in_one_write(self, store: LeaseStore) -> None:
        lease = await store.create("t1", A)
        moved = await store.transfer(lease, B)
        assert moved.holder == B and (await store.get("t1")) == moved
        with pytest.raises(LeaseLost):
            await store.renew(lease)

    async def test_an_expired_lease_is_free_and_its_old_holder_cannot_renew(
        self, store: LeaseStore
    ) -> None:
        lease = await store.create("t1", A)
        await self.expire(store, "t1")
        assert await store.all() == {}
        with pytest.raises(LeaseLost):
            await store.renew(lease)
        taken = await store.create("t1", B)
        with pytest.raises(LeaseLost):
            await store.release(lease)
        assert await store.get("t1") == taken

    async def test_racing_creates_have_one_winner(self, store: LeaseStore) -> None:
        holders = [Holder(f"i{n}", f"127.0.0.1:{7000 + n}") for n in range(8)]
        results = await asyncio.gather(
            *(store.create("t1", h) for h in holders), return_exceptions=True
        )
        won = [r for r in results if isinstance(r, Lease)]
        assert len(won) == 1
        assert all(isinstance(r, LeaseTaken) for r in results if not isinstance(r, Lease))
        assert await store.get("t1") == won[0]

    async def test_watch_reports_held_leases_then_changes(self, store: LeaseStore) -> None:
        first = await store.create("t1", A)
        async with await store.watch() as watch:
            assert await next_change(watch) == LeaseChange("t1", first)
            second = await store.create("t2", B)
            assert await next_change(watch) == LeaseChange("t2", second)
            renewed = await store.renew(first)
            assert await next_change(watch) == LeaseChange("t1", renewed)
            await store.release(renewed)
            assert await next_change(watch) == LeaseChange("t1", None)
            await self.expire(store, "t2")
            assert await next_change(watch) == LeaseChange("t2", None)

    async def test_bad_keys_are_refused(self, store: LeaseStore) -> None:
        for key in ("", "a.b", "a b", "*", ">", "x" * 200):
            with pytest.raises(ValueError):
                await store.create(key, A)
            with pytest.raises(ValueError):
                await store.get(key)
