"""Input at the edge of a whole room (issue #12, findings 3, 4, 5, 15 and 16).

Every refusal here is checked the same way: the status the request deserves, a short plain
message (no internals), nothing written to any stream, and no error-level line or traceback in
any service's log. The callers know only the protos (``riverboat.v1`` messages, raw calls).
"""

from __future__ import annotations

import grpc
import grpc.aio
import pytest
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor

from riverboat.v1 import dealer_pb2, lobby_pb2, settlement_pb2, table_pb2
from tests.e2e.room._edge import (
    WholeRoom,
    call,
    methods,
    must_refuse,
    settle,
    stream_states,
    whole_room,
)
from tests.e2e.room.conftest import Room

pytestmark = pytest.mark.timeout(240)

INVALID = grpc.StatusCode.INVALID_ARGUMENT
LOBBY = "/riverboat.v1.LobbyService/"
TABLE = "/riverboat.v1.TableService/"
DEALER = "/riverboat.v1.DealerService/"
SETTLEMENT = "/riverboat.v1.SettlementService/"
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


def _bad_utf8(method: MethodDescriptor) -> list[bytes]:
    """A string field of the request holding bytes that are not UTF-8 (if it has one)."""
    for field in method.input_type.fields:
        if field.type == FieldDescriptor.TYPE_STRING:
            return [bytes([field.number << 3 | 2, 2, 0xFF, 0xFE])]
    return []


async def _ok(channel: grpc.aio.Channel, path: str, request: object, metadata: object) -> bytes:
    code, details, reply = await call(channel, path, request.SerializeToString(), metadata)  # type: ignore[attr-defined,arg-type]
    assert code == grpc.StatusCode.OK, f"{path}: {code.name} {details}"
    assert reply is not None
    return reply


async def _player(wr: WholeRoom, name: str, deposit: int) -> None:
    """Register through the lobby; the operator deposits."""
    async with grpc.aio.insecure_channel(wr.lobby) as lobby:
        await _ok(
            lobby,
            LOBBY + "Register",
            lobby_pb2.RegisterRequest(username=name, password="correct horse"),
            (),
        )
    if deposit:
        async with grpc.aio.insecure_channel(wr.settlement) as settlement:
            await _ok(
                settlement,
                SETTLEMENT + "Deposit",
                settlement_pb2.DepositRequest(
                    player=name, amount=deposit, external_ref=f"pay-{name}"
                ),
                wr.auth("boss", "operator"),
            )


async def _table(wr: WholeRoom, request_id: str, **overrides: int) -> str:
    # The longest clock: a hand in progress waits for its players, never times out mid-test.
    request = lobby_pb2.CreateTableRequest(
        template="pacific", name="edge", request_id=request_id, action_seconds=3600
    )
    if overrides:
        request.overrides.update(overrides)
    async with grpc.aio.insecure_channel(wr.lobby) as lobby:
        reply = await _ok(lobby, LOBBY + "CreateTable", request, wr.auth("boss", "operator"))
    return lobby_pb2.CreateTableResponse.FromString(reply).table.table_id


async def _unchanged(wr: WholeRoom, before: dict[str, tuple[int, int]]) -> None:
    (after, _) = await settle(wr)
    assert after == before, "a refused call wrote to a stream"
    assert wr.log_problems() == []


async def test_seats_come_from_the_table_and_a_refused_join_writes_nothing(room: Room) -> None:
    async with whole_room(room) as wr:
        await _player(wr, "ann", 100_000)
        table_id = await _table(wr, "seats")
        before, _ = await settle(wr)
        operator = wr.auth("boss", "operator")
        async with (
            grpc.aio.insecure_channel(wr.table) as table,
            grpc.aio.insecure_channel(wr.lobby) as lobby,
        ):
            for seat in (9, 99, -1, 0):
                seat_player = table_pb2.SeatPlayerRequest(
                    table_id=table_id,
                    seat=seat,
                    player="ann",
                    stack=5_000,
                    request_id=f"s{seat + 1}",
                )
                details = await must_refuse(
                    table, TABLE + "SeatPlayer", seat_player, operator, INVALID
                )
                # A Pacific table has 8 seats (its max_players), the most any table has: the
                # proto's rule (seat 1..8) or the table's own refusal says so.
                assert "1..8" in details or "less than or equal to 8" in details, details
            for seat in (9, -1, 2**31 - 1):
                join = lobby_pb2.JoinTableRequest(
                    table_id=table_id, seat=seat, buy_in=5_000, request_id=f"j{seat % 97}"
                )
                details = await must_refuse(
                    lobby, LOBBY + "JoinTable", join, wr.auth("ann"), INVALID
                )
                assert "1..8" in details or "less than or equal to 8" in details, details
            await _unchanged(wr, before)
            # Nothing was begun and undone: no reservation and no failed join anywhere.
            logs = wr.logs()
            assert "join_failed" not in logs["lobby"] and "ReserveBuyIn" not in logs["settlement"]

            # The last seat is a seat.
            join = lobby_pb2.JoinTableRequest(
                table_id=table_id, seat=8, buy_in=5_000, request_id="j8"
            )
            joined = lobby_pb2.JoinTableResponse.FromString(
                await _ok(lobby, LOBBY + "JoinTable", join, wr.auth("ann"))
            )
            assert joined.seat == 8


