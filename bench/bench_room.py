"""Room throughput: bots playing real hands through the table service's gRPC API, as ratios
to the transport floor measured in the same run (issue #15).

One run on this machine, everything started by the bench:

1. A private nats-server (``NatsServer``: free port, temporary file store, ``sync_interval:
   always``, Riverboat's configuration) and the raw nats-py rate of ``js.publish`` awaiting
   each acknowledgement (one publisher, and 64 concurrent ones), before and after the rows.
2. For each row, a fresh dealer and table service (child processes, on their own streams of
   that server; hand pause 0, action clock 3,600 s) and four players per table driven from this
   process. ``bots``: the library's ``play_bot``, a ``Watch`` stream each and a unary ``Act`` on
   its turn. ``play``: the streaming bot, one ``Play`` stream each carrying both. After a
   warm-up (every table has acted) a window counts the actions accepted in it (actions/s) and
   their client-side latency (``Act``'s call; on ``Play``, sending to the outcome). The
   dealer deals under CRV1, the default (every player verifies every card, so each hand also
   carries a seed commitment and a seed from every player); one row deals under RBS1, to show
   what that costs in the same run.
3. The transport floor (``bench/_floor.py``) in the same patterns with no Riverboat code: a
   bare ``Act`` + four ``Watch`` streams, and a bare ``Play`` stream per player; each action one
   JetStream publish with ack and a message to each of the table's four players.
4. The table service's own work in process (``bench/_service.py``), no gRPC or NATS.
5. The verdicts: machine CPU per action (the room's processes: NATS, table, dealer; the
   floor's: NATS and its server; not the load generators) at most 1.5x the floor's, and
   actions/s at least 0.7x the floor's at 10 and at 100 tables with p99 under 50 ms at 10
   tables. The anchor is the issue's floor (``Act`` + ``Watch``); the same-pattern ratio
   (Riverboat's ``Play`` against the floor's ``Play``) is printed beside it.

The machine's two cores are shared by NATS, the services and the bots (and by anything else
running meanwhile: the ``other`` CPU column); compare rows with the anchors of their own run.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nats
from nats.aio.msg import Msg

from bench._floor import FloorResult, drive_floor, floor_server
from bench._room import (
    ACTION_SECONDS,
    PLAYERS,
    STACK,
    CpuMeter,
    PublishRate,
    WindowResult,
    create_tables,
    drive,
    percentile,
    raw_publish,
    start_room,
    table_ids,
)
from bench._service import ServiceCost, measure_service
from riverboat import eventloop
from riverboat.auth import TokenIssuer
from riverboat.natsserver import NatsServer, server_version

RAW_SECONDS = 3.0
RAW_CONCURRENCY = 64
#: Bytes per raw message: about one table record (the room rows print the measured size).
RAW_PAYLOAD = 400
#: The rows: tables, how the players drive them, and the dealer's shuffle scheme (CRV1, the
#: default, in which every player verifies every card: each hand adds a seed commitment and a
#: seed from every player; RBS1: only auditors verify; the one RBS1 row shows what CRV1 costs).
PHASES: tuple[tuple[int, str, str], ...] = (
    (1, "bots", "CRV1"),
    (10, "bots", "CRV1"),
    (10, "play", "CRV1"),
    (10, "play", "RBS1"),
    (100, "bots", "CRV1"),
    (100, "play", "CRV1"),
    (1000, "play", "CRV1"),
)
#: The bots act at machine speed: at one table each player asks about 60 Acts a second, over a
#: person's limit (50/s), which would make the row measure the limiter (that is `bench limits`).
NO_ACCOUNT_LIMIT = ("--rate-limit", "Act.account=off")
#: Seconds of warm-up: at least the first, then until every table has acted, at most the second.
WARMUP = (3.0, 20.0)
WINDOW = 12.0
SETUP_TIMEOUT = 120.0
#: Issue #15's targets: ratios to the transport floor of the same run.
TARGET_MACHINE_RATIO = 1.5
TARGET_RATE_RATIO = 0.7
TARGET_P99_MS = 50.0
TARGET_TABLES = (10, 100)
CPU_COLUMNS = ("nats", "table", "dealer", "bots", "other")
#: The room's own processes: what its machine CPU per action counts (not the load generator).
ROOM_PROCESSES = ("nats", "table", "dealer")
#: The transport-floor rows (bench/_floor.py), after the room rows: tables, and whether the
#: players use a Play stream (else Act + Watch).
FLOORS: tuple[tuple[int, bool], ...] = ((10, False), (10, True), (100, False), (100, True))
#: A room row's mode -> the floor pattern it matches.
FLOOR_OF = {"bots": False, "play": True, "driver": False}
FLOOR_WARMUP = 3.0
FLOOR_COLUMNS = ("nats", "server", "client", "other")
#: The in-process row (bench/_service.py): tables, warm-up and window seconds.
SERVICE_TABLES = 10
SERVICE_WARMUP = 1.0
SERVICE_WINDOW = 6.0
#: CPU % of a core taken by processes outside the bench above which a row gets a caution.
NOISY_OTHER = 25.0


@dataclass
class Phase:
    """One table count's measurement."""

    tables: int
    mode: str
    scheme: str = "CRV1"
    setup: float = 0.0
    result: WindowResult | None = None
    records: int = 0
    record_bytes: float = 0.0
    reads: int = 0
    cpu: dict[str, float] = field(default_factory=dict)
    loop_lag_p99: float = 0.0
    failure: str = ""

    @property
    def label(self) -> str:
        """``bots``, ``play``; with the scheme when it is not the default (``play RBS1``)."""
        return self.mode if self.scheme == "CRV1" else f"{self.mode} {self.scheme}"

    @property
    def rate(self) -> float:
        return self.result.rate if self.result else 0.0

    @property
    def appends(self) -> float:
        return self.records / self.result.seconds if self.result else 0.0

    def p(self, q: float) -> float:
        return 1000 * percentile(self.result.latencies, q) if self.result else float("nan")


