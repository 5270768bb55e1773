"""Pieces of the room bench: a private room (NATS, dealer, table service), raw publish rates,
CPU accounting and the two ways of driving tables through the gRPC API.

Everything here talks to child processes started for the bench: a nats-server on a free port
with a temporary store (never the machine's own NATS on 4222) and the real dealer and table
services (``python -m riverboat.services.<name>``), started as an operator starts them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import nats
from nats.js.api import StorageType, StreamConfig

from riverboat.auth import TokenIssuer
from riverboat.bots.streaming import play_bot_streaming
from riverboat.client import (
    BotStats,
    TableClient,
    next_move,
    play_bot,
    random_chooser,
    random_picker,
    watch_until,
)
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.v1 import table_pb2

#: Chips per seat: enough that nobody busts (which would stop the table) during a phase.
STACK = 1_000_000
#: The longest action clock allowed: every action in a phase is a bot's, none the clock's.
ACTION_SECONDS = 3600
PLAYERS = 4
#: Tables per gRPC channel (one HTTP/2 connection each): thousands of streams are spread over
#: several connections rather than one.
TABLES_PER_CHANNEL = 100


# --- CPU accounting ----------------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux ``/proc``); 0 if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # Fields after the ")" that closes the command name (which may hold spaces): utime is the
    # 12th of them and stime the 13th.
    fields = text.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def machine_busy_seconds() -> float:
    """CPU seconds all cores together have spent busy since boot (``/proc/stat``)."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / _TICK  # user..steal; guest time is already in user


@dataclass
class CpuMeter:
    """CPU used by named processes between :meth:`start` and :meth:`stop`, in % of one core,
    plus ``other``: whatever else ran on the machine meanwhile."""

    pids: dict[str, int]
    percent: dict[str, float] = field(default_factory=dict)
    _began: float = 0.0
    _first: dict[str, float] = field(default_factory=dict)
    _machine: float = 0.0

    def start(self) -> None:
        self._began = time.monotonic()
        self._first = {name: cpu_seconds(pid) for name, pid in self.pids.items()}
        self._machine = machine_busy_seconds()

    def stop(self) -> None:
        elapsed = max(time.monotonic() - self._began, 1e-9)
        self.percent = {
            name: 100.0 * (cpu_seconds(pid) - self._first[name]) / elapsed
            for name, pid in self.pids.items()
        }
        busy = 100.0 * (machine_busy_seconds() - self._machine) / elapsed
        self.percent["other"] = max(0.0, busy - sum(self.percent.values()))


# --- the room ----------------------------------------------------------------------------------


@dataclass
class Room:
    """A dealer and a table service on their own streams of one nats-server."""

    dealer: ServiceProcess
    table: ServiceProcess
    stream: str
    #: Seconds from starting the table service's process to its SERVING (its log rebuilt).
    table_start_seconds: float = 0.0

    @property
    def address(self) -> str:
        return self.table.address

    def pids(self) -> dict[str, int]:
        return {
            name: proc.process.pid
            for name, proc in (("table", self.table), ("dealer", self.dealer))
            if proc.process is not None
        }

    def stop(self) -> None:
        self.table.stop()
        self.dealer.stop()


def room_streams(tag: str) -> tuple[str, str]:
    """The table stream and its subject prefix of the bench room named ``tag``."""
    return f"RB_TABLES_{tag}", f"rb.tables{tag.lower()}"


def dealer_process(nats_url: str, var: Path, tag: str, env: dict[str, str]) -> ServiceProcess:
    """The bench room's dealer (not started), on streams named after ``tag``."""
    lower = tag.lower()
    tables_stream, tables_prefix = room_streams(tag)
    address = f"127.0.0.1:{free_port()}"
    return ServiceProcess(
        "dealer",
        address,
        [
            *("--address", address, "--nats", nats_url),
            *("--dev-key-file", str(var / "dealer.key"), "--log-format", "json"),
            *("--tables-stream", tables_stream, "--tables-prefix", tables_prefix),
            *("--seeds-stream", f"RB_DEALER_{tag}", "--seeds-prefix", f"rb.dealer{lower}"),
            *("--audit-stream", f"RB_AUDIT_{tag}", "--audit-prefix", f"rb.audit{lower}"),
        ],
        log_path=var / f"dealer-{tag}.log",
        env=env,
    )


