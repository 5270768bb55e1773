"""The event store on a three-node NATS cluster: replicas, and appends through leader loss."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

import nats
import pytest
from nats.aio.client import Client as NATS

from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.natsserver import NatsCluster
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.store import DealerStore

pytestmark = pytest.mark.timeout(120)


async def _connect(cluster: NatsCluster) -> NATS:
    return await nats.connect(
        servers=cluster.urls,
        connect_timeout=2,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.2,
    )


async def _replicas(nc: NATS, stream: str) -> int:
    info = await nc.jetstream().stream_info(stream)
    return int(info.config.num_replicas or 1)


async def test_replicas_are_set_on_creation_and_never_changed_after(
    nats_cluster: NatsCluster, caplog: pytest.LogCaptureFixture
) -> None:
    nc = await _connect(nats_cluster)
    try:
        r3 = StreamSettings(name="RB_R3", subject_prefix="rb.r3", replicas=3)
        created = await JetStreamEventStore(nc, r3).ensure_stream()
        assert created.created and created.mismatch is None
        assert await _replicas(nc, "RB_R3") == 3

        # A service started with the default --replicas 1 must not shrink the operator's R3.
        with caplog.at_level(logging.WARNING, logger="riverboat.eventstore"):
            check = await JetStreamEventStore(
                nc, StreamSettings(name="RB_R3", subject_prefix="rb.r3", replicas=1)
            ).ensure_stream()
        assert (check.created, check.replicas, check.wanted_replicas) == (False, 3, 1)
        assert check.mismatch is not None and "RB_R3" in check.mismatch
        assert any("stream_replicas_mismatch" in r.getMessage() for r in caplog.records)
        assert await _replicas(nc, "RB_R3") == 3

        # Nor is an R1 stream grown behind the operator's back: reported, left as it is.
        await JetStreamEventStore(
            nc, StreamSettings(name="RB_R1", subject_prefix="rb.r1", replicas=1)
        ).ensure_stream()
        grow = await JetStreamEventStore(
            nc, StreamSettings(name="RB_R1", subject_prefix="rb.r1", replicas=3)
        ).ensure_stream()
        assert (grow.replicas, grow.wanted_replicas) == (1, 3) and grow.mismatch is not None
        assert await _replicas(nc, "RB_R1") == 1

        # The dealer's write-once streams go through the same creation and check.
        dealer = DealerStore(nc, DealerConfig(replicas=3))
        checks = await dealer.ensure_streams()
        assert [c.replicas for c in checks] == [3, 3] and all(c.created for c in checks)
        again = await DealerStore(nc, DealerConfig(replicas=1)).ensure_streams()
        assert [(c.created, c.replicas, c.wanted_replicas) for c in again] == [(False, 3, 1)] * 2
        assert await _replicas(nc, "RB_DEALER") == 3
    finally:
        await nc.close()


@dataclass
class Writer:
    """Appends records one after another, noting each acknowledged one and each failure."""

    store: JetStreamEventStore
    acked: dict[str, int] = field(default_factory=dict)  # request id -> version
    failures: list[str] = field(default_factory=list)
    ack_times: list[tuple[float, float]] = field(default_factory=list)  # (sent, acknowledged)
    version: int = 0
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            request_id = f"r{n}"
            sent = time.monotonic()
            try:
                result = await self.store.append(
                    "t1",
                    f"record {n}".encode(),
                    expected_version=self.version,
                    request_id=request_id,
                )
            except Exception as exc:
                self.failures.append(f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(0.05)
                continue  # the same request id again, as a client retrying would
            self.acked[request_id] = result.version
            self.version = result.version
            self.ack_times.append((sent, time.monotonic()))
            n += 1

    async def wait_acks(self, count: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        target = len(self.acked) + count
        while len(self.acked) < target:
            assert time.monotonic() < deadline, f"appends stalled: {self.failures[-3:]}"
            await asyncio.sleep(0.02)


async def test_appends_ride_out_the_loss_of_the_stream_leader_twice(
    nats_cluster: NatsCluster,
) -> None:
    """Kill -9 the stream's leader under load, restart it, kill the new leader: no loss."""
    nc = await _connect(nats_cluster)
    try:
        store = await JetStreamEventStore.open(
            nc, StreamSettings(name="RB_FAIL", subject_prefix="rb.fail", replicas=3), timeout=2.0
        )
        writer = Writer(store)
        task = asyncio.create_task(writer.run())
        failovers = []
        try:
            await writer.wait_acks(20)
            for _ in range(2):
                leader = nats_cluster.wait_stream_leader("RB_FAIL")
                killed_at = time.monotonic()
                await asyncio.to_thread(nats_cluster.kill, leader)
                dead = time.monotonic()
                await writer.wait_acks(20)
                # The first acknowledged append sent once the node was dead (the one in flight
                # at the kill may have been stored just before it).
                failovers.append(min(a for s, a in writer.ack_times if s >= dead) - killed_at)
                await asyncio.to_thread(nats_cluster.restart, leader)
            await writer.wait_acks(10)
        finally:
            writer.stop.set()
            await task
        records = await store.read("t1")
        # Every acknowledged append is in the log, once, in order; nothing else is.
        assert [r.request_id for r in records] == [f"r{i}" for i in range(len(records))]
        assert {r.request_id: r.version for r in records} == writer.acked
        assert [r.version for r in records] == list(range(1, len(records) + 1))
        # The retries absorbed the elections: the only failures the writer may see are appends
        # begun while its client was reconnecting to another node (refused at once, unsent).
        unsent = "not connected to NATS; nothing was sent"
        assert [f for f in writer.failures if unsent not in f] == []
        print(
            "\nNATS stream-leader fail-over (kill -9 to first acknowledged append): "
            + ", ".join(f"{s:.2f} s" for s in failovers)
        )
    finally:
        await nc.close()