def run() -> None:
    token_key = secrets.token_bytes(32)
    with tempfile.TemporaryDirectory(prefix="rb-bench-room-") as tmp:
        var = Path(tmp)
        with NatsServer(var / "store", port=0) as server:
            version = ".".join(map(str, server_version(server.binary)))
            print(
                f"  {os.cpu_count()} cores; private nats-server v{version} on {server.url} "
                "(file store, sync_interval always)",
                flush=True,
            )
            before = _raw(server, "before")
            phases: list[Phase] = []
            for tables, mode, scheme in PHASES:
                phase = _run_phase(server, var, token_key, tables, mode, scheme)
                _print_phase(phase, first=not phases)
                phases.append(phase)
            floors = [_run_floor(server, tables, stream) for tables, stream in FLOORS]
            _print_floor(floors)
            own = eventloop.run(
                measure_service(SERVICE_TABLES, warmup=SERVICE_WARMUP, window=SERVICE_WINDOW)
            )
            _print_service(own, phases, floors)
            after = _raw(server, "after")
    _print_notes(phases)
    # The machine is shared: the higher of the two measurements is the fairer ceiling (and the
    # harder one to reach a third of).
    sequential = max(before[0], after[0], key=lambda r: r.rate)
    concurrent = max(before[1], after[1], key=lambda r: r.rate)
    _print_raw_shares(phases, sequential, concurrent)
    _print_targets(phases, floors)


def _raw(server: NatsServer, when: str) -> tuple[PublishRate, PublishRate]:
    """Sequential, then concurrent publishing; printed as measured."""
    pids = {"nats": server.pid or 0, "bench": os.getpid()}
    rates = []
    for concurrency in (1, RAW_CONCURRENCY):
        rate = eventloop.run(
            raw_publish(
                server.url,
                concurrency=concurrency,
                seconds=RAW_SECONDS,
                payload_size=RAW_PAYLOAD,
                meter=CpuMeter(pids),
                stream=f"RAW_{when.upper()}_{concurrency}",
            )
        )
        rates.append(rate)
    _print_raw(when, rates[0], rates[1])
    return rates[0], rates[1]


