"""The dealer's write-once seed store in memory: for unit tests of the dealer's logic and the
contract suite's run without a nats-server (tests/contract/seedstore.py)."""

from __future__ import annotations

import asyncio
import dataclasses

from riverboat.services.dealer.store import SealedSeedRecord, SeedRevealedRecord, SeedStore

__all__ = ["MemorySeedStore"]


class MemorySeedStore(SeedStore):
    """Seeds and reveals by ``(table_id, hand_id)``, each written once, with a sequence per
    kind of record as a stream would number its messages."""

    def __init__(self) -> None:
        self._seeds: dict[tuple[str, str], SealedSeedRecord] = {}
        self._reveals: dict[tuple[str, str], SeedRevealedRecord] = {}
        self._lock = asyncio.Lock()

    async def load_seed(self, table_id: str, hand_id: str) -> SealedSeedRecord | None:
        return self._seeds.get((table_id, hand_id))

    async def create_seed(self, record: SealedSeedRecord) -> tuple[SealedSeedRecord, bool]:
        async with self._lock:
            key = (record.table_id, record.hand_id)
            stored = self._seeds.get(key)
            if stored is not None:
                return stored, False
            stored = dataclasses.replace(record, sequence=len(self._seeds) + 1)
            self._seeds[key] = stored
            return stored, True

    async def load_reveal(self, table_id: str, hand_id: str) -> SeedRevealedRecord | None:
        return self._reveals.get((table_id, hand_id))

    async def publish_reveal(self, record: SeedRevealedRecord) -> tuple[SeedRevealedRecord, bool]:
        async with self._lock:
            key = (record.table_id, record.hand_id)
            stored = self._reveals.get(key)
            if stored is not None:
                return stored, False
            stored = dataclasses.replace(record, sequence=len(self._reveals) + 1)
            self._reveals[key] = stored
            return stored, True
