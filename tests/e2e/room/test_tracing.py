"""One Act's trace across the table, the dealer and settlement, as three processes see it.

The services run with ``--otel console`` (each span one JSON line on stdout, in their logs). The
test sends every Act with a ``traceparent`` of its own making, so it knows the trace id of the
Act that ends the hand without asking the services; the oracle is that this trace holds the
table's span of that Act, the dealer's span of the reveal it caused (a child of the table's
client span), and settlement's span applying the Act's record, which reached it over NATS.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from riverboat.auth import TokenIssuer
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.v1 import table_pb2, table_pb2_grpc
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room._settled import settlement_process
from tests.e2e.room.conftest import Room, _dealer, _table

TABLE = "t-traced"


@pytest.fixture
def traced(nats_server: NatsServer, tmp_path: Path) -> Iterator[Room]:
    """Dealer, table and settlement as processes, each with ``--otel console``."""
    tag = f"O{free_port()}"
    started: list[ServiceProcess] = []
    try:
        dealer = _dealer(nats_server.url, tmp_path, tag)
        dealer.args += ["--otel", "console"]
        dealer.start()
        started.append(dealer)
        table = _table(nats_server.url, tmp_path, dealer.address, tag)
        table.args += ["--otel", "console"]
        table.start()
        started.append(table)
        room = Room(nats_server.url, dealer, table, tmp_path, TokenIssuer(TEST_TOKEN_KEY))
        settlement = settlement_process(room)
        at = settlement.args.index("--accounts-stream")
        settlement.args[at + 1] = ""  # no account registry: it applies any table's records
        settlement.args += ["--otel", "console"]
        settlement.start()
        started.append(settlement)
        yield room
    finally:
        for process in reversed(started):
            process.stop()


def spans(log: Path) -> list[dict[str, Any]]:
    """The spans a service printed (its log's JSON lines that are spans, not log records)."""
    found = []
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "trace_id" in entry.get("context", {}):
            found.append(entry)
    return found


def in_trace(found: list[dict[str, Any]], trace_id: str) -> list[dict[str, Any]]:
    return [s for s in found if s["context"]["trace_id"] == "0x" + trace_id]


def named(found: list[dict[str, Any]], name: str, kind: str) -> list[dict[str, Any]]:
    return [s for s in found if s["name"] == name and s["kind"] == f"SpanKind.{kind}"]


async def _act_until_the_hand_ends(room: Room, players: list[str]) -> tuple[str, str]:
    """Fold (or whatever is legal) until the hand ends; each Act in a trace of its own.
    Returns the trace id and the parent span id sent with the Act that ended it."""
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        auditor = (("authorization", f"Bearer {room.token('watcher', 'auditor')}"),)
        hand_id = ""
        last = ("", "")
        for _ in range(2000):
            view = (
                await stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=TABLE), metadata=auditor
                )
            ).view
            if hand_id and (view.hand_id != hand_id or not view.hand_in_progress):
                return last
            if not view.hand_in_progress or not view.to_act:
                await asyncio.sleep(0.02)
                continue
            hand_id = view.hand_id
            seat = view.to_act
            me = (("authorization", f"Bearer {room.token(players[seat - 1])}"),)
            mine = (
                await stub.GetTableView(table_pb2.GetTableViewRequest(table_id=TABLE), metadata=me)
            ).view
            names = [a.action for a in mine.legal_actions]
            if mine.to_act != seat or not names:
                continue
            trace_id, parent = secrets.token_hex(16), secrets.token_hex(8)
            traceparent = (("traceparent", f"00-{trace_id}-{parent}-01"),)
            await stub.Act(
                table_pb2.ActRequest(
                    table_id=TABLE,
                    hand_id=mine.hand_id,
                    seat=seat,
                    action="fold" if "fold" in names else names[0],
                    request_id=f"{mine.hand_id}-{mine.version}",
                ),
                metadata=me + traceparent,
                timeout=30,
            )
            last = (trace_id, parent)
    raise AssertionError("the hand never ended")


async def test_the_act_that_ends_a_hand_is_one_trace_in_table_dealer_and_settlement(
    traced: Room,
) -> None:
    room = traced
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        operator = room.client(channel, "boss", "operator")
        await operator.create_table(TABLE, action_seconds=30)
        players = [f"{TABLE}-p{k}" for k in (1, 2)]
        for seat, name in enumerate(players, start=1):
            await operator.seat(TABLE, seat, name, 5000)
    trace_id, parent = await _act_until_the_hand_ends(room, players)

    logs = {name: room.var / f"{name}.log" for name in ("table", "dealer", "settlement")}
    reveal = "riverboat.v1.DealerService/RevealSeed"
    for _ in range(300):  # the reveal and settlement's consumer run after the Act returns
        dealer_spans = in_trace(spans(logs["dealer"]), trace_id)
        applied = [
            s
            for s in in_trace(spans(logs["settlement"]), trace_id)
            if s["kind"] == "SpanKind.CONSUMER"
        ]
        if named(dealer_spans, reveal, "SERVER") and applied:
            break
        await asyncio.sleep(0.05)
    table_spans = in_trace(spans(logs["table"]), trace_id)

    (act,) = named(table_spans, "riverboat.v1.TableService/Act", "SERVER")
    assert act["parent_id"] == "0x" + parent  # the caller's span, from the metadata
    (asked,) = named(table_spans, reveal, "CLIENT")
    (revealed,) = named(dealer_spans, reveal, "SERVER")
    assert revealed["parent_id"] == asked["context"]["span_id"]
    assert applied, "settlement applied the Act's record in the Act's trace"
    assert all(s["parent_id"] == act["context"]["span_id"] for s in applied)
    assert all(
        s["resource"]["attributes"]["service.name"] == "riverboat-table" for s in table_spans
    )
    assert revealed["resource"]["attributes"]["service.name"] == "riverboat-dealer"
