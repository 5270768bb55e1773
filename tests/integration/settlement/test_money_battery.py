"""Battery: money under contention, every record delivered two to five times.

One wallet, an initial deposit, then 200 buy-in reservations and 200 withdrawals of it all at
once, split between two settlement instances on one ledger (SQLite, and PostgreSQL where the
machine has it), so the wallet is contended within each process and between them. Some of the
reservations are then seated at tables and leave again, others are released. Every record of
both logs (wallets and tables) reaches the ledger two to five times: each instance has its own
durable consumers, so each record comes to both, at the same moment; and each instance holds
back its acknowledgement until JetStream has redelivered the record its share of the times.

Oracles, computed from the amounts and the initial balance alone:

- the requests that succeed are exactly as many as the balance allows (all amounts are equal,
  so the count does not depend on the order), the others are refused for insufficient funds;
- no balance is ever negative: not in any answer, not in any wallet event, not in any
  ledger line of the wallet, not in a balance read while the storm is on;
- the final balance is the initial one, less the successes, plus what came back;
- the ledger equals, row for row, the one a third instance builds from the same logs with
  every record delivered once (and it passes ``check_ledger``).

``test_the_money_oracles_catch_planted_bugs`` plants a consumer that posts a redelivered
record again, and a wallet that forgets to check funds, and shows the oracles catch both.
"""

from __future__ import annotations

import asyncio
import difflib
import random
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import grpc
import pytest
from nats.aio.client import Client as NATS
from sqlalchemy import select

from riverboat.auth import TokenIssuer
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import encode_batch
from riverboat.ledger import accounts as acc
from riverboat.ledger import check_ledger
from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.models import Account, PostingLine
from riverboat.ledger.walletcodec import decode_wallet_batch
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.consumers import Delivery
from riverboat.services.settlement.server import SettlementServer
from riverboat.table.events import AnyEvent, PlayerLeft, PlayerSeated, TableCreated
from riverboat.v1 import settlement_pb2 as pb
from tests import statuskit
from tests.battery import size
from tests.integration.settlement._kit import (
    SettlementClient,
    dump_of,
    table_log,
    wait_acked,
    wait_caught_up,
    wallet_log,
)

PLAYER = "whale"
AMOUNT = 300  # every buy-in and every withdrawal
SEATED = 16  # reservations seated (then leaving); as many are released
SEATS = 8


@dataclass
class Outcome:
    """What the storm did, as the clients saw it and as the ledger holds it."""

    ok: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    reserved: list[str] = field(default_factory=list)  # references that succeeded
    answered: list[int] = field(default_factory=list)  # balances in the answers
    polled: list[int] = field(default_factory=list)  # balances read during the storm
    deliveries: dict[tuple[str, str, int], int] = field(default_factory=dict)
    wanted: dict[tuple[str, int], int] = field(default_factory=dict)
    final: int = 0
    dump: str = ""
    single: str = ""
    wallet_events: list[int] = field(default_factory=list)  # balance after each event
    ledger_lines: list[int] = field(default_factory=list)  # the wallet account's lines
    ledger_report: str = ""


def _filter(name: str, share: int, outcome: Outcome, rng: random.Random) -> Any:
    """Ack a record only once this instance has had it ``share`` of its 2-5 deliveries."""

    async def ack(delivery: Delivery) -> bool:
        key = (delivery.aggregate_id, delivery.version)
        total = outcome.wanted.setdefault(key, rng.randint(2, 5))
        mine = (total + 1) // 2 if share == 0 else total // 2
        seen = (name, delivery.aggregate_id, delivery.version)
        outcome.deliveries[seen] = max(outcome.deliveries.get(seen, 0), delivery.deliveries)
        return delivery.deliveries >= mine

    return ack


async def _call(client: SettlementClient, method: str, request: Any) -> Any:
    """One command, retried with the same reference while the wallet is busy."""
    for _ in range(50):
        try:
            return await client.call(method, request)
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.ABORTED:
                raise
            await asyncio.sleep(0.05)
    raise AssertionError(f"{method} stayed ABORTED")


async def _storm(clients: list[SettlementClient], n: int, outcome: Outcome) -> None:
    stop = asyncio.Event()

    async def poll() -> None:
        while not stop.is_set():
            outcome.polled.append((await clients[1].balance(PLAYER)).balance)
            await asyncio.sleep(0.01)

    async def one(k: int) -> None:
        client = clients[k % 2]
        if k % 2:
            request: Any = pb.WithdrawRequest(player=PLAYER, amount=AMOUNT, external_ref=f"out-{k}")
            method = "Withdraw"
        else:
            request = pb.ReserveBuyInRequest(
                player=PLAYER, table_id=f"t{k % 3}", amount=AMOUNT, reference=f"buy-{k}"
            )
            method = "ReserveBuyIn"
        try:
            reply = await _call(client, method, request)
        except grpc.aio.AioRpcError as exc:
            reason = statuskit.maybe_reason(exc)
            label = f"{exc.code().name}:{reason or exc.details()}"
            outcome.refused[label] = outcome.refused.get(label, 0) + 1
            return
        outcome.ok += 1
        outcome.answered.append(reply.balance)
        if method == "ReserveBuyIn":
            outcome.reserved.append(request.reference)

    poller = asyncio.ensure_future(poll())
    try:
        await asyncio.gather(*(one(k) for k in range(2 * n)))
    finally:
        stop.set()
        await poller


