"""The action clock as ``riverboat play`` counts it down (no I/O: the time is passed in).

A ``TableView`` says how long a turn may take (``action_seconds``, a running time bank's
``time_bank_running``), not when the turn began. The table service starts the action clock
afresh with every new version of the table while someone owes a move, and a time bank once, when
it starts; :class:`TurnClock` does the same from the views as they reach this client, so its
deadline is the table's plus the time the update took to arrive (a view first seen in the
middle of a turn gets the whole turn: the client cannot know better).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from riverboat.v1 import table_pb2


class TurnClock:
    """The seconds left to each seat the table waits for, from the views seen and ``now``
    (a monotonic clock; a test passes its own)."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self._version: tuple[str, int] | None = None  # (table, version) the action clock began at
        self._action_deadline = 0.0
        self._action_seats: frozenset[int] = frozenset()
        #: A running time bank's deadline, by (table, hand, seat, seconds given, protection).
        self._banks: dict[tuple[str, str, int, int, bool], float] = {}
        self._bank_of: dict[int, tuple[str, str, int, int, bool]] = {}

    def see(self, view: table_pb2.TableView) -> None:
        """Take in the newest view of the table."""
        now = self.now()
        waited = frozenset(view.waiting_for) or (
            frozenset((view.to_act,)) if view.to_act else frozenset()
        )
        version = (view.table_id, view.version)
        if self._version is None or version[0] != self._version[0] or version[1] > self._version[1]:
            self._version = version
            self._action_deadline = now + view.action_seconds
        self._action_seats = waited
        banks: dict[int, tuple[str, str, int, int, bool]] = {}
        for seat in view.seats:
            if seat.seat in waited and seat.time_bank_running:
                key = (
                    view.table_id,
                    view.hand_id,
                    seat.seat,
                    seat.time_bank_running,
                    seat.time_bank_protection,
                )
                self._banks.setdefault(key, now + seat.time_bank_running)
                banks[seat.seat] = key
        self._bank_of = banks
        # Only the banks running now are worth keeping.
        self._banks = {k: v for k, v in self._banks.items() if k in banks.values()}

    def left(self, seat: int) -> int | None:
        """Whole seconds left for ``seat`` to move (counted up, never below 0); None when the
        table does not wait for it."""
        if seat not in self._action_seats:
            return None
        key = self._bank_of.get(seat)
        deadline = self._banks[key] if key is not None else self._action_deadline
        return max(0, math.ceil(deadline - self.now()))

    def running(self) -> bool:
        """Whether the table waits for anyone (a clock is counting down)."""
        return bool(self._action_seats)
