"""Which table records the ledger applies: those that move money or change what it remembers.

Most of a table's records are a hand's cards, checks, folds, seeds and phases: they move no
chips, and :func:`~riverboat.ledger.projection.project_table_event` gives them no effect and
leaves its :class:`~riverboat.ledger.projection.TableContext` as it was. The ledger does not
apply them at all (no transaction, no processed-event row, no position move), and
:func:`moves_money` tells them apart by the envelopes' payload kinds alone, before anything is
decoded into events.

Skipping records leaves holes in an aggregate's run of applied versions, so the ledger's gap
check ("is every version before this one applied?") needs to know which missing versions were
skipped rather than lost: :class:`Unmoved` remembers, per table, the run of versions seen to
move nothing above the ledger's position. A version missing from both is a real gap, filled
from the log as before. Every reader of the table log (the live consumer, the rebuild, the
audit) applies the same records, so they build the same ledger.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError

from riverboat.eventcodec import CodecError
from riverboat.v1 import events_pb2

__all__ = ["MONEY_PAYLOADS", "Unmoved", "moves_money"]

#: The envelope payloads the ledger's table rules act on (``project_table_event``): every one
#: that moves chips or changes the seats, the hand in progress or the variant it remembers.
#: ``action_taken`` counts only with an amount (a check or a fold moves nothing).
MONEY_PAYLOADS = frozenset(
    {
        "table_created",
        "player_seated",
        "player_left",
        "hand_started",
        "ante_posted",
        "action_taken",
        "uncalled_bet_returned",
        "rake_taken",
        "pot_awarded",
        "hand_ended",
        "hand_voided",
        "card_payment_posted",
        "pot_matched",
        "pot_carried_over",
        "pot_carried_in",
    }
)


def moves_money(payload: bytes) -> bool:
    """Whether a table record (an ``EventBatch``) holds an event the ledger must apply.

    Raises:
        CodecError: the payload is not an ``EventBatch``.
    """
    try:
        batch = events_pb2.EventBatch.FromString(payload)
    except DecodeError as exc:
        raise CodecError(f"not an EventBatch: {exc}") from None
    for envelope in batch.events:
        kind = envelope.WhichOneof("payload")
        if kind in MONEY_PAYLOADS and (kind != "action_taken" or envelope.action_taken.amount):
            return True
    return False


class Unmoved:
    """Per table, the versions seen to move no money, as a few runs of consecutive versions.

    Not shared between processes and not persisted: a process that does not know (after a
    restart, or because another replica saw the records) reads the versions back from the log.
    What it holds never goes stale (a version's record never changes); runs below what the
    ledger applied are dropped, and the highest once a table has more than :attr:`RUNS` of them
    (records delivered out of order).
    """

    RUNS = 8

    def __init__(self) -> None:
        self._runs: dict[str, list[tuple[int, int]]] = {}

    def note(self, table_id: str, version: int) -> None:
        """``version`` of ``table_id`` moves no money."""
        runs = self._runs.setdefault(table_id, [])
        # The usual cases, records in order: the last run goes on, or a new one starts after it.
        if runs and runs[-1][0] <= version <= runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], max(runs[-1][1], version))
            return
        if not runs or version > runs[-1][1] + 1:
            runs.append((version, version))
            del runs[: -self.RUNS]  # the oldest, far below the next record in order
            return
        merged = sorted([*runs, (version, version)])
        out: list[tuple[int, int]] = []
        for low, high in merged:
            if out and low <= out[-1][1] + 1:
                out[-1] = (out[-1][0], max(out[-1][1], high))
            else:
                out.append((low, high))
        # Out of order: keep the lowest runs, which the next records in order extend.
        self._runs[table_id] = out[: self.RUNS]

    def applied(self, table_id: str, version: int) -> None:
        """The ledger applied ``version``: forget the runs below it."""
        runs = self._runs.get(table_id)
        if runs and runs[0][1] < version:
            self._runs[table_id] = [run for run in runs if run[1] >= version]

    def covers(self, table_id: str, first: int, last: int) -> bool:
        """Whether every version ``first..last`` is known to move no money (true if empty)."""
        if last < first:
            return True
        return any(low <= first and last <= high for low, high in self._runs.get(table_id, ()))

    def seen_through(self, table_id: str, applied: int) -> int:
        """The last version known handled: ``applied``, or the end of a run right after it."""
        for low, high in self._runs.get(table_id, ()):
            if low <= applied + 1 <= high + 1:
                return max(applied, high)
        return applied
