"""riverboat.natsserver against real processes: start, readiness, restart, failures."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import nats
import psutil
import pytest

from riverboat.natsserver import (
    PORT_RANGE_ENV,
    NatsServer,
    NatsServerError,
    PortInUseError,
    StoreInUseError,
    free_port,
    port_range,
    port_slice,
    reserve_ports,
)

pytestmark = pytest.mark.timeout(60)


async def jetstream_answers(url: str) -> bool:
    nc = await nats.connect(url, allow_reconnect=False)
    try:
        info = await nc.jetstream().account_info()
        return info is not None
    finally:
        await nc.close()


def test_session_server_is_ours(nats_server: NatsServer, nats_url: str) -> None:
    assert nats_server.is_running
    assert nats_server.port not in (0, 4222)
    assert nats_url == f"nats://127.0.0.1:{nats_server.port}"
    assert asyncio.run(jetstream_answers(nats_url))


def test_start_kill_restart_stop(tmp_path: Path) -> None:
    server = NatsServer(tmp_path / "store", port=0)
    with server:
        first_pid, port = server.pid, server.port
        assert server.is_running and port != 0
        assert (tmp_path / "store" / "jetstream").is_dir()

        server.kill()
        assert not server.is_running and server.pid is None

        server.start()
        assert server.port == port and server.pid != first_pid
        assert asyncio.run(jetstream_answers(server.url))
        assert "Server is ready" in server.log_tail()

        server.stop()
        assert not server.is_running
    assert server.log_path is None  # close() removed the generated config and log


def test_start_twice_is_an_error(tmp_path: Path) -> None:
    with NatsServer(tmp_path, port=0) as server, pytest.raises(NatsServerError, match="already"):
        server.start()


def test_port_in_use_is_named_in_one_line_and_nothing_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = NatsServer(tmp_path, port=taken.getsockname()[1])

        with pytest.raises(PortInUseError) as caught:
            server.start()

    message = str(caught.value)
    assert f"(pid {os.getpid()})" in message and f"kill {os.getpid()}" in message, message
    assert "\n" not in message
    assert not server.is_running and server.log_path is None


def test_two_servers_never_open_one_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with NatsServer(store, port=0) as first:
        second = NatsServer(store, port=0)
        with pytest.raises(StoreInUseError) as caught:
            second.start()
        message = str(caught.value)
        assert f"(pid {first.pid})" in message and f"kill {first.pid}" in message, message
        assert not second.is_running
        assert asyncio.run(jetstream_answers(first.url))
        first.kill()  # a crash: the kernel drops the lock with the process
        second.start()
        assert second.is_running
        second.close()


def test_the_store_lock_outlives_whoever_started_the_server(tmp_path: Path) -> None:
    """A launcher that dies without stopping its server (kill -9) leaves a server that still
    holds the store: the next start names it instead of opening the store a second time."""
    store = tmp_path / "store"
    script = (
        "import os, sys; from riverboat.natsserver import NatsServer; "
        f"s = NatsServer({str(store)!r}, port=0).start(); print(s.pid, flush=True); os._exit(0)"
    )
    orphan = int(
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
        ).stdout
    )
    try:
        assert psutil.pid_exists(orphan)
        with pytest.raises(StoreInUseError, match=f"pid {orphan}"):
            NatsServer(store, port=0).start()
    finally:
        os.kill(orphan, signal.SIGKILL)


def test_unresponsive_server_times_out_and_is_killed(tmp_path: Path) -> None:
    binary = tmp_path / "nats-server"
    binary.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "nats-server: v2.15.0"; exit 0; fi\n'
        'echo "pretending to start"\n'
        "exec sleep 30\n"
    )
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    server = NatsServer(tmp_path / "store", port=0, binary=binary, startup_timeout=0.5)

    with pytest.raises(NatsServerError) as caught:
        server.start()

    assert "did not become ready" in str(caught.value)
    assert "pretending to start" in str(caught.value)
    assert not server.is_running
    server.close()


def test_port_slices_are_disjoint_and_inside_the_range() -> None:
    # Each test worker draws from its own slice: two slices sharing a port let one worker
    # take a port from under another's service while it restarts (found in CI).
    whole = port_range()
    for count in (1, 2, 3, 7):
        slices = [port_range_of(port_slice(i, count)) for i in range(count)]
        seen: set[int] = set()
        for ports in slices:
            assert ports.start >= whole.start and ports.stop <= whole.stop
            assert not seen & set(ports)
            seen |= set(ports)
        assert len(seen) > len(whole) - count  # only the remainder is left out
    with pytest.raises(ValueError):
        port_slice(3, 3)


def port_range_of(text: str) -> range:
    first, last = (int(part) for part in text.split("-"))
    return range(first, last + 1)


def test_free_port_draws_only_from_its_range(monkeypatch: pytest.MonkeyPatch) -> None:
    narrow = port_slice(5, 40)  # a part of this worker's range: ports this process may draw
    monkeypatch.setenv(PORT_RANGE_ENV, narrow)
    assert port_range() == port_range_of(narrow)
    drawn = [free_port() for _ in range(20)]
    assert all(port in port_range_of(narrow) for port in drawn), (narrow, drawn)


@pytest.mark.parametrize("text", ["20000", "20000-", "b-c", "900-2000", "30000-20000", "1-2-3"])
def test_a_bad_port_range_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(PORT_RANGE_ENV, text)
    with pytest.raises(ValueError, match=PORT_RANGE_ENV):
        port_range()


def test_reserved_ports_are_never_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    # riverboat up draws a cluster's ports while the ports it was given are not yet bound.
    narrow = port_slice(7, 40)
    monkeypatch.setenv(PORT_RANGE_ENV, narrow)
    reserved = list(port_range_of(narrow))[::2]
    reserve_ports(reserved)
    drawn = [free_port() for _ in range(20)]
    assert not set(drawn) & set(reserved), drawn
