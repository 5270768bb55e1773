"""Checks against a table's log: is the hand's commitment logged, has the hand ended?

The log is the table service's: one JetStream message per accepted command on
``rb.tables.<table_id>``, each an ``riverboat.v1.EventBatch``. The dealer only reads it.

Which hand a ``HandEnded`` ends: the proto's ``HandEnded`` carries no hand id, so it ends the
hand named by the latest ``HandStarted`` before it (or, if no hand was started in the part of the
log read, the latest ``HandCommitted``). ``HandVoided`` names its hand.
"""

from __future__ import annotations

import enum
import hmac
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass

import nats.js.errors
from google.protobuf.message import DecodeError

from riverboat.eventstore import EventStoreError, JetStreamEventStore, StoredRecord
from riverboat.services.common.errors import DataLoss, FailedPrecondition, Unavailable
from riverboat.v1 import events_pb2

__all__ = [
    "HandProgress",
    "HandScan",
    "check_commitment_message",
    "find_hand_progress",
    "logged_seeds",
]

_STREAM_NOT_FOUND = 10059  # JetStream's err_code, chained under the event store's error
_FIRST_WINDOW = 64  # records read back from the end of the log before widening the search


def _decode_batch(data: bytes, where: str) -> events_pb2.EventBatch:
    try:
        return events_pb2.EventBatch.FromString(data)
    except DecodeError:
        raise DataLoss(f"{where} is not an EventBatch", reason="TABLE_LOG_CORRUPT") from None


def _mismatch(table_id: str, hand_id: str, where: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"{where} commits hand {hand_id!r} to a different deck than the dealer did (commitment "
        f"or scheme differs); table {table_id!r} must log the commitment CommitHand returned",
        reason="COMMITMENT_MISMATCH",
    )


def check_commitment_message(
    *,
    subject: str,
    payload: bytes,
    expected_subject: str,
    stream: str,
    sequence: int,
    table_id: str,
    hand_id: str,
    scheme: str,
    commitment: bytes,
) -> None:
    """Check that a table-log message logs this hand's commitment.

    Raises:
        FailedPrecondition: the message is on another subject (reason ``NOT_THIS_TABLE``),
            holds no ``HandCommitted`` for the hand (``COMMITMENT_NOT_LOGGED``), or one with
            another commitment (``COMMITMENT_MISMATCH``).
        DataLoss: the message on the table's subject is not an ``EventBatch``.
    """
    where = f"message {sequence} of stream {stream!r}"
    if subject != expected_subject:
        raise FailedPrecondition(
            f"{where} is not in the log of table {table_id!r} (it is on another subject); "
            "log_sequence must point at the table's record holding HandCommitted",
            reason="NOT_THIS_TABLE",
        )
    batch = _decode_batch(payload, where)
    found = [
        envelope.hand_committed
        for envelope in batch.events
        if envelope.WhichOneof("payload") == "hand_committed"
        and envelope.hand_committed.hand_id == hand_id
    ]
    if not found:
        raise FailedPrecondition(
            f"{where} (table {table_id!r}) holds no HandCommitted for hand {hand_id!r}; log the "
            "commitment first and pass that record's stream sequence",
            reason="COMMITMENT_NOT_LOGGED",
        )
    for event in found:
        if event.scheme != scheme or not hmac.compare_digest(event.commitment, commitment):
            raise _mismatch(table_id, hand_id, where)


class HandProgress(enum.Enum):
    """Where a hand stands in its table's log."""

    NOT_COMMITTED = "not_committed"
    """No ``HandCommitted`` for the hand."""
    IN_PROGRESS = "in_progress"
    """Committed, but neither ended nor voided yet."""
    ENDED = "ended"
    """A ``HandEnded`` for the hand follows its commitment."""
    VOIDED = "voided"
    """A ``HandVoided`` for the hand follows its commitment."""


@dataclass(slots=True)
class HandScan:
    """Reads a table's records in order and tracks one hand (see the module docstring)."""

    table_id: str
    hand_id: str
    scheme: str
    commitment: bytes
    committed_version: int | None = None
    finished: HandProgress | None = None
    finished_version: int | None = None
    _started: str | None = None
    _last_committed: str | None = None

    @property
    def progress(self) -> HandProgress:
        """The state after the records fed so far."""
        if self.finished is not None:
            return self.finished
        if self.committed_version is not None:
            return HandProgress.IN_PROGRESS
        return HandProgress.NOT_COMMITTED

    def feed(self, record: StoredRecord) -> bool:
        """Take the next record; ``True`` once the hand's end is found (stop reading)."""
        where = f"record {record.version} of the log of table {self.table_id!r}"
        for envelope in _decode_batch(record.payload, where).events:
            kind = envelope.WhichOneof("payload")
            if kind == "hand_committed":
                event = envelope.hand_committed
                self._last_committed = event.hand_id
                if event.hand_id == self.hand_id:
                    if event.scheme != self.scheme or not hmac.compare_digest(
                        event.commitment, self.commitment
                    ):
                        raise _mismatch(self.table_id, self.hand_id, where)
                    if self.committed_version is None:
                        self.committed_version = record.version
            elif kind == "hand_started":
                self._started = envelope.hand_started.hand_id
            elif kind == "hand_ended" and self.committed_version is not None:
                ending = self._started if self._started is not None else self._last_committed
                if ending == self.hand_id:
                    return self._finish(HandProgress.ENDED, record)
            elif (
                kind == "hand_voided"
                and self.committed_version is not None
                and envelope.hand_voided.hand_id == self.hand_id
            ):
                return self._finish(HandProgress.VOIDED, record)
        return False

    def _finish(self, progress: HandProgress, record: StoredRecord) -> bool:
        self.finished = progress
        self.finished_version = record.version
        return True


