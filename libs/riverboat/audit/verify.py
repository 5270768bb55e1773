"""Audit a whole archive: archive-wide checks, then every table (in parallel when asked).

``verify_archive`` (an archive in memory, e.g. read from NATS) and ``verify_file`` (an archive
file) are what ``riverboat audit`` runs. Tables are independent (each has its own log, chain
and hands), so with ``jobs > 1`` they are audited in worker processes; the report is the same
either way. ``verify_file`` leaves the parsing of each table's lines to its worker, so the
serial part of a parallel run is little more than decompressing the file.
"""

from __future__ import annotations

import multiprocessing
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from riverboat.audit.archive import (
    Archive,
    Manifest,
    StoredMessage,
    parse_message,
    read_raw_archive,
)
from riverboat.audit.report import AuditReport, Check, TableResult, Violation
from riverboat.audit.seeds import Reveal, parse_reveals
from riverboat.audit.tableaudit import audit_table, no_gc

__all__ = ["Progress", "split_tables", "verify_archive", "verify_file"]

Progress = Callable[[int, int], None]
"""``progress(done, total)`` in stored messages, called as tables finish."""

TableInput = list[StoredMessage] | list[bytes]
"""A table's messages, parsed or still archive lines."""

# How this project's writer starts a message line; other key orders take the slow path.
_ROUTE = re.compile(rb'\{"stream":"([^"\\]*)","seq":(\d+),"subject":"([^"\\]*)"')


@dataclass(slots=True)
class _Input:
    """What the checks need, from an archive in memory or an archive file."""

    manifest: Manifest
    problems: list[str]
    sequences: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    seeds: list[StoredMessage] = field(default_factory=list)
    tables: dict[str, TableInput] = field(default_factory=lambda: defaultdict(list))


def _table_of(subject: str, prefix: str) -> str | None:
    if subject.startswith(prefix) and "." not in subject[len(prefix) :]:
        return subject[len(prefix) :]
    return None


def _from_archive(archive: Archive) -> _Input:
    out = _Input(archive.manifest, list(archive.problems))
    tables = archive.manifest.stream("tables")
    seeds = archive.manifest.stream("seeds")
    for m in sorted(archive.messages, key=lambda m: (m.stream, m.sequence)):
        out.sequences[m.stream].append(m.sequence)
        if seeds is not None and m.stream == seeds.name:
            out.seeds.append(m)
        elif tables is not None and m.stream == tables.name:
            table_id = _table_of(m.subject, tables.subject_prefix + ".")
            if table_id is not None:
                out.tables[table_id].append(m)  # type: ignore[arg-type]
    return out


def _from_file(path: Path) -> _Input:
    raw = read_raw_archive(path)
    out = _Input(raw.manifest, list(raw.problems))
    tables = raw.manifest.stream("tables")
    seeds = raw.manifest.stream("seeds")
    prefix = tables.subject_prefix + "." if tables else ""
    routed: list[tuple[str, int, bytes]] = []
    for number, line in enumerate(raw.lines, start=2):
        hit = _ROUTE.match(line)
        if hit is not None:
            stream, seq, subject = hit.group(1).decode(), int(hit.group(2)), hit.group(3).decode()
        else:
            try:
                m = parse_message(line)
            except ValueError as exc:
                out.problems.append(f"message line {number}: unreadable ({exc})")
                continue
            stream, seq, subject = m.stream, m.sequence, m.subject
        out.sequences[stream].append(seq)
        if seeds is not None and stream == seeds.name:
            try:
                out.seeds.append(parse_message(line))
            except ValueError as exc:
                out.problems.append(f"message line {number}: unreadable ({exc})")
        elif tables is not None and stream == tables.name:
            table_id = _table_of(subject, prefix)
            if table_id is not None:
                routed.append((table_id, seq, line))
    for table_id, _, line in sorted(routed, key=lambda r: r[1]):
        out.tables[table_id].append(line)  # type: ignore[arg-type]
    return out


def split_tables(archive: Archive) -> dict[str, list[StoredMessage]]:
    """Each table's log messages, in stream order, by table id."""
    return {t: _messages(m)[0] for t, m in _from_archive(archive).tables.items()}


def _messages(table: TableInput) -> tuple[list[StoredMessage], list[str]]:
    """Parsed messages (parsing archive lines here, in the worker), and unreadable ones."""
    if not table or isinstance(table[0], StoredMessage):
        return table, []  # type: ignore[return-value]
    out: list[StoredMessage] = []
    problems: list[str] = []
    for line in table:
        try:
            out.append(parse_message(line))
        except ValueError as exc:
            problems.append(f"an unreadable message line ({exc})")
    return out, problems


