"""Published chain heads (docs/audit.md): a log rewritten after its heads were published, even
one whose hash chain was carefully recomputed, fails the audit; so does a truncated log or a
publication not signed by the publisher's key."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from riverboat.audit.archive import write_archive
from riverboat.audit.heads import (
    check_heads,
    heads_of,
    public_key_hex,
    read_publications,
    sign_publication,
)
from riverboat.audit.report import Check
from riverboat.audit.synthetic import play_archive
from riverboat.audit.verify import split_tables
from riverboat.cli.app import run as cli_run
from tests.unit.audit._tamper import edit_event, find, rechain, table_messages

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def _publish(tmp_path: Path, archive: object) -> Path:
    heads = heads_of(split_tables(archive))  # type: ignore[arg-type]
    path = tmp_path / "heads.jsonl"
    path.write_text(sign_publication(KEY, "2026-12-02T01:00:00Z", heads) + "\n", "utf-8")
    return path


def test_the_published_heads_of_an_untouched_log_check(tmp_path: Path) -> None:
    archive = play_archive(tables=2, hands=3, seed=11)
    tables = split_tables(archive)
    heads = heads_of(tables)
    assert set(heads) == {"t1", "t2"}
    published = _publish(tmp_path, archive)
    assert public_key_hex(KEY) in published.read_text("utf-8")
    assert check_heads(tables, read_publications(published), KEY.public_key()) == []


def test_a_rewritten_and_rechained_log_is_caught(tmp_path: Path) -> None:
    archive = play_archive(tables=1, hands=3, seed=12)
    published = _publish(tmp_path, archive)
    # A careful forgery: one action's amount changed, the chain recomputed so it verifies.
    position = find(archive, "t1", "action_taken")
    edit_event(archive, position, lambda env: setattr(env.action_taken, "amount", 1))
    rechain(archive, "t1")
    found = check_heads(split_tables(archive), read_publications(published), KEY.public_key())
    assert [v.check for v in found] == [Check.PUBLISHED_HEAD]
    assert "rewritten after publication" in found[0].message


def test_a_truncated_log_is_caught(tmp_path: Path) -> None:
    archive = play_archive(tables=1, hands=3, seed=13)
    published = _publish(tmp_path, archive)
    last = table_messages(archive, "t1")[-1]
    del archive.messages[last]
    found = check_heads(split_tables(archive), read_publications(published), KEY.public_key())
    assert [v.check for v in found] == [Check.PUBLISHED_HEAD]
    assert "the log ends at version" in found[0].message


def test_a_publication_signed_by_another_key_is_caught(tmp_path: Path) -> None:
    archive = play_archive(tables=1, hands=2, seed=14)
    published = _publish(tmp_path, archive)
    other = Ed25519PrivateKey.generate().public_key()
    found = check_heads(split_tables(archive), read_publications(published), other)
    assert [v.check for v in found] == [Check.PUBLISHED_HEAD]
    # One flipped character of a published head: the signature no longer holds.
    text = published.read_text("utf-8")
    head = heads_of(split_tables(archive))["t1"][1]
    flipped = head[:-1] + ("0" if head[-1] != "0" else "1")
    published.write_text(text.replace(head, flipped), "utf-8")
    found = check_heads(split_tables(archive), read_publications(published), KEY.public_key())
    assert [v.check for v in found] == [Check.PUBLISHED_HEAD] and "not signed" in found[0].message


def test_riverboat_audit_checks_an_archive_against_its_heads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = play_archive(tables=1, hands=3, seed=15)
    published = _publish(tmp_path, archive)
    key = tmp_path / "heads.key"
    (tmp_path / "heads.key.pub").write_text(public_key_hex(KEY) + "\n", "ascii")
    key.write_text("unused: the .pub beside it is read\n", "ascii")
    good = tmp_path / "room.rba.gz"
    write_archive(good, archive)
    args = ["audit", str(good), "--heads", str(published), "--heads-key", str(key)]
    assert cli_run([*args, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "heads       1 signed publications checked" in out and "RESULT: OK" in out
    edit_event(
        archive, find(archive, "t1", "action_taken"), lambda e: setattr(e.action_taken, "amount", 1)
    )
    rechain(archive, "t1")
    write_archive(good, archive)
    assert cli_run([*args, "--no-progress"]) == 1
    assert "[published_head]" in capsys.readouterr().out
