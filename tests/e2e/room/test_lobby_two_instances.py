"""The lobby in front of two table-service instances that lease their tables: every record
names the lease's holder, a buy-in reaches the owner whichever instance the lobby was given,
and when an instance stops (SIGTERM) the records follow its tables to the other one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TypeVar

import grpc
import nats
import pytest

from riverboat.auth import TokenIssuer
from riverboat.client import LobbyClient, TableClient
from riverboat.leases import JetStreamLeaseStore
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room._settled import register, settlement_process
from tests.e2e.room.conftest import Room, _dealer, _lobby, _table
from tests.waiting import until, until_found

pytestmark = pytest.mark.timeout(150)

T = TypeVar("T")


async def test_records_follow_the_leases_of_two_instances(
    nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    tag = f"L{abs(hash(request.node.nodeid)) % 10**8}"
    dealer = _dealer(nats_server.url, tmp_path, tag)
    dealer.start()
    instances: dict[str, ServiceProcess] = {}
    for name in "ab":
        process = _table(nats_server.url, tmp_path, dealer.address, tag)
        process.args += ["--instance-id", name, "--lease-ttl", "3"]
        process.log_path = tmp_path / f"table-{name}.log"
        instances[name] = process
    started: list[ServiceProcess] = [dealer]
    nc = await nats.connect(nats_server.url)
    try:
        for process in instances.values():
            process.start()
            started.append(process)
        room = Room(nats_server.url, dealer, instances["a"], tmp_path, TokenIssuer(TEST_TOKEN_KEY))
        settlement = settlement_process(room)
        settlement.start()
        started.append(settlement)
        lobby = _lobby(nats_server.url, tmp_path, instances["a"].address, settlement.address, tag)
        lobby.start()
        started.append(lobby)
        leases = await JetStreamLeaseStore.open(nc, bucket=f"RB_TABLES_{tag}_OWNERS")
        await _check(room, instances, lobby.address, settlement.address, leases)
    finally:
        for process in reversed(started):
            process.stop()
        await nc.close()


async def _check(
    room: Room,
    instances: dict[str, ServiceProcess],
    lobby_address: str,
    cashier_address: str,
    leases: JetStreamLeaseStore,
) -> None:
    await register(lobby_address, ["ann"])
    async with (
        grpc.aio.insecure_channel(lobby_address) as channel,
        grpc.aio.insecure_channel(cashier_address) as cashier,
    ):
        boss = LobbyClient(channel)
        await boss.login("boss", "boss-password")
        made = [
            await boss.create_table("pacific", f"Table {n}", request_id=f"two{n}") for n in range(4)
        ]
        ids = [t.table_id for t in made]

        async def agree() -> dict[str, str] | None:
            """Table -> owner address, once the lobby's records and the leases agree."""
            held = await leases.all()
            listed = {t.table_id: t.owner_address for t in (await boss.list_tables()).tables}
            owners = {i: held[i].holder.address for i in ids if i in held}
            return listed if len(owners) == len(ids) and listed == owners else None

        owners = await until_found(agree, "the records name the lease holders", 30)
        address_of = {name: p.address for name, p in instances.items()}
        assert set(owners.values()) <= set(address_of.values())

        # Ann buys in at a table of the busier instance (the lobby talks to instance a).
        busiest = max(address_of, key=lambda n: list(owners.values()).count(address_of[n]))
        table_id = next(i for i in ids if owners[i] == address_of[busiest])
        ops = settlement_pb2_grpc.SettlementServiceStub(cashier)  # type: ignore[no-untyped-call]
        await ops.Deposit(
            settlement_pb2.DepositRequest(player="ann", amount=50_000, external_ref="two-1"),
            metadata=(("authorization", f"Bearer {room.token('cashier', 'operator')}"),),
        )
        ann = LobbyClient(channel)
        login = await ann.login("ann", "ann-password")
        joined = await ann.join(table_id, buy_in=made[0].min_buy_in, request_id="j1")
        assert joined.owner_address == owners[table_id]

        # The busier instance stops: its tables move to the other, and the records follow.
        other = next(n for n in address_of if n != busiest)
        await asyncio.to_thread(instances[busiest].stop)

        async def addresses() -> list[str]:
            return [t.owner_address for t in (await boss.list_tables()).tables]

        await until(
            addresses,
            lambda listed: listed == [address_of[other]] * len(ids),
            "every record names the remaining instance",
            30,
        )
        # Ann's client, told by the lobby where the table is, finds her seat there.
        async with grpc.aio.insecure_channel(address_of[other]) as direct:
            client = TableClient(direct, login.token, "ann")
            client.set_owner(table_id, (await ann.get_table(table_id)).owner_address)
            view = await client.view(table_id)
            await client.close()
        assert [s.player for s in view.seats] == ["ann"]
