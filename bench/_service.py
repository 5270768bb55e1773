"""The table service's own work per action, with no transport at all.

The real :class:`~riverboat.services.table.service.TableService` and its table runners, in
this process, on the in-memory event store and a dealer stand-in that derives each hand's deck
from a fixed seed (the dealer's real derivation). Four players per table read ``Watch`` updates
and call ``Act`` as the library's bots do, choosing with the same code (:func:`next_move`), and
every message the service hands out is serialized as gRPC would. No sockets, NATS or gRPC: the
CPU left per action is Riverboat's own Python (rules, views, encoding, the runner) plus the
bots' choice, which the room rows pay in their bots' process instead.

Set beside the room rows and the transport floor, it splits the table service's CPU per action
into its own work and what talking over gRPC and NATS adds.
"""

from __future__ import annotations

import asyncio
import io
import random
import time
from dataclasses import dataclass
from typing import Any

import grpc

from riverboat.auth import Identity
from riverboat.client import next_move, random_chooser, random_picker
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.common.auth import acting_as
from riverboat.services.common.errors import ServiceError
from riverboat.services.common.logs import configure_logging
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import Commitment
from riverboat.services.table.registry import TableRegistry
from riverboat.services.table.service import TableService
from riverboat.shuffle import SCHEME, commitment, derive_deck
from riverboat.v1 import table_pb2

PLAYERS = 4
STACK = 1_000_000
_SEED = bytes(range(32))


class _Dealer:
    """The dealer's answers without the dealer: one fixed seed, the real deck derivation."""

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        return Commitment(SCHEME, commitment(hand_id, _SEED), 52)

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        return tuple(derive_deck(hand_id, _SEED))

    async def reveal_seed(self, table_id: str, hand_id: str, log_sequence: int = 0) -> None:
        return None

    async def close(self) -> None:
        return None


class _Refused(Exception):
    """What ``context.abort`` raises here (a refused Act: the bot moves on, as over gRPC)."""


class _Context:
    """The little of ``grpc.aio.ServicerContext`` the table service's handlers use."""

    def invocation_metadata(self) -> tuple[()]:
        return ()

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise _Refused(f"{code.name}: {details}")


@dataclass(frozen=True)
class ServiceCost:
    """Accepted actions in the window, the CPU this process spent on them, and how much of
    that CPU was the players' own choosing (which the room rows pay in the bots' process)."""

    actions: int
    cpu_seconds: float
    errors: int
    choosing_seconds: float = 0.0

    @property
    def ms_per_action(self) -> float:
        """Everything, the players' choices included."""
        return 1000 * self.cpu_seconds / max(self.actions, 1)

    @property
    def service_ms_per_action(self) -> float:
        """The table service's part: everything but the players' choices."""
        return 1000 * (self.cpu_seconds - self.choosing_seconds) / max(self.actions, 1)

    @property
    def choosing_ms_per_action(self) -> float:
        """The players' part: reading the update, choosing a move and building the request."""
        return 1000 * self.choosing_seconds / max(self.actions, 1)


async def measure_service(tables: int, *, warmup: float, window: float) -> ServiceCost:
    """Play ``tables`` tables in process; CPU per accepted action over ``window`` seconds."""
    configure_logging(fmt="json", level="info", stream=io.StringIO(), service="table")
    # Stand-ins by duck typing: the dealer client's and gRPC context's methods the service calls.
    dealer: Any = _Dealer()
    context: Any = _Context()
    registry = TableRegistry(InMemoryEventStore(), dealer, TableConfig(hand_pause=0.0))
    service = TableService(registry)
    with acting_as(Identity("bench-operator", "operator")):
        for k in range(tables):
            table_id = f"s{k}"
            request = table_pb2.OpenTableRequest(
                table_id=table_id, action_seconds=3600, request_id=f"open-{table_id}"
            )
            await service.OpenTable(request, context)
            for seat in range(1, PLAYERS + 1):
                seating = table_pb2.SeatPlayerRequest(
                    table_id=table_id,
                    seat=seat,
                    player=f"{table_id}-p{seat}",
                    stack=STACK,
                    request_id=f"seat-{table_id}-{seat}",
                )
                await service.SeatPlayer(seating, context)
    accepted = 0
    errors = 0
    choosing = 0.0

    async def player(table_id: str, seat: int) -> None:
        nonlocal accepted, errors, choosing
        name = f"{table_id}-p{seat}"
        rng = random.Random(name)
        choose, pick = random_chooser(rng), random_picker(rng)
        with acting_as(Identity(name, "player")):
            watch = table_pb2.WatchRequest(table_id=table_id)
            async for item in service.Watch(watch, context):
                # What gRPC sends (live updates come encoded), and what a client reads.
                data = item if isinstance(item, bytes) else item.SerializeToString()
                began = time.thread_time()
                update = table_pb2.WatchResponse.FromString(data)
                choosing += time.thread_time() - began
                if not update.HasField("view") or update.view.to_act != seat:
                    continue
                view = update.view
                began = time.thread_time()
                move = next_move(view, choose, pick)
                if move is None:
                    choosing += time.thread_time() - began
                    continue
                act = table_pb2.ActRequest(
                    table_id=table_id,
                    hand_id=view.hand_id,
                    seat=seat,
                    action=move.action,
                    amount=move.amount,
                    cards=move.cards,
                    choice=move.choice,
                    request_id=f"{name}-{view.hand_id}-{view.version}",
                )
                choosing += time.thread_time() - began
                try:
                    reply = await service.Act(act, context)
                except (_Refused, ServiceError):  # what the ErrorInterceptor would send
                    errors += 1
                    continue
                if not isinstance(reply, bytes):
                    reply.SerializeToString()
                accepted += 1
                # Let the other tables run: over gRPC the reply would wait for the network.
                await asyncio.sleep(0)

    tasks = [
        asyncio.ensure_future(player(f"s{k}", seat))
        for k in range(tables)
        for seat in range(1, PLAYERS + 1)
    ]
    try:
        await asyncio.sleep(warmup)
        first, cpu, chose = accepted, time.thread_time(), choosing
        await asyncio.sleep(window)
        return ServiceCost(accepted - first, time.thread_time() - cpu, errors, choosing - chose)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await registry.close()
