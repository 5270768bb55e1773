"""The log's codec: events encoded and decoded per second, on recorded table logs.

The logs are ``tests/vectors/eventlogs.jsonl.gz`` (every game and every event type, as the table
service stores them). Timed, best of ``ROUNDS`` rounds, the four paths of ``riverboat.eventcodec``
every event takes: ``encode_chained_batch`` (the table service writing each command's events,
hash chain included), ``decode_batch`` (every reader of the log: a rebuild, catch-up, the
settlement), ``event_to_pb`` (each watcher's update) and ``decode_event`` (the audit's decoder).
The declarative schema (``riverboat.eventschema``) replaced a hand-written mapping on
2026-12-07 at no cost (docs/architecture.md, "Adding an event").
"""

from __future__ import annotations

import base64
import gzip
import json
import time
from collections.abc import Callable
from pathlib import Path

from riverboat.eventcodec import decode_batch, decode_event, encode_chained_batch, event_to_pb

VECTORS = Path(__file__).parents[1] / "tests" / "vectors" / "eventlogs.jsonl.gz"
ROUNDS = 15


def run() -> None:
    with gzip.open(VECTORS, "rt") as lines:
        messages = [
            base64.b64decode(record["data"])
            for record in map(json.loads, lines)
            if "data" in record
        ]
    batches = [decode_batch(data) for data in messages]
    pairs = [pair for batch in batches for pair in batch]
    envelopes = [event_to_pb(event, meta) for event, meta in pairs]
    commands = [([e for e, _ in batch], batch[0][1]) for batch in batches]

    def encode() -> None:
        for events, m in commands:
            encode_chained_batch(
                events,
                aggregate_id=m.aggregate_id,
                version=m.version,
                request_id=m.request_id,
                actor=m.actor,
                occurred_at=m.occurred_at,
            )

    def decode() -> None:
        for data in messages:
            decode_batch(data)

    def to_pb() -> None:
        for event, meta in pairs:
            event_to_pb(event, meta)

    def from_pb() -> None:
        for envelope in envelopes:
            decode_event(envelope)

    cases: list[tuple[str, Callable[[], None]]] = [
        ("encode_chained_batch", encode),
        ("decode_batch", decode),
        ("event_to_pb", to_pb),
        ("decode_event", from_pb),
    ]
    best = dict.fromkeys((name for name, _ in cases), float("inf"))
    for _ in range(ROUNDS):  # interleaved: a busy moment spoils one round of each, not a case
        for name, body in cases:
            start = time.perf_counter()
            body()
            best[name] = min(best[name], time.perf_counter() - start)
    n = len(pairs)
    print(f"{n:,} events in {len(messages):,} log messages (tests/vectors/eventlogs.jsonl.gz)")
    for name, seconds in best.items():
        print(f"  {name:<24}{n / seconds:>10,.0f} events/s  {seconds / n * 1e6:6.2f} us/event")
