"""Limits declared by the dealer for one deal, through gRPC against the real services and NATS:
a client that knows only the protos declares them with ``choose_game``; out of the table's
bounds is FAILED_PRECONDITION naming the bounds and changes nothing;
within them, the deal bets at the declared limits (the seed: "Unless otherwise declared by the
dealer & agreed upon by the players, the maximum bet ... is 3 bumps of $2.00")."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from riverboat.client import TableClient
from riverboat.v1 import events_pb2, table_pb2, table_pb2_grpc
from tests.e2e.room.conftest import Room
from tests.waiting import until

TABLE = "t-limits"
# The players agreed (the table's bounds): small bet $1-$5, big bet $2-$10.
BOUNDS = events_pb2.DealersChoiceRules(
    min_small_bet=100, max_small_bet=500, min_big_bet=200, max_big_bet=1000
)


async def _view_when(stub: Any, meta: Any, test: Any) -> table_pb2.TableView:
    """The table's view as ``meta``'s caller sees it, once ``test`` holds."""

    async def view() -> table_pb2.TableView:
        reply = await stub.GetTableView(
            table_pb2.GetTableViewRequest(table_id=TABLE), metadata=meta
        )
        return reply.view  # type: ignore[no-any-return]

    return await until(view, test, "the table's view as wanted", every=0.05)


async def test_the_dealer_declares_limits_within_the_bounds(
    room: Room, operator: TableClient
) -> None:
    await operator.create_table(TABLE, variant="dealers_choice", rules=BOUNDS)
    for seat in (1, 2):
        await operator.seat(TABLE, seat, f"{TABLE}-p{seat}", 10_000)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        metas = {
            seat: (("authorization", f"Bearer {room.token(f'{TABLE}-p{seat}')}"),)
            for seat in (1, 2)
        }
        view = await _view_when(stub, metas[1], lambda v: v.choosing_game)
        dealer = view.dealer
        meta = metas[dealer]

        def choose(small: int, big: int, rid: str) -> Any:
            request = table_pb2.ActRequest(
                table_id=TABLE,
                seat=dealer,
                action="choose_game",
                choice="draw",
                small_bet=small,
                big_bet=big,
                request_id=rid,
            )
            return stub.Act(request, metadata=meta)

        for k, (small, big) in enumerate(((600, 1000), (100, 1200), (300, 200))):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await choose(small, big, f"bad-{k}")
            error = info.value
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
            # (The table service sends engine refusals' rule in the message only today.)
            assert "small bet of $1 to $5 and a big bet of $2 to $10" in (error.details() or "")
            assert "Traceback" not in (error.details() or "")
        still = await _view_when(stub, meta, lambda v: True)
        assert still.choosing_game and not still.hand_in_progress  # nothing changed

        await choose(100, 300, "good")
        # Draw's first round at the declared $1: the player to act may bet exactly $1.
        view = await _view_when(
            stub, metas[1], lambda v: v.hand_in_progress and v.to_act and v.game == "draw"
        )
        acting = await _view_when(stub, metas[view.to_act], lambda v: bool(v.legal_actions))
        bets = {a.action: list(a.to) for a in acting.legal_actions}
        assert bets.get("bet") == [100], bets
