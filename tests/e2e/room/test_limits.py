"""Rate limits, the Watch cap and bounded password hashing, through the real services.

Clients here know only the protos (``riverboat.v1`` stubs). The oracles are this file's own:

* :func:`refusal` reads a RESOURCE_EXHAUSTED answer the way any gRPC client can: the reason and
  the retry delay from the trailing metadata and, independently, from the standard
  ``grpc-status-details-bin`` (``google.rpc.Status`` with ``ErrorInfo`` and ``RetryInfo``),
  and insists both say the same.
* :func:`accounts_in_log` reads the lobby's JetStream stream directly (the subjects that hold
  an account), not through the lobby: what was written, whatever the lobby says.

A second peer address is a real one: :class:`SecondAddress` forwards TCP from a local port to
the service from source address 127.0.0.2, so the service sees another machine's client.
Each oracle is shown to fail on a planted bug (the limits turned off, a late write made).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import grpc
import nats
import pytest
from google.rpc import error_details_pb2, status_pb2

from riverboat import retrying
from riverboat.bots.streaming import play_bot_streaming
from riverboat.client import BotStats, play_bot, random_chooser
from riverboat.engine.events import HandEnded
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.table.events import PlayerTimedOut
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc
from tests import statuskit
from tests.e2e.room._play import read_log, setup_table
from tests.e2e.room.conftest import Room, _lobby, _table

RE = grpc.StatusCode.RESOURCE_EXHAUSTED


# --- oracles -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    """What a RESOURCE_EXHAUSTED answer says."""

    reason: str
    retry_ms: int


def refusal(err: grpc.aio.AioRpcError) -> Refusal:
    """The reason and retry delay of a refusal, checked two independent ways."""
    assert err.code() == RE, (err.code(), err.details())
    assert "Traceback" not in (err.details() or "")
    # The stubs type trailing metadata as a sequence of _Metadatum; it is (key, value) pairs.
    pairs: Any = err.trailing_metadata() or ()
    trailing: dict[str, Any] = dict(pairs)
    assert "rb-retry-delay-ms" not in trailing and "rb-error-reason" not in trailing  # gone
    status = status_pb2.Status.FromString(trailing["grpc-status-details-bin"])
    assert status.code == RE.value[0] and status.message == err.details()
    infos, retries = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    for detail in status.details:
        if detail.Is(infos.DESCRIPTOR):
            detail.Unpack(infos)
        elif detail.Is(retries.DESCRIPTOR):
            detail.Unpack(retries)
    delay = retries.retry_delay
    retry_ms = delay.seconds * 1000 + delay.nanos // 1_000_000
    assert retry_ms > 0
    assert statuskit.details(err).retry_ms == retry_ms
    return Refusal(infos.reason, retry_ms)


async def accounts_in_log(nats_url: str, stream: str, prefix: str) -> set[str]:
    """Usernames with an account record in the lobby's stream, read from JetStream."""
    nc = await nats.connect(nats_url)
    try:
        info = await nc.jetstream().stream_info(stream, subjects_filter=f"{prefix}.account-*")
        subjects = info.state.subjects or {}
    finally:
        await nc.close()
    return {s.removeprefix(f"{prefix}.account-") for s in subjects}


def test_the_refusal_oracle_rejects_a_bare_status() -> None:
    # Planted: a RESOURCE_EXHAUSTED without a retry delay (what grpc's own message-size check
    # sends) must not pass for one of ours.
    bare = grpc.aio.AioRpcError(RE, grpc.aio.Metadata(), grpc.aio.Metadata(), "too big", "")
    with pytest.raises((AssertionError, KeyError)):
        refusal(bare)


# --- a second client address -------------------------------------------------------------------


class SecondAddress:
    """A TCP forwarder: connect to :attr:`address` and reach ``target`` from 127.0.0.2."""

    def __init__(self, target: str) -> None:
        host, _, port = target.rpartition(":")
        self._target = (host, int(port))
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()
        self.address = ""

    async def __aenter__(self) -> SecondAddress:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.address = f"127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in self._pipes:
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(
            *self._target, local_addr=("127.0.0.2", 0)
        )
        for src, dst in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.ensure_future(_pipe(src, dst))
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            dst.close()


