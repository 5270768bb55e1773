"""The lobby reaches each table's owner through one NOT_OWNER redirect: given a table-service
address that owns nothing (an in-process server that redirects every call to the real table
service, as a non-owner instance does) and no leases to read, its own table calls (opening,
the views it describes tables with, seating, leaving) are each sent there, redirected once,
and answered by the owner, whose address the records then name."""

from __future__ import annotations

import asyncio

import grpc
import nats

from riverboat.client import LobbyClient
from riverboat.leases import JetStreamLeaseStore
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc
from tests.e2e.room._settled import _tag, register, settlement_process
from tests.e2e.room.conftest import Room, _lobby
from tests.ownerkit import ScriptedTable, redirect


async def test_the_lobbys_table_calls_follow_one_redirect_to_the_owner(room: Room) -> None:
    stale = ScriptedTable(redirect(room.table_address))
    await stale.start()
    nc = await nats.connect(room.nats_url)
    # A lease bucket nobody writes: the lobby learns no owner from the leases.
    empty = f"RB_NOBODY_{_tag(room)}"
    await JetStreamLeaseStore.open(nc, bucket=empty)
    settlement = settlement_process(room)
    await asyncio.to_thread(settlement.start)
    lobby = _lobby(room.nats_url, room.var, stale.address, settlement.address, _tag(room))
    lobby.args[lobby.args.index("--owners-bucket") + 1] = empty
    try:
        await asyncio.to_thread(lobby.start)
        await _check(room, lobby.address, settlement.address, stale)
    finally:
        await asyncio.to_thread(lobby.stop)
        await asyncio.to_thread(settlement.stop)
        await stale.stop()
        await nc.close()


async def _check(room: Room, lobby: str, settlement: str, stale: ScriptedTable) -> None:
    await register(lobby, ["ann"])
    async with (
        grpc.aio.insecure_channel(lobby) as channel,
        grpc.aio.insecure_channel(settlement) as cashier,
    ):
        boss = LobbyClient(channel)
        await boss.login("boss", "boss-password")
        table = await boss.create_table("pacific", "Redirected", request_id="own1")
        # Opened and described by the owner, after one redirect each.
        assert stale.methods() == ["OpenTable", "GetTableView"]
        assert table.owner_address == room.table_address
        listed = (await boss.list_tables()).tables
        assert [t.owner_address for t in listed] == [room.table_address]

        ops = settlement_pb2_grpc.SettlementServiceStub(cashier)  # type: ignore[no-untyped-call]
        await ops.Deposit(
            settlement_pb2.DepositRequest(player="ann", amount=50_000, external_ref="own-1"),
            metadata=(("authorization", f"Bearer {room.token('cashier', 'operator')}"),),
        )
        ann = LobbyClient(channel)
        await ann.login("ann", "ann-password")
        stale.calls.clear()
        joined = await ann.join(table.table_id, buy_in=table.min_buy_in, request_id="j1")
        assert joined.seat == 1 and joined.owner_address == room.table_address
        assert stale.methods() == ["GetTableView", "SeatPlayer"]  # each sent on once
        seated = next(r for name, r in stale.calls if name == "SeatPlayer")
        async with grpc.aio.insecure_channel(room.table_address) as direct:
            view = await room.client(direct, "ann").view(table.table_id)
        assert [s.player for s in view.seats] == ["ann"]  # seated by the owner, same request
        assert seated.player == "ann"  # type: ignore[attr-defined]

        stale.calls.clear()
        left = await ann.leave(table.table_id, request_id="l1")
        assert stale.methods() == ["UnseatPlayer"] and left.stack == table.min_buy_in
