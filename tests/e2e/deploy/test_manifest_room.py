"""The room exactly as the manifests run it, on loopback: no cluster or Docker engine here, so
every replica of every Deployment in deploy/k8s/base runs as a process with its own args and
its Secret-fed environment (only the addresses are rewritten to loopback ports), against a
three-node NATS cluster with the room's users and a PostgreSQL database. The migration Job runs
first and exits 0; then every replica passes its readiness probe (gRPC health ``""``) and its
liveness probe (health ``liveness``) and serves Prometheus text on its metrics port; the
operator from the Secret logs in and opens a table, which every lobby lists; the streams are R3,
no log shows a NATS permission violation, and every replica stops with 0 on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats
import psycopg
import pytest

from riverboat.client import LobbyClient
from riverboat.natsauth import IDENTITIES, inbox_prefix, room_users
from riverboat.natsserver import NatsCluster
from riverboat.services.launcher import free_port, wait_serving
from tests.e2e.deploy._kit import ROOT, pod_specs, render

pytestmark = pytest.mark.timeout(180)

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/{db}"
ORDER = ["dealer", "table", "settlement", "lobby"]  # started together; readiness waits in order
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


def _environment(
    container: dict[str, Any], values: dict[tuple[str, str], str], pod: dict[str, str]
) -> dict[str, str]:
    """The container's environment as the kubelet builds it: Secret keys, the pod's own fields
    (``pod`` maps a fieldPath to its value) and ``$(VAR)`` references to earlier variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_")}
    for variable in container.get("env", []):
        source = variable.get("valueFrom", {})
        if "secretKeyRef" in source:
            ref = source["secretKeyRef"]
            value = values[(ref["name"], ref["key"])]
        elif "fieldRef" in source:
            value = pod[source["fieldRef"]["fieldPath"]]
        else:
            value = re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], variable["value"])
        env[variable["name"]] = value
    return env


@dataclass
class Replica:
    """One pod of a Deployment, as a process on loopback ports."""

    name: str
    grpc_port: int = field(default_factory=free_port)
    metrics_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"


def test_the_manifests_room_starts_and_serves(tmp_path: Path, database: str) -> None:
    passwords = {user: secrets.token_urlsafe(12) for user in IDENTITIES}
    cluster = NatsCluster(tmp_path / "nats", size=3, users=room_users(passwords))
    cluster.start()
    values = _secrets(database, passwords)
    manifests = render(ROOT / "deploy" / "k8s" / "base")
    pods = dict(pod_specs(manifests))
    replicas = {
        m["metadata"]["name"]: [
            Replica(f"{m['metadata']['name']}-{n}") for n in range(m["spec"]["replicas"])
        ]
        for m in manifests
        if m["kind"] == "Deployment"
    }
    assert set(replicas) == set(ORDER)
    # A Service's name reaches one of its pods; the first replica stands for it here.
    services = {name: pods_[0].address for name, pods_ in replicas.items()}

    def rewrite(replica: Replica, args: list[str]) -> list[str]:
        out = []
        for arg in args:
            host, _, port = arg.partition(":")
            if arg == "nats://nats:4222":
                arg = ",".join(cluster.urls)
            elif arg == "0.0.0.0:9090":
                arg = f"127.0.0.1:{replica.metrics_port}"
            elif host == "0.0.0.0":
                arg = replica.address
            elif host in services and port.isdigit():
                arg = services[host]
            out.append(arg)
        return out

    everyone = [r for name in ORDER for r in replicas[name]]
    try:
        (job,) = pods["settlement-migrate"]["containers"]
        migrated = subprocess.run(
            [sys.executable, "-m", "riverboat.cli", *job["args"]],
            env=_environment(job, values, {}),
            cwd=tmp_path,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert migrated.returncode == 0, migrated.stderr
        assert b"ledger schema empty ->" in migrated.stdout
        for name in ORDER:
            (container,) = pods[name]["containers"]
            for replica in replicas[name]:
                fields = {"metadata.name": replica.name, "status.podIP": "127.0.0.1"}
                env = _environment(container, values, fields)
                # "$(POD_IP):<containerPort>" is this replica's own address here.
                own = f"127.0.0.1:{container['ports'][0]['containerPort']}"
                env = {k: v.replace(own, replica.address) for k, v in env.items()}
                log = (tmp_path / f"{replica.name}.log").open("wb")
                replica.process = subprocess.Popen(
                    [sys.executable, "-m", "riverboat.cli", *rewrite(replica, container["args"])],
                    env=env,
                    cwd=tmp_path,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
        for replica in everyone:
            try:
                wait_serving(replica.address, timeout=90, process=replica.process)  # readiness
            except TimeoutError as exc:
                log_text = (tmp_path / f"{replica.name}.log").read_text(errors="replace")
                pytest.fail(f"{replica.name}: {exc}\n{log_text[-4000:]}")
            wait_serving(replica.address, timeout=5, service="liveness")  # the liveness probe
            metrics = urllib.request.urlopen(
                f"http://127.0.0.1:{replica.metrics_port}/metrics", timeout=5
            ).read()
            assert b"# TYPE" in metrics, replica.name
        lobbies = [r.address for r in replicas["lobby"]]
        asyncio.run(_check_room(cluster, passwords, values, lobbies))
        for replica in everyone:  # the cluster's users let every service do what it does
            log_text = (tmp_path / f"{replica.name}.log").read_text().lower()
            assert "violation" not in log_text, (replica.name, log_text[-2000:])
        for replica in reversed(everyone):
            assert replica.process is not None
            replica.process.send_signal(signal.SIGTERM)
            assert replica.process.wait(30) == 0, replica.name
    finally:
        for replica in everyone:
            if replica.process is not None and replica.process.poll() is None:
                replica.process.kill()
                replica.process.wait(10)
        cluster.close()


async def _check_room(
    cluster: NatsCluster,
    passwords: dict[str, str],
    values: dict[tuple[str, str], str],
    lobbies: list[str],
) -> None:
    password = values[("riverboat-operator", "password")]
    async with grpc.aio.insecure_channel(lobbies[0]) as channel:
        lobby = LobbyClient(channel)
        await lobby.login("operator", password)
        table = await lobby.create_table("pacific", "From the manifests", request_id="deploy-1")
    for address in lobbies:  # every lobby replica follows the log: each lists the new table
        async with grpc.aio.insecure_channel(address) as channel:
            lobby = LobbyClient(channel)
            await lobby.login("operator", password)
            for _ in range(300):  # a bound, not a timed assertion: the follow takes milliseconds
                listed = [t.table_id for t in (await lobby.list_tables()).tables]
                if listed:
                    break
                await asyncio.sleep(0.1)
            assert listed == [table.table_id], address
    for stream, user in STREAMS.items():  # R3 on the three nodes, as the manifests ask
        nc = await nats.connect(
            cluster.urls, user=user, password=passwords[user], inbox_prefix=inbox_prefix(user)
        )
        try:
            info = await nc.jetstream().stream_info(stream)
            assert info.config.num_replicas == 3, stream
        finally:
            await nc.close()