async def test_money_moves_only_for_registered_players_and_existing_tables(room: Room) -> None:
    async with whole_room(room) as wr:
        await _player(wr, "ann", 0)
        table_id = await _table(wr, "accounts")
        before, _ = await settle(wr)
        operator = wr.auth("boss", "operator")
        async with grpc.aio.insecure_channel(wr.settlement) as settlement:
            deposit = settlement_pb2.DepositRequest(
                player="nobody", amount=1_000, external_ref="p1"
            )
            assert "nobody" in await must_refuse(
                settlement, SETTLEMENT + "Deposit", deposit, operator, grpc.StatusCode.NOT_FOUND
            )
            balance = settlement_pb2.GetBalanceRequest(player="nobody")
            await must_refuse(
                settlement, SETTLEMENT + "GetBalance", balance, operator, grpc.StatusCode.NOT_FOUND
            )
            withdraw = settlement_pb2.WithdrawRequest(player="nobody", amount=1, external_ref="w1")
            await must_refuse(
                settlement, SETTLEMENT + "Withdraw", withdraw, operator, grpc.StatusCode.NOT_FOUND
            )
            await _unchanged(wr, before)

            # A registered player is an account; a table must exist before chips go to it.
            deposit = settlement_pb2.DepositRequest(player="ann", amount=10_000, external_ref="p2")
            await _ok(settlement, SETTLEMENT + "Deposit", deposit, operator)
            before, _ = await settle(wr)
            service = wr.auth("lobby", "service")
            for table in ("no-such-table", f"{table_id}x"):
                reserve = settlement_pb2.ReserveBuyInRequest(
                    player="ann", table_id=table, amount=5_000, reference=f"join-{table}"
                )
                await must_refuse(
                    settlement,
                    SETTLEMENT + "ReserveBuyIn",
                    reserve,
                    service,
                    grpc.StatusCode.NOT_FOUND,
                )
            reserve = settlement_pb2.ReserveBuyInRequest(
                player="nobody", table_id=table_id, amount=5_000, reference="join-nobody"
            )
            await must_refuse(
                settlement, SETTLEMENT + "ReserveBuyIn", reserve, service, grpc.StatusCode.NOT_FOUND
            )
            await _unchanged(wr, before)
            got = settlement_pb2.GetBalanceResponse.FromString(
                await _ok(
                    settlement,
                    SETTLEMENT + "GetBalance",
                    settlement_pb2.GetBalanceRequest(player="ann"),
                    operator,
                )
            )
            assert (got.balance, got.reserved) == (10_000, 0)


async def test_amounts_are_bounded_at_the_edge(room: Room) -> None:
    async with whole_room(room) as wr:
        await _player(wr, "ann", 100_000)
        await _player(wr, "bob", 100_000)
        table_id = await _table(wr, "amounts")
        async with (
            grpc.aio.insecure_channel(wr.table) as table,
            grpc.aio.insecure_channel(wr.lobby) as lobby,
            grpc.aio.insecure_channel(wr.settlement) as settlement,
        ):
            for who, seat in (("ann", 1), ("bob", 2)):
                join = lobby_pb2.JoinTableRequest(
                    table_id=table_id, seat=seat, buy_in=5_000, request_id="j"
                )
                await _ok(lobby, LOBBY + "JoinTable", join, wr.auth(who))
            before, _ = await settle(wr)
            operator = wr.auth("boss", "operator")
            for stack in (INT64_MAX, 10**12 + 1, -5, -(2**63)):
                seated = table_pb2.SeatPlayerRequest(
                    table_id=table_id, seat=3, player="cat", stack=stack, request_id="big"
                )
                await must_refuse(table, TABLE + "SeatPlayer", seated, operator, INVALID)
            for option, value in (
                ("big_bet", INT64_MAX),
                ("small_bet", INT64_MAX),
                ("ante", 1e300),
            ):
                create = lobby_pb2.CreateTableRequest(
                    template="pacific", name="x", request_id="big"
                )
                create.overrides.update({option: value})
                await must_refuse(lobby, LOBBY + "CreateTable", create, operator, INVALID)
            # Found by the fuzz battery: a Struct may hold infinity and NaN, JSON may not.
            create = lobby_pb2.CreateTableRequest(template="pacific", name="x", request_id="inf")
            create.overrides.update({"small_bet": float("inf")})
            await must_refuse(lobby, LOBBY + "CreateTable", create, operator, INVALID)
            act = table_pb2.ActRequest(
                table_id=table_id, seat=1, action="choose_game", choice="x", request_id="a2"
            )
            act.options.update({"rounds": float("nan")})
            await must_refuse(table, TABLE + "Act", act, wr.auth("ann"), INVALID)
            create = lobby_pb2.CreateTableRequest(template="pacific", name="x", request_id="caps")
            create.overrides.update({"rake_cap": INT64_MAX})
            await must_refuse(lobby, LOBBY + "CreateTable", create, operator, INVALID)
            deposit = settlement_pb2.DepositRequest(
                player="ann", amount=INT64_MAX, external_ref="big"
            )
            await must_refuse(settlement, SETTLEMENT + "Deposit", deposit, operator, INVALID)
            view = table_pb2.GetTableViewResponse.FromString(
                await _ok(
                    table,
                    TABLE + "GetTableView",
                    table_pb2.GetTableViewRequest(table_id=table_id),
                    wr.auth("ann"),
                )
            ).view
            for amount in (INT64_MAX, -1, -(2**63)):
                act = table_pb2.ActRequest(
                    table_id=table_id,
                    hand_id=view.hand_id,
                    seat=1,
                    action="bet",
                    amount=amount,
                    request_id="a1",
                )
                await must_refuse(table, TABLE + "Act", act, wr.auth("ann"), INVALID)
            await _unchanged(wr, before)

            # The books are whole: the cashier's account reads back, in integers.
            async def cashier() -> list[int]:
                reply = await _ok(
                    settlement,
                    SETTLEMENT + "ListLedgerEntries",
                    settlement_pb2.ListLedgerEntriesRequest(account="cashier"),
                    operator,
                )
                entries = settlement_pb2.ListLedgerEntriesResponse.FromString(reply).entries
                return sorted(e.amount for e in entries)

            _, lines = await settle(wr, cashier)
            assert lines == [-100_000, -100_000]


