"""A small async client of the table service, and a bot that plays through it.

Bots use exactly the API a third-party client uses: they watch the table, and when the view
lists legal actions for them (their turn, a simultaneous phase they owe, or the dealer's choice
of game) they pick one and send ``Act``: betting through a :data:`Chooser`, every other move
(choose_game, draw, pass, declare...) through a :data:`Picker` that reads the view's cards.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from riverboat.engine.betting import LegalAction
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc


class TableClient:
    """Calls one table service with one bearer token; ``name`` labels its request ids."""

    def __init__(self, channel: grpc.aio.Channel, token: str, name: str = "") -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        self.player = name
        self.metadata: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {token}"),)

    async def create_table(
        self,
        table_id: str,
        *,
        name: str = "",
        action_seconds: int = 30,
        options: Any = None,
        request_id: str | None = None,
        variant: str = "seven_card_stud_hi_lo",
        rules: Any = None,
    ) -> int:
        """Open a table; returns its version. ``rules``: a dealers_choice table's
        ``DealersChoiceRules`` message (default: every game)."""
        request = table_pb2.OpenTableRequest(
            table_id=table_id,
            name=name or table_id,
            variant=variant,
            action_seconds=action_seconds,
            request_id=request_id or f"create-{table_id}",
        )
        if options is not None:
            request.options.CopyFrom(options)
        if rules is not None:
            request.dealers_choice.CopyFrom(rules)
        reply = await self.stub.OpenTable(request, metadata=self.metadata)
        return int(reply.version)

    async def seat(self, table_id: str, seat: int, player: str, stack: int) -> int:
        """Seat a player (operator)."""
        reply = await self.stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(
                table_id=table_id,
                seat=seat,
                player=player,
                stack=stack,
                request_id=f"seat-{table_id}-{seat}-{player}",
            ),
            metadata=self.metadata,
        )
        return int(reply.version)

    async def view(self, table_id: str) -> table_pb2.TableView:
        """The table as this identity sees it."""
        reply = await self.stub.GetTableView(
            table_pb2.GetTableViewRequest(table_id=table_id), metadata=self.metadata
        )
        view: table_pb2.TableView = reply.view
        return view

    async def act(
        self,
        table_id: str,
        hand_id: str,
        seat: int,
        action: str,
        amount: int = 0,
        *,
        request_id: str,
        cards: tuple[str, ...] = (),
        choice: str = "",
        options: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> table_pb2.ActResponse:
        """Send an action (``cards`` like ``"Ah"``; ``choice`` a game or a declaration);
        ``timeout``: seconds before the call fails with DEADLINE_EXCEEDED."""
        request = table_pb2.ActRequest(
            table_id=table_id,
            hand_id=hand_id,
            seat=seat,
            action=action,
            amount=amount,
            request_id=request_id,
            cards=list(cards),
            choice=choice,
        )
        if options:
            request.options.update(options)
        response: table_pb2.ActResponse = await self.stub.Act(
            request, metadata=self.metadata, timeout=timeout
        )
        return response

    async def watch(
        self, table_id: str, after_version: int = 0
    ) -> AsyncIterator[table_pb2.WatchResponse]:
        """Updates of the table as this identity sees them."""
        call = self.stub.Watch(
            table_pb2.WatchRequest(table_id=table_id, after_version=after_version),
            metadata=self.metadata,
        )
        async for update in call:
            yield update


Chooser = Callable[[list[LegalAction]], tuple[str, int]]

#: Seconds a bot waits for an answer to ``Act`` before giving up on that move.
ACT_TIMEOUT = 10.0

#: Betting actions: a :data:`Chooser` picks among these.
BETTING = frozenset({"bring_in", "complete", "bet", "raise", "call", "check", "fold"})


@dataclass(frozen=True, slots=True)
class Move:
    """One ``Act`` request's content."""

    action: str
    amount: int = 0
    cards: tuple[str, ...] = ()
    choice: str = ""
    options: dict[str, Any] | None = None


#: Picks a non-betting move (a game, cards, a declaration, an offer) from the viewer's view.
Picker = Callable[[table_pb2.TableView], Move]


def next_move(view: table_pb2.TableView, choose: Chooser, pick: Picker) -> Move | None:
    """The bot's move for ``view``: betting through ``choose``, anything else ``pick``."""
    legal = [LegalAction(a.action, tuple(a.to)) for a in view.legal_actions]
    if not legal:
        return None
    if {a.action for a in legal} <= BETTING:
        action, amount = choose(legal)
        return Move(action, amount)
    return pick(view)


