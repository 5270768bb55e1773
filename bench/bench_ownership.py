"""Table ownership: per-table KV leases (what Riverboat does) against pinned partitions (the
alternative the issue names), on a private nats-server.

* **KV leases** (``riverboat.leases.JetStreamLeaseStore``): ``TABLES`` leases renewed
  concurrently, several rounds; the nats-server's and this client's CPU per renewal, so the
  cost per table per second at the table service's renewal rate (every third of the TTL); and
  how long after its last renewal a lease's expiry reaches a watcher (the fail-over delay a
  dead instance's tables wait for, with ``FAILOVER_TTL``).
* **Pinned partitions**: JetStream's consumer priority groups (``priority_policy:
  pinned_client``, nats-server 2.11+; nats-py has no API for them, so raw JSON requests), the
  mechanism partitioned consumer groups are built on: one durable consumer per partition
  (``PARTITIONS``), every member keeping a pull request open on each; the server pins one
  member per partition and unpins it after ``priority_timeout`` without pulls. Measured: the
  nats-server's CPU per pull (so the cost per partition per second at the same renewal rate,
  whatever the number of tables), the fail-over delay (a pinned member stops pulling: how long
  until another receives the partition's next message), and what a member joining later
  receives (pins do not move by themselves).

Run: ``.venv/bin/python -m bench ownership``.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path

import nats
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from bench._room import cpu_seconds, percentile
from riverboat.leases import Holder, JetStreamLeaseStore
from riverboat.natsserver import NatsServer

TABLES = 1000
TTL = 10.0
ROUNDS = 5
FAILOVER_TTL = 3.0
FAILOVER_SAMPLES = 3
PARTITIONS = 16
MEMBERS = 2
GROUP = "owners"


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="rb-bench-ownership-") as tmp:
        server = NatsServer(Path(tmp) / "nats", port=0)
        server.start()
        try:
            asyncio.run(_bench(server))
        finally:
            server.close()


async def _bench(server: NatsServer) -> None:
    assert server.pid is not None
    nc = await nats.connect(server.url)
    try:
        await _leases(nc, server.pid)
        await _partitions(nc, server.pid)
    finally:
        await nc.close()


# --- KV leases ----------------------------------------------------------------------------------


async def _leases(nc: NATS, pid: int) -> None:
    store = await JetStreamLeaseStore.open(nc, ttl=TTL, bucket=f"BENCH_{uuid.uuid4().hex[:8]}")
    me = Holder("bench", "127.0.0.1:1")
    leases = [await store.create(f"t{k}", me) for k in range(TABLES)]
    latencies: list[float] = []

    async def renew(k: int) -> None:
        started = time.perf_counter()
        leases[k] = await store.renew(leases[k])
        latencies.append(time.perf_counter() - started)

    server0, client0, wall0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
    for _ in range(ROUNDS):
        for start in range(0, TABLES, 250):
            await asyncio.gather(*(renew(k) for k in range(start, min(start + 250, TABLES))))
    wall = time.perf_counter() - wall0
    renewals = ROUNDS * TABLES
    server_us = (cpu_seconds(pid) - server0) / renewals * 1e6
    client_us = (time.process_time() - client0) / renewals * 1e6
    per_second = 3 / TTL  # renewals per table per second (every third of the TTL)
    print(
        f"KV leases: {renewals} renewals of {TABLES} leases in {wall:.2f} s; per renewal "
        f"nats-server {server_us:.0f} us CPU, client {client_us:.0f} us CPU, p50 "
        f"{percentile(latencies, 0.5) * 1000:.1f} ms (in batches of 250)"
    )
    print(
        f"  holding a table (TTL {TTL:g} s, renewed every {TTL / 3:.2f} s): "
        f"{server_us * per_second:.0f} us/s of nats-server CPU per table; 20,000 tables: "
        f"{server_us * per_second * 20_000 / 1e6 * 100:.0f}% of one core"
    )
    # Fail-over: a lease left unrenewed; when does a watcher hear it went?
    short = await JetStreamLeaseStore.open(
        nc, ttl=FAILOVER_TTL, bucket=f"BENCH_{uuid.uuid4().hex[:8]}"
    )
    delays: list[float] = []
    async with await short.watch() as watch:
        for k in range(FAILOVER_SAMPLES):
            await short.create(f"f{k}", me)
            written = time.monotonic()
            async for change in watch:
                if change.key == f"f{k}" and change.lease is None:
                    delays.append(time.monotonic() - written)
                    break
    print(
        f"  fail-over: a lease with TTL {FAILOVER_TTL:g} s seen gone by a watcher "
        f"{min(delays):.2f}-{max(delays):.2f} s after its last write "
        f"({FAILOVER_SAMPLES} samples); any instance can then claim that one table"
    )


# --- pinned partitions ----------------------------------------------------------------------------


class Member:
    """One group member: a pull request kept open on every partition's consumer."""

    def __init__(self, nc: NATS, stream: str, name: str, expires: float) -> None:
        self.nc, self.stream, self.name, self.expires = nc, stream, name, expires
        self.received: dict[int, list[float]] = {p: [] for p in range(PARTITIONS)}
        self.pulls = 0
        self._pins: dict[int, str] = {}
        self._queues: dict[int, asyncio.Queue[Msg]] = {}
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, partitions: range) -> None:
        for p in partitions:
            self._tasks.append(asyncio.ensure_future(self._pull(p)))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    async def _pull(self, p: int) -> None:
        queue: asyncio.Queue[Msg] = asyncio.Queue()
        inbox = self.nc.new_inbox()

        async def deliver(msg: Msg) -> None:
            queue.put_nowait(msg)

        sub = await self.nc.subscribe(inbox, cb=deliver)
        try:
            while True:
                request: dict[str, object] = {
                    "batch": 1,
                    "expires": int(self.expires * 1e9),
                    "group": GROUP,
                }
                if p in self._pins:
                    request["id"] = self._pins[p]
                await self.nc.publish(
                    f"$JS.API.CONSUMER.MSG.NEXT.{self.stream}.p{p}",
                    json.dumps(request).encode(),
                    reply=inbox,
                )
                self.pulls += 1
                try:
                    msg = await asyncio.wait_for(queue.get(), self.expires + 1)
                except TimeoutError:
                    continue
                headers = msg.headers or {}
                if "Status" in headers:
                    if headers["Status"] == "423":  # pinned to another member: wait, ask again
                        await asyncio.sleep(self.expires)
                    continue
                self._pins[p] = headers.get("Nats-Pin-Id", self._pins.get(p, ""))
                self.received[p].append(time.monotonic())
        finally:
            await sub.unsubscribe()


