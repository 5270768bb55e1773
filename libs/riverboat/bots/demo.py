"""A demo bot that stays at its table like a regular would: it plays, and when it busts it
stands up and buys back in from its wallet; when the wallet cannot pay the table's minimum
buy-in it leaves for good. Everything goes through the public API (the lobby for buying in
and leaving, the table service for playing, settlement for the wallet), as any client's would.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc

from riverboat.client import Chooser, LobbyClient, TableClient, play_bot
from riverboat.handtext import dollars
from riverboat.rpcstatus import reason_of
from riverboat.v1 import lobby_pb2, table_pb2

__all__ = ["DemoBot", "DemoRun"]


@dataclass
class DemoRun:
    """What a demo bot did: buy-ins (the first included) and why it stopped."""

    buy_ins: list[int] = field(default_factory=list)
    #: "stopped" (asked to), "broke" (the wallet could not pay the minimum), "closed" (an
    #: operator closed the table).
    ended: str = ""


def busted(view: table_pb2.TableView, player: str) -> bool:
    """Whether ``player`` sits at the table with no chips and no hand in play (a player all
    in has no chips either, until the hand ends)."""
    seat = next((s for s in view.seats if s.player == player), None)
    return seat is not None and seat.stack == 0 and not view.hand_in_progress


@dataclass
class DemoBot:
    """One demo bot at one table.

    Args:
        name: its player id.
        lobby: a lobby client logged in as the bot.
        table: a table client calling as the bot.
        listed: the table as the lobby lists it (buy-in range).
        wallet: the bot's wallet balance now (settlement's GetBalance).
        buy_in: what it buys in for when it can (clamped to the table's range and the wallet).
    """

    name: str
    lobby: LobbyClient
    table: TableClient
    listed: lobby_pb2.LobbyTable
    wallet: Callable[[], Awaitable[int]]
    buy_in: int
    choose: Chooser
    on_update: Callable[[table_pb2.WatchResponse], None] | None = None
    say: Callable[[str], None] | None = None
    think: float = 0.3

    async def run(self, stop: asyncio.Event) -> DemoRun:
        """Play until ``stop``, buying back in whenever it busts while the wallet can pay."""
        run = DemoRun()
        table_id = self.listed.table_id
        while not stop.is_set():
            view = await self.table.view(table_id)
            if busted(view, self.name):
                await self.lobby.leave(table_id, request_id=_fresh("bust"))
                view = await self.table.view(table_id)
            if not any(s.player == self.name for s in view.seats):
                balance = await self.wallet()
                if balance < self.listed.min_buy_in:
                    self._say(
                        f"{self.name} leaves {table_id}: its wallet ({dollars(balance)}) cannot "
                        f"pay the minimum buy-in of {dollars(self.listed.min_buy_in)}."
                    )
                    run.ended = "broke"
                    return run
                amount = min(self.buy_in, balance, self.listed.max_buy_in)
                try:
                    await self.lobby.join(table_id, amount, request_id=_fresh("buy"))
                except grpc.aio.AioRpcError as exc:
                    if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    if reason_of(exc) == "TABLE_CLOSED":  # an operator closed it for good
                        self._say(f"{self.name} leaves {table_id}: the table is closed.")
                        run.ended = "closed"
                        return run
                    await asyncio.sleep(1.0)  # the table is full or the seat taken: later
                    continue
                run.buy_ins.append(amount)
                if len(run.buy_ins) > 1:
                    self._say(f"{self.name} buys back in at {table_id} for {dollars(amount)}.")
            await self._play_until_bust(stop)
        run.ended = "stopped"
        return run

    async def _play_until_bust(self, stop: asyncio.Event) -> None:
        done = asyncio.Event()

        def update(reply: table_pb2.WatchResponse) -> None:
            if self.on_update is not None:
                self.on_update(reply)
            if reply.HasField("view") and (busted(reply.view, self.name) or reply.view.closed):
                done.set()  # buy back in, or (closed) find out the table is gone

        async def relay() -> None:
            await stop.wait()
            done.set()

        relaying = asyncio.create_task(relay())
        try:
            await play_bot(
                self.table,
                self.listed.table_id,
                self.choose,
                stop=done,
                on_update=update,
                think=self.think,
            )
        finally:
            relaying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await relaying

    def _say(self, text: str) -> None:
        if self.say is not None:
            self.say(text)


def _fresh(what: str) -> str:
    """A request id of its own: a demo room restarted from its var/ must not repeat one."""
    return f"demo-{what}-{uuid.uuid4().hex[:16]}"
