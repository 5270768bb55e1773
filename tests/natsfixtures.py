"""Shared fixtures for integration tests: real nats-servers (never the host's port-4222 one).

``nats_server`` is one JetStream server for the session; ``nats_cluster`` is a fresh three-node
cluster for one test (tests kill and restart its nodes). ``freeze`` stops a server's process
and returns only once every thread of it has stopped.
"""

from __future__ import annotations

import os
import signal
import time
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


def freeze(pid: int, seconds: float = 10.0) -> None:
    """SIGSTOP ``pid`` and wait until every one of its threads is stopped (state ``T``).

    ``kill`` returns once the signal is queued, not once the process has stopped: on a busy
    machine a thread of nats-server could still answer a request sent just after it (seen
    once in CI: an append to a "frozen" server was acknowledged).
    """
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + seconds
    while not _all_threads_stopped(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} not stopped {seconds:g} s after SIGSTOP")
        time.sleep(0.005)


def _all_threads_stopped(pid: int) -> bool:
    states = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as stat:
                # The state follows the command name in parentheses, which may hold spaces.
                states.append(stat.read().rpartition(")")[2].split()[0])
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
    return bool(states) and all(state in ("T", "t") for state in states)
