"""Event-store fixtures: a fresh stream per test so tests never see each other's records."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import nats.errors
import pytest
from nats.aio.client import Client as NATS

from riverboat.eventstore import JetStreamEventStore, StreamSettings

JetStreamStoreFactory = Callable[..., Awaitable[JetStreamEventStore]]


def unique_settings(**overrides: Any) -> StreamSettings:
    """Stream settings with a name and subject prefix no other test uses."""
    tag = uuid.uuid4().hex[:12]
    values: dict[str, Any] = {"name": f"RB_TEST_{tag}", "subject_prefix": f"rbtest.{tag}"}
    values.update(overrides)
    return StreamSettings(**values)


@pytest.fixture
async def make_jetstream_store(nats_client: NATS) -> AsyncIterator[JetStreamStoreFactory]:
    """Factory: ``await make_jetstream_store(**settings_overrides, store_kwargs=...)``.

    Streams are deleted afterwards (allowed even with deny_delete/deny_purge, which only protect
    messages) to keep the session's store small.
    """
    created: list[str] = []

    async def make(
        *, store_kwargs: dict[str, Any] | None = None, **overrides: Any
    ) -> JetStreamEventStore:
        store = await JetStreamEventStore.open(
            nats_client, unique_settings(**overrides), **(store_kwargs or {})
        )
        created.append(store.stream)
        return store

    yield make

    js = nats_client.jetstream()
    for name in created:
        # Already gone (a test deleted it) or the connection is closed: nothing to clean.
        with contextlib.suppress(nats.errors.Error):
            await js.delete_stream(name)
