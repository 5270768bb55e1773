"""The real process: ``kill -9`` in the middle of a backlog, restart, nothing lost or doubled;
and the ledger tools (``riverboat settlement check``/``rebuild``) as an operator runs them."""

from __future__ import annotations

import asyncio
import contextlib
import io
import time
from pathlib import Path

from nats.aio.client import Client as NATS
from sqlalchemy import Engine, func, select

from riverboat.cli import app
from riverboat.ledger import check_ledger
from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.models import ProcessedEvent
from riverboat.ledger.moneyfilter import moves_money
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.services.settlement.config import SettlementConfig
from tests.conftest import TEST_TOKEN_KEY
from tests.integration.settlement._kit import (
    dump_of,
    rebuilt_dump,
    table_log,
    wait_acked,
    wait_caught_up,
    wallet_log,
)
from tests.unit.ledger._sim import TABLES, Room, standard_room

ENV = {"RIVERBOAT_TOKEN_KEY": TEST_TOKEN_KEY.hex()}


def store_flags(config: SettlementConfig) -> list[str]:
    return [
        "--nats",
        config.nats_url,
        "--database",
        config.database_url,
        "--wallets-stream",
        config.wallets_stream,
        "--wallets-prefix",
        config.wallets_prefix,
        "--tables-stream",
        config.tables_stream,
        "--tables-prefix",
        config.tables_prefix,
    ]


def settlement_process(config: SettlementConfig, log: Path) -> ServiceProcess:
    address = f"127.0.0.1:{free_port()}"
    flags = [
        "--address",
        address,
        *store_flags(config),
        "--ack-wait",
        "1",
        "--fetch-batch",
        "4",  # small pulls: the backlog takes long enough to be killed in the middle
        "--log-format",
        "json",
    ]
    return ServiceProcess("settlement", address, flags, log_path=log, env=ENV)


def processed(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.scalar(select(func.count()).select_from(ProcessedEvent)) or 0)


async def publish(nc: NATS, config: SettlementConfig, room: Room) -> None:
    """Write the room's logs as the services would have (a backlog for the settlement)."""
    logs = {"wallets": wallet_log(nc, config), TABLES: table_log(nc, config)}
    for log in logs.values():
        await log.ensure_stream()
    for record in room.records:
        await logs[record.source].append(
            record.aggregate_id,
            record.payload,
            expected_version=record.version - 1,
            request_id=f"sim-{record.version}",
        )


async def test_kill_9_mid_backlog_then_restart_loses_and_doubles_nothing(
    config: SettlementConfig, nats_client: NATS, tmp_path: Path, spare_database_url: str
) -> None:
    # A backlog long enough that a quick machine cannot finish it before the kill lands (the
    # settlement commits a fetch of up to 64 records at once, so the count moves in steps).
    room = standard_room(seed=21, hands=120)
    await publish(nats_client, config, room)
    # The records the ledger applies (a processed-event row each): not the table records that
    # move no money.
    total = sum(r.source != TABLES or moves_money(r.payload) for r in room.records)
    process = settlement_process(config, tmp_path / "settlement.log")
    ledger = create_ledger_engine(config.database_url)
    process.start()
    deadline = time.monotonic() + 20
    while await asyncio.to_thread(processed, ledger) < total // 4:
        assert time.monotonic() < deadline, process.log_tail()
        await asyncio.sleep(0.002)
    process.kill()  # SIGKILL: whatever was applied but not acknowledged comes back
    after_kill = await asyncio.to_thread(processed, ledger)
    assert total // 4 <= after_kill < total, "the kill must land in the middle of the backlog"
    batch = process.args.index("--fetch-batch") + 1
    process.args[batch] = "64"  # the restarted process may catch up at full speed
    process.start()
    try:
        await wait_caught_up(nats_client, config)
        await wait_acked(nats_client, config)
    finally:
        process.stop()
    assert await asyncio.to_thread(processed, ledger) == total
    ledger.dispose()
    assert dump_of(config.database_url) == await rebuilt_dump(
        nats_client, config, spare_database_url
    )
    engine = create_ledger_engine(config.database_url)
    with engine.connect() as conn:
        report = check_ledger(conn)
    engine.dispose()
    assert report.ok, report.render()


async def test_rebuild_and_check_from_the_command_line(
    sqlite_config: SettlementConfig, nats_client: NATS, tmp_path: Path
) -> None:
    config = sqlite_config
    room = standard_room(seed=3, hands=1)
    await publish(nats_client, config, room)

    async def cli(*args: str) -> tuple[int, str]:
        """``riverboat settlement ...`` (in a thread: the commands run their own event loop)."""
        out = io.StringIO()

        def main() -> int:
            with contextlib.redirect_stdout(out):
                return app.run(["settlement", *args, *store_flags(config)])

        return await asyncio.to_thread(main), out.getvalue()

    code, text = await cli("rebuild")
    assert code == 0, text
    assert "there was no ledger before" in text
    code, text = await cli("rebuild")
    assert code == 0, text
    assert "identical to the ledger before the rebuild" in text
    assert "All 8 invariants hold." in text
    # A chip appears in a wallet: check says which invariants broke and exits 1.
    engine = create_ledger_engine(config.database_url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE accounts SET balance = balance + 1 WHERE name = 'wallet:ann'")
    engine.dispose()
    code, text = await cli("check")
    assert code == 1
    assert "FAIL  balances_match_lines" in text and "FAIL  conservation" in text
    assert "wallet:ann says" in text
