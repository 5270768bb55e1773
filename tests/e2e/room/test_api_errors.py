"""Bad input to every RPC of every service: one error model, read as any gRPC client reads it.

The caller knows only the protos (``riverboat.v1`` messages, raw calls by path). For each RPC it
sends requests that break the limits written in the ``.proto`` files (fields missing, numbers
out of range, strings over their length or pattern, cards of the wrong shape, enum values the
proto does not define) and checks, with its own decoder of ``google.rpc.Status``
(tests/statuskit.py):

- the status is ``INVALID_ARGUMENT`` with a short plain message;
- the details hold one ``ErrorInfo`` (domain ``riverboat``, reason ``INVALID_REQUEST``) and a
  ``BadRequest`` naming exactly the fields this test broke (its own table below, not the
  service's code);
- nothing changed: every stream of the room, the wallet and the table read back are as before,
  and no service logged an error.

Requests are refused before any handler runs, so all of them go to one room, one after another.
The RPCs whose requests have no rules (``ListTables``, ``ListPlayers``: a page size over the
maximum is reduced, not refused) are not in the table; every RPC with rules must be.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
import pytest
from google.protobuf.message import Message

from buf.validate import validate_pb2
from riverboat.v1 import dealer_pb2, lobby_pb2, settlement_pb2, table_pb2
from tests import statuskit
from tests.e2e.room._edge import (
    WholeRoom,
    methods,
    settle,
    status_problem,
    whole_room,
)
from tests.e2e.room.conftest import Room

pytestmark = pytest.mark.timeout(240)

LOBBY = "/riverboat.v1.LobbyService/"
TABLE = "/riverboat.v1.TableService/"
DEALER = "/riverboat.v1.DealerService/"
SETTLEMENT = "/riverboat.v1.SettlementService/"


@dataclass(frozen=True)
class Bad:
    """One bad request, who sends it, and the fields it breaks."""

    path: str
    request: Message
    role: str  # "none" (open RPCs), "player" (ann), "operator", "service"
    fields: frozenset[str]


def _cases(table_id: str) -> list[Bad]:
    def bad(path: str, request: Message, role: str, *fields: str) -> Bad:
        return Bad(path, request, role, frozenset(fields))

    return [
        # Lobby: names 3-32 of [A-Za-z0-9_-], passwords 8-256, ids 1-64, seats 0-8.
        bad(LOBBY + "Register", lobby_pb2.RegisterRequest(username="", password="short"), "none",
            "username", "password"),
        bad(LOBBY + "Register", lobby_pb2.RegisterRequest(username="a b c", password="x" * 257),
            "none", "username", "password"),
        bad(LOBBY + "Login", lobby_pb2.LoginRequest(username="u" * 65, password="p"), "none",
            "username"),
        bad(LOBBY + "CreateTable",
            lobby_pb2.CreateTableRequest(template="pacific", name="n" * 101, action_seconds=-1),
            "operator", "name", "action_seconds", "request_id"),
        bad(LOBBY + "GetTable", lobby_pb2.GetTableRequest(table_id="no spaces"), "player",
            "table_id"),
        bad(LOBBY + "JoinTable",
            lobby_pb2.JoinTableRequest(table_id=table_id, seat=9, buy_in=0, request_id="j1"),
            "player", "seat", "buy_in"),
        bad(LOBBY + "LeaveTable",
            lobby_pb2.LeaveTableRequest(table_id=table_id, request_id="r" * 65), "player",
            "request_id"),
        bad(LOBBY + "LockAccount", lobby_pb2.LockAccountRequest(username="ann", reason="r" * 201),
            "operator", "reason"),
        bad(LOBBY + "UnlockAccount", lobby_pb2.UnlockAccountRequest(), "operator", "username"),
        bad(LOBBY + "ResetPassword",
            lobby_pb2.ResetPasswordRequest(username="ann", new_password="short"), "operator",
            "new_password"),
        bad(LOBBY + "JoinWaitingList", lobby_pb2.JoinWaitingListRequest(table_id="bad id"),
            "player", "table_id"),
        bad(LOBBY + "LeaveWaitingList", lobby_pb2.LeaveWaitingListRequest(), "player",
            "table_id"),
        bad(LOBBY + "GetWaitingList", lobby_pb2.GetWaitingListRequest(table_id="x" * 65),
            "player", "table_id"),
        # Table: ids 1-64, seats 1-8, clocks 0-3600 s, amounts 0..10^12, cards two characters.
        bad(TABLE + "SitOut", table_pb2.SitOutRequest(table_id=table_id), "player",
            "request_id"),
        bad(TABLE + "SitIn", table_pb2.SitInRequest(request_id="i1"), "player", "table_id"),
        bad(LOBBY + "MovePlayer",
            lobby_pb2.MovePlayerRequest(player="a", from_table_id=table_id, to_table_id="x y",
                                        seat=9, request_id="m1"),
            "operator", "player", "to_table_id", "seat"),
        bad(TABLE + "CloseTable",
            table_pb2.CloseTableRequest(table_id=table_id, request_id="c 1", reason="r" * 201),
            "operator", "request_id", "reason"),
        bad(TABLE + "PauseTable", table_pb2.PauseTableRequest(table_id="bad id"), "operator",
            "table_id", "request_id"),
        bad(TABLE + "ResumeTable", table_pb2.ResumeTableRequest(table_id=table_id), "operator",
            "request_id"),
        bad(TABLE + "ListHands", table_pb2.ListHandsRequest(table_id=table_id, player="p" * 65),
            "operator", "player"),
        bad(TABLE + "GetHandHistory", table_pb2.GetHandHistoryRequest(table_id=table_id),
            "operator", "hand_id"),
        bad(TABLE + "OpenTable",
            table_pb2.OpenTableRequest(table_id="t" * 65, request_id="o1", action_seconds=3601),
            "operator", "table_id", "action_seconds"),
        bad(TABLE + "SeatPlayer",
            table_pb2.SeatPlayerRequest(table_id=table_id, seat=0, stack=-5, request_id="s1"),
            "operator", "seat", "player", "stack"),
        bad(TABLE + "UnseatPlayer",
            table_pb2.UnseatPlayerRequest(table_id=table_id, seat=-1, request_id="u1"),
            "operator", "seat"),
        bad(TABLE + "Act",
            table_pb2.ActRequest(table_id=table_id, hand_id="h-1", seat=1, action="CALL",
                                 amount=-1, request_id="a1", cards=["Ah", "Q" * 50]),
            "player", "action", "amount", "cards[1]"),
        bad(TABLE + "Act", table_pb2.ActRequest(table_id=table_id, seat=99, action="call"),
            "player", "seat", "request_id"),
        bad(TABLE + "Watch", table_pb2.WatchRequest(), "player", "table_id"),
        bad(TABLE + "GetTableView", table_pb2.GetTableViewRequest(table_id="x" * 65), "player",
            "table_id"),
        bad(TABLE + "ListHands",
            table_pb2.ListHandsRequest(table_id="no spaces", page_token="t" * 513), "player",
            "table_id", "page_token"),
        bad(TABLE + "GetHandHistory", table_pb2.GetHandHistoryRequest(table_id=table_id),
            "operator", "hand_id"),
        # Dealer (services only): ids 1-128, log sequences from 1, rounds from 1.
        bad(DEALER + "CommitHand", dealer_pb2.CommitHandRequest(table_id=table_id), "service",
            "hand_id"),
        bad(DEALER + "GetDeck", dealer_pb2.GetDeckRequest(table_id=table_id, hand_id="h-1"),
            "service", "log_sequence"),
        bad(DEALER + "RevealSeed",
            dealer_pb2.RevealSeedRequest(table_id="bad id", hand_id="h-1"), "service",
            "table_id"),
        bad(DEALER + "Reshuffle",
            dealer_pb2.ReshuffleRequest(table_id=table_id, hand_id="h-1", cards=["Ah", "X"]),
            "service", "round", "cards[1]"),
        # Settlement: players 1-64, amounts 1..10^12, references 1-128 printable ASCII.
        bad(SETTLEMENT + "SetLimit",
            settlement_pb2.SetLimitRequest(player="ann", kind=99, amount=-1),  # type: ignore[arg-type]
            "operator", "kind", "amount"),
        bad(SETTLEMENT + "SelfExclude", settlement_pb2.SelfExcludeRequest(player="ann"),
            "operator", "days"),
        bad(SETTLEMENT + "GetLimits", settlement_pb2.GetLimitsRequest(player="p" * 65),
            "operator", "player"),
        bad(SETTLEMENT + "Deposit", settlement_pb2.DepositRequest(player="ann"), "operator",
            "amount", "external_ref"),
        bad(SETTLEMENT + "Withdraw",
            settlement_pb2.WithdrawRequest(amount=10**13, external_ref="w1"), "operator",
            "player", "amount"),
        bad(SETTLEMENT + "GetBalance", settlement_pb2.GetBalanceRequest(player="p" * 65),
            "operator", "player"),
        bad(SETTLEMENT + "ListLedgerEntries",
            settlement_pb2.ListLedgerEntriesRequest(account="a" * 257), "operator", "account"),
        bad(SETTLEMENT + "GetRakeReport",
            settlement_pb2.GetRakeReportRequest(from_day="2026-11-300", table_id="bad id"),
            "operator", "from_day", "table_id"),
        bad(SETTLEMENT + "ReserveBuyIn",
            settlement_pb2.ReserveBuyInRequest(player="ann", amount=5, reference="has space",
                                               moved_from="no spaces"),
            "service", "table_id", "reference", "moved_from"),
        bad(SETTLEMENT + "ReleaseBuyIn",
            settlement_pb2.ReleaseBuyInRequest(player="ann", reason="r" * 201), "service",
            "reference", "reason"),
    ]  # fmt: skip


def _constrained(method: Any) -> bool:
    """Whether the request message of ``method`` has any field with a buf.validate rule."""
    return any(
        field.GetOptions().HasExtension(validate_pb2.field) for field in method.input_type.fields
    )


async def _refusal(wr: WholeRoom, case: Bad, *, streaming: bool) -> grpc.aio.AioRpcError:
    """Send ``case`` by path with raw bytes; the AioRpcError it must be answered with."""
    service = case.path.split("/")[1].rsplit(".", 1)[-1]
    metadata = (
        ()
        if case.role == "none"
        else wr.auth(
            {"player": "ann", "operator": "boss", "service": "table"}[case.role], case.role
        )
    )
    payload = case.request.SerializeToString()
    async with grpc.aio.insecure_channel(wr.address(service)) as channel:
        try:
            if streaming:
                stream = channel.unary_stream(case.path, None, None)(
                    payload, metadata=metadata, timeout=10
                )
                async for _ in stream:
                    break
            else:
                await channel.unary_unary(case.path, None, None)(
                    payload, metadata=metadata, timeout=10
                )
        except grpc.aio.AioRpcError as exc:
            return exc
    raise AssertionError(f"{case.path}: {case.request} was accepted")


async def _read_back(wr: WholeRoom, table_id: str) -> tuple[bytes, bytes]:
    """Ann's wallet and the table as the operator sees them, as raw replies."""
    async with grpc.aio.insecure_channel(wr.settlement) as settlement:
        balance = await settlement.unary_unary(SETTLEMENT + "GetBalance", None, None)(
            settlement_pb2.GetBalanceRequest(player="ann").SerializeToString(),
            metadata=wr.auth("boss", "operator"),
            timeout=10,
        )
    async with grpc.aio.insecure_channel(wr.table) as table:
        view = await table.unary_unary(TABLE + "GetTableView", None, None)(
            table_pb2.GetTableViewRequest(table_id=table_id).SerializeToString(),
            metadata=wr.auth("boss", "operator"),
            timeout=10,
        )
    return bytes(balance), bytes(view)


