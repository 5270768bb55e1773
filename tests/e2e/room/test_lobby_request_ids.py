"""The lobby's request ids are the player's (finding 14 of issue #12): twelve players who all
send LeaveTable "leave1" each leave, each told their own answer; a join id is the player's
at that table. Real lobby, settlement, table and dealer processes; the oracle is the raw
table log."""

from __future__ import annotations

from collections import Counter

import grpc

from riverboat.table.events import PlayerSeated
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc, settlement_pb2, settlement_pb2_grpc
from tests.e2e.room._settled import register, settled_lobby
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_idempotency_battery import check_leaves, table_log


def _md(room: Room, name: str, role: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {room.token(name, role)}"),)


async def test_players_sharing_a_leave_id_each_leave(room: Room) -> None:
    names = [f"pl{k}" for k in range(12)]
    async with (
        settled_lobby(room) as services,
        grpc.aio.insecure_channel(services.lobby.address) as lobby_channel,
        grpc.aio.insecure_channel(services.settlement.address) as money_channel,
    ):
        lobby = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)  # type: ignore[no-untyped-call]
        money = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
        boss = _md(room, "boss", "operator")
        await register(services.lobby.address, names)
        tables = []
        for rid in ("a", "b"):
            created = await lobby.CreateTable(
                lobby_pb2.CreateTableRequest(
                    template="pacific", name=rid, request_id=rid, action_seconds=3600
                ),
                metadata=boss,
            )
            tables.append(created.table.table_id)
        for name in names:
            await money.Deposit(
                settlement_pb2.DepositRequest(player=name, amount=20_000, external_ref=name),
                metadata=boss,
            )
        # Six players a table; the first two at table a also sit at b with the same id.
        seats = {name: tables[k // 6] for k, name in enumerate(names)}
        for name, table_id in seats.items():
            await lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table_id, buy_in=5_000, request_id="1"),
                metadata=_md(room, name, "player"),
            )
        for name in names[:2]:
            await lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=tables[1], buy_in=5_000, request_id="1"),
                metadata=_md(room, name, "player"),
            )
        seated = Counter(
            e.player
            for b in await table_log(room, tables[1])
            for e in b.events
            if isinstance(e, PlayerSeated)
        )
        assert seated == Counter(names[:2] + names[6:])
        answers: dict[str, dict[str, lobby_pb2.LeaveTableResponse]] = {t: {} for t in tables}
        for name, table_id in seats.items():
            answers[table_id][name] = await lobby.LeaveTable(
                lobby_pb2.LeaveTableRequest(table_id=table_id, request_id="leave1"),
                metadata=_md(room, name, "player"),
            )
        for table_id in tables:
            check_leaves(await table_log(room, table_id), answers[table_id])
        # Once they are gone, "leave1" again still gets each their own original answer.
        for name, table_id in seats.items():
            again = await lobby.LeaveTable(
                lobby_pb2.LeaveTableRequest(table_id=table_id, request_id="leave1"),
                metadata=_md(room, name, "player"),
            )
            first = answers[table_id][name]
            assert (again.pending, again.stack) == (first.pending, first.stack)
