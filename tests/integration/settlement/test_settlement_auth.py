"""Who may do what, over real gRPC with bearer tokens (the backend does not matter: SQLite)."""

from __future__ import annotations

import time

import grpc
import grpc.aio

from riverboat.auth import TokenIssuer
from riverboat.v1 import settlement_pb2 as pb
from tests.integration.settlement._kit import SettlementClient, status_of
from tests.integration.settlement.conftest import StartSettlement

DENIED = grpc.StatusCode.PERMISSION_DENIED
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED


async def test_players_see_only_their_own_money_and_run_nothing(
    start_sqlite_settlement: StartSettlement, issuer: TokenIssuer
) -> None:
    server = await start_sqlite_settlement()
    async with grpc.aio.insecure_channel(server.address) as channel:
        operator = SettlementClient(channel, issuer.issue("boss", "operator"))
        await operator.deposit("ann", 700, "pay-ann")
        await operator.deposit("bob", 900, "pay-bob")
        ann = SettlementClient(channel, issuer.issue("ann", "player"))
        assert (await ann.balance()).balance == 700  # no player given: their own
        assert (await ann.balance("ann")).balance == 700
        assert await status_of(ann.balance("bob")) == DENIED
        assert await status_of(ann.entries("wallet:bob")) == DENIED
        assert await status_of(ann.entries("cashier")) == DENIED
        assert await status_of(ann.entries("rake")) == DENIED
        assert await status_of(ann.deposit("ann", 10**6, "free-money")) == DENIED
        assert await status_of(ann.withdraw("bob", 900, "theft")) == DENIED
        assert await status_of(ann.rake()) == DENIED
        assert await status_of(ann.reserve("bob", "t1", 100, "j1")) == DENIED
        assert await status_of(ann.release("bob", "j1")) == DENIED
        # Operators and auditors read anyone's; auditors change nothing.
        auditor = SettlementClient(channel, issuer.issue("eve", "auditor"))
        assert (await auditor.balance("bob")).balance == 900
        assert (await auditor.rake()).total_rake == 0
        assert await status_of(auditor.deposit("eve", 1, "x")) == DENIED
        assert await status_of(operator.entries("wallet:nobody")) == grpc.StatusCode.NOT_FOUND
        assert await status_of(ann.entries()) == grpc.StatusCode.OK  # their own wallet
        lobby = SettlementClient(channel, issuer.issue("lobby", "service"))
        bad_table = await status_of(lobby.reserve("ann", "no such.table", 100, "j1"))
        assert bad_table == grpc.StatusCode.INVALID_ARGUMENT
        # Reservations are for Riverboat's own services (the lobby), not for operators.
        assert await status_of(operator.reserve("ann", "t1", 100, "j1")) == DENIED
        assert (await operator.balance("ann")).balance == 700


async def test_missing_expired_and_forged_tokens_are_refused(
    start_sqlite_settlement: StartSettlement, issuer: TokenIssuer
) -> None:
    server = await start_sqlite_settlement()
    async with grpc.aio.insecure_channel(server.address) as channel:
        expired = issuer.issue("boss", "operator", ttl=60, now=time.time() - 3600)
        forged = TokenIssuer(b"not the room's key, but 32 bytes!").issue("boss", "operator")
        for token in (expired, forged, "not-a-token"):
            client = SettlementClient(channel, token)
            assert await status_of(client.deposit("ann", 100, "p")) == UNAUTHENTICATED
            assert await status_of(client.balance("ann")) == UNAUTHENTICATED
        stub = SettlementClient(channel, "x").stub
        try:
            await stub.GetBalance(pb.GetBalanceRequest(player="ann"))  # no metadata at all
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == UNAUTHENTICATED
            assert "log in" in (exc.details() or "")
        else:
            raise AssertionError("a call without a token was answered")
        operator = SettlementClient(channel, issuer.issue("boss", "operator"))
        assert (await operator.balance("ann")).balance == 0  # nothing got through