def _audit_input(table_id: str, table: TableInput, reveals: dict[str, Reveal]) -> TableResult:
    with no_gc():  # parsing too: in a forked worker a collection would touch every page
        messages, problems = _messages(table)
        result = audit_table(table_id, messages, reveals)
    result.violations[:0] = [Violation(Check.ARCHIVE, p, table_id) for p in problems]
    return result


def _archive_checks(data: _Input) -> list[Violation]:
    problems = [Violation(Check.ARCHIVE, p) for p in data.problems]
    for entry in data.manifest.streams:
        stored = sorted(data.sequences.get(entry.name, []))
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


#: Work handed to forked workers by inheritance (set just before the pool forks them), so the
#: tables are neither pickled nor copied up front.
_INHERITED: dict[str, tuple[TableInput, dict[str, Reveal]]] = {}


def _audit_inherited(table_id: str) -> TableResult:
    table, reveals = _INHERITED[table_id]
    return _audit_input(table_id, table, reveals)


def _in_parallel(
    work: dict[str, tuple[TableInput, dict[str, Reveal]]], jobs: int
) -> Iterator[tuple[str, TableResult]]:
    """Audit tables in worker processes, yielding results as they finish.

    Where the platform forks (Linux), workers inherit their tables; elsewhere each table is
    pickled to its worker. The workers run only pure Python code of this package.
    """
    order = sorted(work, key=lambda t: -len(work[t][0]))  # biggest first: none starts last
    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else "spawn")
    if fork:
        _INHERITED.update(work)
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(work)), mp_context=context) as pool:
            if fork:
                futures = {pool.submit(_audit_inherited, t): t for t in order}
            else:
                futures = {pool.submit(_audit_input, t, *work[t]): t for t in order}
            for future in as_completed(futures):
                yield futures[future], future.result()
    finally:
        _INHERITED.clear()


def _verify(data: _Input, source: str, jobs: int, progress: Progress | None) -> AuditReport:
    started = time.perf_counter()
    report = AuditReport(source=source or data.manifest.source)
    report.violations.extend(_archive_checks(data))
    seeds = data.manifest.stream("seeds")
    reveals, seed_problems = parse_reveals(data.seeds, seeds.subject_prefix if seeds else "")
    report.violations.extend(seed_problems)
    by_table: dict[str, dict[str, Reveal]] = defaultdict(dict)
    for (table_id, hand_id), reveal in reveals.items():
        by_table[table_id][hand_id] = reveal

    tables = data.tables
    total = sum(len(m) for m in tables.values())
    done = 0
    results: dict[str, TableResult] = {}
    if jobs <= 1 or len(tables) <= 1:
        finished: Iterator[tuple[str, TableResult]] = (
            (t, _audit_input(t, m, by_table.get(t, {}))) for t, m in tables.items()
        )
    else:
        finished = _in_parallel({t: (tables[t], by_table.get(t, {})) for t in tables}, jobs)
    for table_id, result in finished:
        results[table_id] = result
        done += len(tables[table_id])
        if progress is not None:
            progress(done, total)
    report.tables = [results[t] for t in sorted(results)]
    for table_id, hands in by_table.items():
        audited = results.get(table_id)
        if audited is None:
            continue  # the archive holds no log for that table: nothing to pair with
        logged = {h.hand_id for h in audited.hands}
        for hand_id in sorted(set(hands) - logged):
            report.violations.append(
                Violation(
                    Check.SEED_RECORD,
                    "a seed was revealed for a hand the table's log never committed",
                    table_id,
                    hand_id,
                )
            )
    # Archive-wide findings about a dealt hand (its seed record, say) name its number too.
    numbers = {(t.table_id, h.hand_id): h.number for t in report.tables for h in t.hands}
    report.violations = [
        replace(v, hand_number=numbers.get((v.table_id or "", v.hand_id), 0)) if v.hand_id else v
        for v in report.violations
    ]
    report.seconds = time.perf_counter() - started
    return report


def verify_archive(
    archive: Archive, *, source: str = "", jobs: int = 1, progress: Progress | None = None
) -> AuditReport:
    """Run every check on ``archive``; see ``docs/audit.md`` for the list."""
    return _verify(_from_archive(archive), source, jobs, progress)


def verify_file(
    path: Path, *, source: str = "", jobs: int = 1, progress: Progress | None = None
) -> AuditReport:
    """Run every check on the archive file at ``path`` (timed from opening the file).

    Raises:
        ArchiveError: the file is not a readable archive.
    """
    started = time.perf_counter()
    with no_gc():  # routing builds a tuple per line; collections would only re-scan them
        data = _from_file(path)
    report = _verify(data, source or str(path), jobs, progress)
    report.seconds = time.perf_counter() - started
    return report
