"""NATS logins by key, against real nats-servers configured here: an nkey user listed in the
server's ``authorization`` block (``--nats-nkey``, a seed file), and a ``.creds`` file against
a server in operator/JWT mode (``--nats-creds``), with JWTs made by tests/natsjwt.py. Each is
shown to connect with JetStream, to run a real service process to SERVING and the auditor's
tool, and to be refused with the wrong key."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nats
import nkeys
import pytest

from riverboat.natsserver import find_nats_server
from riverboat.services.common.config import ServiceConfig
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.server import build_parser as dealer_parser
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.services.lobby.__main__ import parse as lobby_parse
from riverboat.services.lobby.config import LobbyConfig
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.server import build_parser as settlement_parser
from riverboat.services.table.__main__ import parse as table_parse
from riverboat.services.table.config import TableConfig
from tests.natsjwt import Key, account_jwt, creds_text, new_key, operator_jwt, user_jwt

pytestmark = pytest.mark.timeout(90)

#: What nats-py raises when the server refuses the login.
REFUSED = r"(?i)authorization|no servers"


@dataclass
class Server:
    url: str
    log: Path


@contextlib.contextmanager
def _nats_server(directory: Path, auth: str) -> Iterator[Server]:
    """A JetStream nats-server with ``auth`` (configuration text) on a free loopback port."""
    port = free_port()
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "nats.conf"
    config.write_text(
        f'host: 127.0.0.1\nport: {port}\njetstream {{ store_dir: "{directory / "js"}" }}\n{auth}'
    )
    log = directory / "nats.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(find_nats_server()), "-c", str(config)], stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 15
        while "Server is ready" not in log.read_text(errors="replace"):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
        yield Server(f"nats://127.0.0.1:{port}", log)
    finally:
        process.terminate()
        process.wait(10)


def _configs(flags: list[str]) -> dict[str, ServiceConfig]:
    """Every service's configuration from the same flags."""
    return {
        "dealer": DealerConfig.from_namespace(dealer_parser().parse_args(flags), {}),
        "settlement": SettlementConfig.from_namespace(settlement_parser().parse_args(flags), {}),
        "lobby": LobbyConfig.from_namespace(lobby_parse(flags), {}),
        "table": TableConfig.from_namespace(table_parse(flags), {}),
    }


async def _jetstream_answers(config: ServiceConfig) -> bool:
    nc = await nats.connect(
        **config.nats.connect_options(), connect_timeout=2, allow_reconnect=False
    )
    try:
        return (await nc.jetstream().account_info()) is not None
    finally:
        await nc.close()


