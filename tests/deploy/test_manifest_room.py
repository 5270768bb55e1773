"""The room exactly as the manifests run it, on loopback: no cluster or Docker engine here, so
each container of deploy/k8s/base runs as a process with its own args and its Secret-fed
environment (only the addresses are rewritten to loopback ports), against a three-node NATS
cluster with the room's users and R3 streams and a PostgreSQL database. The migration Job runs
first and exits 0; then every service passes its readiness probe (gRPC health ``""``), its
liveness probe (the port), serves Prometheus text on its metrics port, and the lobby logs in the
operator from the Secret and opens a table through the table service."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nats
import psycopg
import pytest

from riverboat.client import LobbyClient
from riverboat.natsauth import IDENTITIES, inbox_prefix, room_users
from riverboat.natsserver import NatsCluster
from riverboat.services.launcher import free_port, wait_serving
from tests.deploy._kit import ROOT, pod_specs, render

pytestmark = pytest.mark.timeout(180)

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/{db}"
ORDER = ["dealer", "table", "settlement", "lobby"]  # any order works; this one starts fastest
STREAMS = {  # stream -> a user allowed to read its info
    "RB_TABLES": "table",
    "RB_LOBBY": "lobby",
    "RB_WALLETS": "settlement",
    "RB_DEALER": "dealer",
    "RB_AUDIT": "dealer",
}


@pytest.fixture
def database() -> Iterator[str]:
    name = f"rb_deploy_{uuid.uuid4().hex[:10]}"
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=test", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield PG.format(db=name)
    finally:
        with psycopg.connect("host=127.0.0.1 user=postgres dbname=test", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _secrets(database_url: str, nats_passwords: dict[str, str]) -> dict[tuple[str, str], str]:
    """What `kubectl create secret` puts in the Secrets (deploy/README.md)."""
    values = {
        ("riverboat-token", "token.key"): secrets.token_hex(32),
        ("riverboat-dealer-key", "dealer.key"): secrets.token_hex(32),
        ("riverboat-operator", "password"): secrets.token_urlsafe(12),
        ("riverboat-database", "url"): database_url,
    }
    values |= {("riverboat-nats", user): nats_passwords[user] for user in IDENTITIES}
    return values


def _environment(container: dict[str, Any], values: dict[tuple[str, str], str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_")}
    for variable in container.get("env", []):
        ref = variable["valueFrom"]["secretKeyRef"]
        env[variable["name"]] = values[(ref["name"], ref["key"])]
    return env


def test_the_manifests_room_starts_and_serves(tmp_path: Path, database: str) -> None:
    passwords = {user: secrets.token_urlsafe(12) for user in IDENTITIES}
    cluster = NatsCluster(tmp_path / "nats", size=3, users=room_users(passwords))
    cluster.start()
    values = _secrets(database, passwords)
    pods = dict(pod_specs(render(ROOT / "deploy" / "k8s" / "base")))
    grpc_ports = {name: free_port() for name in ORDER}
    metrics_ports = {name: free_port() for name in ORDER}

    def rewrite(name: str, args: list[str]) -> list[str]:
        out = []
        for arg in args:
            if arg == "nats://nats:4222":
                arg = ",".join(cluster.urls)
            elif arg.startswith("0.0.0.0:9090"):
                arg = f"127.0.0.1:{metrics_ports[name]}"
            elif arg.startswith("0.0.0.0:"):
                arg = f"127.0.0.1:{grpc_ports[name]}"
            elif arg.partition(":")[0] in grpc_ports and arg.partition(":")[2].isdigit():
                arg = f"127.0.0.1:{grpc_ports[arg.partition(':')[0]]}"
            out.append(arg)
        return out

    running: list[subprocess.Popen[bytes]] = []
    try:
        (job,) = pods["settlement-migrate"]["containers"]
        migrated = subprocess.run(
            [sys.executable, "-m", "riverboat.cli", *job["args"]],
            env=_environment(job, values),
            cwd=tmp_path,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert migrated.returncode == 0, migrated.stderr
        assert b"ledger schema empty ->" in migrated.stdout
        for name in ORDER:
            (container,) = pods[name]["containers"]
            log = (tmp_path / f"{name}.log").open("wb")
            running.append(
                subprocess.Popen(
                    [sys.executable, "-m", "riverboat.cli", *rewrite(name, container["args"])],
                    env=_environment(container, values),
                    cwd=tmp_path,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        for name, process in zip(ORDER, running, strict=True):
            address = f"127.0.0.1:{grpc_ports[name]}"
            wait_serving(address, timeout=60, process=process)  # the readiness probe
            metrics = urllib.request.urlopen(
                f"http://127.0.0.1:{metrics_ports[name]}/metrics", timeout=5
            ).read()
            assert b"# TYPE" in metrics, name
        asyncio.run(_check_room(cluster, passwords, values, grpc_ports))
        for process in reversed(running):
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0
    finally:
        for process in running:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        cluster.close()


async def _check_room(
    cluster: NatsCluster,
    passwords: dict[str, str],
    values: dict[tuple[str, str], str],
    ports: dict[str, int],
) -> None:
    import grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{ports['lobby']}") as channel:
        lobby = LobbyClient(channel)
        await lobby.login("operator", values[("riverboat-operator", "password")])
        table = await lobby.create_table("pacific", "From the manifests", request_id="deploy-1")
        listed = await lobby.list_tables()
        assert [t.table_id for t in listed.tables] == [table.table_id]
    for stream, user in STREAMS.items():  # R3 on the three nodes, as the manifests ask
        nc = await nats.connect(
            cluster.urls, user=user, password=passwords[user], inbox_prefix=inbox_prefix(user)
        )
        try:
            info = await nc.jetstream().stream_info(stream)
            assert info.config.num_replicas == 3, stream
        finally:
            await nc.close()
