"""Dealer fixtures: a real nats-server (session), an in-process dealer per test, fresh streams.

Every test gets its own stream names and subject prefixes, so tests never see each other's
seeds or table logs. Logs are captured as JSON for every test, and no captured line may look
like a card (checked at teardown): the dealer must never log a card.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import grpc.aio
import nats.errors
import pytest
from nats.aio.client import Client as NATS

from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.services.common.logs import configure_logging, reset_logging
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.keys import SealingKey
from riverboat.services.dealer.server import DealerServer
from tests.integration.dealer._kit import CARD_TOKEN, KEY, DealerClient, TableLog, dealer_config

StartDealer = Callable[..., Awaitable[DealerServer]]


@pytest.fixture(autouse=True)
def captured_logs() -> Iterator[io.StringIO]:
    """JSON logs of the test (level debug); teardown fails if any line shows a card."""
    buffer = io.StringIO()
    configure_logging(fmt="json", level="debug", stream=buffer)
    yield buffer
    reset_logging()
    cards = [line for line in buffer.getvalue().splitlines() if CARD_TOKEN.search(line)]
    assert not cards, f"log lines showing cards: {cards[:3]}"


@pytest.fixture
async def config(nats_url: str, nats_client: NATS) -> AsyncIterator[DealerConfig]:
    """This test's dealer configuration; its streams are deleted afterwards."""
    cfg = dealer_config(nats_url)
    yield cfg
    js = nats_client.jetstream()
    for stream in (cfg.tables_stream, cfg.seeds_stream, cfg.audit_stream):
        # Deleting a stream is allowed despite deny_delete (which protects messages only).
        with contextlib.suppress(nats.errors.Error):
            await js.delete_stream(stream)


@pytest.fixture
async def table_log(nats_client: NATS, config: DealerConfig) -> TableLog:
    """The test's tables stream, created as the table service would create it."""
    settings = StreamSettings(name=config.tables_stream, subject_prefix=config.tables_prefix)
    return TableLog(await JetStreamEventStore.open(nats_client, settings))


@pytest.fixture
async def start_dealer(config: DealerConfig) -> AsyncIterator[StartDealer]:
    """Factory: ``await start_dealer(key=KEY, **config_overrides)``; all stopped at teardown."""
    servers: list[DealerServer] = []

    async def start(key: bytes = KEY, **overrides: Any) -> DealerServer:
        server = DealerServer(replace(config, **overrides), SealingKey(key, source="test"))
        servers.append(server)
        await server.start()
        return server

    yield start
    for server in servers:
        await server.stop(grace=0)


@pytest.fixture
async def dealer(start_dealer: StartDealer) -> DealerServer:
    """A started dealer with the test key."""
    return await start_dealer()


@pytest.fixture
async def client(dealer: DealerServer, table_log: TableLog) -> AsyncIterator[DealerClient]:
    """A client of the :func:`dealer` fixture's server (it opens tables in the test's log)."""
    async with grpc.aio.insecure_channel(dealer.address) as channel:
        yield DealerClient(channel, table_log=table_log)
