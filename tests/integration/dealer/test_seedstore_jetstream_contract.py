"""The seed-store contract against the dealer's JetStream store on a real nats-server: fresh
write-once streams per test (the ``config`` fixture deletes them afterwards)."""

from __future__ import annotations

import pytest
from nats.aio.client import Client as NATS

from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.store import DealerStore
from tests.contract.seedstore import SeedStoreContract


class TestJetStreamSeedStore(SeedStoreContract):
    @pytest.fixture
    async def store(self, nats_client: NATS, config: DealerConfig) -> DealerStore:
        store = DealerStore(nats_client, config)
        await store.ensure_streams()
        return store
