"""Helpers for the settlement tests: a typed client, feeding a simulated room, waiting."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import grpc
import grpc.aio
from nats.aio.client import Client as NATS
from sqlalchemy import Engine

from riverboat.eventstore import JetStreamEventStore
from riverboat.ledger import canonical_dump
from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.models import Position
from riverboat.ledger.moneyfilter import moves_money
from riverboat.ledger.projection import TABLES, WALLETS
from riverboat.ledger.queries import RakeRow
from riverboat.services.common.auth import bearer_metadata
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.server import table_stream_settings, wallet_stream_settings
from riverboat.v1 import settlement_pb2 as pb
from riverboat.v1 import settlement_pb2_grpc
from tests.unit.ledger._sim import Command, Room


class SettlementClient:
    """Typed calls as one bearer token (the generated stub is untyped)."""

    def __init__(self, channel: grpc.aio.Channel, token: str) -> None:
        self.stub: Any = settlement_pb2_grpc.SettlementServiceStub(channel)  # type: ignore[no-untyped-call]
        self.metadata = bearer_metadata(token)

    async def call(self, method: str, request: Any) -> Any:
        return await getattr(self.stub, method)(request, metadata=self.metadata, timeout=15)

    async def deposit(self, player: str, amount: int, ref: str) -> pb.DepositResponse:
        request = pb.DepositRequest(player=player, amount=amount, external_ref=ref)
        reply: pb.DepositResponse = await self.call("Deposit", request)
        return reply

    async def withdraw(self, player: str, amount: int, ref: str) -> pb.WithdrawResponse:
        request = pb.WithdrawRequest(player=player, amount=amount, external_ref=ref)
        reply: pb.WithdrawResponse = await self.call("Withdraw", request)
        return reply

    async def balance(self, player: str = "") -> pb.GetBalanceResponse:
        reply: pb.GetBalanceResponse = await self.call(
            "GetBalance", pb.GetBalanceRequest(player=player)
        )
        return reply

    async def reserve(
        self, player: str, table_id: str, amount: int, ref: str
    ) -> pb.ReserveBuyInResponse:
        request = pb.ReserveBuyInRequest(
            player=player, table_id=table_id, amount=amount, reference=ref
        )
        reply: pb.ReserveBuyInResponse = await self.call("ReserveBuyIn", request)
        return reply

    async def release(self, player: str, ref: str, reason: str = "test") -> pb.ReleaseBuyInResponse:
        request = pb.ReleaseBuyInRequest(player=player, reference=ref, reason=reason)
        reply: pb.ReleaseBuyInResponse = await self.call("ReleaseBuyIn", request)
        return reply

    async def entries(
        self, account: str = "", page_size: int = 0, page_token: str = ""
    ) -> pb.ListLedgerEntriesResponse:
        request = pb.ListLedgerEntriesRequest(
            account=account, page_size=page_size, page_token=page_token
        )
        reply: pb.ListLedgerEntriesResponse = await self.call("ListLedgerEntries", request)
        return reply

    async def rake(
        self, from_day: str = "", to_day: str = "", table_id: str = ""
    ) -> pb.GetRakeReportResponse:
        request = pb.GetRakeReportRequest(from_day=from_day, to_day=to_day, table_id=table_id)
        reply: pb.GetRakeReportResponse = await self.call("GetRakeReport", request)
        return reply


async def status_of(call: Any) -> grpc.StatusCode:
    """The status code a call fails with (OK if it does not)."""
    try:
        await call
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def table_log(nc: NATS, config: SettlementConfig) -> JetStreamEventStore:
    """The configuration's table logs (as the table service writes them)."""
    return JetStreamEventStore(nc, table_stream_settings(config))


def wallet_log(nc: NATS, config: SettlementConfig) -> JetStreamEventStore:
    """The configuration's wallet logs."""
    return JetStreamEventStore(nc, wallet_stream_settings(config))


async def run_commands(
    commands: Iterable[Command], service: SettlementClient, tables: JetStreamEventStore
) -> None:
    """Replay a simulated room live: wallet commands through gRPC, table records into the log."""
    await tables.ensure_stream()
    for cmd in commands:
        if cmd.op == "deposit":
            await service.deposit(cmd.player, cmd.amount, cmd.ref)
        elif cmd.op == "withdraw":
            await service.withdraw(cmd.player, cmd.amount, cmd.ref)
        elif cmd.op == "reserve":
            await service.reserve(cmd.player, cmd.table_id, cmd.amount, cmd.ref)
        elif cmd.op == "release":
            await service.release(cmd.player, cmd.ref)
        else:
            assert cmd.record is not None
            await tables.append(
                cmd.record.aggregate_id,
                cmd.record.payload,
                expected_version=cmd.record.version - 1,
                request_id=f"sim-{cmd.record.version}",
            )