def _run_phase(
    server: NatsServer, var: Path, token_key: bytes, tables: int, mode: str, scheme: str
) -> Phase:
    phase = Phase(tables, mode, scheme)
    tag = f"B{tables}{mode[0].upper()}{scheme[0]}"
    issuer = TokenIssuer(token_key)
    room = start_room(
        server.url, var, tag, token_key, hand_pause=0.0, scheme=scheme, table_args=NO_ACCOUNT_LIMIT
    )
    try:
        ids = table_ids(tag, tables)
        began = time.monotonic()
        eventloop.run(asyncio.wait_for(create_tables(room.address, issuer, ids), SETUP_TIMEOUT))
        phase.setup = time.monotonic() - began
        pids = {"nats": server.pid or 0, **room.pids(), "bots": os.getpid()}
        eventloop.run(_measure(phase, server.url, room.stream, room.address, issuer, ids, pids))
    except Exception as exc:  # a failed phase is reported; the others still run
        phase.failure = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
    finally:
        room.stop()
    return phase


async def _measure(
    phase: Phase,
    nats_url: str,
    stream: str,
    address: str,
    issuer: TokenIssuer,
    ids: list[str],
    pids: dict[str, int],
) -> None:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    meter = CpuMeter(pids)
    lags: list[float] = []
    first: tuple[int, int] = (0, 0)
    probe: asyncio.Task[None] | None = None
    counting = False

    async def count_read(_: Msg) -> None:
        # JetStream API requests are plain NATS messages: a subscriber sees every read of the
        # table stream (the table service's catch-ups, the dealer's checks).
        if counting:
            phase.reads += 1

    for api in ("STREAM.MSG.GET", "DIRECT.GET"):
        await nc.subscribe(f"$JS.API.{api}.{stream}", cb=count_read)
        await nc.subscribe(f"$JS.API.{api}.{stream}.>", cb=count_read)

    async def lag_probe() -> None:
        # How late this process's event loop wakes up: part of every client-side latency.
        while True:
            due = time.perf_counter() + 0.01  # loop.time() is in whole ms on uvloop
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - due)

    async def on_window(opening: bool) -> None:
        nonlocal first, probe, counting
        info = await js.stream_info(stream)
        counts = (info.state.messages, info.state.bytes)
        counting = opening
        if opening:
            first = counts
            meter.start()
            probe = asyncio.ensure_future(lag_probe())
            return
        meter.stop()
        if probe is not None:
            probe.cancel()
        phase.records = counts[0] - first[0]
        phase.record_bytes = (counts[1] - first[1]) / max(phase.records, 1)

    try:
        phase.result = await drive(
            address, issuer, ids, phase.mode, warmup=WARMUP, window=WINDOW, on_window=on_window
        )
    finally:
        await nc.close()
    phase.cpu = meter.percent
    phase.loop_lag_p99 = 1000 * percentile(lags, 0.99)


@dataclass
class Floor:
    """One transport-floor measurement (bench/_floor.py)."""

    tables: int
    stream: bool = False
    result: FloorResult | None = None
    cpu: dict[str, float] = field(default_factory=dict)
    failure: str = ""

    @property
    def pattern(self) -> str:
        return "play" if self.stream else "act+watch"

    @property
    def rate(self) -> float:
        return self.result.rate if self.result else 0.0

    def p(self, q: float) -> float:
        return 1000 * percentile(self.result.latencies, q) if self.result else float("nan")


def _run_floor(server: NatsServer, tables: int, stream: bool) -> Floor:
    floor = Floor(tables, stream)
    try:
        with floor_server(server.url, f"FLOOR_{tables}_{int(stream)}") as (address, pid):
            meter = CpuMeter({"nats": server.pid or 0, "server": pid, "client": os.getpid()})

            async def on_window(opening: bool) -> None:
                (meter.start if opening else meter.stop)()

            floor.result = eventloop.run(
                asyncio.wait_for(
                    drive_floor(
                        address,
                        tables,
                        warmup=FLOOR_WARMUP,
                        window=WINDOW,
                        on_window=on_window,
                        stream=stream,
                    ),
                    FLOOR_WARMUP + WINDOW + SETUP_TIMEOUT,
                )
            )
            floor.cpu = meter.percent
    except Exception as exc:  # reported; the rest of the run goes on
        floor.failure = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
    return floor


# --- report ------------------------------------------------------------------------------------


def _cpu_text(cpu: dict[str, float], names: tuple[str, ...]) -> str:
    return " ".join(f"{name} {cpu.get(name, 0.0):.0f}%" for name in names)


