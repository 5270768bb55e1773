"""The lease contract on the in-memory store, whose clock the test moves (no server)."""

from __future__ import annotations

import pytest

from riverboat.leases import LeaseStore, MemoryLeaseStore
from tests.contract.leases import TTL, A, LeaseStoreContract


class TestMemoryLeaseStore(LeaseStoreContract):
    """:class:`MemoryLeaseStore` keeps every promise of the contract."""

    @pytest.fixture
    def store(self) -> LeaseStore:
        return MemoryLeaseStore(ttl=TTL)

    async def expire(self, store: LeaseStore, key: str) -> None:
        assert isinstance(store, MemoryLeaseStore)
        store.advance(store.ttl)
        assert await store.get(key) is None


async def test_a_renewed_lease_outlives_its_first_ttl() -> None:
    """Memory only: its clock is the test's, so the TTL can be crossed exactly."""
    store = MemoryLeaseStore(ttl=10)
    lease = await store.create("t1", A)
    store.advance(6)
    lease = await store.renew(lease)
    store.advance(6)
    assert await store.get("t1") == lease
    store.advance(4)
    assert await store.get("t1") is None