async def log_versions(nc: NATS, config: SettlementConfig) -> dict[tuple[str, str], int]:
    """The last version of every aggregate in both logs."""
    js = nc.jetstream()
    out: dict[tuple[str, str], int] = {}
    for source, stream, prefix in (
        (WALLETS, config.wallets_stream, config.wallets_prefix),
        (TABLES, config.tables_stream, config.tables_prefix),
    ):
        info = await js.stream_info(stream, subjects_filter=">")
        for subject, count in (info.state.subjects or {}).items():
            out[(source, subject[len(prefix) + 1 :])] = int(count)
    return out


def positions(engine: Engine) -> dict[tuple[str, str], int]:
    """The ledger's applied version of every aggregate."""
    from sqlalchemy import select

    with engine.connect() as conn:
        rows = conn.execute(select(Position.source, Position.aggregate_id, Position.version))
        return {(s, a): int(v) for s, a, v in rows}


async def _to_apply(
    nc: NATS,
    config: SettlementConfig,
    logs: dict[tuple[str, str], int],
    applied: dict[tuple[str, str], int],
) -> dict[tuple[str, str], int]:
    """The version the ledger must reach per aggregate: a wallet's last, a table's last record
    that moves money (the ledger skips the others: ``riverboat.ledger.moneyfilter``)."""
    out = dict(logs)
    tables = table_log(nc, config)
    for (source, aggregate), last in logs.items():
        done = applied.get((source, aggregate), 0)
        if source != TABLES or done >= last:
            continue
        out[(source, aggregate)] = done
        async for record in tables.iter_records(aggregate, done + 1):
            if record.version > last:
                break
            if moves_money(record.payload):
                out[(source, aggregate)] = record.version
    return out


async def ledger_records(nc: NATS, config: SettlementConfig) -> int:
    """How many records of both logs the ledger applies: every wallet record, and the table
    records that move money."""
    tables = table_log(nc, config)
    total = 0
    for (source, aggregate), last in (await log_versions(nc, config)).items():
        if source != TABLES:
            total += last
            continue
        async for record in tables.iter_records(aggregate):
            total += moves_money(record.payload)
    return total


async def wait_caught_up(
    nc: NATS, config: SettlementConfig, timeout: float = 30.0, settle: float = 0.3
) -> None:
    """Until the ledger has applied every record of both logs that it applies and nothing
    changed for a moment (reactions to table records append wallet records after the table
    record is applied)."""
    engine = create_ledger_engine(config.database_url)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        stable_since: float | None = None
        while True:
            applied = await asyncio.to_thread(positions, engine)
            logs = await _to_apply(nc, config, await log_versions(nc, config), applied)
            if all(applied.get(key, 0) >= version for key, version in logs.items()):
                stable_since = stable_since or loop.time()
                again = await _to_apply(nc, config, await log_versions(nc, config), applied)
                if loop.time() - stable_since >= settle and logs == again:
                    return
            else:
                stable_since = None
            if loop.time() > deadline:
                behind = {
                    k: (applied.get(k, 0), v) for k, v in logs.items() if applied.get(k, 0) < v
                }
                raise TimeoutError(f"ledger not caught up after {timeout}s: {behind}")
            await asyncio.sleep(0.05)
    finally:
        engine.dispose()


def dump_of(database_url: str) -> str:
    """The canonical dump of a ledger."""
    engine = create_ledger_engine(database_url)
    try:
        with engine.connect() as conn:
            return canonical_dump(conn)
    finally:
        engine.dispose()


def expected_rake(room: Room) -> list[RakeRow]:
    """What the hands imply: rake and hand count per table, game and day."""
    totals: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for table_id, variant, day, rake in room.rake:
        totals[(table_id, variant, day)][0] += 1
        totals[(table_id, variant, day)][1] += rake
    return [
        RakeRow(t, v, d, hands, rake)
        for (t, v, d), (hands, rake) in sorted(totals.items(), key=lambda i: (i[0][2], i[0][0]))
    ]


async def rebuilt_dump(nc: NATS, config: SettlementConfig, url: str) -> str:
    """Replay the configuration's logs into the ledger at ``url``; its canonical dump."""
    from riverboat.services.settlement.rebuild import rebuild

    engine = create_ledger_engine(url)
    try:
        result = await rebuild(engine, nc, config)
        assert not result.violations, result.violations
    finally:
        engine.dispose()
    return dump_of(url)


async def wait_acked(nc: NATS, config: SettlementConfig, timeout: float = 30.0) -> None:
    """Until both durable consumers have delivered and had acknowledged every message."""
    js = nc.jetstream()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        pending = 0
        for stream, kind in ((config.wallets_stream, "wallets"), (config.tables_stream, "tables")):
            info = await js.consumer_info(stream, f"{config.consumer}-{kind}")
            pending += int(info.num_pending or 0) + int(info.num_ack_pending or 0)
        if pending == 0:
            return
        if loop.time() > deadline:
            raise TimeoutError(f"{pending} messages still unacknowledged after {timeout}s")
        await asyncio.sleep(0.1)
