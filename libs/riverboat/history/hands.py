"""Hands as the exports need them, read from an audit archive (or given as engine events)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from riverboat.audit.archive import Archive
from riverboat.audit.tableaudit import scan_hands
from riverboat.audit.tablelog import decode_log
from riverboat.audit.verify import split_tables
from riverboat.engine.events import Event, HandEnded, HandStarted
from riverboat.table.events import HandVoided, TableCreated

__all__ = ["HandLog", "hand_from_events", "hands_from_archive"]


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


def hand_from_events(
    events: Sequence[Event], *, table_id: str = "", table_name: str = ""
) -> HandLog:
    """A hand from its engine events (``HandStarted`` first), e.g. from the engine itself."""
    started = events[0]
    if not isinstance(started, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    return HandLog(table_id, started.hand_id, tuple(events), table_name)


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
        name = next(
            (e.event.name for m in log for e in m.events if isinstance(e.event, TableCreated)),
            table_id,
        )
        times = {m.version: m.message.time for m in log}
        number = 0
        for record in scan_hands(log):
            if record.started is None:
                continue  # committed, never dealt
            number += 1  # every hand dealt counts, as the table's fold counts HandStarted
            events: list[Event] = [record.started]
            events.extend(
                e.event  # type: ignore[misc]
                for e in record.events
                if e.event is not None and not isinstance(e.event, HandVoided)
            )
            commit = record.commit
            out.append(
                HandLog(
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
                )
            )
    return out
