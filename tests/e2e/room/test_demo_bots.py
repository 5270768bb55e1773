"""The demo's bots against a real lobby, settlement and table service: a bot that busts buys
back in from its wallet, and leaves for good when the wallet cannot pay the minimum.

The oracle: a bot that folds to every bet and antes a dollar a hand must lose; with exactly two
minimum buy-ins in its wallet it buys in twice and leaves with an empty wallet, and the money
it lost is on the other bot's side of the table (nothing created or lost). Then the operator
closes the table: the bot left at it is cashed out and stops ("closed"), and its wallet holds
both wallets' money less the rake.

The folder is often all in on the ante, heads-up: that hand ends in its own deal. The table
once stopped dealing after such a hand (about one run in three timed out here); the runner
re-derives what is due after every deal now (tests/unit/table/test_runner_stalls.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import grpc

from riverboat.bots.demo import DemoBot
from riverboat.client import LobbyClient, TableClient
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc
from tests.e2e.room._settled import register, settled_lobby
from tests.e2e.room.conftest import Room
from tests.waiting import until


def folder(legal: list) -> tuple[str, int]:  # type: ignore[type-arg]
    """Checks, brings in when it must, folds to any bet."""
    by_name = {a.action: a for a in legal}
    for name in ("check", "bring_in", "fold"):
        if name in by_name:
            return name, by_name[name].amount
    return legal[0].action, legal[0].amount


def raiser(legal: list) -> tuple[str, int]:  # type: ignore[type-arg]
    """Raises, completes or bets whenever it can."""
    by_name = {a.action: a for a in legal}
    for name in ("raise", "complete", "bet", "call", "check", "bring_in"):
        if name in by_name:
            return name, by_name[name].amount
    return legal[0].action, legal[0].amount


async def test_a_busted_bot_buys_back_in_until_its_wallet_is_empty(room: Room) -> None:
    async with settled_lobby(room) as settled:
        await register(settled.lobby.address, ["short", "deep"])
        async with (
            grpc.aio.insecure_channel(settled.lobby.address) as channel,
            grpc.aio.insecure_channel(settled.settlement.address) as money_channel,
            grpc.aio.insecure_channel(room.table_address) as table_channel,
        ):
            money = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
            boss = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
            boss_lobby = LobbyClient(channel)
            await boss_lobby.login("boss", "boss-password")
            # A dollar's ante a hand: the folder loses at least that much every hand.
            table = await boss_lobby.create_table(
                "pacific",
                "Antes",
                request_id="antes",
                overrides={"ante": 100},
                action_seconds=5,  # a missed turn costs seconds, not the clock's 30
            )
            wallets = {"short": 2 * table.min_buy_in, "deep": 50 * table.min_buy_in}
            for name, amount in wallets.items():
                await money.Deposit(
                    settlement_pb2.DepositRequest(player=name, amount=amount, external_ref=name),
                    metadata=boss,
                )

            def wallet(name: str) -> Callable[[], Awaitable[int]]:
                async def balance() -> int:
                    reply = await money.GetBalance(
                        settlement_pb2.GetBalanceRequest(player=name), metadata=boss
                    )
                    return int(reply.balance)

                return balance

            said: list[str] = []

            def bot(name: str, choose: Callable[[list], tuple[str, int]]) -> DemoBot:  # type: ignore[type-arg]
                token = room.token(name)
                return DemoBot(
                    name=name,
                    lobby=LobbyClient(channel, token),
                    table=TableClient(table_channel, token, name),
                    listed=table,
                    wallet=wallet(name),
                    buy_in=table.min_buy_in,
                    choose=choose,
                    say=said.append,
                    think=0.0,
                )

            never = asyncio.Event()
            deep = asyncio.create_task(bot("deep", raiser).run(never))
            short = await asyncio.wait_for(bot("short", folder).run(never), 240)
            # The operator closes the table: the bot left at it is cashed out and stops.
            await TableClient(table_channel, room.token("boss", "operator")).close_table(
                table.table_id, request_id="close"
            )
            deep_run = await asyncio.wait_for(deep, 60)

            assert short.ended == "broke" and short.buy_ins == [1_000, 1_000]
            assert deep_run.ended == "closed"
            assert any(
                line == f"deep leaves {table.table_id}: the table is closed." for line in said
            )
            assert any("short buys back in" in line for line in said)
            assert any(line.startswith("short leaves") for line in said)
            left = await money.GetBalance(
                settlement_pb2.GetBalanceRequest(player="short"), metadata=boss
            )
            assert (left.balance, left.reserved, left.at_tables) == (0, 0, 0)
            listed = await boss_lobby.get_table(table.table_id)
            assert listed.closed and not listed.seats
            # Settlement follows the table's log: deep's cash-out is posted when it gets there.
            await until(
                lambda: money.GetBalance(
                    settlement_pb2.GetBalanceRequest(player="deep"), metadata=boss
                ),
                lambda b: (b.reserved, b.at_tables) == (0, 0),
                "deep cashed out",
            )
            deep_wallet = await wallet("deep")()
            # Nothing created or lost: deep holds both wallets' money but the rake.
            rake = await money.GetRakeReport(
                settlement_pb2.GetRakeReportRequest(
                    from_day=datetime.now(UTC).strftime("%Y-%m-%d"),
                    to_day=datetime.now(UTC).strftime("%Y-%m-%d"),
                ),
                metadata=boss,
            )
            assert deep_wallet + rake.total_rake == sum(wallets.values())
