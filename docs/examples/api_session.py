"""A whole session against a Riverboat room, knowing only the generated stubs (docs/api.md).

Register, have the operator deposit, log in, find a table with a free seat, join it, watch it,
act when it is your turn, leave (a leave that waits for the hand's end: the table checks or
folds for the seat at once, and the client follows the hand until it has left); then one
refused call, its google.rpc.Status details decoded the standard way (grpcio-status). Run it
against `make run` (defaults; `$RIVERBOAT_LOBBY_ADDRESS` and the like, or the flags, for
another room):

    .venv/bin/python docs/examples/api_session.py --user ann --operator-password "$(cat var/operator.password)"
"""

from __future__ import annotations

import argparse
import os
import uuid

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from riverboat.v1 import (
    lobby_pb2,
    lobby_pb2_grpc,
    settlement_pb2,
    settlement_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)


def bearer(token: str) -> tuple[tuple[str, str]]:
    """Every RPC but Register and Login needs this call metadata."""
    return (("authorization", f"Bearer {token}"),)


def show_error(error: grpc.RpcError) -> None:
    """Print a refusal as any client can read it: code, message, the standard details."""
    call: grpc.Call = error  # type: ignore[assignment]
    print(f"{call.code().name}: {call.details()}")
    status = rpc_status.from_call(call)  # the google.rpc.Status in grpc-status-details-bin
    for detail in status.details if status else ():
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest,
                     error_details_pb2.RetryInfo):  # fmt: skip
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                text = " ".join(str(message).split())
                print(f"  {kind.DESCRIPTOR.name}: {text}")


def main() -> None:
    parser = argparse.ArgumentParser()
    # Where the room is: a flag, else the variable every Riverboat service and client reads.
    env = os.environ.get
    parser.add_argument("--lobby", default=env("RIVERBOAT_LOBBY_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument("--table", default=env("RIVERBOAT_TABLE_ADDRESS", "127.0.0.1:50052"))
    parser.add_argument(
        "--settlement", default=env("RIVERBOAT_SETTLEMENT_ADDRESS", "127.0.0.1:50054")
    )
    parser.add_argument("--user", default="ann")
    parser.add_argument("--password", default="correct horse battery")
    parser.add_argument("--operator", default="operator")
    parser.add_argument("--operator-password", required=True)
    args = parser.parse_args()

    lobby = lobby_pb2_grpc.LobbyServiceStub(grpc.insecure_channel(args.lobby))
    settlement = settlement_pb2_grpc.SettlementServiceStub(grpc.insecure_channel(args.settlement))

    # 1. Register (ALREADY_EXISTS if the name is taken: then just log in).
    try:
        reply = lobby.Register(
            lobby_pb2.RegisterRequest(username=args.user, password=args.password)
        )
        print(f"registered {args.user}: player_id {reply.player_id}")
    except grpc.RpcError as exc:
        show_error(exc)

    # 2. The operator funds the wallet ($50.00; money is integer cents).
    operator = lobby.Login(
        lobby_pb2.LoginRequest(username=args.operator, password=args.operator_password)
    )
    ref = f"welcome-{args.user}"  # the cashier's reference: a repeat is a no-op
    deposit = settlement.Deposit(
        settlement_pb2.DepositRequest(player=args.user, amount=5000, external_ref=ref),
        metadata=bearer(operator.token),
    )
    print(f"deposited: wallet {deposit.balance} cents (duplicate={deposit.duplicate})")

    # 3. Log in: a signed bearer token for every other RPC of every service.
    login = lobby.Login(lobby_pb2.LoginRequest(username=args.user, password=args.password))
    me = bearer(login.token)
    print(f"logged in as {login.player_id} ({login.role})")

    # 4. Find a table with a free seat.
    tables = lobby.ListTables(lobby_pb2.ListTablesRequest(page_size=20), metadata=me).tables
    table = next(t for t in tables if len(t.seats) < t.max_players)
    print(f"table {table.table_id}: {table.name}, buy-in {table.min_buy_in}-{table.max_buy_in}")

    # 5. Join: buy in from the wallet; the request id makes a retry safe.
    joined = lobby.JoinTable(
        lobby_pb2.JoinTableRequest(
            table_id=table.table_id, buy_in=table.min_buy_in, request_id=uuid.uuid4().hex[:12]
        ),
        metadata=me,
    )
    print(f"seat {joined.seat}, stack {joined.stack}, wallet {joined.balance}")

    # 6. Watch the table (from its owner), 7. act when the view says it is our turn, 8. leave.
    # A leave asked during a hand waits for the hand's end (pending=True): until then the
    # table checks or folds for the seat as soon as it is its turn, never waiting for the
    # clock, so follow the table until it says we left; the chips go back to the wallet then.
    tables_stub = table_pb2_grpc.TableServiceStub(
        grpc.insecure_channel(joined.owner_address or args.table)
    )
    print("waiting for our turn (a hand starts once two players sit)...", flush=True)
    watch = tables_stub.Watch(table_pb2.WatchRequest(table_id=table.table_id), metadata=me)
    leaving = False
    acted_at = 0  # the log version our last move made: views before it are already answered
    for update in watch:
        gone = [e.player_left for e in update.events if e.player_left.player == login.player_id]
        if gone:
            print(f"left the table with {gone[0].stack}")
            break
        view = update.view
        if leaving or view.to_act != joined.seat or not view.legal_actions:
            continue  # once we asked to leave, the table moves for us
        if view.version < acted_at:
            continue
        options = {a.action: a for a in view.legal_actions}
        action = next(a for a in ("check", "call", "bring_in", "fold") if a in options)
        acted = tables_stub.Act(
            table_pb2.ActRequest(
                table_id=table.table_id,
                hand_id=view.hand_id,
                seat=joined.seat,
                action=action,
                request_id=uuid.uuid4().hex[:12],
            ),
            metadata=me,
        )
        acted_at = acted.version
        print(f"hand #{view.hand_number} ({view.hand_id}): {action} -> version {acted.version}")
        left = lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=table.table_id, request_id=uuid.uuid4().hex[:12]),
            metadata=me,
        )
        when = "when this hand ends" if left.pending else "now"
        print(f"leaving {when} (pending={left.pending})", flush=True)
        leaving = True
    watch.cancel()

    # A refused call: seat 9 and a zero buy-in break the limits written in lobby.proto.
    try:
        lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table.table_id, seat=9, buy_in=0, request_id="x1"),
            metadata=me,
        )
    except grpc.RpcError as exc:
        show_error(exc)


if __name__ == "__main__":
    main()
