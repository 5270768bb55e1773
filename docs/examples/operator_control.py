"""Operator control of a table, knowing only the generated stubs (docs/api.md): pause dealing,
a refused move decoded the standard way (grpcio-status), close the table, and what the lobby
lists then. Run it against `make run` (defaults) or any room:

    .venv/bin/python docs/examples/operator_control.py --operator-password "$(cat var/operator.password)"
"""

from __future__ import annotations

import argparse
import time

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from riverboat.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc


def reason(exc: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refused call."""
    info = error_details_pb2.ErrorInfo()
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        if detail.Is(info.DESCRIPTOR):
            detail.Unpack(info)
    return info.reason


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lobby", default="127.0.0.1:50051")
    parser.add_argument("--operator", default="operator")
    parser.add_argument("--operator-password", required=True)
    parser.add_argument("--table-id", default="pacific-demo-pacific")
    parser.add_argument("--move", default="bot1-pacific", help="a player to try to move")
    parser.add_argument("--to", default="dealers-choice-demo-choice", help="where to")
    args = parser.parse_args()

    lobby = lobby_pb2_grpc.LobbyServiceStub(grpc.insecure_channel(args.lobby))
    login = lobby.Login(
        lobby_pb2.LoginRequest(username=args.operator, password=args.operator_password)
    )
    op = (("authorization", f"Bearer {login.token}"),)
    # Table calls go to the instance that owns the table; the lobby names it.
    listed = lobby.GetTable(lobby_pb2.GetTableRequest(table_id=args.table_id), metadata=op).table
    table = table_pb2_grpc.TableServiceStub(grpc.insecure_channel(listed.owner_address))

    paused = table.PauseTable(
        table_pb2.PauseTableRequest(table_id=args.table_id, request_id="pause-1", reason="break"),
        metadata=op,
    )
    print(f"PauseTable: version {paused.version}, paused={paused.view.paused}")
    try:
        lobby.MovePlayer(
            lobby_pb2.MovePlayerRequest(
                player=args.move,
                from_table_id=args.table_id,
                to_table_id=args.to,
                request_id="move-1",
            ),
            metadata=op,
        )
    except grpc.RpcError as exc:
        print(f"MovePlayer: {exc.code().name} {reason(exc)}: {exc.details()}")
    closed = table.CloseTable(
        table_pb2.CloseTableRequest(table_id=args.table_id, request_id="close-1", reason="night"),
        metadata=op,
    )
    print(
        f"CloseTable: version {closed.version}, closed={closed.view.closed}, "
        f"closing={closed.view.closing}, seats={len(closed.view.seats)}"
    )
    for _ in range(120):  # closing: the hand in play ends first, then everyone leaves
        again = lobby.GetTable(lobby_pb2.GetTableRequest(table_id=args.table_id), metadata=op)
        if again.table.closed:
            break
        time.sleep(0.5)
    seats = len(again.table.seats)
    print(f"GetTable: closed={again.table.closed}, closing={again.table.closing}, seats={seats}")


if __name__ == "__main__":
    main()