async def _setup(wr: WholeRoom) -> str:
    async with grpc.aio.insecure_channel(wr.lobby) as lobby:
        await lobby.unary_unary(LOBBY + "Register", None, None)(
            lobby_pb2.RegisterRequest(username="ann", password="correct horse").SerializeToString(),
            timeout=30,
        )
        reply = await lobby.unary_unary(LOBBY + "CreateTable", None, None)(
            lobby_pb2.CreateTableRequest(
                template="pacific", name="api", request_id="api", action_seconds=3600
            ).SerializeToString(),
            metadata=wr.auth("boss", "operator"),
            timeout=30,
        )
    async with grpc.aio.insecure_channel(wr.settlement) as settlement:
        await settlement.unary_unary(SETTLEMENT + "Deposit", None, None)(
            settlement_pb2.DepositRequest(
                player="ann", amount=10_000, external_ref="pay-ann"
            ).SerializeToString(),
            metadata=wr.auth("boss", "operator"),
            timeout=30,
        )
    return lobby_pb2.CreateTableResponse.FromString(reply).table.table_id


async def test_bad_input_to_every_rpc_is_a_standard_invalid_argument_that_changes_nothing(
    room: Room,
) -> None:
    async with whole_room(room) as wr:
        table_id = await _setup(wr)
        before, _ = await settle(wr)
        read_before = await _read_back(wr, table_id)
        cases = _cases(table_id)
        streaming = {path: m.server_streaming for path, m in methods()}
        # Every RPC whose request has rules is sent bad input (a new one must be added here).
        constrained = {path for path, m in methods() if _constrained(m)}
        assert constrained - {case.path for case in cases} == set()
        problems = []
        for case in cases:
            error = await _refusal(wr, case, streaming=streaming[case.path])
            if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                problems.append(f"{case.path}: {error.code().name} {error.details()}")
                continue
            problem = status_problem(error.code(), error.details() or "")
            found = statuskit.details(error)
            if problem or found.reason != "INVALID_REQUEST" or set(found.fields) != case.fields:
                problems.append(
                    f"{case.path}: {problem or ''} reason {found.reason}, fields "
                    f"{sorted(found.fields)}, expected {sorted(case.fields)}"
                )
        assert problems == []
        after, _ = await settle(wr)
        assert after == before, "a refused call wrote to a stream"
        assert await _read_back(wr, table_id) == read_before
        assert wr.log_problems() == []


