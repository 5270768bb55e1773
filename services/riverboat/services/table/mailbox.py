"""A watcher's mailbox: the updates a ``Watch`` stream has yet to send, in order.

What ``asyncio.Queue`` would do for one producer (the table) and one consumer (the stream),
without its general machinery: every message of a busy table passes through one mailbox per
watcher, and a queue's ``get`` looks the running loop up again each time it has to wait (on
Python 3.11 that is a ``getpid`` system call). The mailbox holds the loop it was made on.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)

__all__ = ["Inbox", "Mailbox", "MailboxFull"]


class Inbox(Protocol[T_contra]):
    """What a producer needs of a mailbox: a mailbox of more kinds of item (a Play stream's,
    which also takes its actions' outcomes) is an inbox of fewer."""

    def put_nowait(self, item: T_contra) -> None: ...

    def force(self, item: T_contra) -> None: ...


class MailboxFull(Exception):
    """The mailbox already holds ``limit`` items."""


class Mailbox(Generic[T]):
    """A bounded FIFO with one waiting reader. Make it on the loop that reads it."""

    def __init__(self, limit: int) -> None:
        self._items: deque[T] = deque()
        self._limit = limit
        self._loop = asyncio.get_running_loop()
        self._waiter: asyncio.Future[None] | None = None

    def __len__(self) -> int:
        return len(self._items)

    def put_nowait(self, item: T) -> None:
        """Add ``item``; :class:`MailboxFull` if ``limit`` items are waiting."""
        if len(self._items) >= self._limit:
            raise MailboxFull
        self.force(item)

    def force(self, item: T) -> None:
        """Add ``item`` past the limit (the final ``None`` that ends a stream)."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> T:
        """The oldest item, waiting for one if there is none."""
        while not self._items:
            waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.popleft()
