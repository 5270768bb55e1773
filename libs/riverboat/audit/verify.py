"""Audit a whole archive: archive-wide checks, then every table (in parallel when asked).

``verify_archive`` is what ``riverboat audit`` runs. Tables are independent (each has its own
log, chain and hands), so with ``jobs > 1`` they are audited in worker processes; the report is
the same either way.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed

from riverboat.audit.archive import Archive, StoredMessage
from riverboat.audit.report import AuditReport, Check, TableResult, Violation
from riverboat.audit.seeds import Reveal, parse_reveals
from riverboat.audit.tableaudit import audit_table

__all__ = ["Progress", "split_tables", "verify_archive"]

Progress = Callable[[int, int], None]
"""``progress(done, total)`` in stored messages, called as tables finish."""


def split_tables(archive: Archive) -> dict[str, list[StoredMessage]]:
    """Each table's log messages, in stream order, by table id."""
    entry = archive.manifest.stream("tables")
    tables: dict[str, list[StoredMessage]] = defaultdict(list)
    if entry is None:
        return {}
    prefix = entry.subject_prefix + "."
    for m in sorted(archive.of_stream("tables"), key=lambda m: m.sequence):
        if m.subject.startswith(prefix) and "." not in m.subject[len(prefix) :]:
            tables[m.subject[len(prefix) :]].append(m)
    return dict(tables)


def _archive_checks(archive: Archive) -> list[Violation]:
    problems = [Violation(Check.ARCHIVE, p) for p in archive.problems]
    for entry in archive.manifest.streams:
        stored = sorted(m.sequence for m in archive.messages if m.stream == entry.name)
        if len(stored) != entry.messages:
            have = set(stored)
            missing = [s for s in range(entry.first_seq, entry.last_seq + 1) if s not in have]
            shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
            problems.append(
                Violation(
                    Check.ARCHIVE,
                    f"stream {entry.name} held {entry.messages} messages, the archive has "
                    f"{len(stored)}" + (f"; missing sequence(s) {shown}" if missing else ""),
                )
            )
        if len(set(stored)) != len(stored):
            problems.append(Violation(Check.ARCHIVE, f"stream {entry.name}: duplicate sequences"))
    return problems


def verify_archive(
    archive: Archive,
    *,
    source: str = "",
    jobs: int = 1,
    progress: Progress | None = None,
) -> AuditReport:
    """Run every check on ``archive``; see ``docs/audit.md`` for the list."""
    started = time.perf_counter()
    report = AuditReport(source=source or archive.manifest.source)
    report.violations.extend(_archive_checks(archive))
    seeds = archive.manifest.stream("seeds")
    reveals, seed_problems = parse_reveals(
        archive.of_stream("seeds"), seeds.subject_prefix if seeds else ""
    )
    report.violations.extend(seed_problems)
    by_table: dict[str, dict[str, Reveal]] = defaultdict(dict)
    for (table_id, hand_id), reveal in reveals.items():
        by_table[table_id][hand_id] = reveal

    tables = split_tables(archive)
    total = sum(len(m) for m in tables.values())
    done = 0
    results: dict[str, TableResult] = {}
    if jobs <= 1 or len(tables) <= 1:
        for table_id, messages in tables.items():
            results[table_id] = audit_table(table_id, messages, by_table.get(table_id, {}))
            done += len(messages)
            if progress is not None:
                progress(done, total)
    else:
        # Biggest tables first, so one long table does not start last.
        order = sorted(tables, key=lambda t: -len(tables[t]))
        with ProcessPoolExecutor(max_workers=min(jobs, len(tables))) as pool:
            futures = {
                pool.submit(audit_table, t, tables[t], by_table.get(t, {})): t for t in order
            }
            for future in as_completed(futures):
                table_id = futures[future]
                results[table_id] = future.result()
                done += len(tables[table_id])
                if progress is not None:
                    progress(done, total)
    report.tables = [results[t] for t in sorted(results)]
    for table_id, hands in by_table.items():
        result = results.get(table_id)
        if result is None:
            continue  # the archive holds no log for that table: nothing to pair with
        logged = {h.hand_id for h in result.hands}
        for hand_id in sorted(set(hands) - logged):
            report.violations.append(
                Violation(
                    Check.SEED_RECORD,
                    "a seed was revealed for a hand the table's log never committed",
                    table_id,
                    hand_id,
                )
            )
    report.seconds = time.perf_counter() - started
    return report
