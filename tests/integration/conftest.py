"""Shared fixtures for integration tests: a real nats-server (never the host's port-4222 one)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import nats
import pytest
from nats.aio.client import Client as NATS

from riverboat.natsserver import NatsServer


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    """One JetStream server for the session, on a free port with a temporary store."""
    server = NatsServer(tmp_path_factory.mktemp("nats-store"), port=0)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def nats_url(nats_server: NatsServer) -> str:
    """Client URL of the session's server."""
    return nats_server.url


@pytest.fixture
async def nats_client(nats_url: str) -> AsyncIterator[NATS]:
    """A connected client for one test, closed afterwards."""
    nc = await nats.connect(nats_url, connect_timeout=5, max_reconnect_attempts=2)
    try:
        yield nc
    finally:
        await nc.close()
