"""`riverboat up` and `riverboat bots` as an operator runs them: real processes, Ctrl-C, closed
pipes, a server an earlier run left behind, and NATS identities on."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import nats
import psutil
import pytest

from riverboat.auth import TokenIssuer
from riverboat.services.launcher import free_port
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc
from tests.e2e._upkit import ENV, leftovers, reap
from tests.e2e._upkit import free_ports as _ports
from tests.e2e._upkit import riverboat as _riverboat
from tests.e2e._upkit import seated as _seated
from tests.e2e._upkit import up_command as _up


def banner_command(banner: str, title: str) -> list[str]:
    """The words of the command the banner prints on the lines after ``title`` (continued
    with backslashes)."""
    lines = banner.partition(title)[2].splitlines()[1:]
    words: list[str] = []
    for line in lines:
        words += line.strip().removesuffix("\\").split()
        if not line.rstrip().endswith("\\"):
            return words
    raise AssertionError(f"no command after {title!r}:\n{banner}")


def test_up_starts_the_room_bots_play_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    """The whole room with NATS identities on: four services, bots, the auditor's audit."""
    ports = _ports()
    output = tmp_path / "up.out"
    var = tmp_path / "var"
    # The chain heads, published every second to VAR and through a command (a stand-in for
    # an outside timestamping service: a shell appending to a file of its own).
    tsa = tmp_path / "tsa.jsonl"
    heads = ["--heads-interval", "1", "--heads-command", f"cat >> {tsa}"]
    with output.open("w") as sink:
        up = subprocess.Popen(
            _up(var, ports, *heads), stdout=sink, stderr=subprocess.STDOUT, cwd=tmp_path, env=ENV
        )
    nats_url = f"nats://127.0.0.1:{ports[4]}"
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
        for name in ("lobby", "table", "dealer", "settlement"):
            log = (var / "logs" / f"{name}.log").read_text()
            assert f"--nats-user {name}" in " ".join(_cmdline_of(name, tmp_path)), name
            assert "violation" not in log.lower(), log[-2000:]
        bots = subprocess.run(
            _riverboat(
                "bots",
                "--table-address",
                f"127.0.0.1:{ports[1]}",
                "--tables",
                "2",
                "--seats",
                "3",
                "--seconds",
                "6",
            ),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env=ENV,
            check=False,
        )
        assert bots.returncode == 0, bots.stderr
        assert "bots acted" in bots.stdout and "bots acted 0 times" not in bots.stdout
        # The auditor's identity reads and verifies the live streams; no login is refused.
        password = str(var / "nats-auth" / "auditor.password")
        login = ["--nats-user", "auditor", "--nats-password-file", password]
        audit = subprocess.run(
            _riverboat("audit", "--nats", nats_url, *login),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            check=False,
        )
        assert audit.returncode == 0 and "RESULT: OK" in audit.stdout, audit.stdout + audit.stderr
        # The publisher `up` started: the service's copy of the signed heads is the local one,
        # and the live log holds every head published.
        assert f"chain heads   every 1 s to {var / 'chain-heads.jsonl'}" in seen, seen
        received = tsa.read_text().splitlines()  # (first: the file is written before the pipe)
        published = (var / "chain-heads.jsonl").read_text().splitlines()
        assert len(received) >= 2 and published[: len(received)] == received
        # The banner's audit command, run as printed: the auditor's NATS user, and the
        # publisher's public key (never its private key) to check the heads with.
        hint = banner_command(seen, "Audit the room as the auditor's NATS user")
        assert f"--heads-key {var / 'heads.key.pub'}" in " ".join(hint), hint
        assert hint[0] == ".venv/bin/riverboat", hint
        checked = subprocess.run(
            _riverboat(*hint[1:], "--no-progress"),
            capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "signed publications checked" in checked.stdout
        # ... and against the copy the outside service kept.
        checked = subprocess.run(
            _riverboat(
                "audit", "--nats", nats_url, *login, "--heads", str(tsa), "--heads-key",
                str(var / "heads.key.pub"),
            ),
            capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
        # The operator's identity replays the logs into a ledger of its own, as rebuild does.
        operator = ["--nats-user", "operator", "--nats-password-file"]
        rebuilt = subprocess.run(
            _riverboat(
                "settlement",
                "rebuild",
                "--quiet",
                "--nats",
                nats_url,
                *operator,
                str(var / "nats-auth" / "operator.password"),
                "--database",
                f"sqlite:///{tmp_path / 'rebuilt.db'}",
            ),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            check=False,
        )
        assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
        assert "table records" in rebuilt.stdout, rebuilt.stdout
        anonymous = subprocess.run(
            _riverboat("audit", "--nats", nats_url),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            check=False,
        )
        assert anonymous.returncode != 0 and "Authorization Violation" in anonymous.stderr
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(timeout=60)
    assert reap(tmp_path) == [], "no service or nats-server is left running"
    assert up.returncode == 0
    assert "stopped." in output.read_text()


def _cmdline_of(service: str, root: Path) -> list[str]:
    for proc in psutil.process_iter(["cmdline", "cwd"]):
        cmdline = proc.info["cmdline"] or []
        if f"riverboat.services.{service}" in cmdline and proc.info["cwd"] == str(root):
            return list(cmdline)
    return []


@pytest.mark.parametrize("reader", ["head -1", "tee, then Ctrl-C"])
def test_ctrl_c_stops_everything_after_the_output_pipe_closed(tmp_path: Path, reader: str) -> None:
    """`riverboat up | head -1`, or `| tee` and Ctrl-C (which ends tee first): stdout is a pipe
    nobody reads any more. Ctrl-C must still stop every service and the nats-server, and leave
    nothing behind in the temporary directory (the nats-server's config and log).
    ``--lease-ttl`` reaches the table service."""
    ports = _ports()
    var = tmp_path / "var"
    errors = tmp_path / "up.err"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with errors.open("w") as sink:
        up = subprocess.Popen(
            _up(var, ports, "--lease-ttl", "4"),
            stdout=subprocess.PIPE,
            stderr=sink,
            cwd=tmp_path,
            env={**ENV, "TMPDIR": str(tmp)},
        )
    assert up.stdout is not None
    try:
        if reader == "head -1":
            first = up.stdout.readline()
            assert first.startswith(b"nats-server"), first
            up.stdout.close()  # head exits after its line
            _seated(var, f"127.0.0.1:{ports[0]}")  # the banner went into the closed pipe
        else:
            _seated(var, f"127.0.0.1:{ports[0]}")
            up.stdout.close()  # Ctrl-C reaches tee too, and tee goes first
        assert leftovers(tmp_path), "the room runs (the oracle sees its processes)"
        assert list(tmp.glob("riverboat-nats-*")), "the nats-server's config is in TMPDIR"
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(timeout=90)
    assert reap(tmp_path) == [], errors.read_text()[-3000:]
    assert up.returncode == 0, errors.read_text()[-3000:]
    assert "Traceback" not in errors.read_text(), errors.read_text()[-3000:]
    instance = [
        json.loads(line)
        for line in (var / "logs" / "table.log").read_text().splitlines()
        if '"table_instance"' in line
    ]
    assert [line["lease_ttl"] for line in instance] == [4.0], instance
    assert list(tmp.glob("riverboat-nats-*")) == [], "nothing left behind after a clean stop"


def _orphan_nats_server(store: Path, port: int, cwd: Path) -> int:
    """A Riverboat nats-server whose launcher died without stopping it (an earlier run killed
    with -9): it keeps running, holding the store and the port. Returns its pid."""
    script = (
        "import os; from riverboat.natsserver import NatsServer; "
        f"s = NatsServer({str(store)!r}, port={port}).start(); print(s.pid, flush=True); "
        "os._exit(0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=cwd
    )
    return int(done.stdout)


async def _messages(url: str, stream: str) -> int:
    nc = await nats.connect(url, allow_reconnect=False)
    try:
        return int((await nc.jetstream().stream_info(stream)).state.messages)
    finally:
        await nc.close()


async def _write(url: str) -> None:
    nc = await nats.connect(url, allow_reconnect=False)
    try:
        js = nc.jetstream()
        await js.add_stream(name="RB_EARLIER", subjects=["rb.earlier.>"])
        for n in range(3):
            await js.publish(f"rb.earlier.{n}", b"from the earlier run")
    finally:
        await nc.close()


async def test_a_second_up_names_the_stale_server_and_leaves_its_store_alone(
    tmp_path: Path,
) -> None:
    var = tmp_path / "var"
    ports = _ports()
    stale = _orphan_nats_server(var / "nats", ports[4], tmp_path)
    url = f"nats://127.0.0.1:{ports[4]}"
    try:
        await _write(url)
        store_files = sorted(p.name for p in (var / "nats").rglob("*"))
        # The same port (what `make run` does again), then another port on the same store.
        for nats_port in (ports[4], free_port()):
            second = subprocess.run(
                _up(var, [*ports[:4], nats_port]),
                capture_output=True,
                text=True,
                timeout=120,
                cwd=tmp_path,
                env=ENV,
                check=False,
            )
            lines = second.stderr.strip().splitlines()
            assert second.returncode != 0, second.stdout + second.stderr
            assert len(lines) == 1, second.stderr
            assert f"pid {stale}" in lines[0] and f"kill {stale}" in lines[0], lines
            assert second.stdout == "", second.stdout
            # Nothing else opened the store: the stale server alone holds it, and answers.
            holders = [line.split()[0] for line in leftovers(var / "nats")]
            assert holders == [str(stale)], holders
            assert await _messages(url, "RB_EARLIER") == 3
        assert store_files and sorted(p.name for p in (var / "nats").rglob("*")) == store_files
    finally:
        os.kill(stale, signal.SIGKILL)


async def _stream_replicas(urls: list[str], password_file: Path) -> dict[str, int]:
    nc = await nats.connect(
        servers=urls,
        user="auditor",
        password=password_file.read_text().strip(),
        inbox_prefix="_INBOX_auditor",
        connect_timeout=5,
    )
    try:
        js = nc.jetstream()
        found = {}
        for stream in ("RB_TABLES", "RB_AUDIT", "RB_WALLETS"):
            found[stream] = int((await js.stream_info(stream)).config.num_replicas or 1)
        return found
    finally:
        await nc.close()


@pytest.mark.slow
def test_up_with_a_three_node_cluster_and_two_table_instances(tmp_path: Path) -> None:
    """`riverboat up --cluster 3 --table-instances 2`: three nats-servers, R3 streams, two table
    processes, the bots playing; Ctrl-C stops every process."""
    ports = _ports()
    output = tmp_path / "up.out"
    var = tmp_path / "var"
    command = _up(var, ports, "--cluster", "3", "--table-instances", "2")
    with output.open("w") as sink:
        up = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=tmp_path, env=ENV)
    try:
        deadline = time.monotonic() + 90
        seen = ""
        while time.monotonic() < deadline and "main pot" not in seen.partition("3rd street")[2]:
            time.sleep(0.2)
            seen = output.read_text()
        assert "*** 3rd street ***" in seen and "main pot" in seen, seen
        urls = [line.split()[1] for line in seen.splitlines() if line.startswith("nats-server")]
        assert len(urls) == 3 and f"127.0.0.1:{ports[4]}" not in " ".join(urls), seen
        assert "streams       3 replicas each" in seen, seen
        assert any(line.startswith("table-2 ") for line in seen.splitlines()), seen
        tables = [
            proc
            for proc in psutil.process_iter(["cmdline", "cwd"])
            if "riverboat.services.table" in (proc.info["cmdline"] or [])
            and proc.info["cwd"] == str(tmp_path)
        ]
        assert len(tables) == 2
        nodes = [line for line in leftovers(tmp_path) if "nats-server" in line.split()[1]]
        assert len(nodes) == 3, nodes
        replicas = asyncio.run(_stream_replicas(urls, var / "nats-auth" / "auditor.password"))
        assert replicas == {"RB_TABLES": 3, "RB_AUDIT": 3, "RB_WALLETS": 3}
        # The two instances divide the demo tables: each table's owner is one of them.
        instances = {
            line.split()[1]
            for line in seen.splitlines()
            if line.startswith(("table ", "table-2 ")) and "(log " in line
        }
        assert len(instances) == 2, seen
        token = TokenIssuer(bytes.fromhex((var / "token.key").read_text())).issue("t", "operator")
        with grpc.insecure_channel(f"127.0.0.1:{ports[0]}") as channel:
            stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
            listed = stub.ListTables(
                lobby_pb2.ListTablesRequest(), metadata=(("authorization", f"Bearer {token}"),)
            ).tables
        owners = {t.table_id: t.owner_address for t in listed}
        assert len(owners) == 2 and set(owners.values()) <= instances, (owners, instances)
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(timeout=60)
    assert reap(tmp_path) == [], "no service or nats-server is left running"
    assert up.returncode == 0


REPO = Path(__file__).resolve().parents[2]


def test_make_run_passes_args_and_the_banner_hints_reach_the_room(tmp_path: Path) -> None:
    """`make run ARGS="..."` for real: the flags reach `riverboat up`, and the banner's hints
    carry the non-default addresses, so the `riverboat admin` hint, run as printed, answers."""
    ports = _ports()
    var = tmp_path / "var"
    args = " ".join(_up(var, ports)[4:])  # the flags after `-m riverboat.cli up`
    output = tmp_path / "run.out"
    with output.open("w") as sink:
        # A session of its own, so the Ctrl-C reaches make and the room as a terminal's would.
        run = subprocess.Popen(
            ["make", "--no-print-directory", "-C", str(REPO), "run", f"ARGS={args}"],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=ENV,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        seen = ""
        while time.monotonic() < deadline and "Press Ctrl-C" not in seen:
            time.sleep(0.2)
            seen = output.read_text()
        assert "Press Ctrl-C" in seen, seen
        lobby = f"127.0.0.1:{ports[0]}"
        assert f"lobby         {lobby}  (log {var / 'logs' / 'lobby.log'})" in seen, seen
        hint = next(line for line in seen.splitlines() if "riverboat admin tables" in line)
        assert f"--lobby {lobby} --settlement 127.0.0.1:{ports[3]}" in hint, hint
        play = next(line for line in seen.splitlines() if "riverboat play" in line)
        assert f"--lobby {lobby} --table 127.0.0.1:{ports[1]}" in play, play
        assert f"grpcurl -plaintext {lobby} list" in seen, seen
        words = hint.split()
        assert words[0] == ".venv/bin/riverboat", hint
        tables = subprocess.run(
            _riverboat(*words[1:]),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            # Wide enough for the table's cells on one line (pytest-xdist's workers set 80).
            env={**ENV, "COLUMNS": "200"},
            check=False,
        )
        assert tables.returncode == 0, tables.stdout + tables.stderr
        assert "Dealer's choice" in tables.stdout, tables.stdout
        # The banner's `login --save`, run as printed, keeps the token where it says, and the
        # next command to that lobby reads it from there (no password given).
        saving = banner_command(seen, "riverboat admin tables")
        where = f"var/admin@{lobby}.token"
        assert saving[-1] == "--save" and f"the token is in {where})" in seen, seen
        saved = subprocess.run(
            _riverboat(*saving[1:]), capture_output=True, text=True, timeout=60, cwd=tmp_path,
            env=ENV, check=False,
        )  # fmt: skip
        assert saved.returncode == 0 and (tmp_path / where).is_file(), saved.stderr
        settlement = f"127.0.0.1:{ports[3]}"
        again = subprocess.run(
            _riverboat("admin", "players", "--lobby", lobby, "--settlement", settlement),
            capture_output=True, text=True, timeout=60, cwd=tmp_path,
            env={**ENV, "COLUMNS": "200"}, stdin=subprocess.DEVNULL, check=False,
        )  # fmt: skip
        assert again.returncode == 0 and "Players" in again.stdout, again.stdout + again.stderr
    finally:
        os.killpg(run.pid, signal.SIGINT)
        run.wait(timeout=90)
    assert reap(tmp_path) == [], "no service or nats-server is left running"
    assert "stopped." in output.read_text(), output.read_text()[-3000:]


def test_up_refuses_one_port_for_two_services_and_starts_nothing(tmp_path: Path) -> None:
    # Found in CI: two services drawn the same free port got as far as the demo's login,
    # which the table service answered UNIMPLEMENTED, and ended in a traceback.
    ports = _ports()
    ports[1] = ports[0]  # the table on the lobby's port
    var = tmp_path / "var"
    done = subprocess.run(
        _up(var, ports), capture_output=True, text=True, env=ENV, timeout=60, check=False
    )
    assert done.returncode == 2, done
    assert "--table-address and --lobby-address both name port" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (var / "nats").exists()  # nothing was started


def test_free_ports_are_never_handed_out_twice() -> None:
    ports = [free_port() for _ in range(300)]
    assert len(set(ports)) == len(ports)
