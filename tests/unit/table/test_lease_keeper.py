"""The lease keeper over in-memory leases: claiming, redirects, placement, expiry, hand-over.

The keeper's callbacks (adopt, drop, hand over, the table list) are recorded fakes; leases
expire only when the memory store's clock is moved (``advance``). The keepers' renewal and
balance loops run every third of the TTL and every TTL (10 s) of real time: never within these
tests, so every step here is one the test makes.
"""

from __future__ import annotations

import asyncio

import pytest

from riverboat.leases import Holder, Lease, LeaseStoreUnavailable, MemoryLeaseStore
from riverboat.redirect import Owner
from riverboat.services.common.errors import NoOwner, NotOwner
from riverboat.services.table.owners import LeaseKeeper
from tests.unit.table.fakes import settle

pytestmark = pytest.mark.timeout(30)

A = Holder("a", "127.0.0.1:7001")
B = Holder("b", "127.0.0.1:7002")


class Tables:
    """The registry as a keeper sees it: which tables exist, which are loaded here."""

    def __init__(self, table_ids: list[str]) -> None:
        self.table_ids = table_ids
        self.loaded: set[str] = set()
        self.between_hands = True
        #: Every adoption asked, in order (a table loaded here is asked again to resume).
        self.adopted: list[str] = []

    async def adopt(self, table_id: str) -> None:
        self.loaded.add(table_id)
        self.adopted.append(table_id)

    async def drop(self, table_id: str) -> None:
        self.loaded.discard(table_id)

    async def hand_over(self, table_id: str, patience: float) -> bool:
        return self.between_hands

    def cancel(self, table_id: str) -> None:
        pass

    async def ids(self) -> list[str]:
        return list(self.table_ids)


async def _keeper(
    me: Holder, tables: MemoryLeaseStore, instances: MemoryLeaseStore, registry: Tables
) -> LeaseKeeper:
    keeper = LeaseKeeper(tables, instances, me, handover_patience=5)
    await keeper.start(
        adopt=registry.adopt,
        drop=registry.drop,
        hand_over=registry.hand_over,
        cancel_hand_over=registry.cancel,
        table_ids=registry.ids,
    )
    await settle()
    return keeper


@pytest.fixture
def stores() -> tuple[MemoryLeaseStore, MemoryLeaseStore]:
    return MemoryLeaseStore(ttl=10), MemoryLeaseStore(ttl=10)


async def test_a_lone_instance_claims_every_table_and_the_other_is_redirected(
    stores: tuple[MemoryLeaseStore, MemoryLeaseStore],
) -> None:
    leases, instances = stores
    here, there = Tables(["t1", "t2"]), Tables(["t1", "t2"])
    a = await _keeper(A, leases, instances, here)
    assert sorted(a.owned()) == ["t1", "t2"] and here.loaded == {"t1", "t2"}
    assert a.holds("t1")
    b = await _keeper(B, leases, instances, there)
    assert b.owned() == [] and not there.loaded
    redirect = await b.redirect("t1")
    assert isinstance(redirect, NotOwner) and redirect.owner == Owner("t1", "a", A.address)
    # New tables go to the less loaded instance: from a's side, that is b.
    assert await a.placement() == B and await b.placement() == B
    await a.stop()
    await b.stop()


async def test_an_expired_lease_is_claimed_by_a_survivor_and_meanwhile_answers_no_owner(
    stores: tuple[MemoryLeaseStore, MemoryLeaseStore],
) -> None:
    leases, instances = stores
    here, there = Tables(["t1"]), Tables(["t1"])
    a = await _keeper(A, leases, instances, here)
    b = await _keeper(B, leases, instances, there)
    assert a.holds("t1")
    # a dies: its presence goes first (both leases have the same TTL; here one by one).
    await instances.release((await instances.all())["a"])
    await settle()
    assert isinstance(await b.redirect("t1"), NoOwner)  # the owner named is gone
    for task in a._tasks:  # a is dead: nothing of it runs any more
        task.cancel()
    leases.advance(10)
    # The survivor claims after a short spread-out pause (a few tens of ms at most).
    for _ in range(500):
        if b.holds("t1"):
            break
        await asyncio.sleep(0.01)
    assert b.holds("t1") and there.loaded == {"t1"}
    assert (await leases.get("t1")).holder == B  # type: ignore[union-attr]
    await b.stop()