def _dealer_serves(server: Server, flags: list[str], var: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    dealer = ServiceProcess(
        "dealer",
        address,
        ["--address", address, "--nats", server.url, *flags, "--dev-key-file",
         str(var / "dealer.key"), "--log-format", "json", "--grace", "1"],
        log_path=var / "dealer.log",
        env={"RIVERBOAT_TOKEN_KEY": os.environ["RIVERBOAT_TOKEN_KEY"]},
    )  # fmt: skip
    dealer.start()  # SERVING: connected, its streams created through the login
    dealer.stop()


def _audit(server: Server, flags: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_")}
    return subprocess.run(
        [sys.executable, "-m", "riverboat.cli", "audit", "--no-progress", "--nats", server.url,
         *flags],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip


def _write_seed(path: Path, key: Key) -> Path:
    path.write_text(key.seed + "\n")
    path.chmod(0o600)
    return path


# -- nkey users ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nkey_user(tmp_path_factory: pytest.TempPathFactory) -> Key:
    return new_key(nkeys.PREFIX_BYTE_USER)


@pytest.fixture(scope="module")
def nkey_server(tmp_path_factory: pytest.TempPathFactory, nkey_user: Key) -> Iterator[Server]:
    auth = f'authorization {{ users = [ {{ nkey: "{nkey_user.public}" }} ] }}\n'
    with _nats_server(tmp_path_factory.mktemp("nkey-server"), auth) as server:
        yield server


async def test_every_service_logs_in_with_an_nkey_seed(
    nkey_server: Server, nkey_user: Key, tmp_path: Path
) -> None:
    seed = _write_seed(tmp_path / "table.nk", nkey_user)
    for name, config in _configs(["--nats", nkey_server.url, "--nats-nkey", str(seed)]).items():
        assert config.nats_login.nkey_file == seed, name
        assert await _jetstream_answers(config), name
    # And through the environment, as a service process: SERVING means connected.
    address = f"127.0.0.1:{free_port()}"
    dealer = ServiceProcess(
        "dealer",
        address,
        ["--address", address, "--nats", nkey_server.url, "--dev-key-file",
         str(tmp_path / "dealer.key"), "--log-format", "json", "--grace", "1"],
        log_path=tmp_path / "dealer.log",
        env={"RIVERBOAT_TOKEN_KEY": os.environ["RIVERBOAT_TOKEN_KEY"],
             "RIVERBOAT_NATS_NKEY": str(seed)},
    )  # fmt: skip
    dealer.start()
    dealer.stop()
    audit = _audit(nkey_server, ["--nats-nkey", str(seed)])
    assert audit.returncode == 0 and "RESULT: OK" in audit.stdout, audit.stdout + audit.stderr


async def test_a_stranger_s_nkey_or_none_is_refused(nkey_server: Server, tmp_path: Path) -> None:
    stranger = _write_seed(tmp_path / "stranger.nk", new_key(nkeys.PREFIX_BYTE_USER))
    for flags in (["--nats-nkey", str(stranger)], []):
        config = _configs(["--nats", nkey_server.url, *flags])["table"]
        with pytest.raises(Exception, match=REFUSED):
            await _jetstream_answers(config)
    audit = _audit(nkey_server, ["--nats-nkey", str(stranger)])
    assert audit.returncode != 0 and "cannot connect" in audit.stderr, audit.stderr


# -- operator / JWT mode ---------------------------------------------------------------------------


@dataclass
class Operator:
    server: Server
    account: Key
    user: Key
    user_jwt: str


@pytest.fixture(scope="module")
def operator_mode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Operator]:
    operator = new_key(nkeys.PREFIX_BYTE_OPERATOR)
    system = new_key(nkeys.PREFIX_BYTE_ACCOUNT)
    account = new_key(nkeys.PREFIX_BYTE_ACCOUNT)
    user = new_key(nkeys.PREFIX_BYTE_USER)
    auth = (
        f'operator: "{operator_jwt(operator)}"\n'
        f'system_account: "{system.public}"\n'
        "resolver: MEMORY\n"
        "resolver_preload: {\n"
        f'  {system.public}: "{account_jwt(operator, system, "SYS", jetstream=False)}"\n'
        f'  {account.public}: "{account_jwt(operator, account, "RIVERBOAT")}"\n'
        "}\n"
    )
    with _nats_server(tmp_path_factory.mktemp("operator-server"), auth) as server:
        yield Operator(server, account, user, user_jwt(account, user, "table"))


async def test_every_service_logs_in_with_a_creds_file_in_operator_mode(
    operator_mode: Operator, tmp_path: Path
) -> None:
    creds = tmp_path / "table.creds"
    creds.write_text(creds_text(operator_mode.user_jwt, operator_mode.user))
    flags = ["--nats", operator_mode.server.url, "--nats-creds", str(creds)]
    for name, config in _configs(flags).items():
        assert config.nats_login.creds_file == creds, name
        assert await _jetstream_answers(config), name
    _dealer_serves(operator_mode.server, ["--nats-creds", str(creds)], tmp_path)
    audit = _audit(operator_mode.server, ["--nats-creds", str(creds)])
    assert audit.returncode == 0 and "RESULT: OK" in audit.stdout, audit.stdout + audit.stderr


async def test_creds_of_an_unknown_account_are_refused(
    operator_mode: Operator, tmp_path: Path
) -> None:
    """A user signed by an account the operator never signed (its JWT is well formed)."""
    stranger_account = new_key(nkeys.PREFIX_BYTE_ACCOUNT)
    user = new_key(nkeys.PREFIX_BYTE_USER)
    creds = tmp_path / "stranger.creds"
    creds.write_text(creds_text(user_jwt(stranger_account, user, "table"), user))
    config = _configs(["--nats", operator_mode.server.url, "--nats-creds", str(creds)])["table"]
    with pytest.raises(Exception, match=REFUSED):
        await _jetstream_answers(config)
    # The right JWT with another user's seed cannot sign the server's nonce.
    forged = tmp_path / "forged.creds"
    forged.write_text(creds_text(operator_mode.user_jwt, user))
    config = _configs(["--nats", operator_mode.server.url, "--nats-creds", str(forged)])["table"]
    with pytest.raises(Exception, match=REFUSED):
        await _jetstream_answers(config)
