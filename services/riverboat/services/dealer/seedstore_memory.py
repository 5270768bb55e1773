"""The dealer's write-once seed store in memory: for unit tests of the dealer's logic and the
contract suite's run without a nats-server (tests/contract/seedstore.py)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TypeVar

from riverboat.services.dealer.store import SealedSeedRecord, SeedRevealedRecord, SeedStore

__all__ = ["MemorySeedStore"]

R = TypeVar("R", SealedSeedRecord, SeedRevealedRecord)


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
        return await self._write_once(self._seeds, record)

    async def load_reveal(self, table_id: str, hand_id: str) -> SeedRevealedRecord | None:
        return self._reveals.get((table_id, hand_id))

    async def publish_reveal(self, record: SeedRevealedRecord) -> tuple[SeedRevealedRecord, bool]:
        return await self._write_once(self._reveals, record)

    async def _write_once(self, records: dict[tuple[str, str], R], record: R) -> tuple[R, bool]:
        """Keep ``record`` unless its hand has one; the kept record and whether it is new."""
        async with self._lock:
            key = (record.table_id, record.hand_id)
            stored = records.get(key)
            if stored is not None:
                return stored, False
            stored = dataclasses.replace(record, sequence=len(records) + 1)
            records[key] = stored
            return stored, True