def random_picker(rng: random.Random) -> Picker:
    """Random legal card moves, games and declarations (matches and takes the pot mostly)."""

    def pick(view: table_pb2.TableView) -> Move:
        legal = list(view.legal_actions)
        names = {a.action for a in legal}
        if "match" in names and rng.random() < 0.8:
            return Move("match")
        a = rng.choice(legal)
        seat = next((s for s in view.seats if s.seat == view.viewer_seat), None)
        held = [c for c in seat.cards if c.card] if seat is not None else []
        mine = [c.card for c in held]
        if a.action in ("draw", "discard", "pass"):
            count = rng.randint(a.min_cards, min(a.max_cards, len(mine)))
            return Move(a.action, cards=tuple(rng.sample(mine, count)))
        if a.action == "order":
            rng.shuffle(mine)
            return Move("order", cards=tuple(mine))
        if a.action == "expose":
            down = [c.card for c in held if not c.face_up]
            return Move("expose", cards=(rng.choice(down),))
        if a.choices:  # choose_game, declare
            return Move(a.action, choice=rng.choice(list(a.choices)))
        return Move(a.action)

    return pick


@dataclass
class BotStats:
    """What a bot did."""

    actions: int = 0
    hands_seen: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)


async def play_bot(
    client: TableClient,
    table_id: str,
    choose: Chooser,
    *,
    stop: asyncio.Event,
    on_update: Callable[[table_pb2.WatchResponse], None] | None = None,
    think: float = 0.0,
    stats: BotStats | None = None,
    pick: Picker | None = None,
) -> BotStats:
    """Watch ``table_id`` and act whenever the view lists moves for this bot, until ``stop``
    is set. ``pick`` makes the non-betting moves (default: :func:`random_picker`)."""
    stats = stats or BotStats()
    pick = pick or random_picker(random.Random())
    acted: set[tuple[str, int]] = set()
    # Views older than our last accepted action may still list the move we just made.
    acted_version = 0
    after = 0
    while not stop.is_set():
        try:
            # A stream quiet for a while is reopened from the last version seen: a bot must
            # not go deaf because one stream stalled.
            async for update in watch_until(client, table_id, stop, after=after, idle=10.0):
                after = update.version
                if on_update is not None:
                    on_update(update)
                if not update.HasField("view"):
                    continue
                view = update.view
                if view.hand_id:
                    stats.hands_seen.add(view.hand_id)
                key = (view.hand_id, view.version)
                if not view.legal_actions or key in acted or view.version < acted_version:
                    continue
                acted.add(key)
                move = next_move(view, choose, pick)
                if move is None:
                    continue
                if think:
                    await asyncio.sleep(think)
                started = time.perf_counter()  # loop.time() is in whole ms on uvloop
                try:
                    reply = await client.act(
                        table_id,
                        view.hand_id,
                        view.viewer_seat,
                        move.action,
                        move.amount,
                        request_id=f"{client.player}-{view.hand_id or 'choice'}-{view.version}",
                        cards=move.cards,
                        choice=move.choice,
                        options=move.options,
                        timeout=ACT_TIMEOUT,
                    )
                    acted_version = reply.version
                    stats.actions += 1
                    stats.latencies.append(time.perf_counter() - started)
                except grpc.aio.AioRpcError as exc:
                    # A clock expiry can beat us to it; the next update brings the new turn.
                    if exc.code() is grpc.StatusCode.DEADLINE_EXCEEDED:
                        stats.errors.append(f"act: no answer in {ACT_TIMEOUT:g} s")
                    else:
                        stats.errors.append(f"{exc.code().name}: {exc.details()}")
        except grpc.aio.AioRpcError as exc:
            if stop.is_set():
                break
            stats.errors.append(f"watch {exc.code().name}: {exc.details()}")
            await asyncio.sleep(0.2)  # the service may be restarting: resume from `after`
    return stats


