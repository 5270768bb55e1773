"""Two lobby processes on one log (RB_LOBBY): each folds what the other writes, tokens from
either work on both, and of two conflicting registrations exactly one wins."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc

from riverboat.client import LobbyClient
from riverboat.services.launcher import free_port
from tests.e2e.room.conftest import Room, _lobby

T = TypeVar("T")
# A deadline for the other lobby to catch up; the design aims at milliseconds (a nudge per
# append), this is only how long a slow machine may take before the test gives up.
CATCH_UP = 20.0


async def until(probe: Callable[[], Awaitable[T | None]], what: str, every: float = 0.05) -> T:
    """Poll ``probe`` every ``every`` seconds until it returns something (an RPC error counts
    as not yet)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CATCH_UP
    last: object = None
    while loop.time() < deadline:
        try:
            found = await probe()
        except grpc.aio.AioRpcError as exc:
            found, last = None, exc.code()
        if found is not None:
            return found
        await asyncio.sleep(every)
    raise AssertionError(f"{what}: not within {CATCH_UP}s (last: {last})")


async def test_two_lobbies_follow_one_log(room: Room) -> None:
    tag = room.table.args[room.table.args.index("--stream") + 1].removeprefix("RB_TABLES_")
    settlement = f"127.0.0.1:{free_port()}"
    one, two = (
        _lobby(room.nats_url, room.var, room.table_address, settlement, tag, f"lobby-{n}.log")
        for n in (1, 2)
    )
    # Started together: both ensure the operator account "boss" at the same moment.
    await asyncio.gather(asyncio.to_thread(one.start), asyncio.to_thread(two.start))
    try:
        async with (
            grpc.aio.insecure_channel(one.address) as first,
            grpc.aio.insecure_channel(two.address) as second,
        ):
            await _check(first, second)
    finally:
        one.stop()
        two.stop()


async def _check(first: grpc.aio.Channel, second: grpc.aio.Channel) -> None:
    boss_one, boss_two = LobbyClient(first), LobbyClient(second)
    await boss_one.login("boss", "boss-password")
    await boss_two.login("boss", "boss-password")

    # Registered on one, logs in on the other; its token works on both.
    assert await LobbyClient(first).register("ann", "correct horse") == "ann"
    ann = LobbyClient(second)
    # Logins are rate-limited per account (30/min): poll them gently.
    reply = await until(lambda: ann.login("ann", "correct horse"), "ann logs in on 2", every=0.5)
    await LobbyClient(first, reply.token).list_tables()
    # A retried Register (its first answer lost) on the other lobby answers as the first did.
    assert await LobbyClient(second).register("ann", "correct horse") == "ann"
    refused = LobbyClient(second).register("ann", "another horse")
    try:
        await refused
        raise AssertionError("a name taken on lobby 1 registered again on lobby 2")
    except grpc.aio.AioRpcError as exc:
        assert exc.code() == grpc.StatusCode.ALREADY_EXISTS

    # Created on one, listed (and described) by the other.
    made = await boss_one.create_table("pacific", "From lobby 1", request_id="r1")

    async def listed_on_two() -> list[str] | None:
        names = [t.name for t in (await boss_two.list_tables()).tables]
        return names or None

    assert await until(listed_on_two, "lobby 2 lists the table") == ["From lobby 1"]
    assert (await boss_two.get_table(made.table_id)).max_buy_in == made.max_buy_in
    back = await boss_two.create_table("pacific", "From lobby 2", request_id="r2")

    async def both_on_one() -> list[str] | None:
        names = [t.name for t in (await boss_one.list_tables()).tables]
        return names if len(names) == 2 else None

    assert await until(both_on_one, "lobby 1 lists both") == ["From lobby 1", "From lobby 2"]
    assert back.table_id != made.table_id

    # One name registered on both at once: exactly one of them wins, on both lobbies.
    results = await asyncio.gather(
        LobbyClient(first).register("cyd", "password one"),
        LobbyClient(second).register("cyd", "password two"),
        return_exceptions=True,
    )
    won = [n for n, r in enumerate(results) if isinstance(r, str)]
    lost = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(won) == 1 and [e.code() for e in lost] == [grpc.StatusCode.ALREADY_EXISTS]
    winner = ("password one", "password two")[won[0]]
    loser = ("password one", "password two")[1 - won[0]]
    for channel in (first, second):
        login = functools.partial(LobbyClient(channel).login, "cyd", winner)
        await until(login, "the winner logs in", every=0.5)
        try:
            await LobbyClient(channel).login("cyd", loser)
            raise AssertionError("the losing registration's password logs in")
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAUTHENTICATED
