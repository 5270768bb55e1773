"""A table taken while its log does not answer is replayed again until it is loaded and clocked.

Seen in a fail-over: the leases were lost during a leader election, and the table re-claimed
hit ``table_adopt_failed`` (a NATS read timeout); it stayed owned but unloaded, its action
clock stopped, until a call arrived. Here the registry and the lease keeper run over an
in-memory log that is down when the table is claimed, and no call is ever made: once the log
answers again, the owner must replay the table and its clock must act for the player who
does not (the table moves on by itself).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from riverboat.engine.games import waiting_for
from riverboat.engine.options import pacific_options
from riverboat.eventstore import (
    AppendResult,
    EventStore,
    InMemoryEventStore,
    StoredRecord,
    StoreUnavailableError,
)
from riverboat.leases import Holder, MemoryLeaseStore
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import Commitment
from riverboat.services.table.owners import LeaseKeeper
from riverboat.services.table.registry import TableRegistry
from riverboat.services.table.runner import TableRunner
from riverboat.shuffle import derive_deck
from riverboat.table import aggregate as table
from tests.waiting import until_true

pytestmark = pytest.mark.timeout(60)


class DownLog(EventStore):
    """An in-memory log whose every call fails while ``down`` (a NATS read timeout)."""

    def __init__(self) -> None:
        self.inner = InMemoryEventStore()
        self.down = False
        self.refused = 0

    def _check(self) -> None:
        if self.down:
            self.refused += 1
            raise StoreUnavailableError("nats: timeout (test)")

    async def append(
        self, aggregate_id: str, payload: bytes, *, expected_version: int, request_id: str
    ) -> AppendResult:
        self._check()
        return await self.inner.append(
            aggregate_id, payload, expected_version=expected_version, request_id=request_id
        )

    async def iter_records(
        self, aggregate_id: str, from_version: int = 1
    ) -> AsyncGenerator[StoredRecord, None]:
        self._check()
        async for record in self.inner.iter_records(aggregate_id, from_version):
            yield record

    async def last_version(self, aggregate_id: str) -> int:
        self._check()
        return await self.inner.last_version(aggregate_id)


class FixedDealer:
    """The dealer's port: a fixed seed per hand, so every deck is a real shuffle."""

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        return Commitment("RBS1", b"c" * 32, 52)

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        return derive_deck(hand_id, b"s" * 32)

    async def reveal_seed(self, table_id: str, hand_id: str, log_sequence: int = 0) -> None:
        return None


async def _hand_in_play(log: DownLog, config: TableConfig) -> int:
    """A table with a hand in play, written by an owner that then died; its log's version."""
    dealer: Any = FixedDealer()
    runner = await TableRunner.load("t1", log, dealer, config)
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=1,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in (1, 2):
        await runner.submit(
            functools.partial(table.seat_player, seat=seat, player=f"p{seat}", stack=1000),
            request_id=f"seat-{seat}",
            actor="op",
        )
    await until_true(lambda: _in_hand(runner), "the first deal")
    version = runner.version
    await runner.close()
    return version


def _in_hand(runner: TableRunner) -> bool:
    hand = runner.state.hand
    return hand is not None and not hand.finished and bool(waiting_for(hand))


async def test_a_table_claimed_while_its_log_is_down_is_loaded_and_clocked_once_it_answers() -> (
    None
):
    config = TableConfig(hand_pause=0.0, auto_deal=True)
    log = DownLog()
    written = await _hand_in_play(log, config)
    dealer: Any = FixedDealer()
    keeper = LeaseKeeper(
        MemoryLeaseStore(ttl=10), MemoryLeaseStore(ttl=10), Holder("a", "127.0.0.1:7001")
    )
    registry = TableRegistry(log, dealer, config, nc=None, keeper=keeper)

    async def table_ids() -> list[str]:
        return ["t1"]

    async def no_hand_over(table_id: str, patience: float) -> bool:
        return True

    log.down = True  # the stream is electing its leader: reads time out
    await keeper.start(
        adopt=registry._adopt,
        drop=registry._drop,
        hand_over=no_hand_over,
        cancel_hand_over=lambda table_id: None,
        table_ids=table_ids,
    )
    try:
        assert keeper.owned() == ["t1"]  # the lease is ours...
        assert registry.known("t1") is None  # ...but the replay failed
        await until_true(lambda: log.refused >= 3, "a few replays refused while the log is down")
        log.down = False
        # No call arrives: the owner replays the table by itself, and its action clock acts
        # for the player who does not (the log grows past what the dead owner wrote).
        await until_true(lambda: registry.known("t1") is not None, "the table loaded again")
        runner = registry.known("t1")
        assert runner is not None
        await until_true(lambda: runner.version > written, "the action clock acting", seconds=30)
    finally:
        await keeper.stop()
        await registry.close()
        await asyncio.sleep(0)
