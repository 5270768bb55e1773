"""The ledger applies only the table records that move money, and builds the same books.

Over the recorded table logs of every game (``tests/vectors/eventlogs.jsonl.gz``): a record
:func:`moves_money` calls moneyless gives no effect and leaves the table context as it was, so
skipping it changes nothing; the ledger decodes only the others; and records skipped out of
order still let the ledger tell a skipped version from a missing one.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from pathlib import Path

import pytest
from sqlalchemy import Engine

from riverboat.eventcodec import decode_batch
from riverboat.ledger import Ledger, Outcome, canonical_dump, create_ledger_engine
from riverboat.ledger import store as ledger_store
from riverboat.ledger.migrate import upgrade
from riverboat.ledger.moneyfilter import Unmoved, moves_money
from riverboat.ledger.projection import TableContext, project_table_event
from tests.unit.codec.test_recorded_logs import recorded


def _tables() -> dict[str, list[bytes]]:
    """Each recorded log's records, in version order (version = index + 1)."""
    messages, _ = recorded()
    out: dict[str, list[bytes]] = defaultdict(list)
    for message in messages:
        out[message["table"]].append(message["data"])
    return out


def _ledger(path: Path) -> Engine:
    engine = create_ledger_engine(f"sqlite:///{path}")
    upgrade(engine)
    return engine


def _dump(engine: Engine) -> str:
    with engine.connect() as conn:
        return canonical_dump(conn)


def test_a_record_called_moneyless_changes_nothing_the_ledger_keeps() -> None:
    skipped = kinds = 0
    for table_id, records in _tables().items():
        ctx = TableContext(table_id)
        for version, payload in enumerate(records, start=1):
            money = moves_money(payload)
            before = copy.deepcopy(ctx)
            effects = [
                e
                for event, meta in decode_batch(payload)
                for e in project_table_event(ctx, event, meta)
            ]
            if not money:
                skipped += 1
                assert effects == [], f"{table_id} v{version}"
                assert ctx == before, f"{table_id} v{version}"
            kinds += 1
    assert 0 < skipped < kinds  # the logs hold both kinds


def test_the_ledger_decodes_only_records_that_move_money(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded = 0

    def counting(payload: bytes) -> object:
        nonlocal decoded
        decoded += 1
        return decode_batch(payload)

    monkeypatch.setattr(ledger_store, "decode_batch", counting)
    outcomes: dict[Outcome, int] = defaultdict(int)
    money = 0
    for number, (table_id, records) in enumerate(_tables().items()):
        # One ledger per log: the logs' tables share ids (and so posting keys).
        ledger = Ledger(_ledger(tmp_path / f"{number}.db"))
        for version, payload in enumerate(records, start=1):
            money += moves_money(payload)
            outcomes[ledger.apply_table_record(table_id, version, payload).outcome] += 1
    total = sum(outcomes.values())
    assert outcomes[Outcome.APPLIED] == decoded == money
    assert outcomes[Outcome.SKIPPED] == total - money > total // 3


def test_skipped_out_of_order_the_books_are_those_of_the_ordered_replay(tmp_path: Path) -> None:
    gaps = 0
    for number, (table_id, records) in enumerate(_tables().items()):
        ordered = _ledger(tmp_path / f"ordered-{number}.db")
        with Ledger(ordered).writer() as writer:
            for version, payload in enumerate(records, start=1):
                writer.apply_table_record(table_id, version, payload)

        shuffled = _ledger(tmp_path / f"shuffled-{number}.db")
        ledger = Ledger(shuffled)
        # Each record delivered after the next one (pairs swapped): a money record that comes
        # before the record under it is a gap until that one came.
        order = list(range(1, len(records) + 1))
        for i in range(0, len(order) - 1, 2):
            order[i], order[i + 1] = order[i + 1], order[i]
        waiting: list[int] = []
        for version in order:
            result = ledger.apply_table_record(table_id, version, records[version - 1])
            if result.outcome is Outcome.GAP:
                gaps += 1
                waiting.append(version)
            elif waiting:
                for held in waiting:
                    again = ledger.apply_table_record(table_id, held, records[held - 1])
                    assert again.outcome is Outcome.APPLIED
                waiting = []
        assert not waiting
        assert _dump(shuffled) == _dump(ordered), table_id
    assert gaps > 0


def test_unmoved_runs_tell_skipped_versions_from_missing_ones() -> None:
    unmoved = Unmoved()
    for version in (3, 4, 5, 9, 7, 8):
        unmoved.note("t", version)
    assert unmoved.covers("t", 3, 5) and unmoved.covers("t", 7, 9)
    assert not unmoved.covers("t", 5, 7)  # 6 was never seen
    assert unmoved.covers("t", 4, 3)  # nothing in between
    assert unmoved.seen_through("t", 2) == 5 and unmoved.seen_through("t", 6) == 9
    assert unmoved.seen_through("t", 10) == 10
    unmoved.note("t", 6)
    assert unmoved.covers("t", 3, 9)
    unmoved.applied("t", 10)
    assert not unmoved.covers("t", 3, 9) and unmoved.seen_through("t", 10) == 10
