"""The hash chain written into the table log (each event carries its predecessor's hash)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from riverboat.engine.events import AntePosted
from riverboat.eventchain import GENESIS_HASH, chain_end, event_hash
from riverboat.eventcodec import encode_batch as encode
from riverboat.eventcodec import encode_chained_batch
from riverboat.table.events import AnyEvent, PlayerSeated
from riverboat.v1 import events_pb2

WHEN = datetime(2026, 11, 30, tzinfo=UTC)


def _batch(data: bytes) -> events_pb2.EventBatch:
    batch = events_pb2.EventBatch()
    batch.ParseFromString(data)
    return batch


def test_each_event_chains_to_the_one_before_across_batches() -> None:
    first = encode(
        [PlayerSeated(1, "ann", 500), PlayerSeated(2, "bob", 500)],
        aggregate_id="t",
        version=1,
        request_id="r1",
        actor="op",
        occurred_at=WHEN,
    )
    second = encode(
        [AntePosted(1, 5)],
        aggregate_id="t",
        version=2,
        request_id="r2",
        actor="op",
        occurred_at=WHEN,
        previous_hash=chain_end(first),
    )
    envelopes = [*_batch(first).events, *_batch(second).events]
    assert envelopes[0].previous_hash == GENESIS_HASH
    for before, after in itertools.pairwise(envelopes):
        assert after.previous_hash == event_hash(before)


def test_changing_an_event_breaks_the_link_after_it() -> None:
    data = encode(
        [PlayerSeated(1, "ann", 500), PlayerSeated(2, "bob", 500)],
        aggregate_id="t",
        version=1,
        request_id="r1",
        actor="op",
        occurred_at=WHEN,
    )
    events = list(_batch(data).events)
    events[0].player_seated.stack = 5000  # tampered
    assert events[1].previous_hash != event_hash(events[0])


def test_chained_encoding_returns_the_hash_chain_end_reads_back() -> None:
    events: list[AnyEvent] = [
        PlayerSeated(1, "ann", 500),
        PlayerSeated(2, "bob", 500),
        AntePosted(1, 5),
    ]
    previous = bytes(range(32))
    meta: dict[str, Any] = {
        "aggregate_id": "t",
        "version": 3,
        "request_id": "r3",
        "actor": "op",
        "occurred_at": WHEN,
        "previous_hash": previous,
    }
    for count in range(1, len(events) + 1):
        batch = events[:count]
        payload, last = encode_chained_batch(batch, **meta)
        assert payload == encode(batch, **meta)
        assert last == chain_end(payload, previous) != previous
