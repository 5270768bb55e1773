"""Ownership metrics of two table-service instances, scraped from their /metrics.

The oracle is the tables themselves: each table's owner is the instance that answers its
GetTableView without a redirect. Once the leases settle, each instance's
``riverboat_tables_owned`` equals the tables it answers for, the two add up to the tables
opened, and every table was ``acquired`` once at least.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.bench_scaleout import open_and_place
from riverboat.auth import TokenIssuer
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess, free_port
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room.conftest import _dealer, _table
from tests.e2e.room.test_metrics import scrape, value

TABLES = 6


@pytest.fixture
def two(nats_server: NatsServer, tmp_path: Path) -> Iterator[dict[str, tuple[str, str]]]:
    """Dealer and two table instances; instance name -> (gRPC address, metrics address)."""
    tag = f"W{free_port()}"
    dealer = _dealer(nats_server.url, tmp_path, tag)
    started: list[ServiceProcess] = []
    out = {}
    try:
        dealer.start()
        started.append(dealer)
        for name in ("a", "b"):
            table = _table(nats_server.url, tmp_path, dealer.address, tag)
            metrics = f"127.0.0.1:{free_port()}"
            table.args += ["--instance-id", name, "--metrics-address", metrics]
            table.log_path = tmp_path / f"table-{name}.log"
            table.start()
            started.append(table)
            out[name] = (table.address, metrics)
        yield out
    finally:
        for process in reversed(started):
            process.stop()


async def test_tables_owned_match_who_answers_for_each_table(
    two: dict[str, tuple[str, str]],
) -> None:
    issuer = TokenIssuer(TEST_TOKEN_KEY)
    ids = [f"owned-{k}" for k in range(TABLES)]
    addresses = [grpc_address for grpc_address, _ in two.values()]
    for _ in range(100):
        # Who answers each table now (a table may still move to even the load out).
        owners = await open_and_place(addresses, issuer, ids)
        answered = Counter(owners.values())
        scraped = {name: scrape(metrics) for name, (_, metrics) in two.items()}
        owned = {
            name: value(samples, "riverboat_tables_owned") for name, samples in scraped.items()
        }
        if all(owned[name] == answered[address] for name, (address, _) in two.items()):
            break
        await asyncio.sleep(0.1)
    assert {n: owned[n] for n in two} == {n: answered[a] for n, (a, _) in two.items()}
    assert sum(owned.values()) == TABLES
    acquired = sum(
        value(s, "riverboat_lease_changes_total", change="acquired") for s in scraped.values()
    )
    assert acquired >= TABLES
