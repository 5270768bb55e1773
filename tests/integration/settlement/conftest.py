"""Settlement fixtures: the ledger on SQLite and PostgreSQL, fresh streams, in-process servers.

``database_url`` is parametrized over both backends, so every test that uses it (directly or
through ``config``/``start_settlement``) runs against each: that is the contract suite.
PostgreSQL is the machine's (127.0.0.1:5432, user postgres, database test); every test gets its
own schema, dropped afterwards. Without PostgreSQL those cases skip, except under ``CI=true``
where they fail.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import nats.errors
import psycopg
import pytest
from nats.aio.client import Client as NATS
from sqlalchemy import Engine

from riverboat.auth import TokenIssuer
from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.migrate import upgrade
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.server import SettlementServer
from tests.conftest import TEST_TOKEN_KEY

PG_HOST, PG_PORT, PG_USER, PG_DB = "127.0.0.1", 5432, "postgres", "test"

StartSettlement = Callable[..., Awaitable[SettlementServer]]


@pytest.fixture(scope="session")
def postgres_reachable() -> bool:
    """Whether the machine's PostgreSQL answers; under CI=true it must."""
    try:
        psycopg.connect(
            host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=PG_DB, connect_timeout=3
        ).close()
    except psycopg.Error as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true needs PostgreSQL at {PG_HOST}:{PG_PORT} ({exc})")
        return False
    return True


@contextlib.contextmanager
def postgres_schema() -> Iterator[str]:
    """A fresh schema; the URL puts it first on the search path. Dropped afterwards."""
    schema = f"rbtest_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(
        host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=PG_DB, autocommit=True
    ) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield (
            f"postgresql+psycopg://{PG_USER}@{PG_HOST}:{PG_PORT}/{PG_DB}"
            f"?options=-csearch_path%3D{schema}"
        )
    finally:
        with psycopg.connect(
            host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=PG_DB, autocommit=True
        ) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_reachable: bool
) -> Iterator[str]:
    """A ledger database of each kind, empty, for one test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'settlement.db'}"
        return
    if not postgres_reachable:
        pytest.skip(f"PostgreSQL at {PG_HOST}:{PG_PORT} is not reachable")
    with postgres_schema() as url:
        yield url


@pytest.fixture
def spare_database_url(database_url: str, tmp_path: Path) -> Iterator[str]:
    """A second empty database of the same kind (to rebuild into and compare)."""
    if database_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'rebuilt.db'}"
        return
    with postgres_schema() as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite ledger, for tests where the backend does not matter (auth, processes)."""
    return f"sqlite:///{tmp_path / 'settlement.db'}"


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on a migrated, empty ledger."""
    eng = create_ledger_engine(database_url)
    upgrade(eng)
    try:
        yield eng
    finally:
        eng.dispose()


@pytest.fixture
def issuer() -> TokenIssuer:
    """Mints tokens every test service accepts."""
    return TokenIssuer(TEST_TOKEN_KEY)


def stream_config(nats_url: str, database_url: str, **overrides: Any) -> SettlementConfig:
    """A configuration on fresh streams and any free port."""
    tag = uuid.uuid4().hex[:10]
    values: dict[str, Any] = {
        "address": "127.0.0.1:0",
        "nats_url": nats_url,
        "database_url": database_url,
        "wallets_stream": f"RBS_W_{tag}",
        "wallets_prefix": f"rbs{tag}.wallets",
        "tables_stream": f"RBS_T_{tag}",
        "tables_prefix": f"rbs{tag}.tables",
        "accounts_stream": "",  # settlement on its own: no lobby, so no account registry
        "ack_wait": 1.0,
        "fetch_batch": 64,
        "release_wait": 5.0,
        "grace": 0.5,
        "connect_timeout": 5.0,
    }
    values.update(overrides)
    return SettlementConfig(**values)


async def drop_streams(nc: NATS, config: SettlementConfig) -> None:
    """Delete a configuration's streams (deny_delete protects messages, not the stream)."""
    js = nc.jetstream()
    for stream in (config.wallets_stream, config.tables_stream):
        with contextlib.suppress(nats.errors.Error):
            await js.delete_stream(stream)


@pytest.fixture
async def config(
    nats_url: str, nats_client: NATS, database_url: str
) -> AsyncIterator[SettlementConfig]:
    """This test's settings (each backend); its streams are deleted afterwards."""
    cfg = stream_config(nats_url, database_url)
    yield cfg
    await drop_streams(nats_client, cfg)


@pytest.fixture
async def sqlite_config(
    nats_url: str, nats_client: NATS, sqlite_url: str
) -> AsyncIterator[SettlementConfig]:
    """This test's settings on SQLite only."""
    cfg = stream_config(nats_url, sqlite_url)
    yield cfg
    await drop_streams(nats_client, cfg)


def _starter(cfg: SettlementConfig, issuer: TokenIssuer, servers: list[SettlementServer]) -> Any:
    async def start(**overrides: Any) -> SettlementServer:
        ack_filter = overrides.pop("ack_filter", None)
        server = SettlementServer(replace(cfg, **overrides), issuer, ack_filter=ack_filter)
        servers.append(server)
        await server.start()
        return server

    return start


@pytest.fixture
async def start_settlement(
    config: SettlementConfig, issuer: TokenIssuer
) -> AsyncIterator[StartSettlement]:
    """Factory: ``await start_settlement(**config_overrides, ack_filter=...)``; all stopped."""
    servers: list[SettlementServer] = []
    yield _starter(config, issuer, servers)
    for server in servers:
        await server.stop(grace=0)


@pytest.fixture
async def start_sqlite_settlement(
    sqlite_config: SettlementConfig, issuer: TokenIssuer
) -> AsyncIterator[StartSettlement]:
    """The same factory on SQLite only."""
    servers: list[SettlementServer] = []
    yield _starter(sqlite_config, issuer, servers)
    for server in servers:
        await server.stop(grace=0)


@pytest.fixture
async def start_settlement_for(
    issuer: TokenIssuer,
) -> AsyncIterator[Callable[[SettlementConfig], Awaitable[SettlementServer]]]:
    """Factory: ``await start_settlement_for(config)`` with any configuration; all stopped."""
    servers: list[SettlementServer] = []

    async def start(cfg: SettlementConfig) -> SettlementServer:
        server = SettlementServer(cfg, issuer)
        servers.append(server)
        await server.start()
        return server

    yield start
    for server in servers:
        await server.stop(grace=0)