def start_room(
    nats_url: str,
    var: Path,
    tag: str,
    token_key: bytes,
    *,
    hand_pause: float = 0.0,
    start_timeout: float = 30.0,
    scheme: str = "",
    table_args: Sequence[str] = (),
) -> Room:
    """Start the dealer, then the table service, on streams named after ``tag``; both accept
    bearer tokens signed with ``token_key``. ``start_timeout``: seconds the table service may
    take to serve (it rebuilds every table in its stream first). ``scheme``: the dealer's
    shuffle scheme (``CRV1`` or ``RBS1``; "": the dealer's default). ``table_args``: more flags
    for the table service."""
    env = {"RIVERBOAT_TOKEN_KEY": token_key.hex()}
    if scheme:
        env["RIVERBOAT_DEALER_SCHEME"] = scheme
    tables_stream, tables_prefix = room_streams(tag)
    dealer = dealer_process(nats_url, var, tag, env)
    dealer_address = dealer.address
    table_address = f"127.0.0.1:{free_port()}"
    table = ServiceProcess(
        "table",
        table_address,
        [
            *("--address", table_address, "--nats", nats_url, "--dealer", dealer_address),
            *("--hand-pause", str(hand_pause), "--log-format", "json"),
            *("--stream", tables_stream, "--subject-prefix", tables_prefix),
            *table_args,
        ],
        log_path=var / f"table-{tag}.log",
        env=env,
    )
    dealer.start()
    began = time.monotonic()
    try:
        table.start(timeout=start_timeout)
    except BaseException:
        dealer.stop()
        raise
    return Room(dealer, table, tables_stream, time.monotonic() - began)


# --- raw JetStream publishing ------------------------------------------------------------------


@dataclass(frozen=True)
class PublishRate:
    """Acknowledged publishes over a timed run."""

    concurrency: int
    seconds: float
    latencies: list[float]
    cpu: dict[str, float]

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


async def raw_publish(
    nats_url: str,
    *,
    concurrency: int,
    seconds: float,
    payload_size: int,
    meter: CpuMeter,
    stream: str,
) -> PublishRate:
    """``js.publish`` from ``concurrency`` coroutines, each awaiting its ack before the next.

    Each coroutine publishes to its own subject of a new file stream ``stream``, as tables do; with
    ``concurrency=1`` this is one table appending one record after another. ``meter`` runs
    during the measured part.
    """
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        prefix = stream.lower()
        await js.add_stream(
            StreamConfig(name=stream, subjects=[f"{prefix}.>"], storage=StorageType.FILE)
        )
        payload = os.urandom(payload_size)
        latencies: list[float] = []
        loop = asyncio.get_running_loop()

        async def publisher(k: int, until: float) -> None:
            subject = f"{prefix}.t{k}"
            while loop.time() < until:
                began = time.perf_counter()  # latencies: loop.time() is in whole ms on uvloop
                await js.publish(subject, payload, stream=stream)
                latencies.append(time.perf_counter() - began)

        # An unmeasured burst first: connection warm-up and the stream's first block file.
        await asyncio.gather(*(publisher(k, loop.time() + 0.5) for k in range(concurrency)))
        latencies.clear()
        meter.start()
        began = loop.time()
        await asyncio.gather(*(publisher(k, began + seconds) for k in range(concurrency)))
        elapsed = loop.time() - began
        meter.stop()
        return PublishRate(concurrency, elapsed, latencies, meter.percent)
    finally:
        await nc.close()


# --- tables and their players ------------------------------------------------------------------


def table_ids(tag: str, count: int) -> list[str]:
    return [f"{tag.lower()}-{k}" for k in range(count)]


def player_names(table_id: str) -> list[str]:
    return [f"{table_id}-p{k}" for k in range(1, PLAYERS + 1)]


def open_channels(address: str, count: int) -> list[grpc.aio.Channel]:
    """``count`` channels that do not share one connection (each has its own subchannel)."""
    return [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(count)
    ]


