"""The event-store contract on the JetStream store: a real nats-server, a fresh stream per test."""

from __future__ import annotations

import pytest

from riverboat.eventstore import EventStore
from tests.contract.eventstore import EventStoreContract
from tests.integration.eventstore.conftest import JetStreamStoreFactory


class TestJetStreamEventStore(EventStoreContract):
    """:class:`JetStreamEventStore` keeps every promise of the contract."""

    @pytest.fixture
    async def store(self, make_jetstream_store: JetStreamStoreFactory) -> EventStore:
        return await make_jetstream_store()