# --- services ----------------------------------------------------------------------------------


@dataclass
class Lobby:
    process: ServiceProcess
    nats_url: str
    stream: str
    prefix: str

    @property
    def address(self) -> str:
        return self.process.address

    async def accounts(self) -> set[str]:
        return await accounts_in_log(self.nats_url, self.stream, self.prefix)


@contextlib.contextmanager
def lobby_with(room: Room, *flags: str) -> Iterator[Lobby]:
    """A lobby process in front of the room, on its own stream, started with ``flags``."""
    tag = f"L{secrets.token_hex(4).upper()}"
    process = _lobby(room.nats_url, room.var, room.table_address, f"127.0.0.1:{free_port()}", tag)
    process.args.extend(flags)
    process.log_path = room.var / f"lobby-{tag}.log"
    process.start()
    try:
        yield Lobby(process, room.nats_url, f"RB_LOBBY_{tag}", f"rb.lobby{tag.lower()}")
    finally:
        process.stop()


@contextlib.contextmanager
def table_with(room: Room, *flags: str) -> Iterator[ServiceProcess]:
    """A table service of the room's dealer, on its own stream, started with ``flags``."""
    tag = f"W{secrets.token_hex(4).upper()}"
    process = _table(room.nats_url, room.var, room.dealer.address, tag)
    process.args.extend(flags)
    process.log_path = room.var / f"table-{tag}.log"
    process.start()
    try:
        yield process
    finally:
        process.stop()


def bearer(room: Room, subject: str, role: str = "player") -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {room.token(subject, role)}"),)


# --- the flood: findings 10 and 17 -------------------------------------------------------------


@dataclass
class Flood:
    """Every flood call's outcome."""

    ok: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)  # usernames whose Register timed out
    other: list[str] = field(default_factory=list)


async def flood(address: str, seconds: float, rate: float, deadline: float) -> Flood:
    """Register new names and guess the password of account ``victim``, ``rate`` calls a second,
    never waiting for an answer before the next call."""
    outcome = Flood()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]

        async def one(k: int) -> None:
            name = f"fl{k}x{secrets.token_hex(3)}"
            try:
                if k % 2:
                    await stub.Login(
                        lobby_pb2.LoginRequest(username="victim", password=f"guess-{k:08}"),
                        timeout=deadline,
                    )
                else:
                    await stub.Register(
                        lobby_pb2.RegisterRequest(username=name, password="flood-password"),
                        timeout=deadline,
                    )
                outcome.ok.append(name)
            except grpc.aio.AioRpcError as exc:
                if exc.code() == RE:
                    outcome.refused.append(refusal(exc))
                elif exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED and k % 2 == 0:
                    outcome.gave_up.append(name)
                elif exc.code() != grpc.StatusCode.UNAUTHENTICATED:  # a wrong guess
                    outcome.other.append(exc.code().name)

        calls = []
        for k in range(int(seconds * rate)):
            calls.append(asyncio.ensure_future(one(k)))
            await asyncio.sleep(1 / rate)
        await asyncio.gather(*calls)
    return outcome


async def bystander_login(address: str, after: float, deadline: float) -> grpc.StatusCode:
    """``ann`` logs in once, ``after`` seconds into the flood."""
    await asyncio.sleep(after)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        try:
            reply = await stub.Login(
                lobby_pb2.LoginRequest(username="ann", password="ann-password"), timeout=deadline
            )
        except grpc.aio.AioRpcError as exc:
            return exc.code()
        assert reply.player_id == "ann"
        return grpc.StatusCode.OK


