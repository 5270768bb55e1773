"""An instance whose event loop is kept busy for longer than the lease TTL keeps its leases.

Seen at 1,000 tables on one instance: clients got ``UNAVAILABLE ... changing hands``, the
instance losing its own leases while busy (its renewals waited in the one event loop behind
everything else). Here the lease keeper runs as the service runs it, renewing on its thread
(``RenewalThread``, its own NATS connection) over a real nats-server, holding 20 tables with a
2 s TTL, while a task hogs the loop for three TTLs in chunks of a quarter TTL (pure Python,
holding the interpreter's lock: no I/O, no sleeping). Between chunks the test looks: the
keeper must hold every table all along, drop none, and the bucket must still name it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable

import nats
import pytest
from nats.aio.client import Client as NATS

from riverboat.leases import Holder, JetStreamLeaseStore, LeaseStore
from riverboat.services.table.owners import LeaseKeeper
from riverboat.services.table.renewer import RenewalThread

pytestmark = pytest.mark.timeout(120)

TTL = 2.0
TABLES = [f"t{n}" for n in range(20)]
ME = Holder("busy", "127.0.0.1:7001")


class Tables:
    """The registry as a keeper sees it; records what it was told to drop."""

    def __init__(self) -> None:
        self.dropped: list[str] = []

    async def adopt(self, table_id: str) -> None:
        return None

    async def drop(self, table_id: str) -> None:
        self.dropped.append(table_id)

    async def hand_over(self, table_id: str, patience: float) -> bool:
        return True

    def cancel(self, table_id: str) -> None:
        return None

    async def ids(self) -> list[str]:
        return list(TABLES)


def _hog(seconds: float) -> None:
    """Keep the interpreter busy (no I/O, no sleep), as a burst of table work does."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


async def test_a_loop_kept_busy_longer_than_the_ttl_loses_no_lease(
    nats_client: NATS, nats_url: str
) -> None:
    bucket = f"RB_TEST_BUSY_{uuid.uuid4().hex[:12]}"
    leases = await JetStreamLeaseStore.open(nats_client, ttl=TTL, bucket=bucket)
    instances = await JetStreamLeaseStore.open(nats_client, ttl=TTL, bucket=f"{bucket}_INSTANCES")

    async def renewal_stores() -> tuple[LeaseStore, LeaseStore, Callable[[], Awaitable[None]]]:
        own = await nats.connect(nats_url)
        return (
            await JetStreamLeaseStore.attach(own, ttl=TTL, bucket=bucket),
            await JetStreamLeaseStore.attach(own, ttl=TTL, bucket=f"{bucket}_INSTANCES"),
            own.close,
        )

    renewals = RenewalThread(TTL, renewal_stores)
    registry = Tables()
    keeper = LeaseKeeper(leases, instances, ME, renewals=renewals)
    await keeper.start(
        adopt=registry.adopt,
        drop=registry.drop,
        hand_over=registry.hand_over,
        cancel_hand_over=registry.cancel,
        table_ids=registry.ids,
    )
    try:
        assert sorted(keeper.owned()) == sorted(TABLES)
        unheld: list[list[str]] = []
        rounds = renewals.rounds
        end = time.monotonic() + 3 * TTL
        while time.monotonic() < end:
            _hog(TTL / 4)
            await asyncio.sleep(0)  # one turn of the loop between chunks
            unheld.append([t for t in TABLES if not keeper.holds(t)])
        done = renewals.rounds - rounds
        print(
            f"\nloop busy {3 * TTL:g} s in {len(unheld)} chunks of {TTL / 4:g} s (TTL {TTL:g} s, "
            f"{len(TABLES)} tables): {done} renewal rounds, tables not held at "
            f"{sum(1 for u in unheld if u)} of {len(unheld)} looks"
        )
        assert not any(unheld), f"leases not held while busy: {[u for u in unheld if u]}"
        assert done >= 3, "the renewals ran while the loop was busy"
        # The loop is free again: whatever it missed (the watch, lost leases) is applied now.
        for _ in range(20):
            await asyncio.sleep(0.05)
        assert registry.dropped == []
        assert sorted(keeper.owned()) == sorted(TABLES)
        held = await leases.all()
        assert {k: v.holder for k, v in held.items()} == dict.fromkeys(TABLES, ME)
    finally:
        await keeper.stop()
        await nats_client.jetstream().delete_key_value(bucket)
        await nats_client.jetstream().delete_key_value(f"{bucket}_INSTANCES")
