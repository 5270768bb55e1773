"""Running `riverboat up` from a test: its command line, its environment, waiting for the demo
tables to fill, and making sure nothing it started is left running."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import grpc
import psutil

from riverboat.auth import TokenIssuer
from riverboat.services.launcher import free_port, wait_serving
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc


def riverboat(*args: str) -> list[str]:
    return [sys.executable, "-m", "riverboat.cli", *args]


def up_command(var: Path, ports: list[int], *extra: str) -> list[str]:
    lobby, table, dealer, settlement = (f"127.0.0.1:{p}" for p in ports[:4])
    return riverboat(
        "up",
        "--var",
        str(var),
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
        *extra,
    )


# Without the tests' shared keys: `riverboat up` must hand its services the keys it makes (a
# service on its own refuses to start without one).
ENV = {
    **{
        k: v
        for k, v in os.environ.items()
        if k not in ("RIVERBOAT_TOKEN_KEY", "RIVERBOAT_DEALER_KEY")
    },
    "PYTHONUNBUFFERED": "1",
}


def leftovers(root: Path) -> list[str]:
    """Processes (but this one) working in, started from or holding files under ``root``: every
    child of `riverboat up`, nats-server included, runs with its working directory there."""
    found = []
    for proc in psutil.process_iter(["pid", "cwd", "cmdline"]):
        if proc.pid == os.getpid():
            continue
        try:
            places = [proc.info["cwd"] or "", *(proc.info["cmdline"] or [])]
            places += [f.path for f in proc.open_files()]
        except psutil.Error:
            continue
        if any(str(root) in place for place in places):
            found.append(f"{proc.pid} {' '.join(proc.info['cmdline'] or [])[:120]}")
    return found


def reap(root: Path) -> list[str]:
    """:func:`leftovers`, killed after being listed (so a failing test leaves nothing behind)."""
    found = leftovers(root)
    for line in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line.split()[0]), signal.SIGKILL)
    return found


def free_ports() -> list[int]:
    """Five free ports, for :func:`up_command`: lobby, table, dealer, settlement, NATS."""
    return [free_port() for _ in range(5)]


def seated(var: Path, lobby: str, timeout: float = 90) -> None:
    """Wait until both demo tables have bots seated: up has printed its banner by then."""
    wait_serving(lobby, timeout)
    token = issuer(var).issue("test", "operator")
    metadata = (("authorization", f"Bearer {token}"),)
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(lobby) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        while time.monotonic() < deadline:
            tables = stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=metadata).tables
            if len(tables) == 2 and all(len(t.seats) >= 2 for t in tables):
                return
            time.sleep(0.2)
    raise AssertionError("the demo tables never filled")


def issuer(var: Path) -> TokenIssuer:
    """Tokens the room started with ``--var var`` accepts: from the key file up wrote, not
    this process's RIVERBOAT_TOKEN_KEY (the tests' key)."""
    return TokenIssuer(bytes.fromhex((var / "token.key").read_text()))
