"""What the audit found: violations located to the exact event, per-hand and per-table results.

Every check names itself with a :class:`Check` value, so a report (and a test) can say which
rule a problem broke. A :class:`EventRef` pins a problem to one stored event: the table, the
log version (one per stored message), the event's index in its batch, its type and the stream
sequence of the message holding it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from riverboat.handtext import dollars


class Check(enum.StrEnum):
    """The checks the audit runs; a violation names the one it failed."""

    ARCHIVE = "archive_integrity"
    """The archive file is truncated, damaged or has a stream-sequence gap."""
    DECODE = "decode"
    """A stored message does not decode to known events."""
    HASH_CHAIN = "hash_chain"
    """An event's ``previous_hash`` is not the hash of the event stored before it."""
    EVENT_ALTERED = "event_altered"
    """An event no longer hashes to what its successor recorded: its content was changed."""
    EVENT_REMOVED = "event_removed"
    """Events are missing from a table's log (a version or index gap, or a dangling link)."""
    EVENTS_REORDERED = "events_reordered"
    """Events are stored out of the order their hash chain records."""
    VERSIONS = "versions"
    """Log versions or event indices are not contiguous, or headers disagree with envelopes."""
    COMMITMENT_ORDER = "commitment_order"
    """A hand was dealt without its deck commitment logged before the first card."""
    SEED_MISSING = "seed_missing"
    """A finished hand's seed was never revealed to the audit stream."""
    SEED_MISMATCH = "seed_mismatch"
    """A revealed seed does not hash to the hand's logged commitment."""
    SEED_RECORD = "seed_record"
    """A seed record is malformed, early, duplicated, or names no logged hand."""
    CLIENT_SEEDS = "client_seeds"
    """A CRV1 lock holds a seed the rules do not give: a drawn seed that is not its
    derivation from C and R, or a client's seed that is not the one its commitment names."""
    CARD_MISMATCH = "card_mismatch"
    """A dealt card is not the committed deck's card at that position."""
    ILLEGAL_ACTION = "illegal_action"
    """The engine refuses a recorded command (out of turn, wrong amount, no such action)."""
    REPLAY_MISMATCH = "replay_mismatch"
    """Replaying a recorded command gives different events than the log holds."""
    TABLE_RULES = "table_rules"
    """A table-level record (seating, leaving, commitment, voiding) breaks the table's rules."""
    CHIPS = "chips"
    """Chips are not conserved: stacks, contributions, pots and rake do not add up."""
    POTS = "pots"
    """Pots, side pots or split shares do not follow from the contributions."""
    RAKE = "rake"
    """The rake is not what the table's published rule gives."""
    LEDGER = "ledger"
    """The settlement ledger differs from the one rebuilt from the events."""
    PUBLISHED_HEAD = "published_head"
    """A published chain head is not in the log as published, or is not properly signed."""


@dataclass(frozen=True, slots=True)
class EventRef:
    """One stored event (or message, when ``index`` is None)."""

    table_id: str
    version: int
    stream_sequence: int
    index: int | None = None
    event: str = ""

    def __str__(self) -> str:
        where = f"table {self.table_id} v{self.version}"
        if self.index is not None:
            where += f" #{self.index}"
        if self.event:
            where += f" ({self.event}"
            where += f", stream seq {self.stream_sequence})"
        else:
            where += f" (stream seq {self.stream_sequence})"
        return where

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "table_id": self.table_id,
            "version": self.version,
            "index": self.index,
            "event": self.event,
            "stream_sequence": self.stream_sequence,
        }


@dataclass(frozen=True, slots=True)
class Violation:
    """One failed check."""

    check: Check
    message: str
    table_id: str | None = None
    hand_id: str | None = None
    at: EventRef | None = None
    #: The hand's number at its table (0: unknown, or a hand never dealt).
    hand_number: int = 0

    def __str__(self) -> str:
        parts = [f"[{self.check}]"]
        if self.hand_id and self.hand_number:
            parts.append(f"hand #{self.hand_number} ({self.hand_id})")
        elif self.hand_id:
            parts.append(f"hand {self.hand_id}")
        if self.at is not None:
            parts.append(f"at {self.at}:")
        elif self.table_id:
            parts.append(f"table {self.table_id}:")
        parts.append(self.message)
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "check": str(self.check),
            "message": self.message,
            "table_id": self.table_id,
            "hand_id": self.hand_id,
            "hand_number": self.hand_number or None,
            "at": None if self.at is None else self.at.to_json(),
        }


class HandStatus(enum.StrEnum):
    """How a hand came out of the audit."""

    VERIFIED = "verified"
    """Every check passed."""
    FAILED = "failed"
    """At least one violation names this hand."""
    VOIDED = "voided"
    """Voided and refunded; refunds checked (the deck only if its seed was revealed)."""
    IN_PROGRESS = "in_progress"
    """Not finished when the streams were read: checked as far as it went."""


