"""A stand-in for the settlement service: in-memory wallets behind the real gRPC API.

Only for client tests (``riverboat play``/``admin``) while the real service is not in the
tree: it answers the calls the lobby and the clients make (deposits, withdrawals, balances,
buy-in reservations, an empty ledger and rake report) without a ledger, events or auth checks.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import grpc

from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.v1 import settlement_pb2 as pb
from riverboat.v1 import settlement_pb2_grpc
from tests.integration.room.conftest import Room, _lobby


@dataclass
class Wallets:
    """Balances and the references already used."""

    balance: dict[str, int] = field(default_factory=dict)
    reserved: dict[str, tuple[str, int]] = field(default_factory=dict)  # reference -> player
    refs: set[tuple[str, str]] = field(default_factory=set)
    rake_rows: list[pb.RakeReportRow] = field(default_factory=list)


class FakeSettlement(settlement_pb2_grpc.SettlementServiceServicer):
    """The servicer."""

    def __init__(self) -> None:
        self.w = Wallets()

    async def Deposit(self, request: pb.DepositRequest, context: Any) -> pb.DepositResponse:
        key = (request.player, request.external_ref)
        if key in self.w.refs:
            return pb.DepositResponse(balance=self.w.balance[request.player], duplicate=True)
        if request.amount <= 0:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the amount must be positive")
        self.w.refs.add(key)
        self.w.balance[request.player] = self.w.balance.get(request.player, 0) + request.amount
        return pb.DepositResponse(balance=self.w.balance[request.player])

    async def Withdraw(self, request: pb.WithdrawRequest, context: Any) -> pb.WithdrawResponse:
        key = (request.player, request.external_ref)
        if key in self.w.refs:
            return pb.WithdrawResponse(balance=self.w.balance[request.player], duplicate=True)
        have = self.w.balance.get(request.player, 0)
        if request.amount > have:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{request.player} has only {have} cents in the wallet",
            )
        self.w.refs.add(key)
        self.w.balance[request.player] = have - request.amount
        return pb.WithdrawResponse(balance=self.w.balance[request.player])

    async def GetBalance(
        self, request: pb.GetBalanceRequest, context: Any
    ) -> pb.GetBalanceResponse:
        return pb.GetBalanceResponse(
            player=request.player, balance=self.w.balance.get(request.player, 0)
        )

    async def ListLedgerEntries(
        self, request: pb.ListLedgerEntriesRequest, context: Any
    ) -> pb.ListLedgerEntriesResponse:
        entries = [
            pb.LedgerEntry(
                posting_id=n,
                account=request.account,
                amount=amount,
                kind="deposit",
                reference=f"ref-{n}",
                occurred_at="2025-01-02T03:04:05Z",
                balance_after=amount * n,
            )
            for n, amount in ((2, 2500), (1, 2500))
        ]
        return pb.ListLedgerEntriesResponse(entries=entries)

    async def GetRakeReport(
        self, request: pb.GetRakeReportRequest, context: Any
    ) -> pb.GetRakeReportResponse:
        rows = [
            r for r in self.w.rake_rows if not request.table_id or r.table_id == request.table_id
        ]
        return pb.GetRakeReportResponse(rows=rows, total_rake=sum(r.rake for r in rows))

    async def ReserveBuyIn(
        self, request: pb.ReserveBuyInRequest, context: Any
    ) -> pb.ReserveBuyInResponse:
        if request.reference in self.w.reserved:
            return pb.ReserveBuyInResponse(
                balance=self.w.balance.get(request.player, 0), duplicate=True
            )
        have = self.w.balance.get(request.player, 0)
        if request.amount > have:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"your wallet has ${have / 100:.2f}, not enough for a ${request.amount / 100:.2f} "
                "buy-in",
            )
        self.w.balance[request.player] = have - request.amount
        self.w.reserved[request.reference] = (request.player, request.amount)
        return pb.ReserveBuyInResponse(balance=self.w.balance[request.player])

    async def ReleaseBuyIn(
        self, request: pb.ReleaseBuyInRequest, context: Any
    ) -> pb.ReleaseBuyInResponse:
        player, amount = self.w.reserved.pop(request.reference, (request.player, 0))
        self.w.balance[player] = self.w.balance.get(player, 0) + amount
        return pb.ReleaseBuyInResponse(balance=self.w.balance[player], released=amount > 0)


async def start_fake_settlement() -> tuple[grpc.aio.Server, FakeSettlement, str]:
    """Serve a :class:`FakeSettlement` on a free port of this event loop."""
    server = grpc.aio.server()
    fake = FakeSettlement()
    settlement_pb2_grpc.add_SettlementServiceServicer_to_server(fake, server)  # type: ignore[no-untyped-call]
    address = f"127.0.0.1:{free_port()}"
    server.add_insecure_port(address)
    await server.start()
    return server, fake, address


async def start_lobby_with_settlement(
    room: Room,
) -> tuple[ServiceProcess, grpc.aio.Server, FakeSettlement, str]:
    """The room's lobby as a child process, buying in from a fake settlement in this loop."""
    server, fake, address = await start_fake_settlement()
    tag = room.table.args[room.table.args.index("--stream") + 1].removeprefix("RB_TABLES_")
    lobby = _lobby(room.nats_url, room.var, room.table_address, address, tag)
    try:
        await asyncio.to_thread(lobby.start)
    except BaseException:
        await server.stop(None)
        raise
    return lobby, server, fake, address
