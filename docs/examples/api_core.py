"""The core of a client, to copy (docs/api.md shows this file): log in, sit at a table with a
free seat, make one move, leave. Run: python docs/examples/api_core.py USER PASSWORD"""

import os
import sys
import uuid

import grpc
from grpc_status import rpc_status

from riverboat.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc

user, password = sys.argv[1:3]
address = os.environ.get("RIVERBOAT_LOBBY_ADDRESS", "127.0.0.1:50051")
lobby = lobby_pb2_grpc.LobbyServiceStub(grpc.insecure_channel(address))
login = lobby.Login(lobby_pb2.LoginRequest(username=user, password=password))
me = (("authorization", f"Bearer {login.token}"),)
listed = lobby.ListTables(lobby_pb2.ListTablesRequest(), metadata=me).tables
free = [t for t in listed if len(t.seats) < t.max_players and not (t.closed or t.closing)]
if not free:
    sys.exit("no table has a free seat")
table = free[0]
joined = lobby.JoinTable(
    lobby_pb2.JoinTableRequest(
        table_id=table.table_id, buy_in=table.min_buy_in, request_id=uuid.uuid4().hex
    ),
    metadata=me,
)
# Nothing happens until a hand is dealt and it is our turn: say so.
print(f"seat {joined.seat} at {table.table_id}; waiting for our turn...", flush=True)
tables = table_pb2_grpc.TableServiceStub(grpc.insecure_channel(joined.owner_address))
leaving, acted_at = False, 0  # acted_at: our move's log version
for update in tables.Watch(table_pb2.WatchRequest(table_id=table.table_id), metadata=me):
    if any(e.player_left.player == login.player_id for e in update.events):
        print("left the table; the chips are back in the wallet")
        break
    view = update.view
    if leaving or view.to_act != joined.seat or not view.legal_actions:
        continue  # once we asked to leave, the table checks or folds for us at once
    if view.version < acted_at:
        continue  # a view from before our move
    legal = [a.action for a in view.legal_actions]
    action = next((a for a in ("check", "call", "bring_in") if a in legal), legal[0])
    try:
        acted_at = tables.Act(
            table_pb2.ActRequest(
                table_id=table.table_id,
                hand_id=view.hand_id,
                seat=joined.seat,
                action=action,
                request_id=uuid.uuid4().hex,
            ),
            metadata=me,
        ).version
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)  # ErrorInfo, BadRequest, RetryInfo
        print(error.code(), error.details(), status.details if status else "")
    print(f"{action} in hand #{view.hand_number}", flush=True)
    # During a hand the leave waits for its end (pending); until then the table makes our
    # moves (check when free, else fold) without waiting for the clock.
    left = lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table.table_id, request_id=uuid.uuid4().hex),
        metadata=me,
    )
    print("leaving when this hand ends" if left.pending else "leaving now", flush=True)
    leaving = True
