"""Fakes for the table runner's ports (riverboat.services.table.ports): a clock moved by hand,
a dealer that deals real shuffles from fixed seeds and counts its calls, a lease held on demand.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from riverboat.services.table.dealer_client import Commitment, DealerUnavailable
from riverboat.shuffle import derive_deck


class ManualTimer:
    """A timer of :class:`ManualClock`."""

    def __init__(self, due: float) -> None:
        self.due = due
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def when(self) -> float:
        return self.due


class ManualClock:
    """Time moves only when the test says: :meth:`advance` runs what falls due, in order."""

    def __init__(self) -> None:
        self.now = 0.0
        self._queue: list[tuple[float, int, ManualTimer, Callable[..., Any], tuple[Any, ...]]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[..., Any], *args: Any) -> ManualTimer:
        timer = ManualTimer(self.now + max(0.0, delay))
        heapq.heappush(self._queue, (timer.due, next(self._order), timer, callback, args))
        return timer

    def pending(self) -> bool:
        """Some timer is still to fire (something is scheduled to happen)."""
        return self.next_due() is not None

    def next_due(self) -> float | None:
        """When the next timer not cancelled fires (None: none is set)."""
        due = [timer.due for _, _, timer, _, _ in self._queue if not timer.cancelled]
        return min(due) if due else None

    async def sleep(self, delay: float) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not done.done():
                done.set_result(None)

        self.call_later(delay, wake)
        await done

    async def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, running every timer due on the way (and letting the
        tasks they start run) before moving further."""
        end = self.now + seconds
        await settle()
        while self._queue and self._queue[0][0] <= end:
            due, _, timer, callback, args = heapq.heappop(self._queue)
            self.now = max(self.now, due)
            if not timer.cancelled:
                callback(*args)
            await settle()
        self.now = end
        await settle()


async def settle(rounds: int = 60) -> None:
    """Let every ready task run (the fakes answer without real waiting)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


class CountingDealer:
    """The dealer port: a fixed seed per hand (so decks are real shuffles), every call counted;
    ``down`` makes every call fail as an unreachable dealer does, ``reveal_failures`` the next
    reveals only."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.commits: list[str] = []
        self.down = False
        #: Reveals to refuse before answering again (the dealer away for reveals only).
        self.reveal_failures = 0
        #: Hands whose reveal the dealer answered, in order.
        self.revealed: list[str] = []

    def _call(self, name: str) -> None:
        self.calls[name] += 1
        if self.down:
            raise DealerUnavailable(f"dealer {name}: down (test)")

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        self._call("commit_hand")
        self.commits.append(hand_id)
        return Commitment("RBS1", b"c" * 32, 52)

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        self._call("get_deck")
        return derive_deck(hand_id, b"s" * 32)

    async def get_dealt(
        self,
        table_id: str,
        hand_id: str,
        log_sequence: int,
        seeds: Sequence[tuple[int, str, bytes, int]],
    ) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        self._call("get_dealt")
        return derive_deck(hand_id, b"s" * 32), ()

    async def reshuffle(
        self,
        table_id: str,
        hand_id: str,
        round_: int,
        cards: tuple[int, ...],
        seeds: Sequence[tuple[int, str, bytes, int]] = (),
        log_sequence: int = 0,
    ) -> tuple[int, ...]:
        self._call("reshuffle")
        return tuple(sorted(cards))

    async def reveal_seed(self, table_id: str, hand_id: str, log_sequence: int = 0) -> None:
        self._call("reveal_seed")
        if self.reveal_failures > 0:
            self.reveal_failures -= 1
            raise DealerUnavailable("dealer RevealSeed: down (test)")
        self.revealed.append(hand_id)


class SwitchLease:
    """The table's lease, held or not as the test sets it."""

    def __init__(self, held: bool = True) -> None:
        self.held = held
