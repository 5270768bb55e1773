"""What a :class:`~riverboat.services.table.runner.TableRunner` runs over, as ports.

The event store is :class:`riverboat.eventstore.EventStore`; the others are here: the dealer
(commitments, decks, reshuffles, reveals), the clock (timers and pauses) and the table's lease
(whether this instance may still write the table). Production wires the gRPC dealer client, the
event loop's clock and the instance's lease on the table; unit tests wire fakes
(``tests/unit/table/fakes.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from riverboat.services.table.dealer_client import Commitment

__all__ = ["ALWAYS_HELD", "Clock", "Dealer", "LoopClock", "TableLease", "Timer"]


class Dealer(Protocol):
    """The dealer service as a table sees it (:class:`DealerClient` in production)."""

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        """A new hand's commitment (idempotent per hand)."""
        ...

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        """The committed deck, once the commitment is in the table's log."""
        ...

    async def get_dealt(
        self,
        table_id: str,
        hand_id: str,
        log_sequence: int,
        seeds: Sequence[tuple[int, str, bytes, int]],
    ) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        """CRV1: the deck in the dealing order the locked ``seeds`` give, and each card's
        opening in the same order."""
        ...

    async def reshuffle(
        self,
        table_id: str,
        hand_id: str,
        round_: int,
        cards: tuple[int, ...],
        seeds: Sequence[tuple[int, str, bytes, int]] = (),
        log_sequence: int = 0,
    ) -> tuple[int, ...]:
        """The dealer's reshuffle of a draw's discards (CRV1: bound to the locked seeds, which
        the dealer reads from the log from ``log_sequence``, the commitment's record, on)."""
        ...

    async def reveal_seed(self, table_id: str, hand_id: str, log_sequence: int = 0) -> None:
        """Publish a finished hand's seed for auditors."""
        ...


class Timer(Protocol):
    """A scheduled callback."""

    def cancel(self) -> None:
        """Do not run it."""
        ...

    def when(self) -> float:
        """The clock time it is due at."""
        ...


class Clock(Protocol):
    """Time as a table sees it: the action clock, the pause between hands, retry delays."""

    def time(self) -> float:
        """Now, in seconds (monotonic)."""
        ...

    def call_later(self, delay: float, callback: Callable[..., Any], *args: Any) -> Timer:
        """Run ``callback(*args)`` after ``delay`` seconds."""
        ...

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds."""
        ...


class LoopClock:
    """The running event loop's clock (production)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        # Looked up once: on Python 3.11 each lookup is a getpid() system call.
        self._loop = loop or asyncio.get_running_loop()

    def time(self) -> float:
        return self._loop.time()

    def call_later(self, delay: float, callback: Callable[..., Any], *args: Any) -> Timer:
        return self._loop.call_later(delay, callback, *args)

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)


class TableLease(Protocol):
    """Whether this instance owns the table now; a runner writes only while it does."""

    @property
    def held(self) -> bool:
        """True while the lease is ours and not past its time."""
        ...


class _AlwaysHeld:
    """The lease of a table no other instance can own (unit tests, tools)."""

    @property
    def held(self) -> bool:
        return True


ALWAYS_HELD: TableLease = _AlwaysHeld()
"""A lease that is always held."""