async def test_undecodable_oversized_and_out_of_range_requests(room: Room) -> None:
    async with whole_room(room) as wr:
        await _player(wr, "ann", 0)
        table_id = await _table(wr, "bytes")
        before, _ = await settle(wr)
        tokens = {
            "LobbyService": wr.auth("boss", "operator"),
            "TableService": wr.auth("boss", "operator"),
            "DealerService": wr.auth("table", "service"),
            "SettlementService": wr.auth("boss", "operator"),
        }
        channels = {
            name: grpc.aio.insecure_channel(wr.address(name))
            for name in ("LobbyService", "TableService", "DealerService", "SettlementService")
        }
        try:
            # Bytes that are no message at all, for every RPC of every service.
            for path, method in methods():
                service = method.containing_service.name
                for garbage in (b"\x0a\xff", b"\xff\xff\xff\xff", *_bad_utf8(method)):
                    details = await must_refuse(
                        channels[service],
                        path,
                        garbage,
                        tokens[service],
                        INVALID,
                        streaming=method.server_streaming,
                        timeout=10,
                    )
                    assert "not a valid message" in details

            # Megabytes of input are never echoed back (over the 64 KiB every RPC accepts:
            # refused for their size, before anything reads them).
            reshuffle = dealer_pb2.ReshuffleRequest(
                table_id=table_id, hand_id="h-1", round=1, cards=["X" * 3_000_000]
            )
            await must_refuse(
                channels["DealerService"],
                DEALER + "Reshuffle",
                reshuffle,
                tokens["DealerService"],
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            )
            rake = settlement_pb2.GetRakeReportRequest(from_day="9" * 3_000_000)
            await must_refuse(
                channels["SettlementService"],
                SETTLEMENT + "GetRakeReport",
                rake,
                tokens["SettlementService"],
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            )
            act = table_pb2.ActRequest(
                table_id=table_id,
                hand_id="h-1",
                seat=1,
                action="draw",
                cards=["Q" * 50_000],
                request_id="c",
            )
            # A card is two characters (table.proto's rule): refused before the seat is looked at.
            await must_refuse(
                channels["TableService"],
                TABLE + "Act",
                act,
                wr.auth("ann"),
                INVALID,
            )

            # A version the table has not reached, and page tokens the lobby never gave out.
            watch = table_pb2.WatchRequest(table_id=table_id, after_version=UINT64_MAX)
            await must_refuse(
                channels["TableService"],
                TABLE + "Watch",
                watch,
                wr.auth("ann"),
                grpc.StatusCode.OUT_OF_RANGE,
                streaming=True,
                timeout=10,
            )
            for token in ("-5", "99", "1e3", "٣"):
                page = lobby_pb2.ListTablesRequest(page_token=token)
                await must_refuse(
                    channels["LobbyService"], LOBBY + "ListTables", page, wr.auth("ann"), INVALID
                )
            await _unchanged(wr, before)
            assert await stream_states(wr.nc, wr.streams) == before
        finally:
            for channel in channels.values():
                await channel.close(None)
