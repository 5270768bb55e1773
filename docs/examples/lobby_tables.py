"""Open a table through the lobby with its time bank and a dealer's choice table's declarable
limits, then read them back (docs/lobby-service.md), knowing only the generated stubs.

    .venv/bin/python docs/examples/lobby_tables.py --operator-password "$(cat var/operator.password)"
"""

from __future__ import annotations

import argparse
import os

import grpc
from google.protobuf import text_format

from riverboat.v1 import events_pb2, lobby_pb2, lobby_pb2_grpc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--lobby", default=os.environ.get("RIVERBOAT_LOBBY_ADDRESS", "127.0.0.1:50051")
    )
    parser.add_argument("--operator", default="operator")
    parser.add_argument("--operator-password", required=True)
    args = parser.parse_args()
    lobby = lobby_pb2_grpc.LobbyServiceStub(grpc.insecure_channel(args.lobby))
    login = lobby.Login(
        lobby_pb2.LoginRequest(username=args.operator, password=args.operator_password)
    )
    me = (("authorization", f"Bearer {login.token}"),)

    request = lobby_pb2.CreateTableRequest(
        template="dealers_choice",
        name="Saturday",
        request_id="saturday",
        time_bank=events_pb2.TimeBankPolicy(
            seconds=90, topup_seconds=15, topup_hands=20, protect_hands=5
        ),
        # Small bet $1-$5, big bet unset: only the table's own ($5).
        dealers_choice=events_pb2.DealersChoiceRules(min_small_bet=100, max_small_bet=500),
    )
    created = lobby.CreateTable(request, metadata=me).table
    table = lobby.GetTable(lobby_pb2.GetTableRequest(table_id=created.table_id), metadata=me).table
    bounds = table.dealers_choice
    shown = lobby_pb2.LobbyTable(  # the fields this example is about
        table_id=table.table_id,
        small_bet=table.small_bet,
        big_bet=table.big_bet,
        action_seconds=table.action_seconds,
        time_bank=table.time_bank,
        dealers_choice=events_pb2.DealersChoiceRules(
            default_game=bounds.default_game,
            min_small_bet=bounds.min_small_bet,
            max_small_bet=bounds.max_small_bet,
            min_big_bet=bounds.min_big_bet,
            max_big_bet=bounds.max_big_bet,
        ),
    )
    print(f"GetTable {created.table_id} (offering {len(bounds.games)} games), in part:")
    print(text_format.MessageToString(shown), end="")

    # A time bank over an hour breaks the rule written in events.proto: refused, nothing opened.
    request.request_id, request.time_bank.seconds = "sunday", 3601
    try:
        lobby.CreateTable(request, metadata=me)
    except grpc.RpcError as exc:
        error: grpc.Call = exc  # type: ignore[assignment]
        print(f"{error.code().name}: {error.details()}")


if __name__ == "__main__":
    main()