def _print_raw(when: str, sequential: PublishRate, concurrent: PublishRate) -> None:
    print(
        f"  raw JetStream publish, {when} the room rows: nats-py js.publish awaiting each ack, "
        f"{RAW_PAYLOAD}-byte payload, file stream, {RAW_SECONDS:g} s each (CPU in % of one core)"
    )
    for label, raw in (
        ("sequential (1 publisher)", sequential),
        (f"concurrent ({RAW_CONCURRENCY} publishers)", concurrent),
    ):
        busy = raw.cpu.get("other", 0.0) > NOISY_OTHER
        print(
            f"    {label:<28}{raw.rate:>7,.0f} msgs/s   ack p50 "
            f"{1000 * percentile(raw.latencies, 0.5):5.2f} ms  p99 "
            f"{1000 * percentile(raw.latencies, 0.99):5.2f} ms   CPU "
            f"{_cpu_text(raw.cpu, ('nats', 'bench', 'other'))}"
            + ("  (machine busy: lower than on a quiet one)" if busy else ""),
            flush=True,
        )


def _print_phase(phase: Phase, *, first: bool) -> None:
    if first:
        print(
            f"  room: fresh dealer + table service (child processes) per row, {PLAYERS} players "
            f"per table (stack {STACK:,}), hand pause 0, action clock {ACTION_SECONDS:,} s; "
            f"warm-up {WARMUP[0]:g}-{WARMUP[1]:g} s (until every table has acted), then a "
            f"{WINDOW:g} s window"
        )
        cpu = " ".join(f"{c:>6}" for c in CPU_COLUMNS)
        print(
            f"    {'tables':>6} {'drive':<9} {'Act/s':>6} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'appends/s':>9} {'B/rec':>5} {'acting':>9} {'errs':>4} {'setup s':>7} "
            f"{'lag99 ms':>8} {'CPU ms/act':>10} {'reads/app':>9} | {cpu}"
        )
    if phase.failure or phase.result is None:
        print(f"    {phase.tables:>6} {phase.label:<9} FAILED: {phase.failure}", flush=True)
        return
    result = phase.result
    table_ms = _table_ms_per_action(phase)
    cpu = " ".join(f"{phase.cpu.get(c, 0.0):>6.0f}" for c in CPU_COLUMNS)
    print(
        f"    {phase.tables:>6} {phase.label:<9} {phase.rate:>6,.0f} {phase.p(0.5):>8.1f} "
        f"{phase.p(0.99):>8.1f} {phase.appends:>9,.0f} {phase.record_bytes:>5.0f} "
        f"{f'{result.tables_acting}/{result.tables}':>9} {len(result.errors):>4} "
        f"{phase.setup:>7.1f} {phase.loop_lag_p99:>8.1f} {table_ms:>10.2f} "
        f"{phase.reads / max(phase.records, 1):>9.2f} | {cpu}",
        flush=True,
    )
    for error in sorted(set(result.errors))[:3]:
        print(f"           error: {error}")


def _print_floor(floors: list[Floor]) -> None:
    print(
        "  transport floor, same nats-server (bench/_floor.py): the room's patterns with no "
        "Riverboat code; per action one JetStream publish with ack and one message to each of "
        f"{PLAYERS} players (bytes of the room's sizes): act+watch = a bare grpc.aio Act and a "
        f"Watch stream per player; play = a Play stream per player; {FLOOR_WARMUP:g} s "
        f"warm-up, {WINDOW:g} s window"
    )
    cpu = " ".join(f"{c:>6}" for c in FLOOR_COLUMNS)
    print(
        f"    {'tables':>6} {'pattern':<9} {'Act/s':>6} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'server ms/act':>13} {'machine ms/act':>14} | {cpu}"
    )
    for floor in floors:
        if floor.failure or floor.result is None:
            print(f"    {floor.tables:>6} {floor.pattern:<9} FAILED: {floor.failure}", flush=True)
            continue
        per_action = 10 / max(floor.rate, 1e-9)  # % of a core -> ms per action
        cpu = " ".join(f"{floor.cpu.get(c, 0.0):>6.0f}" for c in FLOOR_COLUMNS)
        print(
            f"    {floor.tables:>6} {floor.pattern:<9} {floor.rate:>6,.0f} {floor.p(0.5):>8.1f} "
            f"{floor.p(0.99):>8.1f} {per_action * floor.cpu.get('server', 0.0):>13.2f} "
            f"{_floor_machine_ms(floor):>14.2f} | {cpu}",
            flush=True,
        )


