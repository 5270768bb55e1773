"""The lease contract on the JetStream store: a real nats-server, a fresh bucket per test."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client as NATS

from riverboat.eventstore import StreamConfigError
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


async def test_an_existing_buckets_replicas_are_checked_and_reported_never_changed(
    nats_client: NATS, caplog: pytest.LogCaptureFixture
) -> None:
    """The bucket goes through the one stream check (riverboat.eventstore.streams): opened
    again with other replicas it is left as it is, and the difference is reported."""
    bucket = f"RB_TEST_OWNERS_{uuid.uuid4().hex[:12]}"
    first = await JetStreamLeaseStore.open(nats_client, ttl=TTL, bucket=bucket, replicas=1)
    try:
        assert first.stream_check is not None and first.stream_check.created
        with caplog.at_level(logging.WARNING, logger="riverboat.eventstore"):
            again = await JetStreamLeaseStore.open(nats_client, ttl=TTL, bucket=bucket, replicas=3)
        check = again.stream_check
        assert check is not None and not check.created
        assert (check.replicas, check.wanted_replicas) == (1, 3)
        assert check.mismatch is not None and f"KV_{bucket}" in check.mismatch
        assert any("stream_replicas_mismatch" in r.getMessage() for r in caplog.records)
        info = await nats_client.jetstream().stream_info(f"KV_{bucket}")
        assert info.config.num_replicas == 1
        await again.create("t1", A)  # and the leases work as before
    finally:
        await nats_client.jetstream().delete_key_value(bucket)


async def test_a_bucket_the_leases_cannot_rely_on_is_refused(nats_client: NATS) -> None:
    """A bucket of the same name keeping five revisions per key is not a lease bucket."""
    bucket = f"RB_TEST_OWNERS_{uuid.uuid4().hex[:12]}"
    await nats_client.jetstream().create_key_value(bucket=bucket, history=5)
    try:
        with pytest.raises(StreamConfigError, match="max_msgs_per_subject"):
            await JetStreamLeaseStore.open(nats_client, ttl=TTL, bucket=bucket)
    finally:
        await nats_client.jetstream().delete_key_value(bucket)
