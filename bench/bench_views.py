"""One action's path in the table service: its folds, its encodes, and what its watchers cost.

In process (the real :class:`~riverboat.services.table.service.TableService` on the in-memory
store, the dealer stand-in of ``bench/_service.py``): one table, two seated players (each on a
``Watch`` stream, acting with ``Act`` as the library's bots do) and ``OBSERVERS`` observers
watching. Every message a stream yields is made into bytes as gRPC would (a message is
serialized, bytes already encoded go as they are). Per accepted action it counts:

- folds: the hand events the table folds again after the engine folded them deciding, over the
  hand events decided (1 + that ratio: 1 means folded once);
- encodes: the log's batch (one), plus every serialization the transport made, plus every
  distinct pre-encoded message the service handed out;

and prints the CPU per action with and without the observers (the difference per observer is
what one more watcher costs; on a busy machine that difference is within the noise).

Then the broadcast alone, timed precisely (best of many tries): one update of that table handed
to its two players and N observers, on fresh views each time, the way the service did it
before (each watcher's message serialized for it, and a Play stream's wrapped in a copy
first) against bytes encoded once per version and seat. The dealer stand-in deals RBS1 hands
(views without CRV1 proofs).
"""

from __future__ import annotations

import asyncio
import io
import random
import time
import timeit
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bench._service import _Context, _Dealer, _Refused
from riverboat.auth import Identity
from riverboat.client import next_move, random_chooser, random_picker
from riverboat.engine.events import Event as HandEvent
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.common.auth import acting_as
from riverboat.services.common.errors import ServiceError
from riverboat.services.common.logs import configure_logging
from riverboat.services.table.config import TableConfig
from riverboat.services.table.registry import TableRegistry
from riverboat.services.table.runner import Update
from riverboat.services.table.service import TableService
from riverboat.services.table.viewpb import TableViews
from riverboat.table import aggregate
from riverboat.v1 import table_pb2

OBSERVERS = 8
ACTIONS = 1500
ROUNDS = 3
BROADCAST_REPEATS = 30
STACK = 1_000_000


@dataclass
class Counts:
    """What one run counted."""

    actions: int = 0
    decided_hand_events: int = 0
    refolded_hand_events: int = 0
    serialized: int = 0
    preencoded: int = 0
    cpu_seconds: float = 0.0
    #: The table at the end (state, version) and its last update.
    last: tuple[Any, int, Update] | None = None

    @property
    def folds(self) -> float:
        """Folds of each hand event: the engine's one, plus the table's again."""
        return 1 + self.refolded_hand_events / max(self.decided_hand_events, 1)

    @property
    def encodes(self) -> float:
        """The log's encode, plus the transport's and the service's per action."""
        return 1 + (self.serialized + self.preencoded) / max(self.actions, 1)

    @property
    def ms_per_action(self) -> float:
        return 1000 * self.cpu_seconds / max(self.actions, 1)


@contextmanager
def _counting_folds(counts: Counts) -> Iterator[None]:
    """Count the hand events the table folds (``aggregate.fold_hand``) and those the engine
    decides (``aggregate.step_hand``): every table fold of a decided event is a second one."""
    # The engine's fold and step as the table module calls them (imported there by name).
    fold, step = getattr(aggregate, "fold_hand"), getattr(aggregate, "step_hand")  # noqa: B009

    decided: set[int] = set()
    keep: list[HandEvent] = []  # kept alive so that an event's id is never reused

    def counted_fold(events: list[HandEvent], state: Any = None) -> Any:
        counts.refolded_hand_events += sum(id(e) in decided for e in events)
        return fold(events, state)

    def counted_step(*args: Any, **kwargs: Any) -> Any:
        events, after = step(*args, **kwargs)
        counts.decided_hand_events += len(events)
        decided.update(map(id, events))
        keep.extend(events)
        return events, after

    setattr(aggregate, "fold_hand", counted_fold)  # noqa: B010
    setattr(aggregate, "step_hand", counted_step)  # noqa: B010
    try:
        yield
    finally:
        setattr(aggregate, "fold_hand", fold)  # noqa: B010
        setattr(aggregate, "step_hand", step)  # noqa: B010


