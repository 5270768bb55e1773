"""``riverboat engine run`` and ``riverboat engine demo`` as processes: a scenario file or stdin in,
the result as JSON out; bad input exits 2 in words, without a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.unit.engine._kit import scenario

HANDS = ["As Ks Ac", "2s 3s 2c"]


def _cli(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "riverboat.cli.__main__", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cli_runs_a_file_and_stdin(tmp_path: Path) -> None:
    doc = scenario(HANDS, [(2, "bring_in"), (1, "complete"), (2, "fold")], button=2)
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(doc))
    done = _cli(["engine", "run", str(path)])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["final_stacks"] == {"p1": 1050, "p2": 950}
    piped = _cli(["engine", "run", "-"], stdin=json.dumps(doc))
    assert json.loads(piped.stdout) == json.loads(done.stdout)


def test_cli_exits_2_on_illegal_or_malformed_input_without_traceback() -> None:
    illegal = _cli(
        ["engine", "run", "-"], stdin=json.dumps(scenario(HANDS, [(1, "call")], button=2))
    )
    assert illegal.returncode == 2
    assert json.loads(illegal.stdout)["error"]["rule"] == "out_of_turn"
    for text in ("{not json", "[1, 2]", '{"seats": 5}'):
        done = _cli(["engine", "run", "-"], stdin=text)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr and done.stderr.strip()
    missing = _cli(["engine", "run", "/nonexistent/hand.json"])
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_cli_demo_plays_hands() -> None:
    done = _cli(["engine", "demo", "--hands", "2", "--seed", "7"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Hand demo-") == 2
    assert "stacks:" in done.stdout


def test_brief_leaves_out_the_events_and_nothing_else(tmp_path: Path) -> None:
    doc = scenario(HANDS, [(2, "bring_in"), (1, "complete"), (2, "fold")], button=2)
    full = json.loads(_cli(["engine", "run", "-"], stdin=json.dumps(doc)).stdout)
    brief = _cli(["engine", "run", "--brief", "-"], stdin=json.dumps(doc))
    assert brief.returncode == 0, brief.stderr
    assert full["events"] and json.loads(brief.stdout) == {
        k: v for k, v in full.items() if k != "events"
    }
