"""Start-up rebuild: a table service rebuilding its tables from their logs, beside the raw read.

One run on this machine, everything started by the bench on a private nats-server:

1. A table service (child process, with its dealer) starts on an empty table stream: the fixed
   cost of starting, with nothing to rebuild.
2. The stream is filled with recorded table logs: ``riverboat.audit.synthetic`` plays the tables
   with the real aggregate and engine and encodes every message exactly as the table service
   stores it (hash chain, ``Rb-Version`` and ``Nats-Msg-Id`` headers); each table's messages
   are published in its own order.
3. The anchor: nats-py's ordered consumer reading the whole stream (every message, a callback
   per message, nothing decoded), timed from subscribing to the last message; best of two reads,
   one before and one after the rebuild.
4. A fresh table service starts on the filled stream. It serves only once every table is rebuilt
   (its log replayed into the table's state). The rebuild is timed from the service's own log:
   from ``table_instance`` (logged just before it loads the tables) to ``table_service_ready``
   (which must count every table), less the same span of the empty start.

Reported: messages and events per second of both, and the rebuild's rate as a ratio of the raw
read's. Target: at least 0.5x. ``make bench`` rebuilds 100 tables (about 10^5 events);
``RIVERBOAT_BENCH_FULL=1`` rebuilds 1,000 (about 10^6 events, several minutes to build).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import nats
from nats.aio.msg import Msg

from bench._room import room_streams, start_room
from riverboat import eventloop
from riverboat.audit.archive import StoredMessage
from riverboat.audit.natsread import Layout
from riverboat.audit.synthetic import play_archive
from riverboat.natsserver import NatsServer
from riverboat.v1 import events_pb2

FULL = os.environ.get("RIVERBOAT_BENCH_FULL", "") == "1"
TABLES = 1000 if FULL else 100
#: Hands per table: with six players about 60 events a hand, so ~1,000 events a table.
HANDS = 16
PLAYERS = 6
SEED = 20261202
TARGET = 0.5
TAG = "RB1"
#: Tables published at once (each table's own messages one after another, in order).
PUBLISHERS = 64
START_TIMEOUT = 1800.0
#: The synthetic room's expectations are of its own stream's sequences, not this one's.
_DROPPED_HEADERS = frozenset({"Nats-Expected-Last-Subject-Sequence"})


def run() -> None:
    began = time.perf_counter()
    archive = play_archive(
        tables=TABLES, hands=HANDS, players=PLAYERS, seed=SEED, leave_share=0.0, void_share=0.0
    )
    layout = Layout()
    logs = [m for m in archive.messages if m.stream == layout.tables_stream]
    del archive
    events = sum(len(events_pb2.EventBatch.FromString(m.data).events) for m in logs)
    size = "full size" if FULL else "make-bench size; RIVERBOAT_BENCH_FULL=1 for 1,000 tables"
    print(
        f"  {TABLES:,} tables ({size}): seven-card stud hi/lo, {PLAYERS} players, {HANDS} hands "
        f"each: {len(logs):,} log messages, {events:,} events (built in "
        f"{time.perf_counter() - began:.0f} s)",
        flush=True,
    )
    token_key = secrets.token_bytes(32)
    stream, prefix = room_streams(TAG)
    with tempfile.TemporaryDirectory(prefix="rb-bench-rebuild-") as tmp:
        var = Path(tmp)
        with NatsServer(var / "store", port=0) as server:
            # Twice: the first start also creates the stream and the owners' buckets.
            for _ in range(2):
                empty = start_room(server.url, var, TAG, token_key, hand_pause=3600.0)
                empty.stop()
            published = time.perf_counter()
            eventloop.run(_publish(server.url, stream, prefix, layout.tables_prefix, logs))
            publish_seconds = time.perf_counter() - published
            reads = [eventloop.run(_raw_read(server.url, stream, prefix, len(logs)))]
            room = start_room(
                server.url, var, TAG, token_key, hand_pause=3600.0, start_timeout=START_TIMEOUT
            )
            room.stop()
            starts = _starts(var / f"table-{TAG}.log")
            reads.append(eventloop.run(_raw_read(server.url, stream, prefix, len(logs))))
    raw = min(reads)
    (empty_span, _), (full_span, loaded) = starts[-2], starts[-1]
    rebuild = max(full_span - empty_span, 1e-9)
    print(
        f"  published in {publish_seconds:.1f} s ({len(logs) / publish_seconds:,.0f} msgs/s, "
        f"{PUBLISHERS} tables at a time, each awaiting its acks)"
    )
    print(
        f"  raw read, nats-py ordered consumer over the whole stream: {raw:.2f} s "
        f"(reads {', '.join(f'{r:.2f}' for r in reads)} s) = {len(logs) / raw:,.0f} msgs/s, "
        f"{events / raw:,.0f} events/s"
    )
    print(
        f"  table service, process start to SERVING: {empty.table_start_seconds:.2f} s on the "
        f"empty stream, {room.table_start_seconds:.2f} s on the filled one; loading the tables "
        f"(its log, table_instance to table_service_ready): {empty_span:.2f} s empty, "
        f"{full_span:.2f} s filled ({loaded:,} tables loaded)"
    )
    print(
        f"  rebuild {rebuild:.2f} s = {len(logs) / rebuild:,.0f} msgs/s, "
        f"{events / rebuild:,.0f} events/s"
    )
    ratio = raw / rebuild
    verdict = "met" if ratio >= TARGET and loaded == TABLES else "MISSED"
    print(
        f"  rebuild / raw read: {ratio:.2f}x   (target >= {TARGET:g}x: {verdict})",
        flush=True,
    )


async def _publish(
    url: str, stream: str, prefix: str, recorded_prefix: str, logs: Sequence[StoredMessage]
) -> None:
    """Each table's messages in its own order, ``PUBLISHERS`` tables at a time."""
    by_table: dict[str, list[StoredMessage]] = {}
    for message in sorted(logs, key=lambda m: m.sequence):
        by_table.setdefault(message.subject, []).append(message)
    nc = await nats.connect(url)
    js = nc.jetstream()
    gate = asyncio.Semaphore(PUBLISHERS)

    async def table(recorded: str, messages: list[StoredMessage]) -> None:
        subject = prefix + recorded.removeprefix(recorded_prefix)
        async with gate:
            for m in messages:
                headers = {k: v for k, v in m.headers.items() if k not in _DROPPED_HEADERS}
                await js.publish(subject, m.data, stream=stream, headers=headers)

    try:
        await asyncio.gather(*(table(s, ms) for s, ms in by_table.items()))
    finally:
        await nc.close()


