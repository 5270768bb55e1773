"""The watchers' mailbox: order, waiting, the backlog limit and the final item past it."""

from __future__ import annotations

import asyncio

import pytest

from riverboat.services.table.mailbox import Mailbox, MailboxFull


async def test_items_come_out_in_order_and_a_reader_waits_for_the_next() -> None:
    box: Mailbox[int] = Mailbox(10)
    box.put_nowait(1)
    box.put_nowait(2)
    assert [await box.get(), await box.get()] == [1, 2]
    reader = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    assert not reader.done()
    box.put_nowait(3)
    assert await asyncio.wait_for(reader, 1) == 3
    assert len(box) == 0


async def test_a_full_mailbox_refuses_more_but_takes_the_final_item() -> None:
    box: Mailbox[int | None] = Mailbox(2)
    box.put_nowait(1)
    box.put_nowait(2)
    with pytest.raises(MailboxFull):
        box.put_nowait(3)
    box.force(None)
    assert [await box.get() for _ in range(3)] == [1, 2, None]


async def test_a_cancelled_reader_leaves_the_mailbox_usable() -> None:
    box: Mailbox[str] = Mailbox(5)
    reader = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    box.put_nowait("next")  # no stale waiter to wake
    assert await asyncio.wait_for(box.get(), 1) == "next"