async def test_stopping_hands_every_table_to_the_other_instance(
    stores: tuple[MemoryLeaseStore, MemoryLeaseStore],
) -> None:
    leases, instances = stores
    here, there = Tables(["t1", "t2"]), Tables(["t1", "t2"])
    a = await _keeper(A, leases, instances, here)
    b = await _keeper(B, leases, instances, there)
    await a.stop()
    await settle()
    assert not here.loaded and a.owned() == []
    assert sorted(b.owned()) == ["t1", "t2"] and there.loaded == {"t1", "t2"}
    assert {lease.holder for lease in (await leases.all()).values()} == {B}
    assert "a" not in await instances.all()
    await b.stop()


async def test_the_last_instance_stopping_releases_its_tables(
    stores: tuple[MemoryLeaseStore, MemoryLeaseStore],
) -> None:
    leases, instances = stores
    here = Tables(["t1"])
    a = await _keeper(A, leases, instances, here)
    await a.stop()
    assert await leases.all() == {} and not here.loaded


async def test_a_restart_on_the_same_address_takes_its_leases_back_at_once(
    stores: tuple[MemoryLeaseStore, MemoryLeaseStore],
) -> None:
    leases, instances = stores
    a = await _keeper(A, leases, instances, Tables(["t1"]))
    for task in a._tasks:  # killed -9: its leases stay until their TTL
        task.cancel()
    await asyncio.sleep(0)
    again = Holder("a-restarted", A.address)
    registry = Tables(["t1"])
    restarted = await _keeper(again, leases, instances, registry)
    assert restarted.holds("t1") and registry.loaded == {"t1"}
    assert (await leases.get("t1")).holder == again  # type: ignore[union-attr]
    await restarted.stop()


class Flaky(MemoryLeaseStore):
    """A store whose first answers are lost, as a replicated bucket's are while its stream
    elects its first leader: the first ``create`` lands but its answer does not arrive, and
    the first reads time out."""

    def __init__(self, ttl: float, failures: int) -> None:
        super().__init__(ttl=ttl)
        self.failures = failures

    def _fail(self) -> None:
        if self.failures > 0:
            self.failures -= 1
            raise LeaseStoreUnavailable("nats: timeout")

    async def create(self, key: str, holder: Holder) -> Lease:
        lease = await super().create(key, holder)
        self._fail()
        return lease

    async def all(self) -> dict[str, Lease]:
        self._fail()
        return await super().all()


async def test_joining_waits_out_a_lease_store_that_does_not_answer_yet() -> None:
    leases, instances = Flaky(ttl=10, failures=2), Flaky(ttl=10, failures=3)
    here = Tables(["t1"])
    a = await _keeper(A, leases, instances, here)
    assert a.owned() == ["t1"] and here.loaded == {"t1"}
    # The lost answer's write stood: the instance is announced once, as itself.
    assert {k: v.holder for k, v in (await instances.all()).items()} == {"a": A}
    assert leases.failures == instances.failures == 0
    await a.stop()


async def test_a_lease_renewed_after_its_safe_share_ran_out_resumes_the_table(
    stores: tuple[MemoryLeaseStore, MemoryLeaseStore],
) -> None:
    """A renewal that timed out (a NATS node restarting) lets the safe share run out: holds()
    turns False and the table's deal and clock stop on LeaseNotHeld. The next renewal that
    goes through must resume the table, or it stays idle while its lease is renewed."""
    leases, instances = stores
    here = Tables(["t1"])
    a = await _keeper(A, leases, instances, here)
    assert a.holds("t1") and here.adopted == ["t1"]
    a._owned["t1"].until = a._now() - 1  # the renewals that would have kept it timed out
    assert not a.holds("t1")
    await a.renew_round(leases, instances, lambda callback: callback())
    await settle()
    assert a.holds("t1")
    assert here.adopted == ["t1", "t1"]  # resumed
    # A renewal in time changes nothing.
    await a.renew_round(leases, instances, lambda callback: callback())
    await settle()
    assert here.adopted == ["t1", "t1"]
    await a.stop()