async def create_tables(
    address: str, issuer: TokenIssuer, ids: list[str], *, concurrency: int = 64
) -> None:
    """Open each table and seat its players through the API, as an operator does."""
    channels = open_channels(address, max(1, min(8, len(ids) // TABLES_PER_CHANNEL)))
    token = issuer.issue("bench-operator", "operator")
    gate = asyncio.Semaphore(concurrency)

    async def one(k: int, table_id: str) -> None:
        operator = TableClient(channels[k % len(channels)], token, "bench-operator")
        async with gate:
            await operator.create_table(table_id, action_seconds=ACTION_SECONDS)
            for seat, name in enumerate(player_names(table_id), start=1):
                await operator.seat(table_id, seat, name, STACK)

    try:
        await asyncio.gather(*(one(k, t) for k, t in enumerate(ids)))
    finally:
        for channel in channels:
            await channel.close(None)


@dataclass
class Tally:
    """One table's accepted Act calls (their latencies, in completion order) and errors, and
    (paced driving only) each player's wait from an Act being sent to its update arriving."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    broadcasts: list[float] = field(default_factory=list)

    def mark(self) -> tuple[int, int, int]:
        return len(self.latencies), len(self.errors), len(self.broadcasts)


async def drive_bots(
    table_id: str, channel: grpc.aio.Channel, issuer: TokenIssuer, stop: asyncio.Event, tally: Tally
) -> None:
    """Four of the library's bots (``play_bot``): a Watch stream each, Act on their turn."""
    rng = random.Random(table_id)
    await asyncio.gather(
        *(
            play_bot(
                TableClient(channel, issuer.issue(name, "player"), name),
                table_id,
                random_chooser(random.Random(rng.random())),
                stop=stop,
                # Shared lists: the table's tally collects all four players' calls.
                stats=BotStats(latencies=tally.latencies, errors=tally.errors),
            )
            for name in player_names(table_id)
        )
    )


async def drive_play(
    table_id: str, channel: grpc.aio.Channel, issuer: TokenIssuer, stop: asyncio.Event, tally: Tally
) -> None:
    """Four of the library's streaming bots (``play_bot_streaming``): one Play stream each,
    their updates out and their actions in on it."""
    rng = random.Random(table_id)
    await asyncio.gather(
        *(
            play_bot_streaming(
                TableClient(channel, issuer.issue(name, "player"), name),
                table_id,
                random_chooser(random.Random(rng.random())),
                stop=stop,
                stats=BotStats(latencies=tally.latencies, errors=tally.errors),
            )
            for name in player_names(table_id)
        )
    )


async def drive_table(
    table_id: str, channel: grpc.aio.Channel, issuer: TokenIssuer, stop: asyncio.Event, tally: Tally
) -> None:
    """One driver per table in place of four bots.

    One observer Watch says whose turn it is; the driver then asks GetTableView as that player
    (only the player to act is shown the legal actions) and sends Act as that player. Per
    action: one watch message, one GetTableView and one Act (four bots: four watch messages
    and one Act).
    """
    names = player_names(table_id)
    players = {
        seat: TableClient(channel, issuer.issue(name, "player"), name)
        for seat, name in enumerate(names, start=1)
    }
    observer = TableClient(channel, issuer.issue(f"{table_id}-observer", "player"))
    rng = random.Random(table_id)
    choose, pick = random_chooser(random.Random(rng.random())), random_picker(rng)
    latest: table_pb2.TableView | None = None
    changed = asyncio.Event()

    async def follow() -> None:
        nonlocal latest
        async for update in observer.watch(table_id):
            if update.HasField("view"):
                latest = update.view
                changed.set()

    follower = asyncio.ensure_future(follow())
    done = -1  # the newest version acted on: updates up to it bring nothing new
    try:
        while not stop.is_set():
            if latest is None or latest.version <= done or latest.to_act == 0:
                changed.clear()
                await _first_of(changed, stop)
                continue
            seat = latest.to_act
            done = latest.version
            view = await players[seat].view(table_id)
            # The same decision as play_bot's, from the acting player's own view.
            move = next_move(view, choose, pick) if view.to_act == seat else None
            if move is None:
                continue  # the table moved on meanwhile; the watch brings the new turn
            began = time.perf_counter()
            try:
                await players[seat].act(
                    table_id,
                    view.hand_id,
                    seat,
                    move.action,
                    move.amount,
                    request_id=f"{names[seat - 1]}-{view.hand_id}-{view.version}",
                    cards=move.cards,
                    choice=move.choice,
                    options=move.options,
                )
                tally.latencies.append(time.perf_counter() - began)
            except grpc.aio.AioRpcError as exc:
                tally.errors.append(f"{exc.code().name}: {exc.details()}")
            done = max(done, view.version)
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await follower


#: Seconds between a paced table's actions (``drive_paced``): people, not bots.
PACE = 2.0


async def drive_paced(
    table_id: str, channel: grpc.aio.Channel, issuer: TokenIssuer, stop: asyncio.Event, tally: Tally
) -> None:
    """Four players with a Watch stream each, acting at human pace, open loop.

    The table's actions are due every :data:`PACE` seconds from a random phase, whatever the
    service answers: the player to act sends its Act at the next due time, or at once when its
    turn came after it (a backlog is not forgiven). ``tally.broadcasts`` gets, for each player,
    the time from an Act being sent to that player receiving the update it caused.
    """
    rng = random.Random(table_id)
    next_due = time.perf_counter() + rng.random() * PACE
    sent: dict[int, float] = {}  # version an Act made -> when it was sent
    early: dict[int, list[float]] = {}  # updates that came before their Act's answer

    async def player(seat: int, name: str) -> None:
        nonlocal next_due
        client = TableClient(channel, issuer.issue(name, "player"), name)
        choose, pick = random_chooser(random.Random(rng.random())), random_picker(rng)
        acted = 0
        async for update in watch_until(client, table_id, stop):
            now = time.perf_counter()
            began = sent.get(update.version)
            if began is None:
                early.setdefault(update.version, []).append(now)
            else:
                tally.broadcasts.append(now - began)
            view = update.view
            if not update.HasField("view") or not view.legal_actions or view.version <= acted:
                continue
            acted = view.version
            move = next_move(view, choose, pick)
            if move is None:
                continue
            due, next_due = next_due, next_due + PACE
            if due > now:
                await asyncio.sleep(due - now)
            began = time.perf_counter()
            try:
                reply = await client.act(
                    table_id,
                    view.hand_id,
                    seat,
                    move.action,
                    move.amount,
                    request_id=f"{name}-{view.hand_id or 'choice'}-{view.version}",
                    cards=move.cards,
                    choice=move.choice,
                    options=move.options,
                )
            except grpc.aio.AioRpcError as exc:
                tally.errors.append(f"{exc.code().name}: {exc.details()}")
                continue
            tally.latencies.append(time.perf_counter() - began)
            sent[reply.version] = began
            tally.broadcasts.extend(t - began for t in early.pop(reply.version, ()))

    await asyncio.gather(
        *(player(seat, name) for seat, name in enumerate(player_names(table_id), start=1))
    )


async def _first_of(*events: asyncio.Event) -> None:
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


DRIVERS = {"bots": drive_bots, "play": drive_play, "driver": drive_table, "paced": drive_paced}


@dataclass
class WindowResult:
    """Accepted Act calls that completed inside the measured window."""

    seconds: float
    latencies: list[float]
    errors: list[str]
    tables_acting: int
    tables: int
    warmup: float
    #: Act sent to update received, per player (``paced`` driving only).
    broadcasts: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


async def drive(
    address: str | Mapping[str, str],
    issuer: TokenIssuer,
    ids: list[str],
    mode: str,
    *,
    warmup: tuple[float, float],
    window: float,
    on_window: Callable[[bool], Awaitable[None]],
) -> WindowResult:
    """Play the tables ``ids`` (``mode`` is a key of :data:`DRIVERS`), measure, stop.

    ``address``: the table service's, or table id -> the address of the instance that owns it.

    The window opens after ``warmup[0]`` seconds once every table has had an accepted action
    (or after ``warmup[1]`` seconds at the latest), and lasts ``window`` seconds;
    ``on_window(True)`` and ``on_window(False)`` are awaited as it opens and closes.
    """
    play = DRIVERS[mode]
    # One address for every table, or each table's own (its owner, with several instances).
    where = {t: address for t in ids} if isinstance(address, str) else dict(address)
    placed: dict[str, list[str]] = {}
    for table_id in ids:
        placed.setdefault(where[table_id], []).append(table_id)
    channel_of: dict[str, grpc.aio.Channel] = {}
    channels: list[grpc.aio.Channel] = []
    for at, group in placed.items():
        own = open_channels(at, -(-len(group) // TABLES_PER_CHANNEL))
        channels.extend(own)
        for k, table_id in enumerate(group):
            channel_of[table_id] = own[k // TABLES_PER_CHANNEL]
    stop = asyncio.Event()
    tallies = [Tally() for _ in ids]
    tasks = [
        asyncio.ensure_future(play(table_id, channel_of[table_id], issuer, stop, t))
        for table_id, t in zip(ids, tallies, strict=True)
    ]
    began = time.monotonic()
    try:
        await asyncio.sleep(warmup[0])
        while time.monotonic() - began < warmup[1] and not all(t.latencies for t in tallies):
            await asyncio.sleep(0.1)
        warmed = time.monotonic() - began
        await on_window(True)
        opened = time.monotonic()
        marks = [t.mark() for t in tallies]
        await asyncio.sleep(window)
        ends = [t.mark() for t in tallies]
        seconds = time.monotonic() - opened
        await on_window(False)
    finally:
        stop.set()
        # Bots end their watch streams once ``stop`` is set; stragglers get cancelled.
        _, pending = await asyncio.wait(tasks, timeout=5.0)
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close(None)
    latencies: list[float] = []
    errors: list[str] = []
    broadcasts: list[float] = []
    for tally, (l0, e0, b0), (l1, e1, b1) in zip(tallies, marks, ends, strict=True):
        latencies.extend(tally.latencies[l0:l1])
        errors.extend(tally.errors[e0:e1])
        broadcasts.extend(tally.broadcasts[b0:b1])
    acting = sum(end[0] > mark[0] for mark, end in zip(marks, ends, strict=True))
    return WindowResult(seconds, latencies, errors, acting, len(ids), warmed, broadcasts)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) by nearest rank; NaN without values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]
