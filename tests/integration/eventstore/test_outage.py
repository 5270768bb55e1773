"""The JetStream store through NATS outages, on a dedicated nats-server of each test's own:

* while the client is disconnected, an append fails at once with ``StoreUnavailableError`` and
  nothing is buffered for a late resend (nats-py would otherwise send it on reconnect, long
  after the caller gave up);
* an append that was sent but never answered (the server frozen with SIGSTOP) raises
  ``AppendOutcomeUnknownError``; once the server answers again, a retry with the same request
  id returns the original record, which the log holds exactly once.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client as NATS

from riverboat.eventstore import (
    AppendOutcomeUnknownError,
    JetStreamEventStore,
    StoreUnavailableError,
)
from riverboat.natsserver import NatsServer
from riverboat.retrying import Policy
from tests.integration.eventstore.conftest import unique_settings
from tests.natsfixtures import freeze
from tests.waiting import until_true

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[NatsServer]:
    """A server only this test kills, freezes and restarts (same port, same store)."""
    server = NatsServer(tmp_path / "nats", port=0)
    server.start()
    try:
        yield server
    finally:
        if server.pid is not None:
            os.kill(server.pid, signal.SIGCONT)  # never leave a frozen server behind
        server.close()


@pytest.fixture
async def client(own_server: NatsServer) -> AsyncIterator[NATS]:
    """A client that keeps reconnecting, quickly, as the services' clients do."""

    async def quiet(exc: Exception) -> None:  # each refused reconnection attempt lands here
        pass

    nc = await nats.connect(
        own_server.url,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.2,
        connect_timeout=2,
        error_cb=quiet,
    )
    try:
        yield nc
    finally:
        await nc.close()


async def _request_ids(store: JetStreamEventStore, aggregate_id: str) -> list[str]:
    return [record.request_id for record in await store.read(aggregate_id)]


async def test_an_append_while_disconnected_fails_at_once_and_is_never_sent_later(
    own_server: NatsServer, client: NATS
) -> None:
    store = await JetStreamEventStore.open(client, unique_settings())
    await store.append("t1", b"one", expected_version=0, request_id="r1")
    own_server.kill()
    await until_true(lambda: not client.is_connected, "disconnected")

    with pytest.raises(StoreUnavailableError, match="not connected"):
        await asyncio.wait_for(
            store.append("t1", b"two", expected_version=1, request_id="r2"), timeout=1.0
        )
    with pytest.raises(StoreUnavailableError):
        await store.last_version("t1")

    own_server.start()
    await until_true(lambda: client.is_connected, "reconnected")
    await client.flush()  # anything nats-py had buffered has reached the server now
    assert await _request_ids(store, "t1") == ["r1"], "the refused append was resent"
    # The caller's retry with the same request id writes it, once.
    retried = await store.append("t1", b"two", expected_version=1, request_id="r2")
    assert (retried.version, retried.duplicate) == (2, False)
    assert await _request_ids(store, "t1") == ["r1", "r2"]


async def test_an_unanswered_append_is_outcome_unknown_and_the_retry_finds_the_original(
    own_server: NatsServer, client: NATS
) -> None:
    # A short retry budget: the server stays stopped longer than the append retries.
    store = await JetStreamEventStore.open(
        client, unique_settings(), timeout=0.5, retry=Policy(first=0.05, maximum=1.0, total=0.5)
    )
    await store.append("t1", b"one", expected_version=0, request_id="r1")
    assert own_server.pid is not None
    freeze(own_server.pid)  # it still accepts bytes, but answers nothing
    try:
        with pytest.raises(AppendOutcomeUnknownError, match="retry with the same request id"):
            await store.append("t1", b"two", expected_version=1, request_id="r2")
    finally:
        os.kill(own_server.pid, signal.SIGCONT)
    # The server stores what it received once it runs again; the retry reports that record.
    retried = await store.append("t1", b"two", expected_version=1, request_id="r2")
    assert (retried.version, retried.duplicate) == (2, True)
    assert await _request_ids(store, "t1") == ["r1", "r2"]
    # A retry based on the version the caller has since caught up to also finds it.
    again = await store.append("t1", b"two", expected_version=2, request_id="r2")
    assert (again.version, again.duplicate) == (2, True)
    assert await _request_ids(store, "t1") == ["r1", "r2"]
