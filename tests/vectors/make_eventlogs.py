"""Write ``tests/vectors/eventlogs.jsonl.gz``: table logs as the table service stores them.

    .venv/bin/python -m tests.vectors.make_eventlogs tests/vectors/eventlogs.jsonl.gz

Recorded once, by the event codec as it was before the declarative schema (the hand-written
mapping of ``riverboat.eventcodec`` at 30919a2), and frozen since: the tests
(``tests/unit/codec/test_recorded_logs.py``) decode every message with today's codec, check the
events against the ones recorded here, encode them again to the same bytes, and replay them to
the same table states. A change that alters any of it changes what clients and auditors read.

The rooms: a Pacific stud table, a dealer's choice table of eight players (every game, the
dealers' variations that reshuffle and match pots; Stud's community card), a CRV1 dealer's
choice table (client seeds), and a table of the controls the bots never use (time banks,
time-outs, sitting out, pausing, closing): every event type of the log. Each line is one JSON
object: ``{"table": ..., "data": base64, "events": digest}`` for a log message, in order, the
digest that of its events in their canonical JSON form (:func:`events_digest`); at the end one
``{"table": ..., "states": sha256, "final": ...}`` per table: the digest of its state after
each message, and its final state (:func:`state_summary`).
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from riverboat.audit.synthetic import Room, _Table, play_archive
from riverboat.engine.games import waiting_for
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import decode_batch
from riverboat.shuffle import commitment, derive_deck
from riverboat.table import aggregate
from riverboat.table.aggregate import TableState
from riverboat.table.clock import clock_expiry
from riverboat.table.events import TimeBankPolicy

#: The rooms recorded: (label, play_archive's arguments).
ROOMS: list[tuple[str, dict[str, Any]]] = [
    ("pacific", {"tables": 1, "hands": 30, "seed": 11, "timeout_share": 0.05, "void_share": 0.05}),
    ("choice", {"tables": 1, "hands": 60, "players": 8, "seed": 12, "dealers_choice": True}),
    ("crv1", {"tables": 1, "hands": 12, "seed": 13, "dealers_choice": True, "scheme": "CRV1"}),
]


def canonical(value: Any) -> Any:
    """A JSON form of an event (or any of its values): dataclasses as objects with their
    type's name, bytes as hex, tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = canonical(getattr(value, f.name))
        return out
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple | list):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    return value


def events_digest(events: list[Any]) -> str:
    """A short digest of events' canonical JSON form (64 bits: a check, not a commitment)."""
    text = json.dumps([canonical(e) for e in events], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def state_summary(state: TableState) -> str:
    """What a replay must reproduce of a table: seats, chips, clocks, the hand, the controls."""
    seats = [
        (s.seat, s.player, s.stack, s.leaving, s.sitting_out, s.time_bank, s.timeouts)
        for s in state.seats
    ]
    hand = state.hand
    played = None if hand is None else (hand.hand_id, tuple(hand.stacks), hand.finished)
    controls = (state.paused, state.closed, state.closing is not None)
    chosen = (state.dealer, state.choosing, state.chosen, state.game, state.carried)
    banking = sorted(state.banking.items())
    return repr((seats, state.hands_played, state.button, played, controls, chosen, banking))


def _controls_table(room: Room) -> None:
    """A Pacific table with a time bank, driven through what the bots never do."""
    table = _Table(room, "controls", random.Random(14))
    table.submit(
        aggregate.create_table(
            table.state,
            name="Controls",
            variant="seven_card_stud_hi_lo",
            options=pacific_options(max_players=4),
            action_seconds=30,
            time_bank=TimeBankPolicy(seconds=30, topup_seconds=5, topup_hands=1, protect_hands=2),
        ),
        table.request_id(),
        "operator:op",
    )
    table.refill(1, 2_000)
    op = "operator:op"
    table.submit(aggregate.pause_dealing(table.state, by=op, reason="break"), "pause", op)
    table.submit(aggregate.resume_dealing(table.state, by=op), "resume", op)
    table.submit(aggregate.sit_out(table.state, player="controls-p4"), "out", "controls-p4")
    table.submit(aggregate.sit_in(table.state, player="controls-p4"), "in", "controls-p4")
    for number in range(1, 4):
        hand_id = f"controls-h{number}"
        seed = hashlib.sha256(hand_id.encode()).digest()
        table.submit(
            aggregate.commit_hand(
                table.state,
                hand_id=hand_id,
                scheme="RBS1",
                commitment=commitment(hand_id, seed),
                deck_size=52,
            ),
            f"commit-{hand_id}",
            "service:table",
        )
        deck = derive_deck(hand_id, seed)
        table.submit(aggregate.deal_hand(table.state, deck), f"deal-{hand_id}", "service:table")
        turn = 0
        while (hand := table.state.hand) is not None and not hand.finished:
            turn += 1
            seats = waiting_for(hand)
            if number == 3 and turn == 2:
                table.submit(
                    aggregate.close_table(table.state, by=op, reason="night"), "closing", op
                )
            if turn % 3 == 1:
                # The clock runs out: a bank (or the protection) first, then the time-out.
                gone = frozenset({"controls-p2"})
                table.submit(
                    clock_expiry(table.state, seats, deck, hand_id, disconnected=gone),
                    f"clock-{hand_id}-{turn}",
                    "clock",
                )
                table.submit(
                    clock_expiry(table.state, seats, deck, hand_id, due=frozenset(seats)),
                    f"clock-{hand_id}-{turn}-due",
                    "clock",
                )
                continue
            seat = seats[0]
            events = aggregate.own_action_bookkeeping(table.state, seat, 7)
            state = aggregate.fold(events, table.state) if events else table.state
            command = table.command(hand, seat)
            events += aggregate.act(state, command, deck, hand_id)
            table.submit(events, table.request_id(), hand.players[hand.seats.index(seat)])
    table.submit(aggregate.close_table(table.state, by=op, reason="night"), "closed", op)


def _messages() -> Iterator[tuple[str, bytes]]:
    for label, kwargs in ROOMS:
        for message in play_archive(**kwargs).of_stream("tables"):
            yield f"{label}/{message.subject.rsplit('.', 1)[1]}", message.data
    room = Room()
    _controls_table(room)
    for message in room.tables:
        yield "controls", message.data


def record(path: str) -> None:
    """Write the log messages with their events' digests and, per table, its states."""
    tables: dict[str, tuple[Any, TableState]] = {}
    lines: list[str] = []
    for table_id, data in _messages():
        batch = [e for e, _ in decode_batch(data)]
        text = base64.b64encode(data).decode()
        lines.append(json.dumps({"table": table_id, "data": text, "events": events_digest(batch)}))
        digest, state = tables.get(table_id) or (hashlib.sha256(), TableState(table_id))
        state = aggregate.fold(batch, state)
        digest.update(state_summary(state).encode() + b"\n")
        tables[table_id] = (digest, state)
    for table_id, (digest, state) in tables.items():
        final = state_summary(state)
        lines.append(json.dumps({"table": table_id, "states": digest.hexdigest(), "final": final}))
    stamp = datetime(2026, 12, 7, tzinfo=UTC).timestamp()
    with open(path, "wb") as raw, gzip.GzipFile("", "wb", fileobj=raw, mtime=int(stamp)) as out:
        out.write(("\n".join(lines) + "\n").encode())


if __name__ == "__main__":
    record(sys.argv[1])
