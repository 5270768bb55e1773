"""Logs recorded before rule-book edition 2 (issue #14, 2026-12-01) still replay exactly.

The two archives in ``data/`` were played and stored by the code of main at c1de505, before
the rule-book changes (the failing PIG's default, 15-35's opener, stud without a bring-in at a
dealer's choice table, several short all-ins, declared limits): a dealer's choice room (two
tables, 20 deals each, games chosen at random) and a Pacific room (25 hands). The auditor
re-decides every stored command with today's rules; every event must come out as recorded.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from riverboat import settingscodec
from riverboat.audit import Archive, verify_archive
from riverboat.audit.archive import read_archive
from riverboat.audit.tablelog import decode_log
from riverboat.audit.verify import split_tables
from riverboat.engine.game_options import RULE_BOOK

DATA = Path(__file__).parent / "data"


def load(name: str) -> Archive:
    return read_archive(DATA / name)


def events(archive: Archive) -> list[Any]:
    out: list[Any] = []
    for table_id, messages in split_tables(archive).items():
        log, _ = decode_log(table_id, messages)
        out.extend(e.event for m in log for e in m.events)
    return out


@pytest.mark.parametrize("name", ["edition1-dealers-choice.jsonl.gz", "edition1-pacific.jsonl.gz"])
def test_an_edition_1_archive_replays_exactly(name: str) -> None:
    report = verify_archive(load(name))
    assert report.ok, report.summary_lines()


def test_the_dealers_choice_archive_holds_what_edition_2_changed() -> None:
    seen = events(load("edition1-dealers-choice.jsonl.gz"))
    kinds = Counter(type(e).__name__ for e in seen)
    assert kinds["DeclarationsRevealed"] > 0 and kinds["GameChosen"] > 0
    games = {getattr(e, "game", "") for e in seen if type(e).__name__ == "GameChosen"}
    assert {"fifteen_thirty_five", "seven_card_stud_hi_lo", "anaconda"} <= games
    chosen = [e for e in seen if type(e).__name__ == "GameChosen" and e.game == "anaconda"]
    assert all(e.options["pig_failure"] == "reassign" for e in chosen)
    assert all("rule_book" not in e.options for e in chosen)
    stud_rounds = [
        e for e in seen if type(e).__name__ == "BettingRoundStarted" and e.forced_bring_in
    ]
    assert stud_rounds  # stud was dealt with a bring-in at this dealer's choice table


def test_the_replay_catches_an_old_table_read_as_a_new_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # The oracle can fail: read the stored tables as today's edition (as if the edition were
    # not recorded) and the re-decided choices no longer match what was recorded.
    original = settingscodec.rules_from_pb
    monkeypatch.setattr(
        settingscodec, "rules_from_pb", lambda msg, edition=1: original(msg, edition=RULE_BOOK)
    )
    report = verify_archive(load("edition1-dealers-choice.jsonl.gz"))
    assert not report.ok
    assert any(v.check.value == "replay_mismatch" for v in report.all_violations)
