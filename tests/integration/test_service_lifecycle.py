"""Every service starts, waits and stops the same way (riverboat.services.common.lifecycle).

Run as a process against a NATS that is not there, each of the four keeps trying, stops with
exit status 0 at once on SIGTERM while still waiting, and after ``--connect-timeout`` ends with
one log line naming the servers and exit status 1, never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from riverboat.natsserver import free_port

pytestmark = pytest.mark.timeout(90)

SERVICES = ["lobby", "table", "dealer", "settlement"]


def _start(service: str, cwd: Path, *flags: str) -> tuple[subprocess.Popen[str], str]:
    address = f"127.0.0.1:{free_port()}"
    nowhere = f"nats://127.0.0.1:{free_port()}"  # nothing listens there
    env = {**os.environ, "RIVERBOAT_DEALER_KEY": "cd" * 32, "RIVERBOAT_LOG_FORMAT": "json"}
    argv = [sys.executable, "-m", "riverboat.cli", service, "serve", "--address", address]
    process = subprocess.Popen(
        [*argv, "--nats", nowhere, *flags],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return process, nowhere


@pytest.mark.parametrize("service", SERVICES)
def test_sigterm_while_waiting_for_nats_stops_it_cleanly(service: str, tmp_path: Path) -> None:
    process, _ = _start(service, tmp_path, "--connect-timeout", "600")
    try:
        seen = _read_until(process, '"event": "starting"')  # signal handlers are in place
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=30)  # a bound, not a timing: 600 s otherwise
        output = seen + rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == 0, output
    assert "Traceback" not in output, output


@pytest.mark.parametrize("service", SERVICES)
def test_nats_never_answering_is_one_line_and_exit_1(service: str, tmp_path: Path) -> None:
    process, nowhere = _start(service, tmp_path, "--connect-timeout", "1")
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 1, output
    assert "Traceback" not in output, output
    failed = [line for line in output.splitlines() if "cannot connect to NATS" in line]
    assert len(failed) == 1 and nowhere in failed[0], output


def _read_until(process: subprocess.Popen[str], text: str) -> str:
    """Read the process's output up to the line holding ``text``; what was read."""
    assert process.stdout is not None
    read = []
    for line in process.stdout:
        read.append(line)
        if text in line:
            return "".join(read)
    raise AssertionError(f"exited ({process.wait()}) before logging {text!r}: {''.join(read)}")