#: Over the API's 64 KiB and under the transport's 4 MiB: the error model must answer it.
OVERSIZED = 70_000


def _oversized(method: Any) -> tuple[bytes, str]:
    """A request of ``method`` over the limit, and the field the refusal must name: its first
    string field filled, or (a message without one) a field the message does not define."""
    for field in method.input_type.fields:
        if field.type == field.TYPE_STRING and not field.is_repeated:
            body = field.name.encode()  # any bytes; valid UTF-8
            value = (body * (OVERSIZED // len(body) + 1))[:OVERSIZED]
            return _length_delimited(field.number, value), field.name
    return _length_delimited(999, b"x" * OVERSIZED), "999"


def _length_delimited(number: int, value: bytes) -> bytes:
    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                return bytes(out)

    return varint(number << 3 | 2) + varint(len(value)) + value


async def _send_raw(address: str, method: Any, path: str, payload: bytes) -> grpc.aio.AioRpcError:
    """``payload`` as the (first) request message of ``path``, no token: the refusal."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            if method.client_streaming:
                call = channel.stream_stream(path, None, None)(iter([payload]), timeout=30)
                async for _ in call:
                    pass
            elif method.server_streaming:
                async for _ in channel.unary_stream(path, None, None)(payload, timeout=30):
                    pass
            else:
                await channel.unary_unary(path, None, None)(payload, timeout=30)
        except grpc.aio.AioRpcError as exc:
            return exc
    raise AssertionError(f"{path}: {len(payload)} bytes were accepted")


async def test_a_request_over_64_kib_is_refused_in_the_error_model_by_every_rpc(
    room: Room,
) -> None:
    """Every RPC of every service, unary and streaming, refuses a 70 KB request as the API says
    (RESOURCE_EXHAUSTED, reason REQUEST_TOO_LARGE, the sizes, the field at fault), not with
    gRPC's own transport refusal, which has no details."""
    async with whole_room(room) as wr:
        problems = []
        for path, method in methods():
            payload, field = _oversized(method)
            service = path.split("/")[1]
            error = await _send_raw(wr.address(service), method, path, payload)
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                problems.append(f"{path}: {error.code().name} {error.details()}")
                continue
            pairs: Any = error.trailing_metadata() or ()
            if not any(key == "grpc-status-details-bin" for key, _ in pairs):
                problems.append(f"{path}: no google.rpc.Status ({error.details()})")
                continue
            found = statuskit.details(error)
            expected = {"size_bytes": str(len(payload)), "limit_bytes": str(64 * 1024)}
            if (
                found.reason != "REQUEST_TOO_LARGE"
                or found.metadata != expected
                or set(found.fields) != {field}
                or found.retry_ms is not None
                or status_problem(error.code(), error.details() or "")
            ):
                problems.append(f"{path}: {found}")
        assert problems == []
        assert wr.log_problems() == []
