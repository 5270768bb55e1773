"""Hands as the exports and the table service's history RPCs need them: read from an audit
archive, from a table's stored records (the event store), or given as engine events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from riverboat.audit.archive import Archive, StoredMessage
from riverboat.audit.tableaudit import HandRecord, hand_numbers, scan_hands
from riverboat.audit.tablelog import HEADER_VERSION, LoggedEvent, LoggedMessage, decode_log
from riverboat.audit.verify import split_tables
from riverboat.engine.events import Event, HandEnded, HandStarted, PotAwarded, RakeTaken
from riverboat.eventcodec import EventMeta
from riverboat.eventstore.base import StoredRecord
from riverboat.table.events import HandVoided, TableCreated

__all__ = [
    "HandLog",
    "HandTotals",
    "hand_from_events",
    "hands_from_archive",
    "hands_from_log",
    "log_from_records",
    "table_name_of",
]


@dataclass(frozen=True, slots=True)
class HandLog:
    """One hand: its engine events in order (``HandStarted`` first) and where it was played.

    Attributes:
        table_id, table_name: the table.
        hand_id: the hand.
        events: the engine's events of the hand, omniscient (every card).
        scheme, commitment: the deck commitment logged before the deal (empty if unknown).
        started_at: when the deal was logged (None if unknown).
        first_version, last_version: the table-log versions the hand spans (0 if unknown).
        voided: the hand was voided (refunded) instead of played to the end.
        number: the hand's number at its table (1, 2, 3... in the order dealt, as the table's
            views number it; 0 if unknown).
        metas: where each of ``events`` is stored (its envelope's fields), when read from a
            log; empty otherwise.
    """

    table_id: str
    hand_id: str
    events: tuple[Event, ...]
    table_name: str = ""
    scheme: str = ""
    commitment: bytes = b""
    started_at: datetime | None = None
    first_version: int = 0
    last_version: int = 0
    voided: bool = False
    number: int = 0
    metas: tuple[EventMeta, ...] = ()

    @property
    def started(self) -> HandStarted:
        """The hand's ``HandStarted``."""
        first = self.events[0]
        assert isinstance(first, HandStarted)
        return first

    @property
    def finished(self) -> bool:
        """Whether the hand ended (``HandEnded``)."""
        return any(isinstance(e, HandEnded) for e in self.events)

    def seat_of(self, player: str) -> int | None:
        """The seat ``player`` was dealt in at, or None."""
        return next((s.seat for s in self.started.seats if s.player == player), None)

    def totals(self) -> HandTotals:
        """What the hand came to: chips paid out, rake, each seat's final stack."""
        paid = sum(e.amount for e in self.events if isinstance(e, PotAwarded))
        rake = sum(e.amount for e in self.events if isinstance(e, RakeTaken))
        final = {s.seat: s.stack for s in self.started.seats}  # a voided hand refunds
        for e in self.events:
            if isinstance(e, HandEnded):
                final.update(e.stacks)
        return HandTotals(paid, rake, final)


@dataclass(frozen=True, slots=True)
class HandTotals:
    """A hand's money at the end (public once the hand is over)."""

    paid_out: int
    rake: int
    final_stacks: dict[int, int]


def hand_from_events(
    events: Sequence[Event], *, table_id: str = "", table_name: str = "", number: int = 0
) -> HandLog:
    """A hand from its engine events (``HandStarted`` first), e.g. from the engine itself;
    ``number``: its number at its table (0: unknown)."""
    started = events[0]
    if not isinstance(started, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    return HandLog(table_id, started.hand_id, tuple(events), table_name, number=number)


def _when(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


def hands_from_archive(archive: Archive, *, tables: Sequence[str] = ()) -> list[HandLog]:
    """Every dealt hand in the archive's table logs (of ``tables`` only, if given), in order."""
    out: list[HandLog] = []
    for table_id, messages in sorted(split_tables(archive).items()):
        if tables and table_id not in tables:
            continue
        log, _ = decode_log(table_id, messages)
        out.extend(hands_from_log(table_id, log, table_name_of(log) or table_id))
    return out


def table_name_of(log: Iterable[LoggedMessage]) -> str:
    """The table's name, from its ``TableCreated`` ("" if the log does not hold it)."""
    return next(
        (e.event.name for m in log for e in m.events if isinstance(e.event, TableCreated)), ""
    )


def log_from_records(table_id: str, records: Iterable[StoredRecord]) -> list[LoggedMessage]:
    """A table's stored records (:class:`riverboat.eventstore.EventStore`), decoded as the
    audit decodes its archives."""
    messages = [
        StoredMessage(
            stream="",
            sequence=r.stream_sequence,
            subject="",
            time=r.recorded_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            headers={HEADER_VERSION: str(r.version)},
            data=r.payload,
        )
        for r in records
    ]
    log, _ = decode_log(table_id, messages)
    return log


def hands_from_log(table_id: str, log: list[LoggedMessage], table_name: str = "") -> list[HandLog]:
    """Every dealt hand of one table's decoded log, in order (the last may be unfinished),
    numbered from 1 (right when ``log`` starts at the table's beginning)."""
    times = {m.version: m.message.time for m in log}
    records = scan_hands(log)
    numbers = hand_numbers(records)  # every hand dealt counts, as the table's fold counts
    return [
        _hand(table_id, table_name or table_id, record, times, numbers[record.hand_id])
        for record in records
        if record.started is not None  # else committed, never dealt
    ]


def _meta(table_id: str, logged: LoggedEvent) -> EventMeta:
    env = logged.envelope
    return EventMeta(
        table_id,
        env.aggregate_version or logged.version,
        env.index,
        env.request_id,
        env.actor,
        env.occurred_at.ToDatetime(tzinfo=UTC),
    )


def _hand(
    table_id: str, name: str, record: HandRecord, times: dict[int, str], number: int
) -> HandLog:
    assert record.started is not None
    events: list[Event] = [record.started]
    metas: list[EventMeta] = []
    if record.started_at is not None:
        metas.append(_meta(table_id, record.started_at))
    for e in record.events:
        if e.event is not None and not isinstance(e.event, HandVoided):
            events.append(e.event)  # type: ignore[arg-type]
            metas.append(_meta(table_id, e))
    commit = record.commit
    return HandLog(
        table_id=table_id,
        hand_id=record.hand_id,
        events=tuple(events),
        table_name=name,
        scheme=commit.scheme if commit else "",
        commitment=commit.commitment if commit else b"",
        started_at=_when(times.get(record.start_version, "")),
        first_version=record.first_version,
        last_version=record.last_version,
        voided=isinstance(record.end, HandVoided),
        number=number,
        metas=tuple(metas) if len(metas) == len(events) else (),
    )
