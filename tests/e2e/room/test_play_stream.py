"""TableService/Play against the real dealer, table service and NATS: a player's updates and
actions on one stream.

Oracles: the raw log (every accepted action is a record with the action's request id, the
outcome's version is that record's; chips are conserved), and the unary ``Act`` itself (a
refused action's outcome carries exactly the status ``Act`` answers to the same move).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterable
from typing import Any

import grpc
import nats
import pytest
from google.rpc import status_pb2

from riverboat.bots.streaming import play_bot_streaming
from riverboat.client import BotStats, TableClient, random_chooser
from riverboat.engine.events import HandEnded, HandStarted, RakeTaken
from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.idempotency import RequestKey
from riverboat.playstream import PlayStream, open_play
from riverboat.v1 import table_pb2, table_pb2_grpc
from tests import statuskit
from tests.e2e.room._play import read_log, setup_table
from tests.e2e.room.conftest import Room

pytestmark = pytest.mark.timeout(120)


def _streams(room: Room) -> tuple[str, str]:
    args = room.table.args
    return args[args.index("--stream") + 1], args[args.index("--subject-prefix") + 1]


class _Refusal:
    """An outcome's status shaped as a gRPC error, for the tests' own decoder (statuskit)."""

    def __init__(self, status: status_pb2.Status) -> None:
        self._status = status

    def code(self) -> grpc.StatusCode:
        return next(c for c in grpc.StatusCode if c.value[0] == self._status.code)

    def details(self) -> str:
        return str(self._status.message)

    def trailing_metadata(self) -> Any:
        return (("grpc-status-details-bin", self._status.SerializeToString()),)


async def _next(messages: AsyncIterable[table_pb2.PlayResponse], kind: str) -> Any:
    """The next message of ``kind`` ("update" or "outcome")."""
    async for message in messages:
        if message.WhichOneof("kind") == kind:
            return getattr(message, kind)
    raise AssertionError(f"the stream ended before an {kind}")


async def test_streaming_bots_play_hands_and_every_action_is_answered_from_the_log(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, "t-stream", 4)
    stop = asyncio.Event()
    stats = [BotStats() for _ in players]
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        rng = random.Random(7)
        bots = [
            asyncio.ensure_future(
                play_bot_streaming(
                    room.client(channel, name),
                    "t-stream",
                    random_chooser(random.Random(rng.random())),
                    stop=stop,
                    stats=stat,
                )
            )
            for name, stat in zip(players, stats, strict=True)
        ]
        try:
            for _ in range(600):
                if sum(len(s.hands_seen) for s in stats) >= 4 * 4:
                    break
                await asyncio.sleep(0.1)
        finally:
            stop.set()
            await asyncio.gather(*bots)
    assert all(len(s.hands_seen) >= 3 for s in stats), [s.hands_seen for s in stats]
    assert not [e for s in stats for e in s.errors], [s.errors for s in stats]
    assert not [f for s in stats for f in s.proof_failures]
    assert sum(s.cards_verified for s in stats) > 0

    # The oracle: the raw log. Every accepted action is a record of the player's, and nothing
    # else a player did is.
    nc = await nats.connect(room.nats_url)
    try:
        stream, prefix = _streams(room)
        records = await JetStreamEventStore(
            nc, StreamSettings(name=stream, subject_prefix=prefix)
        ).read("t-stream")
    finally:
        await nc.close()
    keys = [RequestKey.parse(r.request_id) for r in records]
    moves = [
        k
        for k, _ in filter(None, keys)
        if k.kind == "act" and k.caller in players and k.request_id.startswith(f"{k.caller}-")
    ]
    seeds = [k for k, _ in filter(None, keys) if k.kind == "act" and k.request_id[:5] == "seed-"]
    answered = sum(s.actions + s.seeds_sent for s in stats)
    # Answered actions are all there; one still in flight when the bots stopped may be too.
    assert answered <= len(moves) + len(seeds) <= answered + sum(s.unanswered for s in stats)
    assert sum(s.actions for s in stats) > 20 and sum(s.seeds_sent for s in stats) > 4
    batches = await read_log(room.nats_url, *_streams(room), "t-stream")
    started = rake = 0
    ended = 0
    for batch in batches:
        for e in batch:
            if isinstance(e, HandStarted):
                started, rake = sum(s.stack for s in e.seats), 0
            elif isinstance(e, RakeTaken):
                rake = e.amount
            elif isinstance(e, HandEnded):
                ended += 1
                assert sum(v for _, v in e.stacks) + rake == started
    assert ended >= 3


async def _turn(stream: PlayStream, seat: int) -> table_pb2.TableView:
    """Read updates until the view says it is ``seat``'s turn."""
    async for message in stream:
        if message.WhichOneof("kind") != "update" or not message.update.HasField("view"):
            continue
        view = message.update.view
        if view.to_act == seat and view.hand_id and view.legal_actions:
            return view
    raise AssertionError("the stream ended before the turn came")