async def register(address: str, username: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        await stub.Register(
            lobby_pb2.RegisterRequest(username=username, password=f"{username}-password"),
            timeout=60,
        )


FLOOD_SECONDS, FLOOD_RATE = 6.0, 50.0  # finding 17: 50/s
BYSTANDER_AFTER, BYSTANDER_DEADLINE = 3.0, 8.0  # it took 28 s, then timed out


async def run_flood(lobby: Lobby, seconds: float = FLOOD_SECONDS) -> tuple[Flood, grpc.StatusCode]:
    await register(lobby.address, "ann")
    await register(lobby.address, "victim")
    async with SecondAddress(lobby.address) as far:
        flooded, bystander = await asyncio.gather(
            flood(far.address, seconds, FLOOD_RATE, deadline=10.0),
            bystander_login(lobby.address, BYSTANDER_AFTER, BYSTANDER_DEADLINE),
        )
    return flooded, bystander


async def test_a_flood_is_refused_fast_and_a_bystander_still_logs_in(room: Room) -> None:
    with lobby_with(room) as lobby:  # the default limits
        flooded, bystander = await run_flood(lobby)
        assert bystander == grpc.StatusCode.OK
        assert not flooded.other, flooded.other
        reasons = {r.reason for r in flooded.refused}
        # The victim's password guesses hit its account's limit; the registrations, the one
        # address's share of the hashing threads.
        assert {"RATE_LIMITED", "PASSWORD_HASHING_BUSY"} <= reasons, reasons
        assert len(flooded.refused) > len(flooded.ok)
        logged = await lobby.accounts()
        registered = {n for n in flooded.ok if n.startswith("fl")}
        assert registered <= logged  # every account answered OK is in the log...
        assert not set(flooded.gave_up) & logged  # ...and none whose client gave up


async def test_the_flood_oracle_fails_without_the_limits(room: Room) -> None:
    # Planted bug: every limit off and the hashing queue unbounded, as before the fix. A short
    # flood (every call is an Argon2 hash now) already shows the oracle failing: nothing is
    # refused. (Run against the code before the fix, the full flood made the bystander's Login
    # time out: DEADLINE_EXCEEDED after 8 s.)
    off = ["--rate-limit", "Register.peer=off,Register.account=off,Login.peer=off"]
    off += ["--rate-limit", "Login.account=off", "--hash-queue", "100000"]
    off += ["--hash-per-peer", "100000"]
    with lobby_with(room, *off) as lobby:
        flooded, _ = await run_flood(lobby, seconds=1.0)
    assert not flooded.refused  # (and, machine permitting, calls time out: flooded.other)


# --- a request whose client gave up is not written -----------------------------------------------


async def registrations_with_deadline(
    address: str, deadlines: dict[str, float]
) -> dict[str, grpc.StatusCode]:
    """Register each name of ``deadlines`` at once, with its deadline: name -> status code."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]

        async def one(name: str) -> grpc.StatusCode:
            try:
                await stub.Register(
                    lobby_pb2.RegisterRequest(username=name, password="slow-password"),
                    timeout=deadlines[name],
                )
            except grpc.aio.AioRpcError as exc:
                return exc.code()
            return grpc.StatusCode.OK

        codes = await asyncio.gather(*(one(n) for n in deadlines))
    return dict(zip(deadlines, codes, strict=True))


async def settle(lobby: Lobby) -> None:
    """Wait until the lobby has finished what it queued: a Register after it succeeds."""
    await register(lobby.address, f"settle{secrets.token_hex(3)}")


LATE_CALLS = 40


async def test_an_account_is_never_written_after_its_client_gave_up(room: Room) -> None:
    # One hashing thread, room for everyone to wait: most of these wait past their deadline.
    flags = ("--hash-workers", "1", "--hash-queue", "50", "--hash-per-peer", "50")
    with lobby_with(room, *flags) as lobby:
        # Deadlines spread over the time the hashes take: some run out while a client waits
        # for a thread, some while its hash runs, some just as its account would be written.
        deadlines = {f"late{k}": 0.2 + 0.1 * k for k in range(LATE_CALLS)}
        codes = await registrations_with_deadline(lobby.address, deadlines)
        await settle(lobby)
        logged = await lobby.accounts()
    gave_up = {n for n, c in codes.items() if c == grpc.StatusCode.DEADLINE_EXCEEDED}
    done = {n for n, c in codes.items() if c == grpc.StatusCode.OK}
    assert gave_up, codes  # the test needs clients that gave up
    assert set(codes.values()) <= {grpc.StatusCode.OK, grpc.StatusCode.DEADLINE_EXCEEDED}
    assert done <= logged
    assert not gave_up & logged, sorted(gave_up & logged)


async def test_the_late_write_oracle_sees_a_late_write(room: Room) -> None:
    # Planted: a client gives up, then the account is written anyway (here by a second call,
    # as the lobby did before the fix): the oracle must report it.
    with lobby_with(room, "--hash-workers", "1") as lobby:
        codes = await registrations_with_deadline(lobby.address, {"late0": 0.001})
        assert codes["late0"] == grpc.StatusCode.DEADLINE_EXCEEDED
        await register(lobby.address, "late0")
        logged = await lobby.accounts()
    assert {"late0"} & logged


# --- Act per account and per peer --------------------------------------------------------------


async def test_act_is_limited_per_account_and_per_peer(room: Room) -> None:
    flags = ("--rate-limit", "Act.account=2/min,Act.peer=5/min")
    with table_with(room, *flags) as table:
        async with grpc.aio.insecure_channel(table.address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]

            async def act(player: str) -> grpc.aio.AioRpcError:
                request = table_pb2.ActRequest(
                    table_id="nowhere", hand_id="h1", seat=1, action="call", request_id="r1"
                )
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await stub.Act(request, metadata=bearer(room, player), timeout=30)
                return err.value

            # Within the limits a call is answered on its merits (no such table)...
            assert [(await act("ann")).code() for _ in range(2)] == [grpc.StatusCode.NOT_FOUND] * 2
            # ...the account's third is refused, 30 s to wait (2/min)...
            third = refusal(await act("ann"))
            assert third.reason == "RATE_LIMITED" and 25_000 <= third.retry_ms <= 30_000
            # ...other accounts from the same address go on until the address's limit (5/min).
            assert [(await act(p)).code() for p in ("bob", "bob", "cy")] == [
                grpc.StatusCode.NOT_FOUND
            ] * 3
            assert refusal(await act("dee")).reason == "RATE_LIMITED"


# --- Watch: finding 18 ---------------------------------------------------------------------------


async def open_table(room: Room, address: str, table_id: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        await stub.OpenTable(
            table_pb2.OpenTableRequest(table_id=table_id, name="watched", request_id="open-1"),
            metadata=bearer(room, "boss", "operator"),
            timeout=30,
        )


@contextlib.asynccontextmanager
async def watches(
    room: Room, address: str, table_id: str, viewer: str, count: int
) -> AsyncIterator[tuple[list[grpc.aio.UnaryStreamCall[Any, Any]], list[Refusal]]]:
    """Open ``count`` Watch streams as ``viewer``, one after another: the open ones (their first
    update arrived) and the refusals. All are closed on exit."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        open_calls: list[grpc.aio.UnaryStreamCall[Any, Any]] = []
        refused: list[Refusal] = []
        try:
            for _ in range(count):
                call = stub.Watch(
                    table_pb2.WatchRequest(table_id=table_id), metadata=bearer(room, viewer)
                )
                try:
                    first = await call.read()
                    assert first.view.table_id == table_id
                    open_calls.append(call)
                except grpc.aio.AioRpcError as exc:
                    refused.append(refusal(exc))
            yield open_calls, refused
        finally:
            for call in open_calls:
                call.cancel()


async def test_the_2001st_watch_of_one_account_is_refused(room: Room) -> None:
    await open_table(room, room.table_address, "watched")  # the room's table: default limits
    async with watches(room, room.table_address, "watched", "ann", 2001) as (opened, refused):
        assert len(opened) == 32  # the default cap
        assert len(refused) == 2001 - 32
        assert {r.reason for r in refused} == {"TOO_MANY_STREAMS"}
        # Another account is not affected by ann's streams.
        async with watches(room, room.table_address, "watched", "bob", 1) as (bobs, _):
            assert len(bobs) == 1
        # One of ann's streams closes: the server counts it off, and ann may open one again.
        opened.pop().cancel()
        for _ in range(100):
            async with watches(room, room.table_address, "watched", "ann", 1) as (again, no):
                if again:
                    break
                assert no[0].reason == "TOO_MANY_STREAMS"
            await asyncio.sleep(0.1)
        assert again


async def test_the_watch_oracle_counts_a_cap_that_is_not_there(room: Room) -> None:
    # Planted bug: a table service whose cap is as high as the flood: the oracle sees every
    # stream accepted, as finding 18 did.
    with table_with(
        room, "--max-watch-streams", "100000", "--rate-limit", "Watch.account=off"
    ) as t:
        await open_table(room, t.address, "watched")
        async with watches(room, t.address, "watched", "ann", 40) as (opened, refused):
            assert len(opened) == 40 and not refused


# --- bots under a tight Act limit --------------------------------------------------------------


async def _bots_under_act_limit(
    room: Room, seconds: float, hands: int
) -> tuple[int, int, list[str]]:
    """Two Watch+Act bots and two Play-stream bots at one table of a service that lets each
    account Act 4 times a second (the bots try hundreds): play until ``hands`` hands ended or
    ``seconds`` passed. The hands ended and the clock's timeouts, from the raw log; the errors
    and throttles the bots counted."""
    # The room's own table service, restarted with the limit (the dealer deals only the
    # tables of the room's stream).
    table = room.table
    table.stop()
    table.args.extend(("--rate-limit", "Act.account=4/s"))
    table.start()
    async with grpc.aio.insecure_channel(table.address) as channel:
        operator = room.client(channel, "operator", "operator")
        players = await setup_table(operator, "t-throttled", 4)
        stop = asyncio.Event()
        stats = [BotStats() for _ in players]
        rng = random.Random(15)
        kinds: tuple[Callable[..., Awaitable[BotStats]], ...] = (
            play_bot,
            play_bot,
            play_bot_streaming,
            play_bot_streaming,
        )
        bots = [
            asyncio.ensure_future(
                bot(
                    room.client(channel, name),
                    "t-throttled",
                    random_chooser(random.Random(rng.random())),
                    stop=stop,
                    stats=stat,
                )
            )
            for bot, name, stat in zip(kinds, players, stats, strict=True)
        ]
        stream = table.args[table.args.index("--stream") + 1]
        prefix = table.args[table.args.index("--subject-prefix") + 1]
        deadline = asyncio.get_running_loop().time() + seconds
        ended = timeouts = 0
        try:
            while asyncio.get_running_loop().time() < deadline and ended < hands:
                await asyncio.sleep(1.0)
                events = [
                    e
                    for batch in await read_log(room.nats_url, stream, prefix, "t-throttled")
                    for e in batch
                ]
                ended = sum(isinstance(e, HandEnded) for e in events)
                timeouts = sum(isinstance(e, PlayerTimedOut) for e in events)
        finally:
            stop.set()
            await asyncio.gather(*bots)
    assert sum(s.throttled for s in stats) > 0 or any(
        e.startswith("RESOURCE_EXHAUSTED") for s in stats for e in s.errors
    ), "the limit never bit: the test shows nothing"
    return ended, timeouts, [e for s in stats for e in s.errors]


async def test_bots_wait_out_a_throttled_act_and_the_table_keeps_dealing(room: Room) -> None:
    # Found by `make bench`: one table of bots at machine speed passes a player's 50/s, and a
    # bot that dropped its throttled move left the table waiting for the clock.
    ended, timeouts, errors = await _bots_under_act_limit(room, seconds=90, hands=3)
    assert ended >= 3 and timeouts == 0 and not errors, (ended, timeouts, errors)


async def test_the_throttle_oracle_sees_bots_that_drop_throttled_moves(
    room: Room, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Planted: bots that never send a throttled move again. The table waits for the clock (5 s
    # and the 60 s time bank), so the hands stop.
    monkeypatch.setattr(retrying, "THROTTLED", replace(retrying.THROTTLED, attempts=1))
    ended, _, errors = await _bots_under_act_limit(room, seconds=15, hands=3)
    assert ended < 3 and any(e.startswith("RESOURCE_EXHAUSTED") for e in errors), (ended, errors)
