"""The settlement ledger against the events: rebuild it from the archive, compare row by row.

The ledger (``riverboat.ledger``) is a projection of the wallet and table logs. The audit
rebuilds it from the archived logs into a scratch SQLite database with the ledger's own
projection code, up to exactly the record versions the live ledger says it has applied (so a
ledger a little behind the streams still compares), and then compares the two canonical dumps
line by line: any row the live ledger holds that the events do not give, or lacks, is named.
The live ledger's own invariant check (``check_ledger``) runs too.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path

from sqlalchemy import select

from riverboat.audit.archive import Archive, StreamRole
from riverboat.audit.report import Check, Violation

__all__ = ["compare_ledger"]

# Which dump columns identify a row, per row kind (the rest is its content).
_KEY_COLUMNS = {
    "account": 1,
    "posting": 1,
    "hand": 2,
    "table": 1,
    "seat": 2,
    "wallet": 1,
    "position": 2,
    "processed": 1,
}
_SHOWN = 20


def _records(archive: Archive, role: StreamRole) -> dict[str, list[tuple[int, bytes]]]:
    """Each aggregate's records (version, payload) of the stream playing ``role``."""
    entry = archive.manifest.stream(role)
    out: dict[str, list[tuple[int, bytes]]] = defaultdict(list)
    if entry is None:
        return out
    prefix = entry.subject_prefix + "."
    for m in sorted(archive.of_stream(role), key=lambda m: m.sequence):
        aggregate = m.subject[len(prefix) :] if m.subject.startswith(prefix) else ""
        version = m.headers.get("Rb-Version", "")
        if aggregate and "." not in aggregate and version.isdigit():
            out[aggregate].append((int(version), m.data))
    return out


def _keyed(dump: str) -> dict[tuple[str, ...], str]:
    rows: dict[tuple[str, ...], str] = {}
    for line in dump.splitlines()[1:]:
        fields = line.split("\t")
        width = 1 + _KEY_COLUMNS.get(fields[0], len(fields) - 1)
        rows[tuple(fields[:width])] = "\t".join(fields[width:])
    return rows


def _differences(live: str, rebuilt: str) -> list[Violation]:
    a, b = _keyed(live), _keyed(rebuilt)
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            continue
        what = " ".join(key)
        if key not in b:
            message = f"{what}: in the live ledger ({a[key]!r}) but not given by the events"
        elif key not in a:
            message = f"{what}: the events give {b[key]!r}, the live ledger has no such row"
        else:
            message = f"{what}: the live ledger has {a[key]!r}, the events give {b[key]!r}"
        out.append(Violation(Check.LEDGER, message))
    if len(out) > _SHOWN:
        rest = len(out) - _SHOWN
        out = [*out[:_SHOWN], Violation(Check.LEDGER, f"... and {rest} more differing rows")]
    return out


def _as_skipping(live: str, tables: dict[str, list[tuple[int, bytes]]]) -> str:
    """A live ledger written before the ledger skipped the table records that move no money
    (``riverboat.ledger.moneyfilter``) has a processed-event row for each of them, and its
    position may stand on one: read it as the ledger that skips them would be (its books, the
    accounts, postings and hands, are the same either way)."""
    from riverboat.ledger.moneyfilter import moves_money

    moneyless = {
        (aggregate, version)
        for aggregate, records in tables.items()
        for version, payload in records
        if not moves_money(payload)
    }
    out = []
    for line in live.splitlines():
        fields = line.split("\t")
        if fields[0] == "processed" and fields[1].startswith("tables:"):
            aggregate, _, number = fields[1][len("tables:") :].rpartition(":")
            if number.isdigit() and (aggregate, int(number)) in moneyless:
                continue
        elif fields[0] == "position" and fields[1] == "tables" and fields[3].isdigit():
            version = int(fields[3])
            while version > 0 and (fields[2], version) in moneyless:
                version -= 1
            line = "\t".join([*fields[:3], str(version)])
        out.append(line)
    return "\n".join(out) + ("\n" if live.endswith("\n") else "")


def compare_ledger(archive: Archive, database_url: str) -> list[Violation]:
    """Violations found comparing the ledger at ``database_url`` with the archive's events."""
    # Imported here: the audit needs SQLAlchemy and the ledger only for this check.
    from riverboat.ledger import Ledger, canonical_dump, check_ledger, create_ledger_engine
    from riverboat.ledger.db import redact
    from riverboat.ledger.migrate import current_revision, upgrade
    from riverboat.ledger.models import Position
    from riverboat.ledger.projection import TABLES, WALLETS

    live = create_ledger_engine(database_url)
    try:
        if current_revision(live) is None:
            return [Violation(Check.LEDGER, f"no ledger at {redact(database_url)}")]
        with live.connect() as conn:
            live_dump = canonical_dump(conn)
            applied = {
                (s, a): v
                for s, a, v in conn.execute(
                    select(Position.source, Position.aggregate_id, Position.version)
                )
            }
            problems = [
                Violation(
                    Check.LEDGER,
                    f"live ledger invariant {v.check}: {v.message}",
                    v.table_id,
                    v.hand_id,
                )
                for v in check_ledger(conn).violations
            ]
    finally:
        live.dispose()

    logs = {WALLETS: _records(archive, "wallets"), TABLES: _records(archive, "tables")}
    for (source, aggregate), version in sorted(applied.items()):
        have = max((v for v, _ in logs.get(source, {}).get(aggregate, [])), default=0)
        if have < version:
            problems.append(
                Violation(
                    Check.LEDGER,
                    f"the live ledger applied {source} {aggregate} up to v{version}, the "
                    f"archive holds up to v{have}: export again, after the ledger",
                )
            )
    with tempfile.TemporaryDirectory(prefix="riverboat-audit-") as scratch:
        engine = create_ledger_engine(f"sqlite:///{Path(scratch) / 'rebuilt.db'}")
        try:
            upgrade(engine)
            with Ledger(engine).writer() as writer:
                # Wallets first, then tables: the order the settlement rebuild uses.
                for source in (WALLETS, TABLES):
                    apply = (
                        writer.apply_table_record
                        if source == TABLES
                        else writer.apply_wallet_record
                    )
                    for aggregate, records in sorted(logs[source].items()):
                        limit = applied.get((source, aggregate), 0)
                        for version, payload in records:
                            if version > limit:
                                break
                            result = apply(aggregate, version, payload)
                            if result.outcome.value not in ("applied", "skipped"):
                                problems.append(
                                    Violation(
                                        Check.LEDGER,
                                        f"{source} {aggregate} v{version} does not apply to the "
                                        f"rebuilt ledger ({result.outcome.value})",
                                    )
                                )
                                break
            with engine.connect() as conn:
                rebuilt_dump = canonical_dump(conn)
        finally:
            engine.dispose()
    problems.extend(_differences(_as_skipping(live_dump, logs[TABLES]), rebuilt_dump))
    return problems
