"""The settlement's projector on recorded table logs: records per second and CPU per table action.

The logs are ``tests/vectors/eventlogs.jsonl.gz`` (every game and every event type, as the table
service stores them). Each recorded log is delivered, record by record and in order, to the live
consumer's handler (``Projector.on_table_record``) over a fresh SQLite ledger (the production
settings: WAL, synchronous commits), with the wallet reactions answered by a stub, one record at
a time and, as a busy consumer's fetch brings them, several per batch (one commit). Timed: the
process CPU of the whole replay (best of ``ROUNDS``), reported per record, per record that moves
money (the ones the ledger applies; ``riverboat.ledger.moneyfilter``) and per table action (an
``ActionTaken`` event: what ``bench scaleout`` divides by). No NATS: this is the projector's own
cost, without the consumer's fetch and ack.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from riverboat.eventstore.memory import InMemoryEventStore
from riverboat.ledger import create_ledger_engine
from riverboat.ledger.migrate import upgrade
from riverboat.services.settlement.consumers import Delivery
from riverboat.services.settlement.database import Database
from riverboat.services.settlement.projector import Projector
from riverboat.v1 import events_pb2

VECTORS = Path(__file__).parents[1] / "tests" / "vectors" / "eventlogs.jsonl.gz"
ROUNDS = 3
#: Records per delivery: one by one (a quiet room), and a consumer's fetch of several at once.
BATCHES = (1, 4, 16)
#: Settlement CPU per table action the room should need (issue 23's target).
TARGET_MS = 0.3


class _Wallets:
    """Answers the projector's wallet reactions (buy-in seated, cash-out) without a wallet log."""

    async def execute(self, player: str, decide: object, key: str) -> Any:
        return SimpleNamespace(events=[])


def _logs() -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = defaultdict(list)
    with gzip.open(VECTORS, "rt") as lines:
        for record in map(json.loads, lines):
            if "data" in record:
                out[record["table"]].append(base64.b64decode(record["data"]))
    return out


async def _replay(logs: dict[str, list[bytes]], folder: Path, batch: int) -> tuple[float, float]:
    """CPU and wall seconds to project every log (each into its own ledger), delivered one by
    one (``batch`` 1) or ``batch`` records at a time to the batch handler."""
    cpu = wall = 0.0
    for number, (table, records) in enumerate(sorted(logs.items())):
        engine = create_ledger_engine(f"sqlite:///{folder / f'{number}.db'}")
        upgrade(engine)
        db = Database(engine)
        store = InMemoryEventStore()
        projector = Projector(db, cast(Any, _Wallets()), store, store)
        deliveries = [
            Delivery(table, version, payload, version, 1)
            for version, payload in enumerate(records, start=1)
        ]
        started, clock = time.process_time(), time.perf_counter()
        if batch == 1:
            for delivery in deliveries:
                await projector.on_table_record(delivery)
        else:
            for start in range(0, len(deliveries), batch):
                chunk = deliveries[start : start + batch]
                done = await projector.on_table_records(chunk)
                for delivery in chunk[done:]:
                    await projector.on_table_record(delivery)
        # The database thread's CPU is this process's too: process_time counts it.
        cpu += time.process_time() - started
        wall += time.perf_counter() - clock
        db.close()
    return cpu, wall


def _money(payload: bytes) -> bool:
    try:
        from riverboat.ledger.moneyfilter import moves_money
    except ImportError:  # before the filter: every record was applied
        return True
    return moves_money(payload)


def run() -> None:
    logs = _logs()
    records = [r for log in logs.values() for r in log]
    actions = sum(
        e.WhichOneof("payload") == "action_taken"
        for r in records
        for e in events_pb2.EventBatch.FromString(r).events
    )
    money = sum(map(_money, records))
    n = len(records)
    print(
        f"{n:,} table records ({money:,} move money) with {actions:,} actions "
        f"(tests/vectors/eventlogs.jsonl.gz), best of {ROUNDS}"
    )
    batches = BATCHES if hasattr(Projector, "on_table_records") else (1,)
    best = float("inf")
    for batch in batches:
        best_cpu = best_wall = float("inf")
        for _ in range(ROUNDS):
            with tempfile.TemporaryDirectory(prefix="bench-settlement-") as folder:
                cpu, wall = asyncio.run(_replay(logs, Path(folder), batch))
                best_cpu, best_wall = min(best_cpu, cpu), min(best_wall, wall)
        print(
            f"  {batch:>2} per commit: {n / best_wall:6,.0f} records/s  "
            f"CPU {1000 * best_cpu / n:.3f} ms/record  "
            f"{1000 * best_cpu / max(money, 1):.3f} ms/money record  "
            f"{1000 * best_cpu / max(actions, 1):.3f} ms/table action"
        )
        best = min(best, 1000 * best_cpu / max(actions, 1))
    verdict = "met" if best <= TARGET_MS else f"MISSED by {best / TARGET_MS:.1f}x"
    print(f"  target: settlement CPU <= {TARGET_MS} ms per table action (issue 23): {verdict}")
