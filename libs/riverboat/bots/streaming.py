"""A bot on one ``Play`` stream: the library's bot (:func:`riverboat.client.play_bot`) with its
updates and its actions on one stream instead of a ``Watch`` stream and a unary ``Act`` each.

It decides as ``play_bot`` does (:func:`~riverboat.client.next_move` on the view's legal
actions, client seeds committed and revealed for CRV1 hands through
:class:`~riverboat.client.ClientSeeds`, every card proof and lock checked), sends each action
without waiting, and learns what became of it from the outcome the stream brings back: an
action's latency is from sending it to its outcome.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import grpc

from riverboat import retrying
from riverboat.client import (
    BotStats,
    Chooser,
    ClientSeeds,
    Picker,
    SeedRequest,
    TableClient,
    next_move,
    random_picker,
    reopen_delay,
    sat_out,
    throttle_delay,
)
from riverboat.playstream import PlayStream, open_play, refusal
from riverboat.proofcheck import CardChecker
from riverboat.v1 import table_pb2

__all__ = ["play_bot_streaming"]


async def play_bot_streaming(
    client: TableClient,
    table_id: str,
    choose: Chooser,
    *,
    stop: asyncio.Event,
    stats: BotStats | None = None,
    pick: Picker | None = None,
    idle: float = 10.0,
) -> BotStats:
    """Play ``table_id`` on a Play stream until ``stop`` is set (see the module docstring).

    A stream quiet for ``idle`` seconds is reopened from the last version seen, as is one the
    service ended (a restart, a hand-over: the owner is found again on reopening).
    """
    bot = _Bot(client, table_id, choose, stats or BotStats(), pick)

    def reopen(exc: BaseException, pause: float, failures: int) -> None:
        assert isinstance(exc, grpc.aio.AioRpcError)
        bot.stats.errors.append(f"{exc.code().name}: play: {exc.details()}")

    while not stop.is_set():
        try:
            await retrying.call(
                lambda: bot.play(stop, idle),
                retrying.STREAM_REOPEN,
                transient=lambda exc: isinstance(exc, grpc.aio.AioRpcError) and not stop.is_set(),
                after=reopen_delay,
                on_retry=reopen,
            )
        except grpc.aio.AioRpcError:
            break  # stopped meanwhile
    return bot.stats


class _Bot:
    def __init__(
        self,
        client: TableClient,
        table_id: str,
        choose: Chooser,
        stats: BotStats,
        pick: Picker | None,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.choose = choose
        self.stats = stats
        self.pick = pick or random_picker(random.Random())
        self.checker = CardChecker()
        self.seeds = ClientSeeds(client, table_id, self.checker)
        #: Seed Acts sent on the stream, by request id (their outcomes are counted apart).
        self.seeding: dict[str, SeedRequest] = {}
        self.acted: set[tuple[str, int]] = set()
        #: Views older than our last accepted action may still list the move we just made.
        self.acted_version = 0
        self.after = 0
        self.sent: dict[str, float] = {}  # request id -> when it was sent
        #: What each request sent on this stream asked (to send a throttled one again), and
        #: how many times it was throttled.
        self.asked: dict[str, dict[str, Any]] = {}
        self.throttles: dict[str, int] = {}

    async def play(self, stop: asyncio.Event, idle: float) -> None:
        """One stream, until it ends, goes quiet for ``idle`` seconds or ``stop`` is set."""
        stream = await open_play(self.client, self.table_id, self.after)
        loop = asyncio.get_running_loop()
        last = loop.time()
        ended = False
        timer: asyncio.TimerHandle | None = None

        def end() -> None:
            nonlocal ended
            ended = True
            stream.cancel()

        def check_idle() -> None:
            nonlocal timer
            if loop.time() - last >= idle:
                end()
            else:
                timer = loop.call_at(last + idle, check_idle)

        timer = loop.call_later(idle, check_idle)
        stopper = asyncio.ensure_future(stop.wait())
        stopper.add_done_callback(lambda _: end())
        try:
            async for message in stream:
                last = loop.time()
                if message.WhichOneof("kind") == "outcome":
                    await self._outcome(stream, message.outcome)
                else:
                    await self._update(stream, message.update)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not ended or (task is not None and task.cancelling()):
                raise  # not our own ending: the task is being cancelled
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            # After we ended the stream ourselves (quiet, or stopping), a read or a write on it
            # fails (CANCELLED, INTERNAL from a write racing the cancel, or grpc's "RPC already
            # finished" for a write after it): that is the ending asked for, not an error of
            # the table's.
            if not ended:
                raise
        finally:
            if timer is not None:
                timer.cancel()
            stopper.cancel()
            stream.cancel()
            # Sent on this stream and not answered: a retry on the next one would be a new
            # decision (the view has moved on), so they are only counted.
            self.stats.unanswered += len(self.sent)
            self.sent.clear()
            self.asked.clear()
            self.throttles.clear()

    async def _send(self, stream: PlayStream, request_id: str, **asked: Any) -> None:
        self.asked[request_id] = asked
        await stream.act(request_id=request_id, **asked)

    async def _outcome(self, stream: PlayStream, outcome: table_pb2.ActOutcome) -> None:
        error = refusal(outcome)
        request_id = outcome.request_id
        delay = None if error is None else throttle_delay(error)
        tries = self.throttles.get(request_id, 0)
        # Tries in all as riverboat.retrying.THROTTLED allows (the first was the original send).
        allowed = (retrying.THROTTLED.attempts or 1) - 1
        if delay is not None and request_id in self.asked and tries < allowed:
            # Throttled by a rate limit: the same request again once the limit allows it
            # (its request id makes a second acceptance impossible).
            self.throttles[request_id] = tries + 1
            self.stats.throttled += 1
            await asyncio.sleep(delay)
            if not stream.done():  # else the stream ended while we waited (stop, a hand-over)
                await stream.act(request_id=request_id, **self.asked[request_id])
            return
        self.asked.pop(request_id, None)
        self.throttles.pop(request_id, None)
        began = self.sent.pop(request_id, None)
        seed = self.seeding.pop(outcome.request_id, None)
        if seed is not None:
            # Refused: too late (the table derives this seat's seed; the lock says so).
            checks = self.seeds.answered(seed, None if error is None else error.details())
            self.stats.seeds_sent, self.stats.seeds_refused = self.seeds.sent, self.seeds.refused
            self.stats.tally(checks)
            return
        if error is not None:
            # A clock expiry can beat us to it; the next update brings the new turn.
            self.stats.errors.append(f"{error.code().name}: {error.details()}")
            return
        self.acted_version = max(self.acted_version, outcome.version)
        self.stats.actions += 1
        if began is not None:
            self.stats.latencies.append(time.perf_counter() - began)

    async def _update(self, stream: PlayStream, update: table_pb2.WatchResponse) -> None:
        self.after = update.version
        self.stats.tally(self.checker.update(update))
        if not update.HasField("view"):
            return
        view = update.view
        due = self.seeds.claim(view)
        if due is not None:
            seed = self.seeds.request(*due)
            self.seeding[seed.request_id] = seed
            self.sent[seed.request_id] = time.perf_counter()
            await self._send(
                stream,
                seed.request_id,
                hand_id=seed.hand_id,
                seat=seed.seat,
                action=seed.action,
                client_seed=seed.client_seed,
                seed_commitment=seed.seed_commitment,
            )
        if view.hand_id:
            self.stats.hands_seen.add(view.hand_id)
        if sat_out(view):
            # The clock sat us out (a slow turn, a stalled stream): a bot sits in again.
            try:
                await self.client.sit_in(
                    self.table_id, request_id=f"{self.client.player}-sit-in-{view.version}"
                )
            except grpc.aio.AioRpcError as exc:
                self.stats.errors.append(f"{exc.code().name}: sit in: {exc.details()}")
        key = (view.hand_id, view.version)
        if not view.legal_actions or key in self.acted or view.version < self.acted_version:
            return
        self.acted.add(key)
        move = next_move(view, self.choose, self.pick)
        if move is None:
            return
        request_id = f"{self.client.player}-{view.hand_id or 'choice'}-{view.version}"
        self.sent[request_id] = time.perf_counter()  # loop.time() is in whole ms on uvloop
        await self._send(
            stream,
            request_id,
            hand_id=view.hand_id,
            seat=view.viewer_seat,
            action=move.action,
            amount=move.amount,
            cards=move.cards,
            choice=move.choice,
            options=move.options,
        )