async def watch_until(
    client: TableClient,
    table_id: str,
    stop: asyncio.Event,
    *,
    after: int = 0,
    idle: float | None = None,
) -> AsyncIterator[table_pb2.WatchResponse]:
    """``table_id``'s updates after version ``after``, until ``stop`` is set or (with
    ``idle``) nothing came for ``idle`` seconds: the stream is then cancelled and the
    iteration simply ends.

    One timer and one waiter per stream, not per message: a bot reads many messages, and
    racing each read against ``stop`` would cost more than the read itself.
    """
    call = client.stub.Watch(
        table_pb2.WatchRequest(table_id=table_id, after_version=after), metadata=client.metadata
    )
    loop = asyncio.get_running_loop()
    last = loop.time()
    timer: asyncio.TimerHandle | None = None

    def check_idle() -> None:
        nonlocal timer
        assert idle is not None
        if loop.time() - last >= idle:
            call.cancel()
        else:
            timer = loop.call_at(last + idle, check_idle)

    if idle is not None:
        timer = loop.call_later(idle, check_idle)
    stopper = asyncio.ensure_future(stop.wait())
    stopper.add_done_callback(lambda _: call.cancel())
    try:
        while True:
            try:
                update = await call.read()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if call.cancelled() and not (task is not None and task.cancelling()):
                    return  # stopped or idle: our own cancel, not the task's
                raise
            if update is grpc.aio.EOF:  # type: ignore[attr-defined]  # missing from the stubs
                return
            last = loop.time()
            yield update
    finally:
        if timer is not None:
            timer.cancel()
        stopper.cancel()
        call.cancel()


def random_chooser(rng: random.Random) -> Chooser:
    """A bot that mostly calls or checks, sometimes bets or raises, rarely folds."""

    def choose(legal: list[LegalAction]) -> tuple[str, int]:
        by_name = {a.action: a for a in legal}
        roll = rng.random()
        for name in ("raise", "bet", "complete"):
            if name in by_name and roll < 0.25:
                return name, by_name[name].to[0]
        if "call" in by_name and roll > 0.9:
            return "fold", 0
        for name in ("check", "call", "bring_in"):
            if name in by_name:
                return name, by_name[name].to[0]
        return legal[0].action, legal[0].to[0]

    return choose


class LobbyClient:
    """Calls the lobby; ``token`` (from :meth:`login`) is sent with every call but the first two."""

    def __init__(self, channel: grpc.aio.Channel, token: str | None = None) -> None:
        self.stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        self.token = token

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The bearer token, once logged in."""
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()

    async def register(self, username: str, password: str) -> str:
        """Create a player account; returns the player id."""
        reply = await self.stub.Register(
            lobby_pb2.RegisterRequest(username=username, password=password)
        )
        return str(reply.player_id)

    async def login(self, username: str, password: str) -> lobby_pb2.LoginResponse:
        """Log in; later calls carry the token."""
        reply: lobby_pb2.LoginResponse = await self.stub.Login(
            lobby_pb2.LoginRequest(username=username, password=password)
        )
        self.token = reply.token
        return reply

    async def create_table(
        self,
        template: str,
        name: str,
        *,
        request_id: str,
        overrides: dict[str, Any] | None = None,
        action_seconds: int = 0,
    ) -> lobby_pb2.LobbyTable:
        """Open a table (operators)."""
        request = lobby_pb2.CreateTableRequest(
            template=template, name=name, request_id=request_id, action_seconds=action_seconds
        )
        if overrides:
            request.overrides.update(overrides)
        reply = await self.stub.CreateTable(request, metadata=self.metadata)
        table: lobby_pb2.LobbyTable = reply.table
        return table

    async def list_tables(
        self, page_size: int = 20, page_token: str = ""
    ) -> lobby_pb2.ListTablesResponse:
        """A page of tables."""
        reply: lobby_pb2.ListTablesResponse = await self.stub.ListTables(
            lobby_pb2.ListTablesRequest(page_size=page_size, page_token=page_token),
            metadata=self.metadata,
        )
        return reply

    async def get_table(self, table_id: str) -> lobby_pb2.LobbyTable:
        """One table."""
        reply = await self.stub.GetTable(
            lobby_pb2.GetTableRequest(table_id=table_id), metadata=self.metadata
        )
        table: lobby_pb2.LobbyTable = reply.table
        return table

    async def join(
        self, table_id: str, buy_in: int, *, request_id: str, seat: int = 0
    ) -> lobby_pb2.JoinTableResponse:
        """Buy in and sit down."""
        reply: lobby_pb2.JoinTableResponse = await self.stub.JoinTable(
            lobby_pb2.JoinTableRequest(
                table_id=table_id, seat=seat, buy_in=buy_in, request_id=request_id
            ),
            metadata=self.metadata,
        )
        return reply

    async def leave(self, table_id: str, *, request_id: str) -> lobby_pb2.LeaveTableResponse:
        """Stand up with your chips."""
        reply: lobby_pb2.LeaveTableResponse = await self.stub.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=table_id, request_id=request_id),
            metadata=self.metadata,
        )
        return reply
