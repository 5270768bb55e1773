"""Helpers for room tests: seat bots, play hands, read the raw log."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import grpc
import nats

from riverboat.client import BotStats, TableClient, play_bot, random_chooser
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.table.events import AnyEvent
from riverboat.v1 import table_pb2
from tests.e2e.room.conftest import Room


async def setup_table(
    operator: TableClient,
    table_id: str,
    players: int,
    stack: int = 5000,
    # Short: should a bot miss a turn, the clock acts for it and the hands go on.
    action_seconds: int = 5,
    time_bank: Any = None,
) -> list[str]:
    await operator.create_table(table_id, action_seconds=action_seconds, time_bank=time_bank)
    names = [f"{table_id}-p{k}" for k in range(1, players + 1)]
    for k, name in enumerate(names, start=1):
        await operator.seat(table_id, k, name, stack)
    return names


async def play_hands(
    room: Room,
    table_id: str,
    players: list[str],
    hands: int,
    *,
    seed: int = 1,
    observe: list[table_pb2.WatchResponse] | None = None,
    received: dict[str, list[table_pb2.WatchResponse]] | None = None,
    timeout: float = 60.0,
) -> list[BotStats]:
    """Bots play until ``hands`` hands have ended (or fewer than two players have chips left);
    everything each one received is kept."""
    stop = asyncio.Event()
    rng = random.Random(seed)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        finished: set[str] = set()

        def record(name: str):  # type: ignore[no-untyped-def]
            def on_update(update: table_pb2.WatchResponse) -> None:
                if received is not None:
                    received.setdefault(name, []).append(update)
                for env in update.events:
                    if env.WhichOneof("payload") == "hand_ended":
                        finished.add(str(update.view.hand_id or env.aggregate_version))
                if len(finished) >= hands:
                    stop.set()
                # Players who go broke sit out; once fewer than two have chips the game is
                # over, and waiting for more hands would only run into the timeout.
                view = update.view if update.HasField("view") else None
                if (
                    view is not None
                    and view.seats
                    and not view.hand_in_progress
                    and sum(1 for s in view.seats if s.stack > 0) < 2
                ):
                    stop.set()

            return on_update

        tasks = [
            asyncio.ensure_future(
                play_bot(
                    room.client(channel, name),
                    table_id,
                    random_chooser(random.Random(rng.random())),
                    stop=stop,
                    on_update=record(name),
                )
            )
            for name in players
        ]
        watcher = None
        if observe is not None:

            async def observer() -> None:
                from riverboat.client import watch_until

                observer = room.client(channel, "auditor-1", "auditor")
                async for update in watch_until(observer, table_id, stop):
                    observe.append(update)

            watcher = asyncio.ensure_future(observer())
        try:
            await asyncio.wait_for(stop.wait(), timeout)
        finally:
            stop.set()
            stats = list(await asyncio.gather(*tasks))
            if watcher is not None:
                await watcher
    return stats


@dataclass(frozen=True)
class LoggedBatch:
    """One record of a table's log: when the stream stored it, and its events."""

    recorded_at: datetime
    events: list[AnyEvent]


async def read_records(nats_url: str, stream: str, prefix: str, table_id: str) -> list[LoggedBatch]:
    """Every record of a table's raw log with the time the stream stored it."""
    nc = await nats.connect(nats_url)
    try:
        store = JetStreamEventStore(nc, StreamSettings(name=stream, subject_prefix=prefix))
        return [
            LoggedBatch(r.recorded_at, [e for e, _ in decode_batch(r.payload)])
            for r in await store.read(table_id)
        ]
    finally:
        await nc.close()


async def read_log(nats_url: str, stream: str, prefix: str, table_id: str) -> list[list[AnyEvent]]:
    """Every batch of a table's raw log (unredacted: all cards)."""
    nc = await nats.connect(nats_url)
    try:
        store = JetStreamEventStore(nc, StreamSettings(name=stream, subject_prefix=prefix))
        return [[e for e, _ in decode_batch(r.payload)] for r in await store.read(table_id)]
    finally:
        await nc.close()
