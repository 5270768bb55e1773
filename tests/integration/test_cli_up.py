"""`riverboat up` and `riverboat bots` as an operator runs them: real processes, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from riverboat.services.launcher import free_port


def _riverboat(*args: str) -> list[str]:
    return [sys.executable, "-m", "riverboat.cli", *args]


def test_up_starts_the_room_bots_play_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    ports = [free_port() for _ in range(5)]
    lobby, table, dealer, settlement = (f"127.0.0.1:{p}" for p in ports[:4])
    output = tmp_path / "up.out"
    command = _riverboat(
        "up",
        "--var",
        str(tmp_path / "var"),
        "--nats-port",
        str(ports[4]),
        "--lobby-address",
        lobby,
        "--table-address",
        table,
        "--dealer-address",
        dealer,
        "--settlement-address",
        settlement,
        "--bots",
        "2",
        "--hand-pause",
        "0.1",
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with output.open("w") as sink:
        up = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=tmp_path, env=env)
    try:
        deadline = time.monotonic() + 60
        seen = ""
        # A whole hand from its start to its payout (the first may be joined midway).
        while time.monotonic() < deadline and "main pot" not in seen.partition("3rd street")[2]:
            time.sleep(0.2)
            seen = output.read_text()
        assert "Pacific $1/$2 stud hi/lo" in seen and "Dealer's choice" in seen, seen
        assert "Operator account: operator / " in seen, seen
        assert "*** 3rd street ***" in seen and "main pot" in seen, seen
        bots = subprocess.run(
            _riverboat(
                "bots", "--table-address", table, "--tables", "2", "--seats", "3", "--seconds", "6"
            ),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            check=False,
        )
        assert bots.returncode == 0, bots.stderr
        assert "bots acted" in bots.stdout and "bots acted 0 times" not in bots.stdout
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(timeout=60)
    assert up.returncode == 0
    assert "stopped." in output.read_text()
    leftovers = subprocess.run(
        ["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert leftovers.stdout.strip() == "", "no service or nats-server is left running"
