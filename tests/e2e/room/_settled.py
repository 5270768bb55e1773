"""The room's lobby with the real settlement service behind it, both as child processes.

For the client tests (``riverboat play``/``admin``): the settlement service reads the room's
table log (cash-outs, rake) and keeps its ledger in SQLite under the test's directory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import grpc

from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc
from tests.e2e.room.conftest import KEY_ENV, Room, _lobby


@dataclass
class Settled:
    """The lobby and the settlement service of one test."""

    lobby: ServiceProcess
    settlement: ServiceProcess


def _tag(room: Room) -> str:
    return room.table.args[room.table.args.index("--stream") + 1].removeprefix("RB_TABLES_")


def settlement_process(room: Room, extra: Sequence[str] = ()) -> ServiceProcess:
    """The settlement service on the room's table stream and its own wallet stream (and
    ``extra`` flags)."""
    tag = _tag(room)
    address = f"127.0.0.1:{free_port()}"
    return ServiceProcess(
        "settlement",
        address,
        [
            "--address",
            address,
            "--nats",
            room.nats_url,
            "--database",
            f"sqlite:///{room.var / 'settlement.db'}",
            "--wallets-stream",
            f"RB_WALLETS_{tag}",
            "--wallets-prefix",
            f"rb.wallets{tag.lower()}",
            "--tables-stream",
            f"RB_TABLES_{tag}",
            "--tables-prefix",
            f"rb.tables{tag.lower()}",
            # The room's account registry: the lobby's log (the lobby below writes it).
            "--accounts-stream",
            f"RB_LOBBY_{tag}",
            "--accounts-prefix",
            f"rb.lobby{tag.lower()}",
            "--log-format",
            "json",
            *extra,
        ],
        log_path=room.var / "settlement.log",
        env=KEY_ENV,
    )


@asynccontextmanager
async def settled_lobby(
    room: Room, settlement_args: Sequence[str] = (), lobby_args: Sequence[str] = ()
) -> AsyncIterator[Settled]:
    """Start the settlement service and a lobby that buys in from it (each with extra flags);
    stop both after."""
    settlement = settlement_process(room, settlement_args)
    await asyncio.to_thread(settlement.start)
    lobby = _lobby(room.nats_url, room.var, room.table_address, settlement.address, _tag(room))
    lobby.args.extend(lobby_args)
    try:
        await asyncio.to_thread(lobby.start)
        yield Settled(lobby, settlement)
    finally:
        await asyncio.to_thread(lobby.stop)
        await asyncio.to_thread(settlement.stop)


async def register(lobby_address: str, names: Iterable[str]) -> None:
    """Register each of ``names`` in the lobby (password ``<name>-password``): settlement moves
    money only for players the lobby knows."""
    async with grpc.aio.insecure_channel(lobby_address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        for name in names:
            await lobby.Register(
                lobby_pb2.RegisterRequest(username=name, password=f"{name}-password"), timeout=30
            )
