"""The settlement service on SQLite and PostgreSQL: real NATS, real gRPC, in-process servers.

Wallet commands go through the gRPC API; table logs are written as the table service writes
them (records of a room simulated with the real table aggregate), so the service's consumers,
reactions (seat, cash-out) and ledger run exactly as in production.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime
from typing import Any

import grpc
import grpc.aio
from nats.aio.client import Client as NATS
from sqlalchemy import func, select

from riverboat.auth import TokenIssuer
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import encode_batch
from riverboat.ledger import check_ledger
from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.models import Posting
from riverboat.ledger.walletcodec import decode_wallet_batch
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.consumers import Delivery
from riverboat.table.events import AnyEvent, PlayerLeft, PlayerSeated, TableCreated
from tests.integration.settlement._kit import (
    SettlementClient,
    dump_of,
    expected_rake,
    rebuilt_dump,
    run_commands,
    status_of,
    table_log,
    wait_acked,
    wait_caught_up,
    wallet_log,
)
from tests.integration.settlement.conftest import StartSettlement
from tests.unit.ledger._sim import Room, standard_room

AT = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


def small_room(seed: int = 5) -> Room:
    return standard_room(seed=seed, hands=2)


async def client_of(address: str, issuer: TokenIssuer, who: str, role: str) -> Any:
    channel = grpc.aio.insecure_channel(address)
    return channel, SettlementClient(channel, issuer.issue(who, role))


def check_ok(url: str) -> None:
    engine = create_ledger_engine(url)
    try:
        with engine.connect() as conn:
            report = check_ledger(conn)
        assert report.ok, report.render()
    finally:
        engine.dispose()


async def test_ledger_pages_concatenated_are_every_entry(
    start_settlement: StartSettlement,
    issuer: TokenIssuer,
    config: SettlementConfig,
    nats_client: NATS,
) -> None:
    """AIP-158 paging of ListLedgerEntries. Oracle: the deposits this test made, newest first
    (the entries' order), for page sizes drawn at random; tokens tied to the account."""
    server = await start_settlement()
    channel, op = await client_of(server.address, issuer, "boss", "operator")
    async with channel:
        amounts = [100 + n for n in range(17)]
        for n, amount in enumerate(amounts):
            await op.deposit("ann", amount, f"page-{n}")
        await op.deposit("bob", 5, "bob-1")
        await wait_caught_up(nats_client, config)
        expected = [(a, f"page-{n}") for n, a in reversed(list(enumerate(amounts)))]
        everything = await op.entries("wallet:ann", page_size=100_000)  # reduced to 500
        assert [(e.amount, e.reference) for e in everything.entries] == expected
        assert everything.next_page_token == ""
        rng = random.Random(158)
        for _ in range(12):
            sizes = [rng.randint(0, 9) for _ in range(rng.randint(1, 4))]
            got, token, n = [], "", 0
            while True:
                size = sizes[n % len(sizes)]
                page = await op.entries("wallet:ann", page_size=size, page_token=token)
                got += [(e.amount, e.reference) for e in page.entries]
                token, n = page.next_page_token, n + 1
                if not token:
                    break
                assert len(page.entries) == (size or 50)
            assert got == expected, sizes
        first = await op.entries("wallet:ann", page_size=3)
        assert (
            await status_of(op.entries("wallet:bob", page_token=first.next_page_token))
            == grpc.StatusCode.INVALID_ARGUMENT
        )  # a token of another account's list
        token = first.next_page_token
        for bad in (token[:-1], token + "A", "bGluZToz"):  # altered; the old 'line:3' format
            assert await status_of(op.entries("wallet:ann", page_token=bad)) == (
                grpc.StatusCode.INVALID_ARGUMENT
            )
        assert await status_of(op.entries("wallet:ann", page_size=-1)) == (
            grpc.StatusCode.INVALID_ARGUMENT
        )


async def test_deposits_and_withdrawals_are_idempotent(
    start_settlement: StartSettlement,
    issuer: TokenIssuer,
    config: SettlementConfig,
    nats_client: NATS,
) -> None:
    server = await start_settlement()
    channel, op = await client_of(server.address, issuer, "boss", "operator")
    async with channel:
        assert (await op.deposit("ann", 1_000, "pay-1")).balance == 1_000
        again = await op.deposit("ann", 1_000, "pay-1")
        assert again.duplicate and again.balance == 1_000
        assert await status_of(op.deposit("ann", 999, "pay-1")) == grpc.StatusCode.ALREADY_EXISTS
        assert await status_of(op.deposit("ann", 0, "pay-2")) == grpc.StatusCode.INVALID_ARGUMENT
        assert (
            await status_of(op.withdraw("ann", 1_001, "out-1"))
            == grpc.StatusCode.FAILED_PRECONDITION
        )
        assert (await op.withdraw("ann", 400, "out-1")).balance == 600
        assert (await op.withdraw("ann", 400, "out-1")).duplicate
        assert (await op.balance("ann")).balance == 600
        await wait_caught_up(nats_client, config)
        page = await op.entries("wallet:ann", page_size=1)
        assert [(e.amount, e.kind, e.balance_after) for e in page.entries] == [
            (-400, "withdrawal", 600)
        ]
        rest = await op.entries("wallet:ann", page_size=5, page_token=page.next_page_token)
        assert [(e.amount, e.reference) for e in rest.entries] == [(1_000, "pay-1")]
        assert not rest.next_page_token
        cashier = await op.entries("cashier")
        assert sum(e.amount for e in cashier.entries) == -600
    check_ok(config.database_url)


async def test_simultaneous_buy_ins_never_overdraw_a_wallet(
    start_settlement: StartSettlement,
    issuer: TokenIssuer,
    config: SettlementConfig,
    nats_client: NATS,
) -> None:
    # Two instances: each has its own cache and locks, so only the wallet log's optimistic
    # concurrency stands between them.
    servers = [await start_settlement(), await start_settlement()]
    channels = [grpc.aio.insecure_channel(s.address) for s in servers]
    try:
        lobby = [SettlementClient(c, issuer.issue("lobby", "service")) for c in channels]
        await lobby[0].deposit("ann", 1_000, "pay-1")
        calls = [
            lobby[k % 2].reserve("ann", "t1", 100, f"join-{k}") for k in range(24)
        ]  # 24 x $1 against $10
        outcomes = await asyncio.gather(*(status_of(c) for c in calls))
        assert outcomes.count(grpc.StatusCode.OK) == 10
        assert set(outcomes) == {grpc.StatusCode.OK, grpc.StatusCode.FAILED_PRECONDITION}
        state = await lobby[1].balance("ann")
        assert (state.balance, state.reserved) == (0, 1_000)
    finally:
        for channel in channels:
            await channel.close(None)
    # The log itself never shows a negative balance.
    records = await wallet_log(nats_client, config).read("ann")
    balances = [i.balance_after for r in records for i in decode_wallet_batch(r.payload)[1]]
    assert min(balances) >= 0 and balances[-1] == 0 and len(records) == 11
    await wait_caught_up(nats_client, config)
    check_ok(config.database_url)


async def test_a_room_settles_to_what_its_hands_imply_and_rebuilds_byte_for_byte(
    start_settlement: StartSettlement,
    issuer: TokenIssuer,
    config: SettlementConfig,
    nats_client: NATS,
    spare_database_url: str,
) -> None:
    room = small_room()
    server = await start_settlement()
    channel, lobby = await client_of(server.address, issuer, "lobby", "service")
    async with channel:
        await run_commands(room.commands, lobby, table_log(nats_client, config))
        await wait_caught_up(nats_client, config)
        for player, wallet in room.wallets.items():
            seen = await lobby.balance(player)
            assert (seen.balance, seen.reserved) == (wallet.balance, 0), player
        auditor = SettlementClient(channel, issuer.issue("audit", "auditor"))
        report = await auditor.rake()
        rows = [(r.table_id, r.variant, r.day, r.hands, r.rake) for r in report.rows]
        assert rows == [
            (r.table_id, r.variant, r.day, r.hands, r.rake) for r in expected_rake(room)
        ]
        assert report.total_rake == sum(r[3] for r in room.rake) > 0
        first_day = rows[0][2]
        only = await auditor.rake(from_day=first_day, to_day=first_day, table_id="alpha")
        assert {(r.table_id, r.day) for r in only.rows} == {("alpha", first_day)}
    check_ok(config.database_url)
    live = dump_of(config.database_url)
    assert live == await rebuilt_dump(nats_client, config, spare_database_url)


async def test_a_crash_between_applying_and_acknowledging_loses_and_doubles_nothing(
    start_settlement: StartSettlement,
    issuer: TokenIssuer,
    config: SettlementConfig,
    nats_client: NATS,
    spare_database_url: str,
) -> None:
    room = small_room(seed=11)
    half = len(room.commands) // 2
    acked = 0

    async def crash_after_40(_: Delivery) -> bool:
        nonlocal acked
        acked += 1
        return acked <= 40  # then "dies": applied, never acknowledged

    first = await start_settlement(ack_filter=crash_after_40)
    channel, lobby = await client_of(first.address, issuer, "lobby", "service")
    async with channel:
        await run_commands(room.commands[:half], lobby, table_log(nats_client, config))
        await wait_caught_up(nats_client, config)
    await first.stop(grace=0)
    before = dump_of(config.database_url)
    engine = create_ledger_engine(config.database_url)
    with engine.connect() as conn:
        postings = conn.scalar(select(func.count()).select_from(Posting))
    engine.dispose()

    second = await start_settlement()
    channel, lobby = await client_of(second.address, issuer, "lobby", "service")
    async with channel:
        await wait_acked(nats_client, config)  # every unacknowledged record came back
        assert dump_of(config.database_url) == before  # ... and changed nothing
        redelivered = sum(c.applied for c in second.consumers)
        assert redelivered > 0
        await run_commands(room.commands[half:], lobby, table_log(nats_client, config))
        await wait_caught_up(nats_client, config)
        await wait_acked(nats_client, config)
        for player, wallet in room.wallets.items():
            assert (await lobby.balance(player)).balance == wallet.balance
    check_ok(config.database_url)
    assert dump_of(config.database_url) == await rebuilt_dump(
        nats_client, config, spare_database_url
    )
    assert postings and postings > 0


async def test_records_delivered_two_to_five_times_leave_the_ledger_identical(
    start_settlement: StartSettlement,
    issuer: TokenIssuer,
    config: SettlementConfig,
    nats_client: NATS,
    spare_database_url: str,
) -> None:
    rng = random.Random(2)
    wanted: dict[tuple[str, int], int] = {}
    seen: dict[tuple[str, int], int] = {}

    async def only_after_k(delivery: Delivery) -> bool:
        key = (delivery.aggregate_id, delivery.version)
        want = wanted.setdefault(key, rng.randint(2, 5))
        seen[key] = delivery.deliveries
        return delivery.deliveries >= want  # no ack before the k-th delivery

    room = standard_room(seed=13, hands=1)
    server = await start_settlement(ack_wait=0.3, ack_filter=only_after_k)
    channel, lobby = await client_of(server.address, issuer, "lobby", "service")
    async with channel:
        await run_commands(room.commands, lobby, table_log(nats_client, config))
        await wait_caught_up(nats_client, config)
        await wait_acked(nats_client, config, timeout=60)
    assert all(seen[key] >= want for key, want in wanted.items())
    assert sum(seen.values()) >= 2 * len(seen)
    check_ok(config.database_url)
    assert dump_of(config.database_url) == await rebuilt_dump(
        nats_client, config, spare_database_url
    )


async def test_buy_in_compensation_never_strands_or_doubles_chips(
    start_settlement: StartSettlement,
    issuer: TokenIssuer,
    config: SettlementConfig,
    nats_client: NATS,
) -> None:
    server = await start_settlement()
    tables = table_log(nats_client, config)
    await tables.ensure_stream()
    channel, lobby = await client_of(server.address, issuer, "lobby", "service")
    async with channel:
        await lobby.deposit("ann", 5_000, "pay-1")
        # Seating failed: the reservation comes back, and its reference is spent.
        assert (await lobby.reserve("ann", "t1", 2_000, "join-1")).balance == 3_000
        released = await lobby.release("ann", "join-1", "seat taken")
        assert released.released and released.balance == 5_000
        assert (await lobby.release("ann", "join-1")).released  # repeat: same answer
        refused = await status_of(lobby.reserve("ann", "t1", 2_000, "join-1"))
        assert refused == grpc.StatusCode.FAILED_PRECONDITION
        # A compensation that overtakes its reservation burns the reference.
        assert not (await lobby.release("ann", "join-2", "timed out")).released
        late = await status_of(lobby.reserve("ann", "t1", 1_000, "join-2"))
        assert late == grpc.StatusCode.FAILED_PRECONDITION

        # Seated: a release arriving right after the seat is refused, not paid twice.
        await lobby.reserve("ann", "t1", 1_500, "join-3")
        created = TableCreated("t1", "T1", "seven_card_stud_hi_lo", pacific_options(), 30)
        batches: list[list[AnyEvent]] = [[created], [PlayerSeated(1, "ann", 1_500, "join-3")]]
        for version, events in enumerate(batches, start=1):
            payload = encode_batch(
                events,
                aggregate_id="t1",
                version=version,
                request_id=f"r{version}",
                actor="lobby",
                occurred_at=AT,
            )
            await tables.append(
                "t1", payload, expected_version=version - 1, request_id=f"r{version}"
            )
        seated = await status_of(lobby.release("ann", "join-3", "client gave up"))
        assert seated == grpc.StatusCode.FAILED_PRECONDITION
        state = await lobby.balance("ann")
        assert (state.balance, state.reserved, state.at_tables) == (3_500, 0, 1_500)

        # Leaving credits the wallet once, however often the record is seen.
        left = encode_batch(
            [PlayerLeft(1, "ann", 1_500)],
            aggregate_id="t1",
            version=3,
            request_id="r3",
            actor="lobby",
            occurred_at=AT,
        )
        await tables.append("t1", left, expected_version=2, request_id="r3")
        await wait_caught_up(nats_client, config)
        state = await lobby.balance("ann")
        assert (state.balance, state.reserved, state.at_tables) == (5_000, 0, 0)
        await server.projector.sweep_cash_outs()  # type: ignore[union-attr]
        assert (await lobby.balance("ann")).balance == 5_000
    check_ok(config.database_url)