async def _run(observers: int, actions: int) -> Counts:
    configure_logging(fmt="json", level="info", stream=io.StringIO(), service="table")
    dealer: Any = _Dealer()
    context: Any = _Context()
    registry = TableRegistry(InMemoryEventStore(), dealer, TableConfig(hand_pause=0.0))
    service = TableService(registry)
    table_id = "views"
    with acting_as(Identity("bench-operator", "operator")):
        await service.OpenTable(
            table_pb2.OpenTableRequest(table_id=table_id, action_seconds=3600, request_id="o"),
            context,
        )
        for seat in (1, 2):
            await service.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id,
                    seat=seat,
                    player=f"p{seat}",
                    stack=STACK,
                    request_id=f"s{seat}",
                ),
                context,
            )
    counts = Counts()
    done = asyncio.Event()
    seen: set[int] = set()
    keep: list[bytes] = []  # kept alive so that a distinct object's id is never reused

    def wire(item: Any) -> bytes:
        if isinstance(item, bytes):
            if id(item) not in seen:
                seen.add(id(item))
                keep.append(item)
                counts.preencoded += 1
            return item
        counts.serialized += 1
        data: bytes = item.SerializeToString()
        return data

    async def observer(k: int) -> None:
        with acting_as(Identity(f"o{k}", "observer")):
            async for item in service.Watch(table_pb2.WatchRequest(table_id=table_id), context):
                wire(item)

    async def player(seat: int) -> None:
        rng = random.Random(seat)
        choose, pick = random_chooser(rng), random_picker(rng)
        with acting_as(Identity(f"p{seat}", "player")):
            async for item in service.Watch(table_pb2.WatchRequest(table_id=table_id), context):
                update = table_pb2.WatchResponse.FromString(wire(item))
                if counts.actions >= actions:
                    done.set()
                    continue
                if not update.HasField("view") or update.view.to_act != seat:
                    continue
                view = update.view
                move = next_move(view, choose, pick)
                if move is None:
                    continue
                act = table_pb2.ActRequest(
                    table_id=table_id,
                    hand_id=view.hand_id,
                    seat=seat,
                    action=move.action,
                    amount=move.amount,
                    cards=move.cards,
                    choice=move.choice,
                    request_id=f"{seat}-{view.hand_id}-{view.version}",
                )
                try:
                    reply = await service.Act(act, context)
                except (_Refused, ServiceError):
                    continue
                # Bytes nest the view the seat's watchers were sent (not encoded again).
                if not isinstance(reply, bytes):
                    wire(reply)
                counts.actions += 1

    tasks = [asyncio.ensure_future(observer(k)) for k in range(observers)]
    await asyncio.sleep(0)
    with _counting_folds(counts):
        began = time.thread_time()
        tasks += [asyncio.ensure_future(player(seat)) for seat in (1, 2)]
        await done.wait()
        counts.cpu_seconds = time.thread_time() - began
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    runner = registry.known(table_id)
    assert runner is not None
    records = await runner.store.read(table_id, runner.version)
    counts.last = (runner.state, runner.version, Update.from_record(records[-1]))
    await registry.close()
    return counts


def broadcast(last: tuple[Any, int, Update], observers: int, *, play: bool) -> tuple[float, float]:
    """Microseconds to hand one update to the table's two players and ``observers`` observers
    (the best of many tries, each on fresh views: built, then sent to every watcher): as
    messages each serialized per watcher (gRPC's generated serializer, a Play stream's
    ``PlayResponse`` copy first), and as bytes encoded once per seat."""
    state, version, update = last
    seats = [1, 2, *([0] * observers)]

    def messages() -> None:
        views = TableViews("views")
        for seat in seats:
            response = views.update(state, version, seat, update)
            if play:
                table_pb2.PlayResponse(update=response).SerializeToString()
            else:
                response.SerializeToString()

    def encoded() -> None:
        views = TableViews("views")
        for seat in seats:
            if play:
                views.play_bytes(state, version, seat, update)
            else:
                views.update_bytes(state, version, seat, update)

    best = [
        min(timeit.repeat(f, number=20, repeat=BROADCAST_REPEATS)) / 20 for f in (messages, encoded)
    ]
    return 1e6 * best[0], 1e6 * best[1]


def measure(observers: int = OBSERVERS, actions: int = ACTIONS) -> Counts:
    """One run: ``actions`` accepted actions at a table of 2 players and ``observers``."""
    return asyncio.run(_run(observers, actions))


def _best(observers: int) -> Counts:
    """The least CPU of ``ROUNDS`` runs (the machine is shared: the least is the least noisy)."""
    return min((measure(observers) for _ in range(ROUNDS)), key=lambda c: c.cpu_seconds)


def run() -> None:
    bare = _best(0)
    watched = _best(OBSERVERS)
    per_watcher = (watched.ms_per_action - bare.ms_per_action) / OBSERVERS
    print(
        f"  in process, 1 table, 2 players acting (Watch + Act), {ACTIONS} accepted actions, "
        f"best of {ROUNDS}; each yielded message serialized as gRPC would"
    )
    print("    observers  CPU ms/act  folds/act  encodes/act")
    for n, counts in ((0, bare), (OBSERVERS, watched)):
        print(
            f"    {n:9d}  {counts.ms_per_action:10.3f}  {counts.folds:9.2f}  {counts.encodes:11.2f}"
        )
    print(f"    one more watcher: {1000 * per_watcher:.1f} us of CPU per action")
    assert watched.last is not None
    print(
        "  one update to 2 players and N observers, fresh views each time (built, then sent): "
        "as messages serialized per watcher against bytes encoded once per seat, best of "
        f"{BROADCAST_REPEATS}"
    )
    print("    watchers  stream   messages us   bytes us   ratio")
    for observers in (0, OBSERVERS, 10 * OBSERVERS):
        for play in (False, True):
            before, after = broadcast(watched.last, observers, play=play)
            print(
                f"    {2 + observers:8d}  {'Play' if play else 'Watch':6s} {before:12.1f} "
                f"{after:10.1f}   {after / before:5.2f}x"
            )


if __name__ == "__main__":
    run()
