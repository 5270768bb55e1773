"""The settlement's projector on a recorded table log: what reaches the database, and batches.

The live consumer's handlers (``Projector.on_table_record`` and, for a fetch of several records,
``on_table_records``) over a SQLite ledger, with the log in memory and the wallet reactions
answered by a stub: a record that moves no money never reaches the database, a batch is one
commit and builds the same ledger, and waiting for a table's log is satisfied by records that
move nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from riverboat.eventstore.memory import InMemoryEventStore
from riverboat.ledger import canonical_dump, create_ledger_engine
from riverboat.ledger.migrate import upgrade
from riverboat.ledger.moneyfilter import moves_money
from riverboat.services.settlement.consumers import Delivery
from riverboat.services.settlement.database import Database
from riverboat.services.settlement.projector import Projector
from tests.unit.ledger.test_moneyfilter import _tables

TABLE = "pacific-t1"


class _Wallets:
    async def execute(self, player: str, decide: object, key: str) -> Any:
        return SimpleNamespace(events=[])


class _Counted(Database):
    """A database that counts the calls that reach its thread."""

    calls = 0

    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return await super().run(fn, *args, **kwargs)


def _records() -> list[bytes]:
    return _tables()["pacific/t1"]


def _deliveries() -> list[Delivery]:
    return [Delivery(TABLE, v, p, v, 1) for v, p in enumerate(_records(), start=1)]


@pytest.fixture
def projector(tmp_path: Path) -> Iterator[tuple[Projector, _Counted, InMemoryEventStore]]:
    engine = create_ledger_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    upgrade(engine)
    db = _Counted(engine)
    store = InMemoryEventStore()
    yield Projector(db, cast(Any, _Wallets()), store, store), db, store
    db.close()


def _dump(db: Database) -> str:
    with db.engine.connect() as conn:
        return canonical_dump(conn)


def test_a_record_that_moves_no_money_never_reaches_the_database(
    projector: tuple[Projector, _Counted, InMemoryEventStore],
) -> None:
    project, db, _ = projector
    deliveries = _deliveries()
    money = sum(moves_money(d.payload) for d in deliveries)

    async def replay() -> None:
        for delivery in deliveries:
            await project.on_table_record(delivery)

    asyncio.run(replay())
    assert db.calls == money < len(deliveries)
    assert project.skipped == len(deliveries) - money


def test_a_batch_is_one_commit_and_builds_the_same_ledger(
    tmp_path: Path, projector: tuple[Projector, _Counted, InMemoryEventStore]
) -> None:
    one_by_one, single_db, _ = projector
    deliveries = _deliveries()

    async def replay_each() -> None:
        for delivery in deliveries:
            await one_by_one.on_table_record(delivery)

    asyncio.run(replay_each())

    engine = create_ledger_engine(f"sqlite:///{tmp_path / 'batched.db'}")
    upgrade(engine)
    db = _Counted(engine)
    store = InMemoryEventStore()
    batched = Projector(db, cast(Any, _Wallets()), store, store)

    async def replay_batches() -> None:
        for start in range(0, len(deliveries), 8):
            chunk = deliveries[start : start + 8]
            assert await batched.on_table_records(chunk) == len(chunk)

    asyncio.run(replay_batches())
    try:
        assert db.calls <= -(-len(deliveries) // 8)  # at most one commit per batch
        assert _dump(db) == _dump(single_db)
    finally:
        db.close()


def test_a_batch_stops_at_a_gap_and_says_how_far_it_got(
    projector: tuple[Projector, _Counted, InMemoryEventStore],
) -> None:
    project, _, _ = projector
    deliveries = _deliveries()
    # The first records, then a money record far ahead: the batch stops there.
    later = next(d for d in deliveries[40:] if moves_money(d.payload))
    assert asyncio.run(project.on_table_records([*deliveries[:10], later])) == 10


def test_waiting_for_a_table_is_satisfied_by_records_that_move_no_money(
    projector: tuple[Projector, _Counted, InMemoryEventStore],
) -> None:
    project, _, store = projector
    records = _records()
    # A log that ends with records that move nothing (a hand's cards and checks).
    end = next(
        i
        for i in range(len(records) - 1, 0, -1)
        if moves_money(records[i - 1]) and not moves_money(records[i])
    )

    async def scenario() -> None:
        for version, payload in enumerate(records[: end + 1], start=1):
            await store.append(
                TABLE, payload, expected_version=version - 1, request_id=f"r{version}"
            )
        for delivery in _deliveries()[: end + 1]:
            await project.on_table_record(delivery)
        await project.wait_for_table(TABLE, timeout=5)
        # A process that saw none of the skipped records reads them back from the log.
        project._db.ledger.unmoved = type(project._db.ledger.unmoved)()
        await project.wait_for_table(TABLE, timeout=5)

    asyncio.run(scenario())
