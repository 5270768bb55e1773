"""Settlement's consumer lag metric against a backlog the test builds itself.

Ten records wait in a stream before the consumer starts; its handler holds the third one. While
held, the gauge must read exactly the eight behind the second, the last one handled (the
server's count, not a guess); once released and all applied, 0.
"""

from __future__ import annotations

import asyncio
import uuid

from nats.aio.client import Client as NATS
from prometheus_client import REGISTRY

from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.services.settlement.consumers import Delivery, DurableConsumer

RECORDS = 10


def lag(durable: str) -> float | None:
    return REGISTRY.get_sample_value("riverboat_consumer_lag_records", {"consumer": durable})


async def test_the_gauge_counts_the_records_behind_the_one_in_hand(nats_client: NATS) -> None:
    tag = uuid.uuid4().hex[:10]
    store = await JetStreamEventStore.open(
        nats_client, StreamSettings(name=f"RB_LAG_{tag}", subject_prefix=f"rblag.{tag}")
    )
    for k in range(RECORDS):
        await store.append(f"t{k}", b"x", expected_version=0, request_id=f"r{k}")
    third = asyncio.Event()
    release = asyncio.Event()
    applied: list[int] = []

    async def handle(delivery: Delivery) -> None:
        applied.append(delivery.stream_sequence)
        if len(applied) == 3:
            third.set()
            await release.wait()

    durable = f"lag-{tag}"
    consumer = DurableConsumer(
        nats_client,
        stream=store.stream,
        subject_prefix=store.settings.subject_prefix,
        durable=durable,
        handler=handle,
        batch=RECORDS,
    )
    await consumer.start()
    try:
        await asyncio.wait_for(third.wait(), 30)
        # Set after each record is handled: the second one left this many behind it.
        assert lag(durable) == RECORDS - 2
        release.set()
        for _ in range(600):
            if len(applied) == RECORDS and lag(durable) == 0:
                break
            await asyncio.sleep(0.05)
        assert len(applied) == RECORDS
        assert lag(durable) == 0
    finally:
        release.set()
        await consumer.stop()
        await nats_client.jetstream().delete_stream(store.stream)
