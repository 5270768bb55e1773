"""The event-store contract on the in-memory store (no server)."""

from __future__ import annotations

import pytest

from riverboat.eventstore import EventStore, InMemoryEventStore
from tests.contract.eventstore import EventStoreContract


class TestInMemoryEventStore(EventStoreContract):
    """:class:`InMemoryEventStore` keeps every promise of the contract."""

    @pytest.fixture
    def store(self) -> EventStore:
        return InMemoryEventStore()