def _print_service(own: ServiceCost, phases: list[Phase], floors: list[Floor]) -> None:
    print(
        f"  the table service's own work, in process (bench/_service.py): {SERVICE_TABLES} "
        f"tables, the real service on the in-memory store, no gRPC or NATS: "
        f"{own.service_ms_per_action:.2f} ms of CPU per action, and the players' choosing "
        f"{own.choosing_ms_per_action:.2f} ms ({own.actions:,} actions, {own.errors} refused)"
    )
    row = next(
        (
            p
            for p in phases
            if p.tables == SERVICE_TABLES and p.mode == "bots" and p.result is not None
        ),
        None,
    )
    floor = next(
        (f for f in floors if f.tables == SERVICE_TABLES and not f.stream and f.result), None
    )
    if row is None or floor is None or not row.result or not row.result.latencies:
        return
    table = _table_ms_per_action(row)
    transport = 10 * floor.cpu.get("server", 0.0) / max(floor.rate, 1e-9)
    rest = table - own.service_ms_per_action - transport
    print(
        f"    the {SERVICE_TABLES}-table row's {table:.2f} ms per action = "
        f"{own.service_ms_per_action:.2f} "
        f"own work + {transport:.2f} transport (the floor server's) + {rest:.2f} the rest "
        "(interceptors, the JetStream store, the dealer calls, the event loop's extra work)",
        flush=True,
    )


def _print_notes(phases: list[Phase]) -> None:
    print(
        "    Act/s: accepted Act calls per second in the window. p50/p99: their client-side "
        "latency.\n"
        "    appends/s, B/rec: table-stream records per second (actions plus the service's "
        "commit and deal records), stored bytes per record.\n"
        "    acting: tables with an accepted action in the window. lag99: p99 lateness of the "
        "bots' event loop, included in the latencies.\n"
        "    CPU ms/act: table-service CPU per accepted action. reads/app: JetStream reads of "
        "the table stream (MSG.GET and DIRECT.GET, by the table service and the dealer) per "
        "append.\n"
        "    After |: CPU in % of one core; bots: this process; other: the rest of the machine.\n"
        "    bots = 4 play_bot per table (a Watch stream each, Act on their turn); play = 4 "
        "streaming bots per table (a Play stream each: updates out, actions in)."
    )
    done = [p for p in phases if p.result is not None and p.result.latencies]
    if not done:
        return
    best = max(done, key=lambda p: p.rate)
    table, bots = best.cpu.get("table", 0.0), best.cpu.get("bots", 0.0)
    machine = sum(best.cpu.values())
    cost = min(_table_ms_per_action(p) for p in done)
    print(
        f"  bottleneck: the table service, one Python process. At the best row ({best.tables} "
        f"tables, {best.mode}) it used {table:.0f}% of a core and the bots' process {bots:.0f}% "
        f"(so the bots stayed in this one process); the machine was {machine:.0f}% busy of "
        f"{100 * (os.cpu_count() or 1)}%. Its CPU per action (at least {cost:.2f} ms, whatever "
        f"else runs) caps one table-service process at ~{1000 / cost:,.0f} actions/s on a "
        "whole core."
    )
    noisy = [p for p in done if p.cpu.get("other", 0.0) > NOISY_OTHER]
    if noisy:
        rows = ", ".join(f"{p.tables} {p.label} ({p.cpu['other']:.0f}%)" for p in noisy)
        print(
            f"  caution: other processes on the machine took CPU during: {rows} (% of one core); "
            "those rows are lower than on a quiet machine, CPU ms/act much less so"
        )


def _table_ms_per_action(phase: Phase) -> float:
    """Table-service CPU milliseconds per accepted action in the window."""
    result = phase.result
    if result is None or not result.latencies:
        return 0.0
    return 10 * phase.cpu.get("table", 0.0) * result.seconds / len(result.latencies)