async def find_hand_progress(
    log: JetStreamEventStore,
    *,
    table_id: str,
    hand_id: str,
    scheme: str,
    commitment: bytes,
    log_sequence: int = 0,
) -> HandScan:
    """Scan the table's log for the hand.

    With ``log_sequence`` (the stream sequence of the record holding the hand's
    ``HandCommitted``, as the table gives it) the scan reads from there: one read of the hand's
    own records. A hint that does not lead to the commitment is only a hint: the search below
    runs as if none was given, so a wrong one costs time, never a wrong answer.

    Without it, newest records first in widening windows: a reveal usually follows the hand's
    end closely, so the search reads the last 64 records, then the last 256, 1024, ... until the
    window holds the hand's ``HandCommitted`` (everything after it is then in the window too) or
    covers the whole log. The cost is proportional to how far back the hand is, not to the
    table's whole history.

    Raises:
        FailedPrecondition: the log commits the hand to another commitment.
        DataLoss: a record is not an ``EventBatch``.
        Unavailable: the log cannot be read.
    """
    try:
        if log_sequence > 0:
            scan = await _scan(
                HandScan(table_id, hand_id, scheme, commitment),
                log.iter_records_at(table_id, log_sequence),
            )
            if scan.committed_version is not None:
                return scan
        last = await log.last_version(table_id)
        window = _FIRST_WINDOW
        while True:
            start = max(1, last - window + 1)
            scan = HandScan(table_id, hand_id, scheme, commitment)
            if last:
                scan = await _scan(scan, log.iter_records(table_id, start))
            if scan.committed_version is not None or start == 1:
                return scan
            window *= 4
    except EventStoreError as exc:
        cause = exc.__cause__
        if isinstance(cause, nats.js.errors.NotFoundError) and cause.err_code == _STREAM_NOT_FOUND:
            raise FailedPrecondition(
                f"the table-log stream {log.stream!r} does not exist", reason="TABLE_LOG_MISSING"
            ) from None
        raise Unavailable(
            f"cannot read the log of table {table_id!r}: {exc}", reason="TABLE_LOG_UNAVAILABLE"
        ) from None


async def _scan(scan: HandScan, records: AsyncGenerator[StoredRecord, None]) -> HandScan:
    """Feed ``records`` to ``scan`` up to the hand's end. aclosing: stopping there must
    release the read at once."""
    async with aclosing(records) as reading:
        async for record in reading:
            if scan.feed(record):
                break
    return scan


LockedEntry = tuple[int, str, bytes, int]


async def logged_seeds(
    log: JetStreamEventStore, *, table_id: str, hand_id: str, log_sequence: int
) -> tuple[LockedEntry, ...]:
    """CRV1: the seeds the table's log locked for the hand (its ``SeedsLocked``), read from
    the record holding the hand's commitment (``log_sequence``) on.

    The dealer serves a deck (and a reshuffle) only in the order of the seeds the log locked:
    a table process that asked for another order, to see which it liked, is refused.

    Raises:
        FailedPrecondition: the log holds no lock for the hand before its deal, or none yet
            (``SEEDS_NOT_LOCKED``).
        DataLoss: a record is not an ``EventBatch``.
        Unavailable: the log cannot be read.
    """
    try:
        async with aclosing(log.iter_records_at(table_id, log_sequence)) as reading:
            async for record in reading:
                where = f"record {record.version} of the log of table {table_id!r}"
                for envelope in _decode_batch(record.payload, where).events:
                    kind = envelope.WhichOneof("payload")
                    if kind == "seeds_locked" and envelope.seeds_locked.hand_id == hand_id:
                        return tuple(
                            (s.seat, s.player, bytes(s.seed), s.origin)
                            for s in envelope.seeds_locked.seeds
                        )
                    other = kind == "hand_committed" and envelope.hand_committed.hand_id != hand_id
                    if other or kind in ("hand_started", "hand_voided"):
                        break
                else:
                    continue
                break
    except EventStoreError as exc:
        raise Unavailable(
            f"cannot read the log of table {table_id!r}: {exc}", reason="TABLE_LOG_UNAVAILABLE"
        ) from None
    raise FailedPrecondition(
        f"the log of table {table_id!r} locks no client seeds for hand {hand_id!r} before its "
        "deal: log SeedsLocked first",
        reason="SEEDS_NOT_LOCKED",
    )