def _reserved_table(reference: str) -> str:
    return f"t{int(reference.removeprefix('buy-')) % 3}"


def _seated(reserved: list[str]) -> list[str]:
    """The reservations seated: the first ones by reference, at most a table's seats each."""
    out: list[str] = []
    per_table: dict[str, int] = {}
    for reference in sorted(reserved):
        table_id = _reserved_table(reference)
        if len(out) < SEATED and per_table.get(table_id, 0) < SEATS:
            per_table[table_id] = per_table.get(table_id, 0) + 1
            out.append(reference)
    return out


def _table_records(reserved: list[str]) -> dict[str, list[list[AnyEvent]]]:
    """The reserved tables seating some reservations, then everyone leaving."""
    tables: dict[str, list[list[AnyEvent]]] = {}
    for reference in _seated(reserved):
        table_id = _reserved_table(reference)
        batches = tables.setdefault(
            table_id,
            [[TableCreated(table_id, table_id, "seven_card_stud_hi_lo", pacific_options(), 30)]],
        )
        batches.append([PlayerSeated(len(batches), PLAYER, AMOUNT, reference)])
    for batches in tables.values():
        seats = [e for b in batches for e in b if isinstance(e, PlayerSeated)]
        batches.append([PlayerLeft(s.seat, PLAYER, s.stack) for s in seats])
    return tables


async def _append_tables(nc: NATS, config: SettlementConfig, reserved: list[str]) -> None:
    store = table_log(nc, config)
    await store.ensure_stream()
    for table_id, batches in _table_records(reserved).items():
        for version, events in enumerate(batches, start=1):
            payload = encode_batch(
                events,
                aggregate_id=table_id,
                version=version,
                request_id=f"{table_id}-{version}",
                actor="lobby",
                occurred_at=datetime(2026, 12, 1, tzinfo=UTC),
            )
            await store.append(
                table_id, payload, expected_version=version - 1, request_id=f"{table_id}-{version}"
            )


def _ledger_facts(url: str, outcome: Outcome) -> None:
    engine = create_ledger_engine(url)
    try:
        with engine.connect() as conn:
            wallet = acc.wallet(PLAYER).name
            outcome.ledger_lines = [
                int(b)
                for (b,) in conn.execute(
                    select(PostingLine.balance_after)
                    .join(Account, Account.id == PostingLine.account_id)
                    .where(Account.name == wallet)
                )
            ]
            report = check_ledger(conn)
            outcome.ledger_report = "" if report.ok else report.render()
    finally:
        engine.dispose()


async def run_battery(
    config: SettlementConfig,
    single_url: str,
    issuer: TokenIssuer,
    nc: NATS,
    n: int,
    initial: int,
) -> Outcome:
    """The storm, the tables, the releases; then the ledger, and the single-delivery one."""
    outcome = Outcome()
    rng = random.Random(7)
    servers: list[SettlementServer] = []
    channels: list[grpc.aio.Channel] = []
    try:
        for k, name in enumerate(("a", "b")):
            server = SettlementServer(
                replace(config, consumer=f"battery-{name}", ack_wait=0.5),
                issuer,
                ack_filter=_filter(name, k, outcome, rng),
            )
            servers.append(server)
            await server.start()
        channels = [grpc.aio.insecure_channel(s.address) for s in servers]
        clients = [SettlementClient(c, issuer.issue("lobby", "service")) for c in channels]
        await clients[0].call(
            "Deposit", pb.DepositRequest(player=PLAYER, amount=initial, external_ref="seed")
        )
        await _storm(clients, n, outcome)
        await _append_tables(nc, config, outcome.reserved)
        seated = set(_seated(outcome.reserved))
        released = [r for r in sorted(outcome.reserved) if r not in seated][:SEATED]
        await wait_caught_up(nc, config, timeout=120)  # the seats are in before releasing
        for k, reference in enumerate(released):
            await _call(
                clients[k % 2],
                "ReleaseBuyIn",
                pb.ReleaseBuyInRequest(player=PLAYER, reference=reference, reason="battery"),
            )
        for server in servers:
            await wait_caught_up(nc, replace(config, consumer=server.config.consumer), timeout=120)
        for server in servers:
            await wait_acked(nc, server.config, timeout=120)
        outcome.final = (await clients[0].balance(PLAYER)).balance
    finally:
        for channel in channels:
            await channel.close(None)
        for server in servers:
            await server.stop(grace=0)
    outcome.dump = dump_of(config.database_url)
    _ledger_facts(config.database_url, outcome)
    async for record in wallet_log(nc, config).iter_records(PLAYER, 1):
        for item in decode_wallet_batch(record.payload)[1]:
            outcome.wallet_events.append(item.balance_after)
    # The same logs, every record delivered once, into a fresh ledger.
    single = replace(config, consumer="battery-single", database_url=single_url)
    server = SettlementServer(single, issuer)
    await server.start()
    try:
        await wait_caught_up(nc, single, timeout=120)
    finally:
        await server.stop(grace=0)
    outcome.single = dump_of(single_url)
    return outcome


