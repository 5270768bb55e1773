"""The lease contract on the JetStream store: a real nats-server, a fresh bucket per test."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client as NATS

from riverboat.leases import JetStreamLeaseStore, LeaseStore
from tests.contract.leases import TTL, A, LeaseStoreContract


class TestJetStreamLeaseStore(LeaseStoreContract):
    """:class:`JetStreamLeaseStore` keeps every promise of the contract."""

    @pytest.fixture
    async def store(self, nats_client: NATS) -> AsyncIterator[LeaseStore]:
        bucket = f"RB_TEST_OWNERS_{uuid.uuid4().hex[:12]}"
        yield await JetStreamLeaseStore.open(nats_client, ttl=TTL, bucket=bucket)
        await nats_client.jetstream().delete_key_value(bucket)

    async def expire(self, store: LeaseStore, key: str) -> None:
        # The server expires the lease (per-message TTL); wait for it, without a deadline of
        # our own (the class's timeout bounds it).
        while await store.get(key) is not None:
            await asyncio.sleep(0.05)


async def test_jetstream_leases_carry_their_own_ttl(nats_client: NATS) -> None:
    """Each write names its TTL (per-message TTL), so instances with different --lease-ttl
    share a bucket; the bucket keeps one revision per key."""
    bucket = f"RB_TEST_OWNERS_{uuid.uuid4().hex[:12]}"
    store = await JetStreamLeaseStore.open(nats_client, ttl=2.5, bucket=bucket)
    try:
        await store.create("t1", A)
        js = nats_client.jetstream()
        msg = await js.get_last_msg(f"KV_{bucket}", f"$KV.{bucket}.t1", direct=True)
        assert (msg.headers or {}).get("Nats-TTL") == "2500ms"
        info = await js.stream_info(f"KV_{bucket}")
        assert info.config.max_msgs_per_subject == 1
        with pytest.raises(ValueError):
            await JetStreamLeaseStore.open(nats_client, ttl=0.5, bucket=bucket)
    finally:
        await nats_client.jetstream().delete_key_value(bucket)