def _print_raw_shares(
    phases: list[Phase], sequential: PublishRate, concurrent: PublishRate
) -> None:
    done = [p for p in phases if p.result is not None and not p.failure]
    if not done:
        return
    best = max(done, key=lambda p: p.rate)
    print(
        f"  raw JetStream anchor: the best row ({best.tables} tables, {best.label}, "
        f"{best.rate:,.0f} actions/s) = {best.rate / sequential.rate:.2f}x the sequential publish "
        f"rate ({sequential.rate:,.0f}/s) and {best.rate / concurrent.rate:.2f}x the concurrent "
        f"one ({concurrent.rate:,.0f}/s); one action = one append"
    )


def _print_targets(phases: list[Phase], floors: list[Floor]) -> None:
    """Issue #15's targets, each a ratio to the floor of this run, with its verdict."""
    print(
        "  targets (issue #15), ratios to the transport floor of this run; the anchor is the "
        "issue's floor (act+watch), the same-pattern ratio beside it:"
    )
    for tables in TARGET_TABLES:
        anchor = _floor_at(floors, tables, stream=False)
        rows = [p for p in phases if p.tables == tables and p.result is not None and not p.failure]
        if anchor is None or not rows:
            print(f"    {tables} tables: not measured (a row or the floor failed)")
            continue
        # The verdict is the room as it ships (CRV1); the other scheme's row is shown beside.
        best = max((p for p in rows if p.scheme == "CRV1"), key=lambda p: p.rate, default=None)
        if best is None:
            print(f"    {tables} tables: no CRV1 row measured")
            continue
        for phase in rows:
            same = _floor_at(floors, tables, stream=FLOOR_OF[phase.mode])
            same_text = (
                f"; same pattern ({same.pattern}): {phase.rate / same.rate:.2f}x rate, "
                f"{_room_machine_ms(phase) / _floor_machine_ms(same):.2f}x CPU"
                if same is not None and same is not anchor
                else ""
            )
            print(
                f"    {tables} tables, {phase.label}: {phase.rate:,.0f} actions/s (p99 "
                f"{phase.p(0.99):,.1f} ms), machine CPU {_room_machine_ms(phase):.2f} ms per "
                f"action; floor {anchor.pattern} {anchor.rate:,.0f}/s, "
                f"{_floor_machine_ms(anchor):.2f} ms{same_text}"
            )
        rate_ratio = best.rate / anchor.rate
        cpu_ratio = _room_machine_ms(best) / _floor_machine_ms(anchor)
        print(
            f"      rate: {best.label} {rate_ratio:.2f}x the floor (target >= "
            f"{TARGET_RATE_RATIO:g}x: {_verdict(rate_ratio >= TARGET_RATE_RATIO)})"
        )
        print(
            f"      machine CPU per action: {best.label} {cpu_ratio:.2f}x the floor (target <= "
            f"{TARGET_MACHINE_RATIO:g}x: {_verdict(cpu_ratio <= TARGET_MACHINE_RATIO)})"
        )
        if tables == min(TARGET_TABLES):
            p99 = best.p(0.99)
            print(
                f"      p99 at {tables} tables: {best.label} {p99:,.1f} ms (target < "
                f"{TARGET_P99_MS:g} ms: {_verdict(p99 < TARGET_P99_MS)})",
                flush=True,
            )


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def _floor_at(floors: list[Floor], tables: int, *, stream: bool) -> Floor | None:
    return next(
        (
            f
            for f in floors
            if f.tables == tables and f.stream is stream and f.result is not None and f.rate > 0
        ),
        None,
    )


def _room_machine_ms(phase: Phase) -> float:
    """The room's processes' CPU per accepted action (NATS, table, dealer: not the bots)."""
    busy = sum(phase.cpu.get(name, 0.0) for name in ROOM_PROCESSES)  # % of one core
    return 10 * busy / max(phase.rate, 1e-9)


def _floor_machine_ms(floor: Floor) -> float:
    """The floor's NATS and server CPU per action (not its client, the load generator)."""
    busy = floor.cpu.get("nats", 0.0) + floor.cpu.get("server", 0.0)
    return 10 * busy / max(floor.rate, 1e-9)
