"""The settlement ledger compared with the one the events give: equal, then a row altered."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from riverboat.audit import Archive, Check
from riverboat.audit.ledgercheck import compare_ledger
from riverboat.audit.synthetic import play_archive
from riverboat.ledger import Ledger, create_ledger_engine, upgrade
from riverboat.ledger.moneyfilter import moves_money


@pytest.fixture(scope="module")
def archive() -> Archive:
    return play_archive(tables=2, hands=8, seed=3)


def live_ledger(archive: Archive, path: Path, *, skip_last: int = 0) -> str:
    """A ledger built the way the settlement service builds it (its own code), from the logs."""
    url = f"sqlite:///{path}"
    engine = create_ledger_engine(url)
    upgrade(engine)
    records = [m for m in archive.messages if m.stream == "RB_TABLES"]
    if skip_last:
        records = records[:-skip_last]
    with Ledger(engine).writer() as writer:
        for m in records:
            table_id = m.subject.removeprefix("rb.tables.")
            writer.apply_table_record(table_id, int(m.headers["Rb-Version"]), m.data)
    engine.dispose()
    return url


@pytest.mark.slow
def test_a_ledger_built_from_the_events_compares_equal(archive: Archive, tmp_path: Path) -> None:
    assert compare_ledger(archive, live_ledger(archive, tmp_path / "live.db")) == []
    # A ledger a few records behind the streams compares against the same prefix of them.
    behind = live_ledger(archive, tmp_path / "behind.db", skip_last=3)
    assert compare_ledger(archive, behind) == []


def test_an_altered_ledger_row_is_named(archive: Archive, tmp_path: Path) -> None:
    url = live_ledger(archive, tmp_path / "live.db")
    engine = create_ledger_engine(url)
    with engine.begin() as conn:
        name = conn.execute(
            text("SELECT name FROM accounts WHERE name LIKE 'rake%' ORDER BY name LIMIT 1")
        ).scalar_one()
        conn.execute(text("UPDATE accounts SET balance = balance + 1 WHERE name = :n"), {"n": name})
    engine.dispose()
    problems = compare_ledger(archive, url)
    assert problems and all(p.check == Check.LEDGER for p in problems)
    named = [p for p in problems if p.message.startswith(f"account {name}:")]
    assert len(named) == 1
    assert "the live ledger has" in named[0].message
    # The ledger's own invariants notice it too (its balance no longer matches its lines).
    assert any("balances_match_lines" in p.message for p in problems)


def test_a_ledger_ahead_of_the_archive_is_reported(archive: Archive, tmp_path: Path) -> None:
    url = live_ledger(archive, tmp_path / "live.db")
    shorter = Archive(archive.manifest, archive.messages[:-40])
    problems = compare_ledger(shorter, url)
    assert any("export again" in p.message for p in problems)


@pytest.mark.slow
def test_a_ledger_written_before_records_were_skipped_compares_equal(
    archive: Archive, tmp_path: Path
) -> None:
    # The ledger as the settlement wrote it before it skipped the table records that move no
    # money: a processed-event row for every record, each table's position at its last record.
    url = live_ledger(archive, tmp_path / "old.db")
    engine = create_ledger_engine(url)
    with engine.begin() as conn:
        for m in archive.messages:
            if m.stream != "RB_TABLES" or moves_money(m.data):
                continue
            table_id, version = m.subject.removeprefix("rb.tables."), m.headers["Rb-Version"]
            conn.execute(
                text(
                    "INSERT INTO processed_events (key, source, aggregate_id, version, "
                    "processed_at) VALUES (:k, 'tables', :a, :v, CURRENT_TIMESTAMP)"
                ),
                {"k": f"tables:{table_id}:{version}", "a": table_id, "v": int(version)},
            )
            conn.execute(
                text(
                    "UPDATE positions SET version = :v WHERE source = 'tables' "
                    "AND aggregate_id = :a AND version < :v"
                ),
                {"a": table_id, "v": int(version)},
            )
    engine.dispose()
    assert compare_ledger(archive, url) == []
