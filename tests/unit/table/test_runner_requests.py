"""A table runner's request keys: scoped to (caller, kind), remembered from the log.

The oracle is the log itself: how many records a command left (counted from the store, not
from the runner's answers)."""

from __future__ import annotations

from typing import Any

import pytest

from riverboat.engine.options import pacific_options
from riverboat.eventstore import InMemoryEventStore
from riverboat.idempotency import RequestClash, RequestKey
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import TableRunner
from riverboat.table import aggregate as table

NO_DEALER: Any = None  # never called: no hand is dealt


async def _runner(store: InMemoryEventStore) -> TableRunner:
    runner = await TableRunner.load("t1", store, NO_DEALER, TableConfig(auto_deal=False))
    if not runner.state.created:
        await runner.submit(
            lambda s: table.create_table(
                s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
                action_seconds=30,
            ),
            request_id="open",
            actor="operator:op",
            kind="open",
        )  # fmt: skip
    return runner


async def _seat(runner: TableRunner, caller: str, rid: str, seat: int, fp: str = "") -> int:
    done = await runner.submit(
        lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=1000),
        request_id=rid,
        actor=caller,
        kind="seat",
        fingerprint=fp or f"seat{seat}",
    )
    return done.version


async def _records(store: InMemoryEventStore) -> int:
    return len(await store.read("t1"))


async def test_two_callers_numbering_alike_are_both_applied() -> None:
    store = InMemoryEventStore()
    runner = await _runner(store)
    assert await _seat(runner, "operator:ann", "1", 1) == 2
    assert await _seat(runner, "operator:bob", "1", 2) == 3  # bob's "1" is not ann's
    assert await _records(store) == 3
    assert [s.player for s in runner.state.seats] == ["p1", "p2"]


async def test_a_repeat_answers_the_original_and_another_command_is_refused() -> None:
    store = InMemoryEventStore()
    runner = await _runner(store)
    first = await runner.submit(
        lambda s: table.seat_player(s, seat=1, player="p1", stack=1000),
        request_id="1", actor="operator:ann", kind="seat", fingerprint="seat1",
    )  # fmt: skip
    again = await runner.submit(
        lambda s: table.seat_player(s, seat=1, player="p1", stack=1000),
        request_id="1", actor="operator:ann", kind="seat", fingerprint="seat1",
    )  # fmt: skip
    assert (first.version, first.duplicate) == (2, False)
    assert (again.version, again.duplicate) == (2, True)
    with pytest.raises(RequestClash) as err:
        await _seat(runner, "operator:ann", "1", 2, fp="seat2")
    assert "operator:ann" in err.value.message and "t1" in err.value.message
    assert await _records(store) == 2  # the refused one wrote nothing


async def test_remembered_keys_and_answers_survive_a_restart() -> None:
    store = InMemoryEventStore()
    runner = await _runner(store)
    await _seat(runner, "operator:ann", "1", 1)
    await _seat(runner, "operator:ann", "2", 2)
    left = await runner.submit(
        lambda s: table.unseat_player(s, seat=2, player="p2"),
        request_id="1", actor="service:lobby", kind="unseat", fingerprint="leave-p2",
    )  # fmt: skip
    assert left.left == (False, 1000)
    await runner.close()
    reborn = await _runner(store)  # rebuilt from the log alone
    known = reborn.recall(RequestKey("seat", "operator:ann", "1"), "seat1")
    assert known is not None and known.version == 2
    with pytest.raises(RequestClash):
        reborn.recall(RequestKey("seat", "operator:ann", "2"), "seat9")
    repeat = await reborn.submit(
        lambda s: table.unseat_player(s, seat=2, player="p2"),
        request_id="1", actor="service:lobby", kind="unseat", fingerprint="leave-p2",
    )  # fmt: skip
    assert (repeat.version, repeat.duplicate, repeat.left) == (4, True, (False, 1000))
    assert await _seat(reborn, "operator:bob", "1", 3) == 5  # another caller: applied
    assert await _records(store) == 5
