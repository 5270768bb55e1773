"""The room under load on a three-node NATS cluster while its nodes die.

Bots play two tables through the table service (R3 streams); the test kills -9 the node leading
the table stream, restarts it, then kills the stream's next leader (right after the first node
rejoined) and restarts it. (That second kill once stalled play in about one run in five: the
table instance lost and re-claimed its leases every TTL, its renewals stuck behind a drop;
the lease keeper's renewal round no longer waits on anything but its renewals.) The oracles, from
outside: every ``Act`` a client was acknowledged is in the log with its request id (zero
acknowledged events lost), the clients see nothing worse than UNAVAILABLE and go on playing,
``riverboat audit`` verifies the streams. The fail-over time (kill to the first acknowledged
``Act`` after it) is printed.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats
import nats.errors
import pytest

from riverboat.auth import TokenIssuer
from riverboat.client import BotStats, TableClient, play_bot, random_chooser
from riverboat.eventstore import EventStoreError, JetStreamEventStore, StoredRecord, StreamSettings
from riverboat.natsserver import NatsCluster
from riverboat.v1 import table_pb2
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room._outage import is_request
from tests.e2e.room._play import setup_table
from tests.e2e.room.conftest import Room, _dealer, _table
from tests.e2e.room.test_audit_room import cli, stream_flags

pytestmark = pytest.mark.timeout(300)

TAG = "FO"
TABLES = ("t-fo-a", "t-fo-b")


@dataclass
class Acks:
    """Every acknowledged Act: (table, request id, version, when sent, when acknowledged)."""

    seen: list[tuple[str, str, int, float, float]] = field(default_factory=list)

    async def wait(self, more: int, timeout: float = 90.0) -> None:
        target = len(self.seen) + more
        deadline = time.monotonic() + timeout
        while len(self.seen) < target:
            assert time.monotonic() < deadline, f"play stalled at {len(self.seen)} acks"
            await asyncio.sleep(0.05)


class RecordingClient(TableClient):
    """A table client that notes each acknowledged Act (the clients' side of the oracle)."""

    def __init__(self, *args: Any, acks: Acks, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acks = acks

    async def act(self, table_id: str, *args: Any, **kwargs: Any) -> table_pb2.ActResponse:
        sent = time.monotonic()
        reply = await super().act(table_id, *args, **kwargs)
        self.acks.seen.append(
            (table_id, kwargs["request_id"], reply.version, sent, time.monotonic())
        )
        return reply


@pytest.fixture
def cluster_room(nats_cluster: NatsCluster, tmp_path: Path) -> Iterator[tuple[NatsCluster, Room]]:
    """Dealer and table services given all three nodes' URLs, their streams R3."""
    urls = ",".join(nats_cluster.urls)
    dealer = _dealer(urls, tmp_path, TAG)
    dealer.args += ["--replicas", "3"]
    dealer.start()
    table = _table(urls, tmp_path, dealer.address, TAG)
    table.args += ["--replicas", "3"]
    try:
        table.start()
    except Exception:
        dealer.kill()
        raise
    try:
        yield nats_cluster, Room(urls, dealer, table, tmp_path, TokenIssuer(TEST_TOKEN_KEY))
    finally:
        for node in nats_cluster:
            if not node.is_running:
                node.start()  # let the services drain cleanly
        table.stop()
        dealer.stop()
        if os.environ.get("RB_KEEP_LOGS"):
            print((tmp_path / "table.log").read_text()[-5000:])


async def read_log(urls: str, table_id: str) -> list[StoredRecord]:
    """The table's raw log, read with a client of the test's own (a node just restarted may
    answer "temporarily unavailable" for a moment: asked again, boundedly)."""
    nc = await nats.connect(servers=urls.split(","), connect_timeout=5)
    try:
        settings = StreamSettings(name=f"RB_TABLES_{TAG}", subject_prefix=f"rb.tables{TAG.lower()}")
        for _ in range(50):
            try:
                return await JetStreamEventStore(nc, settings).read(table_id)
            except (EventStoreError, nats.errors.Error):
                await asyncio.sleep(0.2)
        return await JetStreamEventStore(nc, settings).read(table_id)
    finally:
        await nc.close()


async def _kill(cluster: NatsCluster, acks: Acks, *, leader: bool) -> tuple[str, float]:
    """Kill -9 the table stream's leader (or a follower of it); once play goes on, restart it.
    Returns (node name, seconds from the kill to the first Act acknowledged after it)."""
    lead = cluster.wait_stream_leader(f"RB_TABLES_{TAG}")
    victim = lead if leader else next(n for n in cluster if n is not lead and n.is_running)
    killed_at = time.monotonic()
    await asyncio.to_thread(cluster.kill, victim)
    dead = time.monotonic()
    await acks.wait(20)
    # The first acknowledged Act sent once the node was dead (one in flight at the kill may
    # have been stored just before it).
    failover = min(acked for *_, sent, acked in acks.seen if sent >= dead) - killed_at
    await asyncio.to_thread(cluster.restart, victim)
    return victim.server_name, failover


async def test_killing_the_table_streams_leader_then_another_node_loses_no_acknowledged_act(
    cluster_room: tuple[NatsCluster, Room],
) -> None:
    cluster, room = cluster_room
    acks = Acks()
    stop = asyncio.Event()
    stats: list[BotStats] = []
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        operator = room.client(channel, "operator", "operator")
        bots = []
        for k, table_id in enumerate(TABLES):
            names = await setup_table(operator, table_id, 3, stack=100_000, action_seconds=30)
            for j, name in enumerate(names):
                client = RecordingClient(channel, room.token(name), name, acks=acks)
                stats.append(BotStats())
                chooser = random_chooser(random.Random(10 * k + j))
                bots.append(play_bot(client, table_id, chooser, stop=stop, stats=stats[-1]))
        tasks = [asyncio.create_task(bot) for bot in bots]
        try:
            await acks.wait(30)
            first = await _kill(cluster, acks, leader=True)
            await acks.wait(20)
            second = await _kill(cluster, acks, leader=True)
            await acks.wait(30)  # and play carries on after both
        finally:
            stop.set()
            await asyncio.gather(*tasks)
    print(
        f"\nkill -9 under load to the first acknowledged Act: the table stream's leader "
        f"{first[1]:.2f} s ({first[0]}), then its next leader {second[1]:.2f} s ({second[0]}); "
        f"{len(acks.seen)} Acts acknowledged"
    )
    # Zero acknowledged events lost: each acknowledged Act is in the log, at its version.
    for table_id in TABLES:
        records = {r.version: r for r in await read_log(room.nats_url, table_id)}
        for acked_table, request_id, version, *_ in acks.seen:
            if acked_table == table_id:
                assert version in records, f"{table_id} v{version} ({request_id}) lost"
                assert is_request(records[version].request_id, request_id), (table_id, version)
    # What clients saw: at worst UNAVAILABLE (or a move the clock made first), never worse.
    errors = [error for s in stats for error in s.errors]
    bad = [e for e in errors if not e.startswith(("UNAVAILABLE", "FAILED_PRECONDITION"))]
    assert bad == [], bad
    print(f"client errors: {len(errors)} ({sorted({e.split(':')[0] for e in errors})})")
    # The audit verifies both tables (reveals trail the hands: retried until they are in).
    for _ in range(30):
        if await cli("audit", "--nats", room.nats_url, *stream_flags(room), "--no-progress") == 0:
            break
        await asyncio.sleep(0.5)
    else:
        raise AssertionError("riverboat audit never verified the streams")
