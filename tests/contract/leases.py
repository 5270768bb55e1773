"""The lease contract: every LeaseStore implementation must pass all of it.

Parametrized over the in-memory store (time moved by hand) and the JetStream store (a real
nats-server, a fresh bucket per test). Expiry is awaited, never timed: the memory store's
clock is advanced past the TTL; the JetStream one is waited for (its server expires leases).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client as NATS

from riverboat.leases import (
    Holder,
    JetStreamLeaseStore,
    Lease,
    LeaseChange,
    LeaseLost,
    LeaseStore,
    LeaseTaken,
    LeaseWatch,
    MemoryLeaseStore,
)

pytestmark = pytest.mark.timeout(60)

TTL = 1.0
A = Holder("table-a", "127.0.0.1:7001")
B = Holder("table-b", "127.0.0.1:7002")


@pytest.fixture(params=["memory", "jetstream"])
async def store(request: pytest.FixtureRequest, nats_client: NATS) -> AsyncIterator[LeaseStore]:
    """Each implementation, empty (``nats_client`` is requested for both: async fixtures
    cannot be fetched lazily)."""
    if request.param == "memory":
        yield MemoryLeaseStore(ttl=TTL)
        return
    bucket = f"RB_TEST_OWNERS_{uuid.uuid4().hex[:12]}"
    yield await JetStreamLeaseStore.open(nats_client, ttl=TTL, bucket=bucket)
    await nats_client.jetstream().delete_key_value(bucket)


async def expire(store: LeaseStore, key: str) -> None:
    """Let ``key``'s lease run out (without renewing it)."""
    if isinstance(store, MemoryLeaseStore):
        store.advance(store.ttl)
    while await store.get(key) is not None:
        await asyncio.sleep(0.05)


async def next_change(watch: LeaseWatch) -> LeaseChange:
    return await asyncio.wait_for(watch.__anext__(), timeout=20)


async def test_create_then_read(store: LeaseStore) -> None:
    lease = await store.create("t1", A)
    assert lease.holder == A and lease.key == "t1" and lease.revision > 0
    assert await store.get("t1") == lease
    assert await store.get("t2") is None
    assert await store.all() == {"t1": lease}


async def test_second_create_is_refused_and_names_the_holder(store: LeaseStore) -> None:
    lease = await store.create("t1", A)
    with pytest.raises(LeaseTaken) as taken:
        await store.create("t1", B)
    assert taken.value.current == lease
    assert await store.get("t1") == lease


async def test_renew_bumps_the_revision_and_keeps_the_holder(store: LeaseStore) -> None:
    lease = await store.create("t1", A)
    renewed = await store.renew(lease)
    assert renewed.holder == A and renewed.revision > lease.revision
    assert await store.get("t1") == renewed
    with pytest.raises(LeaseLost):
        await store.renew(lease)  # a stale revision: someone may have taken it since


async def test_release_frees_the_key_and_checks_the_revision(store: LeaseStore) -> None:
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


async def test_transfer_hands_the_key_over_in_one_write(store: LeaseStore) -> None:
    lease = await store.create("t1", A)
    moved = await store.transfer(lease, B)
    assert moved.holder == B and (await store.get("t1")) == moved
    with pytest.raises(LeaseLost):
        await store.renew(lease)


async def test_an_expired_lease_is_free_and_its_old_holder_cannot_renew(store: LeaseStore) -> None:
    lease = await store.create("t1", A)
    await expire(store, "t1")
    assert await store.all() == {}
    with pytest.raises(LeaseLost):
        await store.renew(lease)
    taken = await store.create("t1", B)
    with pytest.raises(LeaseLost):
        await store.release(lease)
    assert await store.get("t1") == taken


async def test_racing_creates_have_one_winner(store: LeaseStore) -> None:
    holders = [Holder(f"i{n}", f"127.0.0.1:{7000 + n}") for n in range(8)]
    results = await asyncio.gather(
        *(store.create("t1", h) for h in holders), return_exceptions=True
    )
    won = [r for r in results if isinstance(r, Lease)]
    assert len(won) == 1
    assert all(isinstance(r, LeaseTaken) for r in results if not isinstance(r, Lease))
    assert await store.get("t1") == won[0]


async def test_watch_reports_held_leases_then_changes(store: LeaseStore) -> None:
    first = await store.create("t1", A)
    async with await store.watch() as watch:
        assert await next_change(watch) == LeaseChange("t1", first)
        second = await store.create("t2", B)
        assert await next_change(watch) == LeaseChange("t2", second)
        renewed = await store.renew(first)
        assert await next_change(watch) == LeaseChange("t1", renewed)
        await store.release(renewed)
        assert await next_change(watch) == LeaseChange("t1", None)
        await expire(store, "t2")
        assert await next_change(watch) == LeaseChange("t2", None)


async def test_bad_keys_are_refused(store: LeaseStore) -> None:
    for key in ("", "a.b", "a b", "*", ">", "x" * 200):
        with pytest.raises(ValueError):
            await store.create(key, A)
        with pytest.raises(ValueError):
            await store.get(key)


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


async def test_jetstream_leases_carry_their_own_ttl(nats_client: NATS) -> None:
    """Each write names its TTL (per-message TTL), so instances with different --lease-ttl
    share a bucket; the bucket keeps one revision per key."""
    bucket = f"RB_TEST_OWNERS_{uuid.uuid4().hex[:12]}"
    store = await JetStreamLeaseStore.open(nats_client, ttl=2.5, bucket=bucket)
    try:
        await store.create("t1", A)
        js = nats_client.jetstream()
        msg = await js.get_last_msg(f"KV_{bucket}", f"$KV.{bucket}.t1", direct=True)
        assert (msg.headers or {}).get("Nats-TTL") == "2500ms"
        info = await js.stream_info(f"KV_{bucket}")
        assert info.config.max_msgs_per_subject == 1
        with pytest.raises(ValueError):
            await JetStreamLeaseStore.open(nats_client, ttl=0.5, bucket=bucket)
    finally:
        await nats_client.jetstream().delete_key_value(bucket)
