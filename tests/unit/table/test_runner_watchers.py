"""A table runner's watchers: every update in order, and a watcher too far behind is cut off
with the end of its stream (it resumes from its last version), never left hanging."""

from __future__ import annotations

from typing import Any

import pytest

from riverboat.engine.options import pacific_options
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.table import runner as runner_module
from riverboat.services.table.config import TableConfig
from riverboat.services.table.mailbox import Mailbox
from riverboat.services.table.runner import TableRunner, Update
from riverboat.table import aggregate as table


async def _runner() -> TableRunner:
    # No automatic deals: nothing here calls the dealer.
    config = TableConfig(auto_deal=False)
    no_dealer: Any = None  # never called: no hand is dealt
    runner = await TableRunner.load("t1", InMemoryEventStore(), no_dealer, config)
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=30,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    return runner


async def _seat(runner: TableRunner, seat: int) -> None:
    await runner.submit(
        lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=1000),
        request_id=f"seat-{seat}",
        actor="op",
    )


async def _next(mailbox: Mailbox[Update | None]) -> Update:
    update = await mailbox.get()
    assert update is not None, "the stream ended"
    return update


async def test_a_watcher_gets_every_update_in_order() -> None:
    runner = await _runner()
    mailbox = runner.watch()
    for seat in range(1, 5):
        await _seat(runner, seat)
    assert [(await _next(mailbox)).version for _ in range(4)] == [2, 3, 4, 5]
    await runner.close()
    assert await mailbox.get() is None  # the table closed: the stream ends


async def test_a_watcher_too_far_behind_is_cut_off_with_the_end_of_its_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner_module, "WATCH_BACKLOG", 2)
    runner = await _runner()
    slow, keeping_up = runner.watch(), runner.watch()
    for seat in range(1, 5):
        await _seat(runner, seat)
        assert (await _next(keeping_up)).version == seat + 1
    # Two updates were held for the slow one; the third cut it off with None after them.
    assert [await slow.get() for _ in range(3)][2] is None
    await _seat(runner, 5)
    assert len(slow) == 0  # no longer sent anything
    assert (await _next(keeping_up)).version == 6
    await runner.close()
