"""Two settlement processes on one PostgreSQL ledger, started together on an empty schema,
consuming the same logs: the migration runs once (the advisory lock), every record is posted
exactly once, and the balances are the ones the simulated room computed.

Two ways to run replicas, both covered: sharing one durable consumer per log (the records are
split between them, as Kubernetes replicas with one configuration do), or each with its own
(every record reaches both, and the ledger's processed-event key lets one posting through).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from nats.aio.client import Client as NATS
from sqlalchemy import Engine, func, select

from riverboat.ledger import check_ledger
from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.migrate import current_revision, head_revision
from riverboat.ledger.models import Account, ProcessedEvent
from riverboat.services.settlement.config import SettlementConfig
from tests.integration.settlement._kit import (
    dump_of,
    ledger_records,
    rebuilt_dump,
    wait_acked,
    wait_caught_up,
)
from tests.integration.settlement.conftest import drop_streams, postgres_schema, stream_config
from tests.integration.settlement.test_settlement_process import publish, settlement_process
from tests.unit.ledger._sim import standard_room


@pytest.fixture
def postgres_urls(postgres_reachable: bool) -> Iterator[tuple[str, str]]:
    """Two empty PostgreSQL schemas: the replicas' ledger, and one to rebuild into."""
    if not postgres_reachable:
        pytest.skip("PostgreSQL at 127.0.0.1:5432 is not reachable")
    with postgres_schema() as ledger, postgres_schema() as spare:
        yield ledger, spare


def _counts(engine: Engine) -> tuple[int, dict[str, int]]:
    with engine.connect() as conn:
        posted = int(conn.scalar(select(func.count()).select_from(ProcessedEvent)) or 0)
        wallets = {
            name.removeprefix("wallet:"): int(balance)
            for name, balance in conn.execute(select(Account.name, Account.balance))
            if name.startswith("wallet:")
        }
    return posted, wallets


@pytest.mark.parametrize("consumers", ["shared", "own"])
async def test_two_replicas_post_each_record_once(
    consumers: str,
    nats_url: str,
    nats_client: NATS,
    postgres_urls: tuple[str, str],
    tmp_path: Path,
) -> None:
    url, spare = postgres_urls
    config = stream_config(nats_url, url)
    room = standard_room(seed=13, hands=12)
    await publish(nats_client, config, room)
    replicas = [settlement_process(config, tmp_path / f"settlement-{n}.log") for n in (1, 2)]
    if consumers == "own":
        replicas[1].args += ["--consumer", "replica-2"]
    try:
        # Together: both find an empty schema and migrate it at the same moment.
        await asyncio.gather(*(asyncio.to_thread(r.start) for r in replicas))
        await wait_caught_up(nats_client, config)
        await wait_acked(nats_client, config)
        if consumers == "own":
            await wait_acked(nats_client, _renamed(config, "replica-2"))
    finally:
        for replica in replicas:
            replica.stop()
    logs = "\n".join(r.log_tail(400) for r in replicas)
    assert "Traceback" not in logs

    engine = create_ledger_engine(url)
    posted, wallets = await asyncio.to_thread(_counts, engine)
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        report = check_ledger(conn)
    engine.dispose()
    # Exactly once: one processed-event row per record in the logs the ledger applies, ...
    assert posted == await ledger_records(nats_client, config)
    # ... the balances the room computed, ...
    assert wallets == {p: s.balance for p, s in room.wallets.items()}
    assert report.ok, report.render()
    # ... and row for row the ledger one instance builds reading every record once.
    assert dump_of(url) == await rebuilt_dump(nats_client, config, spare)
    await drop_streams(nats_client, config)


def _renamed(config: SettlementConfig, consumer: str) -> SettlementConfig:
    from dataclasses import replace

    return replace(config, consumer=consumer)