async def _partitions(nc: NATS, pid: int) -> None:
    js = nc.jetstream()
    stream = f"BENCHP_{uuid.uuid4().hex[:8]}"
    await js.add_stream(name=stream, subjects=[f"{stream.lower()}.*"])
    for p in range(PARTITIONS):
        config = {
            "durable_name": f"p{p}",
            "filter_subject": f"{stream.lower()}.{p}",
            "ack_policy": "none",
            "priority_groups": [GROUP],
            "priority_policy": "pinned_client",
            "priority_timeout": int(FAILOVER_TTL * 1e9),
        }
        reply = await nc.request(
            f"$JS.API.CONSUMER.CREATE.{stream}.p{p}",
            json.dumps({"stream_name": stream, "config": config}).encode(),
            timeout=5,
        )
        assert b'"error"' not in reply.data, reply.data
    # Idle cost: every member keeps one pull open per partition, renewed at the leases' rate.
    members = [Member(nc, stream, f"m{k}", TTL / 3) for k in range(MEMBERS)]
    window = 2 * TTL
    # The server's own idle CPU over as long a window, taken out of the pulls' cost.
    idle0 = cpu_seconds(pid)
    await asyncio.sleep(window)
    idle = cpu_seconds(pid) - idle0
    server0 = cpu_seconds(pid)
    for member in members:
        await member.start(range(PARTITIONS))
    await asyncio.sleep(window)
    pulls = sum(m.pulls for m in members)
    server_us = max(0.0, cpu_seconds(pid) - server0 - idle) / max(1, pulls) * 1e6
    per_second = MEMBERS * PARTITIONS * 3 / TTL
    group = server_us * per_second / 1e6 * 100
    cost = (
        f"nats-server {server_us:.0f} us CPU per pull, the whole group {group:.2f}% of one core"
        if server_us
        else f"nats-server CPU too small to tell from its idle {idle / window * 1e3:.1f} ms/s"
    )
    print(
        f"pinned partitions: {PARTITIONS} partitions x {MEMBERS} members, pulls renewed every "
        f"{TTL / 3:.2f} s: {pulls} pulls in {window:.0f} s; {cost}, whatever the number of tables"
    )
    for member in members:
        await member.stop()
    # Fail-over: a pinned member stops pulling; how long until the other gets the partition?
    fast = [Member(nc, stream, f"f{k}", 0.5) for k in range(2)]
    await fast[0].start(range(FAILOVER_SAMPLES))
    await asyncio.sleep(0.3)
    await fast[1].start(range(FAILOVER_SAMPLES))
    for p in range(FAILOVER_SAMPLES):
        await js.publish(f"{stream.lower()}.{p}", b"x")
    await asyncio.sleep(1.0)
    pinned_first = all(fast[0].received[p] for p in range(FAILOVER_SAMPLES))
    await fast[0].stop()
    stopped = time.monotonic()
    delays: list[float] = []
    deadline = stopped + 4 * FAILOVER_TTL
    while len(delays) < FAILOVER_SAMPLES and time.monotonic() < deadline:
        for p in range(FAILOVER_SAMPLES):
            await js.publish(f"{stream.lower()}.{p}", b"x")
        await asyncio.sleep(0.1)
        delays = [
            fast[1].received[p][0] - stopped for p in range(FAILOVER_SAMPLES) if fast[1].received[p]
        ]
    # A member joining later: does it receive anything while the pinned one lives?
    joiner = Member(nc, stream, "late", 0.5)
    await joiner.start(range(FAILOVER_SAMPLES))
    for _ in range(30):
        for p in range(FAILOVER_SAMPLES):
            await js.publish(f"{stream.lower()}.{p}", b"x")
        await asyncio.sleep(0.1)
    late = sum(len(v) for v in joiner.received.values())
    await joiner.stop()
    await fast[1].stop()
    print(
        f"  fail-over (priority_timeout {FAILOVER_TTL:g} s; the first member pinned: "
        f"{pinned_first}): the other member got the partition "
        f"{min(delays, default=float('nan')):.2f}-{max(delays, default=float('nan')):.2f} s "
        f"after the pinned one stopped pulling ({len(delays)} of {FAILOVER_SAMPLES} partitions)"
    )
    print(
        f"  a member joining later received {late} messages in 3 s: pins never move to a "
        f"new member by themselves (it would need an explicit unpin, partition by partition)"
    )
