"""Clients follow one owner redirect: TableClient (and so the bots and ``riverboat play``)
against real in-process grpc.aio servers that answer NOT_OWNER / NO_OWNER as a table-service
instance that does not own the table does."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import status_pb2

from riverboat.client import TableClient, watch_until
from riverboat.redirect import no_owner_status
from riverboat.v1 import table_pb2
from tests.ownerkit import ScriptedTable, redirect


@pytest.fixture
async def owner() -> AsyncIterator[ScriptedTable]:
    server = ScriptedTable(lambda _method, _request: None)  # answers everything
    await server.start()
    yield server
    await server.stop()


async def _started(server: ScriptedTable) -> ScriptedTable:
    await server.start()
    return server


async def _act(client: TableClient, request_id: str = "ann-h1-7") -> table_pb2.ActResponse:
    return await client.act("t1", "h1", 1, "call", request_id=request_id, timeout=5)


def _request_ids(server: ScriptedTable) -> list[str]:
    return [r.request_id for name, r in server.calls if name == "Act"]  # type: ignore[attr-defined]


async def test_a_call_follows_one_redirect_with_the_same_request(owner: ScriptedTable) -> None:
    stale = await _started(ScriptedTable(redirect(owner.address)))
    try:
        async with grpc.aio.insecure_channel(stale.address) as channel:
            client = TableClient(channel, "token", "ann")
            await _act(client)
            assert _request_ids(stale) == ["ann-h1-7"]
            assert _request_ids(owner) == ["ann-h1-7"]  # sent again, once, unchanged
            assert client.owner("t1") == owner.address
            # The owner is remembered: the next call goes straight there.
            await _act(client, "ann-h1-8")
            await client.view("t1")
            assert _request_ids(stale) == ["ann-h1-7"]
            assert owner.methods() == ["Act", "Act", "GetTableView"]
            await client.close()
    finally:
        await stale.stop()


async def test_a_second_redirect_is_not_followed_at_once(owner: ScriptedTable) -> None:
    second = await _started(ScriptedTable(redirect(owner.address)))
    first = await _started(ScriptedTable(redirect(second.address)))
    try:
        async with grpc.aio.insecure_channel(first.address) as channel:
            client = TableClient(channel, "token", "ann", no_owner_budget=0)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _act(client)
            assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
            assert (first.methods(), second.methods(), owner.methods()) == (["Act"], ["Act"], [])
            await client.close()
    finally:
        await first.stop()
        await second.stop()


async def test_instances_that_disagree_for_a_moment_are_waited_out(owner: ScriptedTable) -> None:
    # A hand-over in flight: the old owner names the new one, which still names the old one
    # (it has not seen its lease yet) for its first two answers, then serves.
    answers = [0]

    def new_owner(method: str, request: Message) -> status_pb2.Status | None:
        answers[0] += 1
        return redirect(old.address)(method, request) if answers[0] <= 2 else None

    new = await _started(ScriptedTable(new_owner))
    old = await _started(ScriptedTable(redirect(new.address)))
    try:
        async with grpc.aio.insecure_channel(old.address) as channel:
            client = TableClient(channel, "token", "ann")
            await _act(client)
            assert _request_ids(new) == ["ann-h1-7"] * 3  # the same request each time
            assert client.owner("t1") == new.address
            await client.close()
    finally:
        await old.stop()
        await new.stop()


async def test_instances_that_keep_disagreeing_are_refused_after_the_budget() -> None:
    first = ScriptedTable(lambda m, r: redirect(second.address)(m, r))
    second = ScriptedTable(lambda m, r: redirect(first.address)(m, r))
    await first.start()
    await second.start()
    try:
        async with grpc.aio.insecure_channel(first.address) as channel:
            client = TableClient(channel, "token", "ann", no_owner_budget=0.5)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _act(client)
            assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
            calls = len(first.methods()) + len(second.methods())
            assert 3 <= calls <= 8  # two waits of 0.2 s fit the budget, a third does not
            await client.close()
    finally:
        await first.stop()
        await second.stop()


def _no_owner_until(calls: int, delay: float) -> tuple[list[int], ScriptedTable]:
    seen = [0]

    def answer(_method: str, _request: Message) -> status_pb2.Status | None:
        seen[0] += 1
        return no_owner_status("t1", delay, "nobody owns t1") if seen[0] <= calls else None

    return seen, ScriptedTable(answer)


async def test_no_owner_is_waited_out() -> None:
    _, server = _no_owner_until(2, 0.01)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            client = TableClient(channel, "token", "ann")
            await _act(client)
            assert _request_ids(server) == ["ann-h1-7"] * 3
    finally:
        await server.stop()


async def test_no_owner_past_the_budget_is_unavailable() -> None:
    seen, server = _no_owner_until(100, 0.05)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            client = TableClient(channel, "token", "ann", no_owner_budget=0.12)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _act(client)
            assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
            assert seen[0] == 3  # waited 0.05 twice; a third wait would pass the budget
    finally:
        await server.stop()


async def test_watch_streams_follow_the_redirect(owner: ScriptedTable) -> None:
    stale = await _started(ScriptedTable(redirect(owner.address)))
    try:
        async with grpc.aio.insecure_channel(stale.address) as channel:
            client = TableClient(channel, "token", "ann")
            updates = [u async for u in client.watch("t1", 4)]
            assert len(updates) == 1 and owner.methods() == ["Watch"]
            client.set_owner("t1", "")  # forget: the bots' reader finds the owner again
            stop = asyncio.Event()
            seen = [u async for u in watch_until(client, "t1", stop, after=4)]
            assert len(seen) == 1 and owner.methods() == ["Watch", "Watch"]
            assert stale.methods() == ["Watch", "Watch"]
            assert all(r.after_version == 4 for _, r in owner.calls)  # type: ignore[attr-defined]
            await client.close()
    finally:
        await stale.stop()