async def test_a_refused_action_gets_acts_own_status_and_the_stream_goes_on(
    room: Room, operator: TableClient
) -> None:
    a, b = await setup_table(operator, "t-refuse", 2, action_seconds=600)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        client_a, client_b = room.client(channel, a), room.client(channel, b)
        stream_a = await open_play(client_a, "t-refuse")
        stream_b = await open_play(client_b, "t-refuse")
        try:
            seat = await _first_to_act(operator, "t-refuse")
            stream, other_stream = (stream_a, stream_b) if seat == 1 else (stream_b, stream_a)
            other_client = client_b if seat == 1 else client_a
            view = await asyncio.wait_for(_turn(stream, seat), timeout=30)
            # The other player acts out of turn.
            await other_stream.act(view.hand_id, 3 - seat, "call", request_id="early-1")
            outcome = await asyncio.wait_for(_next(other_stream, "outcome"), timeout=30)
            assert outcome.request_id == "early-1"
            assert outcome.HasField("error")
            on_stream = statuskit.details(_Refusal(outcome.error))
            # The oracle: the unary Act's answer to the same move.
            with pytest.raises(grpc.aio.AioRpcError) as unary:
                await other_client.act(
                    "t-refuse", view.hand_id, 3 - seat, "call", request_id="early-2"
                )
            by_act = statuskit.details(unary.value)
            assert (on_stream.code, on_stream.message, on_stream.reason, on_stream.metadata) == (
                by_act.code,
                by_act.message,
                by_act.reason,
                by_act.metadata,
            )
            assert on_stream.code is grpc.StatusCode.FAILED_PRECONDITION
            # The stream goes on: the player to act acts on theirs, and the update (with the
            # new version) comes before the outcome naming that version.
            legal = {a.action for a in view.legal_actions}
            action = next(x for x in ("call", "check", "bring_in", "complete") if x in legal)
            await stream.act(view.hand_id, seat, action, request_id="mine-1")
            versions: list[int] = []
            accepted = None
            async for message in stream:
                if message.WhichOneof("kind") == "update":
                    versions.append(message.update.version)
                else:
                    accepted = message.outcome
                    break
            assert accepted is not None
            assert accepted.request_id == "mine-1" and not accepted.HasField("error")
            assert accepted.version in versions
            # A retry with the same request id finds the original.
            await stream.act(view.hand_id, seat, action, request_id="mine-1")
            again = await asyncio.wait_for(_next(stream, "outcome"), timeout=30)
            assert (again.version, again.HasField("error")) == (accepted.version, False)
            # An action naming another table is refused on the stream, which goes on.
            stream.table_id = "t-other"  # (the stream's client names the table in each action)
            await stream.act(view.hand_id, seat, action, request_id="elsewhere")
            stream.table_id = "t-refuse"
            elsewhere = await asyncio.wait_for(_next(stream, "outcome"), timeout=30)
            found = statuskit.details(_Refusal(elsewhere.error))
            assert (found.code, found.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "OTHER_TABLE")
            await stream.act(view.hand_id, seat, action, request_id="mine-1")
            last = await asyncio.wait_for(_next(stream, "outcome"), timeout=30)
            assert last.version == accepted.version
        finally:
            stream_a.cancel()
            stream_b.cancel()


async def _first_to_act(observer: TableClient, table_id: str) -> int:
    """The seat to act first in the table's first hand (as an operator sees it)."""
    for _ in range(600):
        view = await observer.view(table_id)
        if view.hand_id and view.to_act:
            return view.to_act
        await asyncio.sleep(0.05)
    raise AssertionError("no hand started")


async def test_a_play_stream_starts_with_watch_and_is_for_players(
    room: Room, operator: TableClient
) -> None:
    await setup_table(operator, "t-open", 2)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        player = (("authorization", f"Bearer {room.token('t-open-p1')}"),)
        call = stub.Play(metadata=player)
        await call.write(
            table_pb2.PlayRequest(act=table_pb2.ActRequest(table_id="t-open", request_id="r"))
        )
        with pytest.raises(grpc.aio.AioRpcError) as first:
            await call.read()
        found = statuskit.details(first.value)
        assert (found.code, found.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "PLAY_NEEDS_WATCH")

        operator_token = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
        call = stub.Play(metadata=operator_token)
        await call.write(table_pb2.PlayRequest(watch=table_pb2.WatchRequest(table_id="t-open")))
        with pytest.raises(grpc.aio.AioRpcError) as role:
            await call.read()
        assert statuskit.details(role.value).reason == "ROLE_NOT_ALLOWED"

        call = stub.Play()  # no token at all
        await call.write(table_pb2.PlayRequest(watch=table_pb2.WatchRequest(table_id="t-open")))
        with pytest.raises(grpc.aio.AioRpcError) as anonymous:
            await call.read()
        assert anonymous.value.code() is grpc.StatusCode.UNAUTHENTICATED

        call = stub.Play(metadata=player)
        await call.write(table_pb2.PlayRequest(watch=table_pb2.WatchRequest(table_id="t-bad!")))
        with pytest.raises(grpc.aio.AioRpcError) as invalid:
            await call.read()
        bad = statuskit.details(invalid.value)
        assert (bad.code, bad.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
        assert "watch.table_id" in bad.fields

        # Each action is checked against ActRequest's rules; the stream goes on.
        stream = await open_play(room.client(channel, "t-open-p1"), "t-open")
        await stream.act("h", 99, "call", request_id="bad-seat")
        refused = await asyncio.wait_for(_next(stream, "outcome"), timeout=30)
        found = statuskit.details(_Refusal(refused.error))
        assert (found.code, found.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
        assert set(found.fields) == {"act.seat"}
        await stream.act("h", 1, "call", request_id="")
        refused = await asyncio.wait_for(_next(stream, "outcome"), timeout=30)
        assert set(statuskit.details(_Refusal(refused.error)).fields) == {"act.request_id"}
        stream.cancel()
