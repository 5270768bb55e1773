"""``riverboat audit --database``: the real settlement service's ledger, built live from a room
that bots played, equals the ledger rebuilt from the events; one altered row is named."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import grpc
import grpc.aio
import pytest
from nats.aio.client import Client as NATS
from sqlalchemy import text

from riverboat.client import TableClient, play_bot, random_chooser
from riverboat.ledger.db import create_ledger_engine
from riverboat.services.settlement.server import SettlementServer
from riverboat.v1 import table_pb2
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_audit_room import cli
from tests.integration.settlement._kit import SettlementClient, wait_caught_up
from tests.integration.settlement.conftest import drop_streams, stream_config

TABLE = "t-ledger"
PLAYERS = ("ann", "bob", "cy")


def streams(room: Room) -> tuple[str, str, str]:
    args = room.table.args
    stream = args[args.index("--stream") + 1]
    return stream, args[args.index("--subject-prefix") + 1], stream.removeprefix("RB_TABLES_")


async def wait_for_hands(nc: NATS, stream: str, subject: str, hands: int) -> None:
    """Until the table's log holds ``hands`` ended hands."""
    js = nc.jetstream()
    for _ in range(600):
        info = await js.stream_info(stream, subjects_filter=subject)
        if (info.state.messages or 0) >= hands * 12:  # a rough floor of messages per hand
            return
        await asyncio.sleep(0.1)


@pytest.mark.timeout(120)
async def test_the_live_ledger_equals_the_events_and_an_altered_row_is_named(
    room: Room, nats_client: NATS, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables_stream, tables_prefix, tag = streams(room)
    database = f"sqlite:///{tmp_path / 'settlement.db'}"
    config = stream_config(
        room.nats_url, database, tables_stream=tables_stream, tables_prefix=tables_prefix
    )
    server = SettlementServer(config, room.issuer)
    await server.start()
    stop = asyncio.Event()
    try:
        async with (
            grpc.aio.insecure_channel(server.address) as money,
            grpc.aio.insecure_channel(room.table_address) as play,
        ):
            operator = SettlementClient(money, room.token("boss", "operator"))
            lobby = SettlementClient(money, room.token("lobby", "service"))
            boss = room.client(play, "boss", "operator")
            await boss.create_table(TABLE, action_seconds=5)
            for seat, player in enumerate(PLAYERS, start=1):
                # Deep stacks: nobody busts before the hands waited for below are played.
                await operator.deposit(player, 100_000, f"pay-{player}")
                await lobby.reserve(player, TABLE, 40_000, f"join-{player}")
                await boss.stub.SeatPlayer(
                    table_pb2.SeatPlayerRequest(
                        table_id=TABLE,
                        seat=seat,
                        player=player,
                        stack=40_000,
                        request_id=f"join-{player}",
                        buy_in_reference=f"join-{player}",
                    ),
                    metadata=boss.metadata,
                )
            rng = random.Random(8)
            bots = [
                asyncio.ensure_future(
                    play_bot(
                        TableClient(play, room.token(p), p),
                        TABLE,
                        random_chooser(random.Random(rng.random())),
                        stop=stop,
                    )
                )
                for p in PLAYERS
            ]
            try:
                await wait_for_hands(nats_client, tables_stream, f"{tables_prefix}.{TABLE}", 4)
            finally:
                stop.set()
                await asyncio.gather(*bots)
            await wait_caught_up(nats_client, config, timeout=60)
    finally:
        await server.stop(grace=0)  # the ledger at rest from here on

    flags = [
        "--nats", room.nats_url,
        "--tables-stream", tables_stream, "--tables-prefix", tables_prefix,
        "--seeds-stream", f"RB_AUDIT_{tag}", "--seeds-prefix", f"rb.audit{tag.lower()}",
        "--wallets-stream", config.wallets_stream, "--wallets-prefix", config.wallets_prefix,
        "--database", database, "--json", "--no-progress",
    ]  # fmt: skip
    capsys.readouterr()
    status = await cli("audit", *flags)
    report = json.loads(capsys.readouterr().out)
    ledger = [v for v in report["violations"] if v["check"] == "ledger"]
    assert ledger == [], ledger
    assert report["summary"]["ledger_checked"] is True
    # Seeds of the last hands may still be on their way; everything else must verify.
    assert {v["check"] for v in report["violations"]} <= {"seed_missing"}, report["violations"]
    assert status in (0, 1), status

    engine = create_ledger_engine(database)
    with engine.begin() as conn:
        conn.execute(text("UPDATE accounts SET balance = balance + 1 WHERE name = 'wallet:bob'"))
    engine.dispose()
    assert await cli("audit", *flags) == 1
    report = json.loads(capsys.readouterr().out)
    named = [v["message"] for v in report["violations"] if v["check"] == "ledger"]
    assert any(m.startswith("account wallet:bob: the live ledger has") for m in named), named
    await drop_streams(nats_client, config)
