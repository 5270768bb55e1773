"""Each service's real entry point, as a process: a bad setting exits 2 in one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

SERVICES = ("dealer", "lobby", "settlement", "table")


@pytest.mark.parametrize("name", SERVICES)
def test_bad_settings_exit_2_in_one_line(name: str) -> None:
    """The real entry point: one line on stderr, status 2, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", f"riverboat.services.{name}", "--replicas", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "RIVERBOAT_LOG_FORMAT": "json"},
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--replicas" in lines[0], proc.stderr
    # One start-up for all four: the same form of refusal, naming the service.
    assert lines[0].startswith(f"riverboat-{name}: error: "), proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", ["lobby", "table"])
@pytest.mark.parametrize("flag", ["--stream", "--subject-prefix"])
def test_a_bad_stream_or_subject_is_refused_at_start(name: str, flag: str) -> None:
    """Every service checks its JetStream names and subject prefixes the same way
    (common.config.check_name / check_subject_prefix), before it connects anywhere."""
    proc = subprocess.run(
        [sys.executable, "-m", f"riverboat.services.{name}", flag, "has space"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "RIVERBOAT_LOG_FORMAT": "json"},
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"riverboat-{name}: error: {flag}: invalid "), proc.stderr
    assert "'has space'" in lines[0], proc.stderr
