"""A real room for end-to-end tests: the dealer and table services as child processes on
free ports, over the session's nats-server (never the machine's own NATS)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from riverboat.auth import TokenIssuer
from riverboat.client import TableClient
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess, free_port
from tests.conftest import TEST_TOKEN_KEY


@dataclass
class Room:
    """Addresses and processes of one test's services."""

    nats_url: str
    dealer: ServiceProcess
    table: ServiceProcess
    var: Path
    issuer: TokenIssuer

    def token(self, subject: str, role: str = "player") -> str:
        """A bearer token the room's services accept."""
        return self.issuer.issue(subject, role)

    def client(self, channel: grpc.aio.Channel, subject: str, role: str = "player") -> TableClient:
        """A table client calling as ``subject`` with ``role``."""
        return TableClient(channel, self.token(subject, role), subject)

    @property
    def table_address(self) -> str:
        return self.table.address

    def restart_table(self) -> None:
        self.table.kill()
        self.table.start()

    def restart_dealer(self) -> None:
        self.dealer.kill()
        self.dealer.start()


# The key every test service shares (tests/conftest.py puts it in the environment).
KEY_ENV = {"RIVERBOAT_TOKEN_KEY": TEST_TOKEN_KEY.hex()}


def _dealer(nats_url: str, var: Path, streams: str, *extra: str) -> ServiceProcess:
    address = f"127.0.0.1:{free_port()}"
    return ServiceProcess(
        "dealer",
        address,
        [
            "--address",
            address,
            "--nats",
            nats_url,
            "--dev-key-file",
            str(var / "dealer.key"),
            "--log-format",
            "json",
            *_stream_flags(streams),
            *extra,
        ],
        log_path=var / "dealer.log",
        env=KEY_ENV,
    )


def _stream_flags(tag: str) -> list[str]:
    return [
        "--tables-stream",
        f"RB_TABLES_{tag}",
        "--tables-prefix",
        f"rb.tables{tag.lower()}",
        "--seeds-stream",
        f"RB_DEALER_{tag}",
        "--seeds-prefix",
        f"rb.dealer{tag.lower()}",
        "--audit-stream",
        f"RB_AUDIT_{tag}",
        "--audit-prefix",
        f"rb.audit{tag.lower()}",
    ]


def _lobby(
    nats_url: str, var: Path, table: str, settlement: str, tag: str, log_name: str = "lobby.log"
) -> ServiceProcess:
    address = f"127.0.0.1:{free_port()}"
    return ServiceProcess(
        "lobby",
        address,
        [
            "--address",
            address,
            "--nats",
            nats_url,
            "--table",
            table,
            "--settlement",
            settlement,
            "--stream",
            f"RB_LOBBY_{tag}",
            "--subject-prefix",
            f"rb.lobby{tag.lower()}",
            # The table leases of this room's table stream (riverboat.leases' naming rule).
            "--owners-bucket",
            f"RB_TABLES_{tag}_OWNERS",
            "--account",
            "boss:operator",
            "--log-format",
            "json",
        ],
        log_path=var / log_name,
        env={**KEY_ENV, "RIVERBOAT_PASSWORD_BOSS": "boss-password"},
    )


def _table(nats_url: str, var: Path, dealer: str, streams: str) -> ServiceProcess:
    address = f"127.0.0.1:{free_port()}"
    return ServiceProcess(
        "table",
        address,
        [
            "--address",
            address,
            "--nats",
            nats_url,
            "--dealer",
            dealer,
            "--hand-pause",
            "0.05",
            "--log-format",
            "json",
            "--stream",
            f"RB_TABLES_{streams}",
            "--subject-prefix",
            f"rb.tables{streams.lower()}",
        ],
        log_path=var / "table.log",
        env=KEY_ENV,
    )


@pytest.fixture
def room(nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Room]:
    """Dealer and table services for one test, on their own streams."""
    tag = f"T{abs(hash(request.node.nodeid)) % 10**8}"
    dealer = _dealer(nats_server.url, tmp_path, tag)
    dealer.start()
    table = _table(nats_server.url, tmp_path, dealer.address, tag)
    try:
        table.start()
    except Exception:
        dealer.kill()
        raise
    room = Room(nats_server.url, dealer, table, tmp_path, TokenIssuer(TEST_TOKEN_KEY))
    try:
        yield room
    finally:
        table.stop()
        dealer.stop()
        if os.environ.get("RB_KEEP_LOGS"):
            print((tmp_path / "table.log").read_text()[-5000:])


@pytest.fixture
async def operator(room: Room) -> AsyncIterator[TableClient]:
    """A table client calling as the operator."""
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        yield room.client(channel, "operator", "operator")


@pytest.fixture
def lobby(room: Room) -> Iterator[ServiceProcess]:
    """The lobby in front of the room's table service (operator account: boss)."""
    tag = room.table.args[room.table.args.index("--stream") + 1].removeprefix("RB_TABLES_")
    settlement = f"127.0.0.1:{free_port()}"  # replaced by the real one where a test needs it
    process = _lobby(room.nats_url, room.var, room.table_address, settlement, tag)
    process.start()
    try:
        yield process
    finally:
        process.stop()