@dataclass(slots=True)
class HandResult:
    """One hand's outcome."""

    table_id: str
    hand_id: str
    status: HandStatus = HandStatus.IN_PROGRESS
    variant: str = ""
    players: int = 0
    events: int = 0
    pot: int = 0
    rake: int = 0
    first_version: int = 0
    last_version: int = 0
    #: The hand's number at its table (1, 2, 3... as dealt; 0: never dealt).
    number: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "table_id": self.table_id,
            "hand_id": self.hand_id,
            "number": self.number or None,
            "status": str(self.status),
            "variant": self.variant,
            "players": self.players,
            "events": self.events,
            "pot": self.pot,
            "rake": self.rake,
            "versions": [self.first_version, self.last_version],
        }


@dataclass(slots=True)
class TableResult:
    """One table's outcome."""

    table_id: str
    messages: int = 0
    events: int = 0
    chain_head: str = ""
    hands: list[HandResult] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)

    def count(self, status: HandStatus) -> int:
        """Hands with ``status``."""
        return sum(1 for h in self.hands if h.status == status)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (without the hands, which the report lists on their own)."""
        return {
            "table_id": self.table_id,
            "messages": self.messages,
            "events": self.events,
            "hands": len(self.hands),
            **{str(s): self.count(s) for s in HandStatus},
            "rake": sum(h.rake for h in self.hands),
            "chain_head": self.chain_head,
            "violations": len(self.violations),
        }


@dataclass(slots=True)
class AuditReport:
    """Everything the audit found; ``ok`` only when nothing failed."""

    source: str
    tables: list[TableResult] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    seconds: float = 0.0
    ledger_checked: bool = False
    #: Published chain-head lines checked (-1: no --heads given).
    heads_checked: int = -1

    @property
    def all_violations(self) -> list[Violation]:
        """Archive-wide violations, then each table's."""
        out = list(self.violations)
        for table in self.tables:
            out.extend(table.violations)
        return out

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.all_violations

    @property
    def hands(self) -> list[HandResult]:
        """Every hand of every table."""
        return [h for t in self.tables for h in t.hands]

    def count(self, status: HandStatus) -> int:
        """Hands with ``status`` over all tables."""
        return sum(t.count(status) for t in self.tables)

    @property
    def hands_per_second(self) -> float:
        """Hands audited per second of verification."""
        return len(self.hands) / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` report (``docs/audit.md`` describes it)."""
        violations = self.all_violations
        by_check: dict[str, int] = {}
        for v in violations:
            by_check[str(v.check)] = by_check.get(str(v.check), 0) + 1
        return {
            "format": "riverboat.audit-report/1",
            "source": self.source,
            "ok": self.ok,
            "summary": {
                "tables": len(self.tables),
                "hands": len(self.hands),
                **{str(s): self.count(s) for s in HandStatus},
                "messages": sum(t.messages for t in self.tables),
                "events": sum(t.events for t in self.tables),
                "rake": sum(h.rake for h in self.hands),
                "violations": len(violations),
                "violations_by_check": by_check,
                "ledger_checked": self.ledger_checked,
                "seconds": round(self.seconds, 3),
                "hands_per_second": round(self.hands_per_second, 1),
            },
            "tables": [t.to_json() for t in self.tables],
            "hands": [h.to_json() for h in self.hands],
            "violations": [v.to_json() for v in violations],
            **({"heads_checked": self.heads_checked} if self.heads_checked >= 0 else {}),
        }

    def summary_lines(self, *, limit: int = 50) -> list[str]:
        """The human summary: totals (money in dollars, as people read it; the JSON report
        keeps integer cents), then up to ``limit`` violations."""
        violations = self.all_violations
        lines = [
            f"Riverboat audit of {self.source}",
            f"  tables      {len(self.tables):,}",
            f"  hands       {len(self.hands):,}: "
            + ", ".join(f"{self.count(s):,} {s.value.replace('_', ' ')}" for s in HandStatus),
            f"  events      {sum(t.events for t in self.tables):,} "
            f"in {sum(t.messages for t in self.tables):,} messages",
            f"  rake        {dollars(sum(h.rake for h in self.hands))}",
            f"  ledger      {'compared' if self.ledger_checked else 'not compared'}",
            f"  speed       {self.hands_per_second:,.0f} hands/s ({self.seconds:.2f} s)",
        ]
        if self.heads_checked >= 0:
            lines.insert(-1, f"  heads       {self.heads_checked:,} signed publications checked")
        for table in self.tables:
            lines.append(
                f"  table {table.table_id}: {len(table.hands):,} hands, "
                f"{table.count(HandStatus.VERIFIED):,} verified, "
                f"rake {dollars(sum(h.rake for h in table.hands))}, "
                f"{len(table.violations)} violations, chain head {table.chain_head[:16]}"
            )
        if violations:
            lines.append(f"VIOLATIONS ({len(violations)}):")
            lines.extend(f"  {v}" for v in violations[:limit])
            if len(violations) > limit:
                lines.append(f"  ... and {len(violations) - limit} more (see --json)")
        lines.append("RESULT: " + ("OK, everything verifies" if self.ok else "FAILED"))
        return lines
