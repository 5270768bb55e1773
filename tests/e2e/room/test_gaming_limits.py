"""Responsible-gaming limits against a real lobby, settlement and table service: deposit and
buy-in limits, the cooling-off of a raise, self-exclusion; enforced by settlement, which the
lobby asks before it writes anything of a buy-in; kept in the wallet's log across a restart.

The oracle is the test's own arithmetic on the amounts it moves; the lobby's stream is read
straight from NATS to show a refused buy-in left no record.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import nats
import pytest

from riverboat.client import LobbyClient
from riverboat.v1 import lobby_pb2, settlement_pb2, settlement_pb2_grpc
from tests import statuskit
from tests.e2e.room._settled import _tag, register, settled_lobby
from tests.e2e.room.conftest import Room

COOLING_OFF = 3  # seconds, so the raise is seen taking effect in the test
DAY = settlement_pb2.LIMIT_KIND_DEPOSIT_DAY
BUY_IN_DAY = settlement_pb2.LIMIT_KIND_BUY_IN_DAY


async def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value.code(), statuskit.reason(err.value)


def _limit(limits: settlement_pb2.Limits, kind: int) -> settlement_pb2.Limit:
    return next(x for x in limits.limits if x.kind == kind)


async def _joins_in_log(room: Room) -> int:
    """How many JoinStarted records the lobby's stream holds."""
    nc = await nats.connect(room.nats_url)
    try:
        sub = await nc.jetstream().subscribe(
            f"rb.lobby{_tag(room).lower()}.>", ordered_consumer=True
        )
        count = 0
        while True:
            try:
                msg = await sub.next_msg(timeout=1)
            except nats.errors.TimeoutError:
                break
            event = lobby_pb2.LobbyEvent()
            event.ParseFromString(msg.data)
            count += event.WhichOneof("payload") == "join_started"
        await sub.unsubscribe()
        return count
    finally:
        await nc.close()