async def _raw_read(url: str, stream: str, prefix: str, count: int) -> float:
    """Seconds for an ordered consumer to deliver ``count`` messages of ``stream``."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    seen = 0
    done = asyncio.Event()

    async def on_msg(_: Msg) -> None:
        nonlocal seen
        seen += 1
        if seen >= count:
            done.set()

    try:
        began = time.perf_counter()
        sub = await js.subscribe(f"{prefix}.>", stream=stream, ordered_consumer=True, cb=on_msg)
        await asyncio.wait_for(done.wait(), START_TIMEOUT)
        seconds = time.perf_counter() - began
        await sub.unsubscribe()
        return seconds
    finally:
        await nc.close()


def _starts(log: Path) -> list[tuple[float, int]]:
    """Each start's seconds from ``table_instance`` to ``table_service_ready``, and the tables
    that line counts, in the order the service's log has them."""
    starts: list[tuple[float, int]] = []
    began: datetime | None = None
    for line in log.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        event = record.get("event") if isinstance(record, dict) else None
        if event == "table_instance":
            began = datetime.fromisoformat(record["timestamp"])
        elif event == "table_service_ready" and began is not None:
            ready = datetime.fromisoformat(record["timestamp"])
            starts.append(((ready - began).total_seconds(), int(record.get("tables", 0))))
            began = None
    return starts
