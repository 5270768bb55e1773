"""Players and an observer for the leak battery, built on the ``riverboat.v1`` protos alone.

Each player watches the table, and whenever its view lists moves for it, picks one at random
from the view and sends ``Act`` (sometimes first a probe: the same card move naming a card it
does not hold, which must be refused without saying where that card is); now and then it asks
``GetTableView`` too. Everything it receives is kept, with the seat it was received as: every
Watch message, every Act reply, every view asked for, every error.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message

from riverboat.v1 import table_pb2, table_pb2_grpc

ALL_CARDS = tuple(r + s for r in "23456789TJQKA" for s in "cdhs")
_CARD_MOVES = frozenset({"draw", "discard", "pass", "expose"})


@dataclass(frozen=True)
class Refusal:
    """An error a viewer received: what the request named, and what came back."""

    seat: int
    version: int
    action: str
    named: tuple[str, ...]
    code: str
    details: str
    #: A probe: the move named ``foreign``, a card the player does not hold.
    foreign: str = ""


@dataclass
class Received:
    """Everything the viewers of one table received."""

    #: (seat, where, message): a WatchResponse, or a TableView from Act or GetTableView.
    messages: list[tuple[int, str, Message]] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    #: Errors of streams or calls that were not refusals of a move (there should be none).
    trouble: list[str] = field(default_factory=list)
    hands_ended: set[str] = field(default_factory=set)
    games: dict[str, int] = field(default_factory=dict)
    acts: int = 0


class Player:
    """One seat's client: ``metadata`` carries its bearer token."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        metadata: tuple[tuple[str, str], ...],
        table_id: str,
        seat: int,
        rng: random.Random,
        games: Iterator[tuple[str, dict[str, Any]]],
        received: Received,
    ) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        self.metadata = metadata
        self.table_id = table_id
        self.seat = seat
        self.rng = rng
        self.games = games
        self.received = received
        self._acted: set[tuple[str, int]] = set()
        #: The version our last accepted move made: older views may still list that move.
        self._acted_version = 0
        self._count = 0

    async def play(self, stop: asyncio.Event) -> None:
        """Watch and act until ``stop``; a stream that ends is reopened from the last version."""
        after = 0
        while not stop.is_set():
            call = self.stub.Watch(
                table_pb2.WatchRequest(table_id=self.table_id, after_version=after),
                metadata=self.metadata,
            )
            stopper = asyncio.ensure_future(stop.wait())
            stopper.add_done_callback(lambda _, c=call: c.cancel())  # type: ignore[misc]
            try:
                async for update in call:
                    after = update.version
                    self.received.messages.append((self.seat, "watch", update))
                    if self.seat == 0:
                        self._note(update)
                    if update.HasField("view") and self.seat:
                        await self._maybe_act(update.view)
            except grpc.aio.AioRpcError as exc:
                if exc.code() is not grpc.StatusCode.CANCELLED:
                    self.received.trouble.append(f"seat {self.seat} watch: {exc.code().name}")
                    await asyncio.sleep(0.2)
            except asyncio.CancelledError:
                if not stop.is_set():
                    raise
            finally:
                stopper.cancel()

    async def replay(self, until: int) -> None:
        """Watch again from the start (the service replays the log to this viewer: another
        way its messages are built) until version ``until``."""
        call = self.stub.Watch(
            table_pb2.WatchRequest(table_id=self.table_id, after_version=1),
            metadata=self.metadata,
        )
        try:
            async for update in call:
                self.received.messages.append((self.seat, "replay", update))
                if update.version >= until:
                    break
        finally:
            call.cancel()

    def _note(self, update: table_pb2.WatchResponse) -> None:
        for env in update.events:
            kind = env.WhichOneof("payload")
            if kind == "hand_started":
                variant = env.hand_started.variant
                self.received.games[variant] = self.received.games.get(variant, 0) + 1
            elif kind == "hand_ended" and update.HasField("view"):
                self.received.hands_ended.add(update.view.hand_id)

    async def _maybe_act(self, view: table_pb2.TableView) -> None:
        key = (view.hand_id, view.version)
        if not view.legal_actions or key in self._acted or view.version < self._acted_version:
            return
        self._acted.add(key)
        move = self._pick(view)
        if move["action"] in _CARD_MOVES and move["cards"] and self.rng.random() < 0.3:
            await self._probe(view, move)
        await self._send(view, move)
        if self.rng.random() < 0.1:
            reply = await self.stub.GetTableView(
                table_pb2.GetTableViewRequest(table_id=self.table_id), metadata=self.metadata
            )
            self.received.messages.append((self.seat, "get", reply.view))

    async def _probe(self, view: table_pb2.TableView, move: dict[str, Any]) -> None:
        """The move with one of its cards swapped for one the player does not hold."""
        mine = set(self._own(view))
        foreign = self.rng.choice([c for c in ALL_CARDS if c not in mine])
        cards = [foreign, *move["cards"][1:]]
        probe = {**move, "cards": cards}
        try:
            await self._call(view, probe)
        except grpc.aio.AioRpcError as exc:
            self.received.refusals.append(
                Refusal(
                    self.seat,
                    view.version,
                    move["action"],
                    tuple(cards),
                    exc.code().name,
                    exc.details() or "",
                    foreign,
                )
            )
        else:
            self.received.trouble.append(f"seat {self.seat} played {foreign}, not theirs")

    async def _send(self, view: table_pb2.TableView, move: dict[str, Any]) -> None:
        try:
            reply = await self._call(view, move)
        except grpc.aio.AioRpcError as exc:
            # Another seat's move or the clock can beat ours; the error is checked all the same.
            self.received.refusals.append(
                Refusal(
                    self.seat,
                    view.version,
                    move["action"],
                    tuple(move["cards"]),
                    exc.code().name,
                    exc.details() or "",
                )
            )
            return
        self.received.acts += 1
        self._acted_version = max(self._acted_version, reply.version)
        self.received.messages.append((self.seat, "act", reply.view))

    async def _call(self, view: table_pb2.TableView, move: dict[str, Any]) -> Any:
        self._count += 1
        request = table_pb2.ActRequest(
            table_id=self.table_id,
            hand_id=view.hand_id if move["action"] != "choose_game" else "",
            seat=self.seat,
            action=move["action"],
            amount=move.get("amount", 0),
            cards=list(move["cards"]),
            choice=move.get("choice", ""),
            request_id=f"s{self.seat}-{view.version}-{self._count}",
        )
        if move.get("options"):
            request.options.update(move["options"])
        return await self.stub.Act(request, metadata=self.metadata, timeout=20)

    def _own(self, view: table_pb2.TableView) -> list[str]:
        row = next((s for s in view.seats if s.seat == self.seat), None)
        return [c.card for c in row.cards if c.card] if row is not None else []

    def _pick(self, view: table_pb2.TableView) -> dict[str, Any]:
        rng = self.rng
        legal = {a.action: a for a in view.legal_actions}
        if "choose_game" in legal:
            offered = set(legal["choose_game"].choices)
            for _ in range(500):
                game, options = next(self.games)
                if game in offered:
                    return {
                        "action": "choose_game",
                        "cards": [],
                        "choice": game,
                        "options": options,
                    }
            raise AssertionError(f"no game of the plan is offered: {sorted(offered)}")
        name = rng.choice(sorted(legal))
        if name == "fold" and len(legal) > 1 and rng.random() < 0.8:
            name = rng.choice(sorted(set(legal) - {"fold"}))
        if "match" in legal and rng.random() < 0.8:
            name = "match"
        a = legal[name]
        row = next(s for s in view.seats if s.seat == self.seat)
        mine = [c.card for c in row.cards if c.card]
        if name in ("draw", "discard", "pass"):
            count = rng.randint(a.min_cards, min(a.max_cards, len(mine)))
            return {"action": name, "cards": rng.sample(mine, count)}
        if name == "order":
            rng.shuffle(mine)
            return {"action": name, "cards": mine}
        if name == "expose":
            down = [c.card for c in row.cards if c.card and not c.face_up]
            return {"action": name, "cards": [rng.choice(down)]}
        if a.choices:
            return {"action": name, "cards": [], "choice": rng.choice(list(a.choices))}
        return {"action": name, "cards": [], "amount": 0}
