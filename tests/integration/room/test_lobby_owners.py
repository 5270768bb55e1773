"""The lobby reads table owners from the leases (RB_TABLE_OWNERS) and reaches them: its
table records carry the owner's address, and its own table calls (the view, seating, leaving)
go to the owner the lease names and follow one NOT_OWNER redirect from there."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
import nats

from riverboat.client import LobbyClient
from riverboat.leases import Holder, JetStreamLeaseStore
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc
from tests.integration.room._settled import register, settled_lobby
from tests.integration.room.conftest import Room
from tests.ownerkit import ScriptedTable, redirect

T = TypeVar("T")


async def until(probe: Callable[[], Awaitable[T | None]], what: str) -> T:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while loop.time() < deadline:
        found = await probe()
        if found is not None:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what}: not within 20 s")


async def test_table_records_name_the_owner_and_calls_follow_its_redirect(room: Room) -> None:
    # A stale instance the lease names: it owns nothing and redirects every call to the
    # real table service (as a non-owner table instance answers).
    stale = ScriptedTable(redirect(room.table_address))
    await stale.start()
    nc = await nats.connect(room.nats_url)
    # The room's lease bucket, made as the table service makes it (the lobby only reads it).
    tag = room.table.args[room.table.args.index("--stream") + 1]
    leases = await JetStreamLeaseStore.open(nc, ttl=60, bucket=f"{tag}_OWNERS")
    try:
        async with settled_lobby(room) as services:
            await _check(room, services.lobby.address, services.settlement.address, stale, leases)
    finally:
        await stale.stop()
        await nc.close()


async def _check(
    room: Room, lobby: str, settlement: str, stale: ScriptedTable, leases: JetStreamLeaseStore
) -> None:
    await register(lobby, ["ann"])
    async with (
        grpc.aio.insecure_channel(lobby) as channel,
        grpc.aio.insecure_channel(settlement) as cashier,
    ):
        boss = LobbyClient(channel)
        await boss.login("boss", "boss-password")
        table = await boss.create_table("pacific", "Leased", request_id="own1")
        # No lease yet: the record names the instance that answered (the lobby's --table).
        assert table.owner_address == room.table_address

        lease = await leases.create(table.table_id, Holder("stale-1", stale.address))

        async def named() -> str | None:
            found = (await boss.get_table(table.table_id)).owner_address
            return found if found == stale.address else None

        await until(named, "GetTable names the lease's holder")
        listed = (await boss.list_tables()).tables
        assert [t.owner_address for t in listed] == [stale.address]
        # The lobby asked the stale instance for the view and was sent on, once per call.
        assert set(stale.methods()) == {"GetTableView"}

        ops = settlement_pb2_grpc.SettlementServiceStub(cashier)  # type: ignore[no-untyped-call]
        await ops.Deposit(
            settlement_pb2.DepositRequest(player="ann", amount=50_000, external_ref="own-1"),
            metadata=(("authorization", f"Bearer {room.token('cashier', 'operator')}"),),
        )
        ann = LobbyClient(channel)
        await ann.login("ann", "ann-password")
        stale.calls.clear()
        joined = await ann.join(table.table_id, buy_in=table.min_buy_in, request_id="j1")
        assert joined.seat == 1 and joined.owner_address == stale.address
        assert "SeatPlayer" in stale.methods()  # tried the lease's holder first...
        async with grpc.aio.insecure_channel(room.table_address) as direct:
            view = await room.client(direct, "ann").view(table.table_id)
        assert [s.player for s in view.seats] == ["ann"]  # ...and was seated by the owner

        stale.calls.clear()
        await ann.leave(table.table_id, request_id="l1")
        assert "UnseatPlayer" in stale.methods()

        # The lease moves to the real instance: the records follow.
        await leases.transfer(lease, Holder("table-1", room.table_address))

        async def moved() -> str | None:
            found = (await boss.get_table(table.table_id)).owner_address
            return found if found == room.table_address else None

        await until(moved, "GetTable names the new holder")
