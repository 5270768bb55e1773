"""The dealer's seed-store contract: every SeedStore must pass all of it.

:class:`SeedStoreContract` is abstract: a ``Test...`` subclass provides the ``store`` fixture
(an empty store). The in-memory store runs it in ``tests/contract/test_seedstore.py`` (no
server); the JetStream one (:class:`~riverboat.services.dealer.store.DealerStore`) in
``tests/integration/dealer/test_seedstore_jetstream_contract.py``. What it holds the stores
to is write-once: a hand's first seed (and first reveal) stays, whoever writes after it or
races it gets that first record back, and nothing replaces it.
"""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from riverboat.services.dealer.store import SealedSeedRecord, SeedRevealedRecord, SeedStore


def sealed(hand_id: str, tag: bytes = b"a", table_id: str = "t1") -> SealedSeedRecord:
    return SealedSeedRecord(
        table_id=table_id,
        hand_id=hand_id,
        scheme="CRV1",
        commitment=hashlib.sha256(b"c" + tag).digest(),
        sealed_seed=b"n" * 12 + tag * 32 + b"g" * 16,
        key_id="k1",
    )


def revealed(hand_id: str, tag: bytes = b"a", table_id: str = "t1") -> SeedRevealedRecord:
    return SeedRevealedRecord(
        table_id=table_id,
        hand_id=hand_id,
        scheme="CRV1",
        seed=tag * 32,
        commitment=hashlib.sha256(b"c" + tag).digest(),
    )


def content(record: SealedSeedRecord | SeedRevealedRecord) -> bytes:
    """What a record says, without where it was stored."""
    return record.encode()


@pytest.mark.timeout(60)
class SeedStoreContract:
    """What every :class:`SeedStore` promises; subclasses provide the ``store`` fixture."""

    async def test_a_hand_never_committed_has_no_seed_and_no_reveal(self, store: SeedStore) -> None:
        assert await store.load_seed("t1", "h1") is None
        assert await store.load_reveal("t1", "h1") is None

    async def test_a_stored_seed_reads_back_as_written(self, store: SeedStore) -> None:
        written = sealed("h1")
        record, created = await store.create_seed(written)
        assert created and record.sequence > 0 and content(record) == content(written)
        loaded = await store.load_seed("t1", "h1")
        assert loaded is not None and content(loaded) == content(written)
        assert loaded.sequence == record.sequence
        assert loaded.sealed_seed == written.sealed_seed

    async def test_a_second_seed_for_the_hand_gets_the_first_back(self, store: SeedStore) -> None:
        first, _ = await store.create_seed(sealed("h1", b"a"))
        again, created = await store.create_seed(sealed("h1", b"b"))
        assert not created
        assert content(again) == content(first) and again.sequence == first.sequence
        loaded = await store.load_seed("t1", "h1")
        assert loaded is not None and loaded.sealed_seed == sealed("h1", b"a").sealed_seed

    async def test_racing_writers_store_one_seed_and_all_get_it(self, store: SeedStore) -> None:
        results = await asyncio.gather(
            *(store.create_seed(sealed("h1", bytes([65 + k]))) for k in range(6))
        )
        assert sum(created for _, created in results) == 1
        assert len({content(record) for record, _ in results}) == 1
        loaded = await store.load_seed("t1", "h1")
        assert loaded is not None and content(loaded) == content(results[0][0])

    async def test_hands_and_tables_are_apart(self, store: SeedStore) -> None:
        await store.create_seed(sealed("h1", b"a"))
        _, created = await store.create_seed(sealed("h2", b"b"))
        _, other_table = await store.create_seed(sealed("h1", b"c", table_id="t2"))
        assert created and other_table
        h2 = await store.load_seed("t1", "h2")
        t2 = await store.load_seed("t2", "h1")
        assert h2 is not None and h2.sealed_seed == sealed("h2", b"b").sealed_seed
        assert t2 is not None and t2.sealed_seed == sealed("h1", b"c").sealed_seed

    async def test_a_reveal_is_published_once(self, store: SeedStore) -> None:
        first, created = await store.publish_reveal(revealed("h1", b"a"))
        assert created and first.sequence > 0
        again, created = await store.publish_reveal(revealed("h1", b"b"))
        assert not created and content(again) == content(first)
        loaded = await store.load_reveal("t1", "h1")
        assert loaded is not None and loaded.seed == b"a" * 32

    async def test_racing_reveals_publish_one(self, store: SeedStore) -> None:
        results = await asyncio.gather(
            *(store.publish_reveal(revealed("h1", bytes([65 + k]))) for k in range(6))
        )
        assert sum(created for _, created in results) == 1
        assert len({content(record) for record, _ in results}) == 1
