"""Table logs recorded by the event codec before the declarative schema read back exactly.

``tests/vectors/eventlogs.jsonl.gz`` (written by ``tests/vectors/make_eventlogs.py`` with the
hand-written mapping, frozen since) holds every game and every event type the log has. Today's
codec must decode every message to the events recorded, encode them again to the very bytes
stored (the hash chain included), and the table must replay to the same states.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import typing
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

from riverboat.engine.games import GAMES
from riverboat.eventchain import GENESIS_HASH
from riverboat.eventcodec import decode_batch, encode_chained_batch
from riverboat.table import aggregate
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent
from tests.vectors.make_eventlogs import events_digest, state_summary

VECTORS = Path(__file__).parents[2] / "vectors" / "eventlogs.jsonl.gz"
#: How many event types the log had when the vectors were recorded: they hold every one.
RECORDED_TYPES = 56


@cache
def recorded() -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The recorded messages, in order, and each table's recorded states."""
    messages: list[dict[str, Any]] = []
    tables: dict[str, dict[str, Any]] = {}
    with gzip.open(VECTORS, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            if "data" in record:
                record["data"] = base64.b64decode(record["data"])
                messages.append(record)
            else:
                tables[record["table"]] = record
    return messages, tables


def test_every_message_decodes_to_its_recorded_events_and_encodes_to_its_bytes() -> None:
    messages, _ = recorded()
    chains: dict[str, bytes] = defaultdict(lambda: GENESIS_HASH)
    for number, message in enumerate(messages):
        decoded = decode_batch(message["data"])
        events = [e for e, _ in decoded]
        assert events_digest(events) == message["events"], f"message {number}"
        meta = decoded[0][1]
        data, chains[message["table"]] = encode_chained_batch(
            events,
            aggregate_id=meta.aggregate_id,
            version=meta.version,
            request_id=meta.request_id,
            actor=meta.actor,
            occurred_at=meta.occurred_at,
            previous_hash=chains[message["table"]],
        )
        assert data == message["data"], f"message {number} of {message['table']}"


def test_every_table_replays_to_its_recorded_states() -> None:
    messages, tables = recorded()
    states: dict[str, TableState] = {}
    digests: dict[str, Any] = defaultdict(hashlib.sha256)
    for message in messages:
        table_id = message["table"]
        events = [e for e, _ in decode_batch(message["data"])]
        states[table_id] = aggregate.fold(events, states.get(table_id) or TableState(table_id))
        digests[table_id].update(state_summary(states[table_id]).encode() + b"\n")
    assert set(states) == set(tables)
    for table_id, state in states.items():
        assert state_summary(state) == tables[table_id]["final"], table_id
        assert digests[table_id].hexdigest() == tables[table_id]["states"], table_id


def test_the_recorded_logs_hold_every_game_and_every_logged_event_type() -> None:
    messages, _ = recorded()
    kinds: set[str] = set()
    games: set[str] = set()
    for message in messages:
        for event, _ in decode_batch(message["data"]):
            kinds.add(type(event).__name__)
            games.add(getattr(event, "game", "") or getattr(event, "variant", ""))
    # Every type the log had when they were recorded, 2026-12-07 (all but SessionOpened, the
    # engine's own session opening: a table logs TableCreated instead). A type added since is
    # covered by test_event_schema.py's round trip.
    assert kinds <= {t.__name__ for t in typing.get_args(AnyEvent)} - {"SessionOpened"}
    assert len(kinds) == RECORDED_TYPES
    assert set(GAMES) | {"seven_card_stud_hi_lo", "dealers_choice"} <= games
