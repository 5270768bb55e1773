"""``riverboat audit`` and ``riverboat history export`` as people and scripts run them: a
progress bar on a terminal and never in a pipe, dollars in the audit's text and cents in its
JSON, PokerStars files per table and day, hands chosen by their PokerStars number.

The commands run as processes (under a pseudo-terminal with pexpect, or piped) or through the
command line's entry point; the expected figures are worked out from the archive's own events.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pexpect
import pytest

from riverboat.audit.archive import read_archive, write_archive
from riverboat.audit.synthetic import play_archive
from riverboat.cli.app import run
from riverboat.engine.events import RakeTaken
from riverboat.history import hands_from_archive
from tests.terminal import spawn_in_pty

BAR = "━"  # what Rich draws a bar with
ESCAPE = "\x1b"


@pytest.fixture(scope="module")
def archive_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small room's archive: two stud hi/lo tables played by the real table code."""
    path = tmp_path_factory.mktemp("room") / "room.rba.gz"
    write_archive(path, play_archive(tables=2, hands=10, seed=12))
    return path


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "riverboat.cli", *argv]


def under_a_terminal(argv: list[str], tmp: Path) -> tuple[int, str]:
    """Run ``argv`` with stdin, stdout and stderr on a pseudo-terminal; its exit status
    (negative: the signal that ended it) and everything the terminal showed."""
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    process, child = spawn_in_pty(argv, env, columns=100, cwd=tmp, timeout=300)
    child.expect(pexpect.EOF)
    shown = child.before or ""
    child.close()
    return process.wait(60), shown


def piped(argv: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "TERM": "xterm"},
    )


@pytest.mark.parametrize(
    ("argv", "label"),
    [
        (("audit", "{archive}", "--jobs", "1"), "verifying"),
        (
            ("history", "export", "{archive}", "--format", "pokerstars", "-o", "out.txt"),
            "exporting hands",
        ),
    ],
)
def test_a_progress_bar_on_a_terminal_and_none_in_a_pipe(
    argv: tuple[str, ...], label: str, archive_path: Path, tmp_path: Path
) -> None:
    args = [a.format(archive=archive_path) for a in argv]
    status, shown = under_a_terminal(command(*args), tmp_path)
    assert status == 0, shown
    assert label in shown and BAR in shown, shown[:500]
    done = piped(command(*args), tmp_path)
    assert done.returncode == 0, done.stderr
    assert BAR not in done.stdout + done.stderr and label not in done.stderr
    assert ESCAPE not in done.stdout + done.stderr
    if args[0] == "audit":
        assert done.stderr == ""
    else:
        # The hands written, named by table and number (docs/hand-history.md).
        assert re.fullmatch(
            r"wrote \d+ hands: (\S+ #\d+(-#\d+)?(, |; |))+ to out\.txt\n", done.stderr
        )
    # --no-progress: no bar even on a terminal.
    status, shown = under_a_terminal(command(*args, "--no-progress"), tmp_path)
    assert status == 0 and BAR not in shown


BAR_SCRIPT = """
import sys
{plant}
from riverboat.cli.progress import progress_bar
with progress_bar("replaying records", total=3) as bar:
    for _ in range(3):
        bar.advance()
print("done")
"""


def test_the_shared_bar_settlement_rebuild_uses(tmp_path: Path) -> None:
    """``riverboat settlement rebuild`` draws the same bar (riverboat.cli.progress)."""
    script = BAR_SCRIPT.format(plant="")
    status, shown = under_a_terminal([sys.executable, "-c", script], tmp_path)
    assert status == 0 and "replaying records" in shown and BAR in shown
    done = piped([sys.executable, "-c", script], tmp_path)
    assert done.stdout == "done\n" and done.stderr == ""


def test_the_pipe_oracle_catches_a_bar_drawn_into_a_pipe(tmp_path: Path) -> None:
    # Planted: the bar believes stderr is a terminal (and Rich is told it is one).
    plant = (
        "sys.stderr.isatty = lambda: True\n"
        "import os\nos.environ['FORCE_COLOR'] = '1'\nos.environ['TTY_COMPATIBLE'] = '1'\n"
        "os.environ['TTY_INTERACTIVE'] = '1'"
    )
    done = piped([sys.executable, "-c", BAR_SCRIPT.format(plant=plant)], tmp_path)
    assert ESCAPE in done.stderr or BAR in done.stderr


def cents(total: int) -> str:
    """The dollars a person reads for ``total`` cents, e.g. ``$5,433.07``."""
    return f"${total // 100:,}.{total % 100:02d}"


def test_the_audit_reads_in_dollars_and_its_json_in_cents(
    archive_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rake = sum(
        e.amount
        for h in hands_from_archive(read_archive(archive_path))
        for e in h.events
        if isinstance(e, RakeTaken)
    )
    assert rake > 100  # enough to tell dollars from cents
    assert run(["audit", str(archive_path), "--jobs", "1", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert f"  rake        {cents(rake)}\n" in text and " cents" not in text
    per_table = re.findall(r"^  table \S+: .* rake \$([\d,]+)\.(\d\d),", text, re.MULTILINE)
    assert len(per_table) == 2
    assert sum(int(d.replace(",", "")) * 100 + int(c) for d, c in per_table) == rake
    assert run(["audit", str(archive_path), "--jobs", "1", "--json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["rake"] == rake and isinstance(report["summary"]["rake"], int)
    assert sum(t["rake"] for t in report["tables"]) == rake


def test_split_into_one_pokerstars_file_per_table_and_day(
    archive_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = [h for h in hands_from_archive(read_archive(archive_path)) if h.finished or h.voided]
    folder = tmp_path / "hh"
    argv = ["history", "export", str(archive_path), "--format", "pokerstars", "--no-progress"]
    assert run([*argv, "--split-into", str(folder)]) == 0
    files = sorted(folder.iterdir())
    want = Counter((h.table_name, f"{h.started_at:%Y%m%d}") for h in hands)
    assert len(files) == len(want)
    got: Counter[tuple[str, str]] = Counter()
    for path in files:
        day, table = re.fullmatch(r"HH(\d{8}) (.+?) - \$.*\.txt", path.name).groups()  # type: ignore[union-attr]
        got[(table, day)] += path.read_text().count("PokerStars Hand #")
    assert got == want
    said = capsys.readouterr().err
    assert said.startswith(f"wrote {len(hands)} hands: ") and f" in {len(files)} file(s)" in said
    for table_id in {h.table_id for h in hands}:  # each table's hands, by number
        last = max(h.number for h in hands if h.table_id == table_id)
        assert f"{table_id} #" in said and f"-#{last}" in said, said
    # --split-into is for PokerStars files only, and not with -o: refused, nothing written.
    assert run(["history", "export", str(archive_path), "--split-into", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()
    assert "--split-into" in capsys.readouterr().err


def test_a_hand_is_found_by_its_pokerstars_number(
    archive_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["history", "export", str(archive_path), "--format", "pokerstars", "--no-progress"]
    assert run(argv) == 0
    every = capsys.readouterr().out
    numbers = re.findall(r"^PokerStars Hand #(\d+):", every, re.MULTILINE)
    hand = next(h for h in hands_from_archive(read_archive(archive_path)) if h.finished)
    assert run([*argv, "--hand", hand.hand_id]) == 0
    by_id = capsys.readouterr().out
    number = re.findall(r"^PokerStars Hand #(\d+):", by_id, re.MULTILINE)
    assert len(number) == 1 and number[0] in numbers
    assert run([*argv, "--hand", number[0]]) == 0
    assert capsys.readouterr().out == by_id