def violations(outcome: Outcome, n: int, initial: int) -> list[str]:
    """What the oracles find wrong (empty: nothing)."""
    out: list[str] = []
    allowed = min(2 * n, initial // AMOUNT)  # equal amounts: the order does not matter
    if outcome.ok != allowed:
        out.append(f"{outcome.ok} requests succeeded, the wallet allowed {allowed}")
    if sum(outcome.refused.values()) != 2 * n - allowed or set(outcome.refused) - {
        "FAILED_PRECONDITION:INSUFFICIENT_FUNDS"
    }:
        out.append(f"refusals other than for funds: {outcome.refused}")
    seated = len(_seated(outcome.reserved))
    back = AMOUNT * seated  # cashed out at the seated amount
    back += AMOUNT * min(SEATED, len(outcome.reserved) - seated)  # released
    expected = initial - AMOUNT * outcome.ok + back
    if outcome.final != expected:
        out.append(f"final balance {outcome.final}, expected {expected}")
    for what, values in (
        ("an answer", outcome.answered),
        ("a balance read", outcome.polled),
        ("a wallet event", outcome.wallet_events),
        ("a ledger line of the wallet", outcome.ledger_lines),
    ):
        if values and min(values) < 0:
            out.append(f"{what} showed a negative balance {min(values)}")
    short = {
        key: want
        for key, want in outcome.wanted.items()
        if sum(v for (_, a, ver), v in outcome.deliveries.items() if (a, ver) == key) < want
    }
    if short:
        out.append(f"{len(short)} records delivered fewer times than wanted")
    if outcome.dump != outcome.single:
        diff = difflib.unified_diff(
            outcome.single.splitlines(), outcome.dump.splitlines(), "single", "battery", n=0
        )
        shown = "\n".join(list(diff)[2:40])
        out.append(f"the ledger differs from the single-delivery run's:\n{shown}")
    if outcome.ledger_report:
        out.append(f"check_ledger: {outcome.ledger_report}")
    return out


def _initial(n: int) -> int:
    # Room for a quarter more than half the requests, and change that pays for none.
    return AMOUNT * (n + n // 4) + AMOUNT // 2


@pytest.mark.battery
@pytest.mark.timeout(size(300, 1800))
async def test_concurrent_buy_ins_and_withdrawals_delivered_two_to_five_times(
    config: SettlementConfig,
    spare_database_url: str,
    issuer: TokenIssuer,
    nats_client: NATS,
) -> None:
    n = size(200, 1000)
    initial = _initial(n)
    outcome = await run_battery(config, spare_database_url, issuer, nats_client, n, initial)
    print(
        f"money battery n={n}: {outcome.ok} ok, refused {outcome.refused}, "
        f"{sum(outcome.deliveries.values())} deliveries of {len(outcome.wanted)} records, "
        f"final balance {outcome.final}"
    )
    assert violations(outcome, n, initial) == []
    # Every wallet record (the deposit, each success, seats, cash-outs, releases) and the
    # table records went through the filters.
    assert len(outcome.wanted) > outcome.ok + 3 * SEATED


@pytest.mark.parametrize("bug", ["posts-a-redelivery-again", "forgets-to-check-funds"])
async def test_the_money_oracles_catch_planted_bugs(
    sqlite_config: SettlementConfig,
    tmp_path: Any,
    issuer: TokenIssuer,
    nats_client: NATS,
    monkeypatch: pytest.MonkeyPatch,
    bug: str,
) -> None:
    n = 40
    initial = _initial(n)
    if bug == "posts-a-redelivery-again":
        from riverboat.ledger.projection import WALLETS
        from riverboat.services.settlement.projector import Projector

        original = Projector.on_wallet_record

        async def posts_again(self: Projector, delivery: Delivery) -> None:
            await original(self, delivery)
            if delivery.deliveries == 2 and delivery.version % 7 == 0:
                # As if the redelivery were a new record: applied at the next position.
                db = self._db
                last = await db.run(db.ledger.position, WALLETS, delivery.aggregate_id)
                await db.run(
                    db.ledger.apply_wallet_record,
                    delivery.aggregate_id,
                    last + 1,
                    delivery.payload,
                )

        monkeypatch.setattr(Projector, "on_wallet_record", posts_again)
        expected = "the ledger differs from the single-delivery run's"
    else:
        from riverboat.ledger import wallet

        monkeypatch.setattr(wallet, "_funds", lambda state, amount: None)
        expected = "requests succeeded, the wallet allowed"
    outcome = await run_battery(
        sqlite_config, f"sqlite:///{tmp_path / 'single.db'}", issuer, nats_client, n, initial
    )
    found = violations(outcome, n, initial)
    assert any(expected in line for line in found), found