async def test_limits_and_self_exclusion(room: Room) -> None:
    flags = ["--limit-cooling-off", str(COOLING_OFF)]
    async with settled_lobby(room, flags) as settled:
        await register(settled.lobby.address, ["ann", "bob"])
        async with (
            grpc.aio.insecure_channel(settled.lobby.address) as channel,
            grpc.aio.insecure_channel(settled.settlement.address) as money_channel,
        ):
            money = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
            boss = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
            ann_token = (("authorization", f"Bearer {room.token('ann')}"),)
            auditor = (("authorization", f"Bearer {room.token('audrey', 'auditor')}"),)

            def deposit(player: str, amount: int, ref: str) -> Any:
                return money.Deposit(
                    settlement_pb2.DepositRequest(player=player, amount=amount, external_ref=ref),
                    metadata=boss,
                )

            # Ann sets her own daily deposit limit of $100.
            await money.SetLimit(
                settlement_pb2.SetLimitRequest(kind=DAY, amount=10_000), metadata=ann_token
            )
            await deposit("ann", 6_000, "a1")
            assert await _refusal(deposit("ann", 5_000, "a2")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "DEPOSIT_LIMIT",
            )
            await deposit("ann", 4_000, "a3")  # exactly up to the limit

            # A raise waits for the cooling-off; until then the old limit holds.
            raised = await money.SetLimit(
                settlement_pb2.SetLimitRequest(kind=DAY, amount=50_000), metadata=ann_token
            )
            day = _limit(raised.limits, DAY)
            assert (day.amount, day.used, day.remaining) == (10_000, 10_000, 0)
            assert day.has_pending and day.pending_amount == 50_000
            assert raised.limits.cooling_off_seconds == COOLING_OFF
            assert await _refusal(deposit("ann", 100, "a4")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "DEPOSIT_LIMIT",
            )
            # The operator (and an auditor) see it; a player may not touch another's limits.
            seen = await money.GetLimits(
                settlement_pb2.GetLimitsRequest(player="ann"), metadata=auditor
            )
            assert _limit(seen.limits, DAY).pending_amount == 50_000
            other = money.SetLimit(
                settlement_pb2.SetLimitRequest(player="bob", kind=DAY, amount=1),
                metadata=ann_token,
            )
            assert (await _refusal(other))[0] == grpc.StatusCode.PERMISSION_DENIED
            unknown = money.SetLimit(
                settlement_pb2.SetLimitRequest(player="ann", amount=1), metadata=boss
            )
            assert await _refusal(unknown) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_LIMIT")

            while True:  # the raise applies once its cooling-off is over
                now = await money.GetLimits(
                    settlement_pb2.GetLimitsRequest(player="ann"), metadata=boss
                )
                if _limit(now.limits, DAY).amount == 50_000:
                    break
                await asyncio.sleep(0.5)
            assert not _limit(now.limits, DAY).has_pending
            await deposit("ann", 100, "a4")

            # A buy-in limit: the lobby refuses the second buy-in before writing anything.
            lobby = LobbyClient(channel)
            await lobby.login("boss", "boss-password")
            table = await lobby.create_table("pacific", "Pacific", request_id="p1")
            assert table.min_buy_in == 1_000
            await money.SetLimit(
                settlement_pb2.SetLimitRequest(player="ann", kind=BUY_IN_DAY, amount=3_000),
                metadata=boss,
            )
            ann = LobbyClient(channel)
            await ann.login("ann", "ann-password")
            await ann.join(table.table_id, 2_000, request_id="j1")
            await ann.leave(table.table_id, request_id="l1")
            joins = await _joins_in_log(room)
            second = ann.join(table.table_id, 1_500, request_id="j2")
            assert await _refusal(second) == (grpc.StatusCode.FAILED_PRECONDITION, "BUY_IN_LIMIT")
            assert await _joins_in_log(room) == joins
            # Settlement enforces it too, for a caller that goes past the lobby.
            service = (("authorization", f"Bearer {room.token('lobby', 'service')}"),)
            reserve = money.ReserveBuyIn(
                settlement_pb2.ReserveBuyInRequest(
                    player="ann", table_id=table.table_id, amount=1_500, reference="direct-1"
                ),
                metadata=service,
            )
            assert await _refusal(reserve) == (grpc.StatusCode.FAILED_PRECONDITION, "BUY_IN_LIMIT")
            await ann.join(table.table_id, 1_000, request_id="j3")  # what is left fits

            # Bob excludes himself for 30 days: no deposits, no buy-ins, never shortened.
            await deposit("bob", 5_000, "b1")
            bob_token = (("authorization", f"Bearer {room.token('bob')}"),)
            out = await money.SelfExclude(
                settlement_pb2.SelfExcludeRequest(days=30), metadata=bob_token
            )
            until = out.limits.excluded_until.seconds
            shorter = await money.SelfExclude(
                settlement_pb2.SelfExcludeRequest(days=1), metadata=bob_token
            )
            assert shorter.limits.excluded_until.seconds == until
            assert await _refusal(deposit("bob", 100, "b2")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "SELF_EXCLUDED",
            )
            bob = LobbyClient(channel)
            await bob.login("bob", "bob-password")
            assert await _refusal(bob.join(table.table_id, 1_000, request_id="j1")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "SELF_EXCLUDED",
            )
            await money.Withdraw(  # his money may always leave
                settlement_pb2.WithdrawRequest(player="bob", amount=5_000, external_ref="o1"),
                metadata=boss,
            )

        # The limits are the wallet log's: a restarted settlement still enforces them.
        await asyncio.to_thread(settled.settlement.stop)
        await asyncio.to_thread(settled.settlement.start)
        async with grpc.aio.insecure_channel(settled.settlement.address) as money_channel:
            money = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
            again = await money.GetLimits(
                settlement_pb2.GetLimitsRequest(player="bob"), metadata=boss
            )
            assert again.limits.excluded_until.seconds == until
            ann_limits = await money.GetLimits(
                settlement_pb2.GetLimitsRequest(player="ann"), metadata=boss
            )
            buy_in = _limit(ann_limits.limits, BUY_IN_DAY)
            assert (buy_in.amount, buy_in.used, buy_in.remaining) == (3_000, 3_000, 0)
            assert _limit(ann_limits.limits, DAY).used == 10_100


async def test_a_buy_in_the_wallet_refuses_leaves_no_trace(room: Room) -> None:
    """The wallet's owner judges a buy-in (funds, limits) before the lobby writes anything: a
    refused join leaves no record, and the same request succeeds once the wallet can pay."""
    async with settled_lobby(room) as settled:
        await register(settled.lobby.address, ["cyd"])
        async with (
            grpc.aio.insecure_channel(settled.lobby.address) as channel,
            grpc.aio.insecure_channel(settled.settlement.address) as money_channel,
        ):
            money = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
            boss = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)

            async def deposit(amount: int, ref: str) -> None:
                await money.Deposit(
                    settlement_pb2.DepositRequest(player="cyd", amount=amount, external_ref=ref),
                    metadata=boss,
                )

            lobby = LobbyClient(channel)
            await lobby.login("boss", "boss-password")
            table = await lobby.create_table("pacific", "Pacific", request_id="p1")
            await deposit(1_500, "c1")
            cyd = LobbyClient(channel)
            await cyd.login("cyd", "cyd-password")
            joins = await _joins_in_log(room)
            assert await _refusal(cyd.join(table.table_id, 2_000, request_id="j1")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "INSUFFICIENT_FUNDS",
            )
            assert await _joins_in_log(room) == joins
            await deposit(1_000, "c2")
            seated = await cyd.join(table.table_id, 2_000, request_id="j1")
            assert (seated.stack, seated.balance) == (2_000, 500)
