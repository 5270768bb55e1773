"""Shared fixtures for integration tests: real nats-servers (never the host's port-4222 one).

``nats_server`` is one JetStream server for the session; ``nats_cluster`` is a fresh three-node
cluster for one test (tests kill and restart its nodes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client as NATS

from riverboat.natsserver import NatsCluster, NatsServer


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    """One JetStream server for the session, on a free port with a temporary store."""
    server = NatsServer(tmp_path_factory.mktemp("nats-store"), port=0)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def nats_cluster(tmp_path: Path) -> Iterator[NatsCluster]:
    """A three-node JetStream cluster on loopback for one test, with a meta leader elected."""
    cluster = NatsCluster(tmp_path / "nats-cluster", size=3)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.close()


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
