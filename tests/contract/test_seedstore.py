"""The seed-store contract, run against the in-memory store (no server)."""

from __future__ import annotations

import pytest

from riverboat.services.dealer.seedstore_memory import MemorySeedStore
from tests.contract.seedstore import SeedStoreContract


class TestMemorySeedStore(SeedStoreContract):
    @pytest.fixture
    def store(self) -> MemorySeedStore:
        return MemorySeedStore()
