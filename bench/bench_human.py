"""Human-paced load: many tables, each acting once every two seconds, beside the floor.

People play slowly: a table sees an action every few seconds, and a room's load is its table
count. Each row opens a fresh dealer and table service (child processes, on their own streams of
one private nats-server), creates and seats the tables through the API, and plays them with four
players each, every player on its own Watch stream (``bench._room.drive_paced``): arrivals are
open loop, one Act due per table every :data:`~bench._room.PACE` seconds from a random phase,
sent by the player to act at its due time (or at once if its turn came late). Measured over a
window after a warm-up: Act calls completed per second (offered: tables / pace), their p50/p99
latency, and the p99 of each player's wait from an Act being sent to receiving the update it
caused (action to broadcast). Then the transport floor (``bench/_floor.py``: bare grpc.aio and
one JetStream publish per Act, no Riverboat code) under the same arrivals and table counts.

Goal: 2,000 tables with p99 Act under 100 ms on 2 cores; else the largest table count that
holds it, printed beside the floor's. ``RIVERBOAT_BENCH_HUMAN_TABLES=100,200`` runs other counts.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from bench._floor import PacedFloorResult, drive_floor_paced, floor_server
from bench._room import (
    PACE,
    CpuMeter,
    WindowResult,
    create_tables,
    drive,
    percentile,
    start_room,
    table_ids,
)
from riverboat import eventloop
from riverboat.auth import TokenIssuer
from riverboat.natsserver import NatsServer

TABLES = tuple(
    int(n) for n in os.environ.get("RIVERBOAT_BENCH_HUMAN_TABLES", "500,1000,2000").split(",")
)
#: Seconds of warm-up (at least the first; until every table has acted, at most the second).
WARMUP = (2 * PACE, 30.0)
WINDOW = 20.0
SETUP_TIMEOUT = 300.0
TARGET_P99_MS = 100.0
CPU_COLUMNS = ("nats", "table", "dealer", "bots", "other")


@dataclass
class Row:
    """One table count: Riverboat's measurement and the floor's."""

    tables: int
    setup: float = 0.0
    room: WindowResult | None = None
    room_cpu: dict[str, float] = field(default_factory=dict)
    floor: PacedFloorResult | None = None
    floor_cpu: dict[str, float] = field(default_factory=dict)
    failure: str = ""
    floor_failure: str = ""

    @property
    def offered(self) -> float:
        return self.tables / PACE


def _ms(values: list[float], q: float) -> float:
    return 1000 * percentile(values, q)


def run() -> None:
    token_key = secrets.token_bytes(32)
    print(
        f"  {', '.join(f'{n:,}' for n in TABLES)} tables, 4 players each with a Watch stream; "
        f"one Act due per table every {PACE:g} s (open loop, random phase); warm-up "
        f"{WARMUP[0]:g}-{WARMUP[1]:g} s, window {WINDOW:g} s; CPU in % of one core",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="rb-bench-human-") as tmp:
        var = Path(tmp)
        with NatsServer(var / "store", port=0) as server:
            # One event loop for every row: grpc.aio's poller stays bound to the loop it
            # started on, and a second loop would get its callbacks after the first closed.
            rows = eventloop.run(_rows(server, var, token_key))
    _print_verdict(rows)


async def _rows(server: NatsServer, var: Path, token_key: bytes) -> list[Row]:
    rows: list[Row] = []
    for tables in TABLES:
        row = Row(tables)
        await _room_row(row, server, var, token_key)
        await _floor_row(row, server)
        _print_row(row, first=not rows)
        rows.append(row)
    return rows


def _failure(exc: Exception) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {exc.details()}"[:160]
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:160]


async def _room_row(row: Row, server: NatsServer, var: Path, token_key: bytes) -> None:
    tag = f"H{row.tables}"
    issuer = TokenIssuer(token_key)
    room = start_room(server.url, var, tag, token_key, hand_pause=0.0)
    try:
        ids = table_ids(tag, row.tables)
        began = time.monotonic()
        await asyncio.wait_for(create_tables(room.address, issuer, ids), SETUP_TIMEOUT)
        row.setup = time.monotonic() - began
        meter = CpuMeter({"nats": server.pid or 0, **room.pids(), "bots": os.getpid()})

        async def on_window(opening: bool) -> None:
            (meter.start if opening else meter.stop)()

        row.room = await drive(
            room.address, issuer, ids, "paced", warmup=WARMUP, window=WINDOW, on_window=on_window
        )
        row.room_cpu = meter.percent
    except Exception as exc:  # reported; the other rows still run
        row.failure = _failure(exc)
    finally:
        room.stop()


async def _floor_row(row: Row, server: NatsServer) -> None:
    try:
        with floor_server(server.url, f"FLOOR_H{row.tables}") as (address, pid):
            meter = CpuMeter({"nats": server.pid or 0, "server": pid, "client": os.getpid()})

            async def on_window(opening: bool) -> None:
                (meter.start if opening else meter.stop)()

            row.floor = await asyncio.wait_for(
                drive_floor_paced(
                    address,
                    row.tables,
                    pace=PACE,
                    warmup=WARMUP[0],
                    window=WINDOW,
                    on_window=on_window,
                ),
                WARMUP[0] + WINDOW + SETUP_TIMEOUT,
            )
            row.floor_cpu = meter.percent
    except Exception as exc:
        row.floor_failure = _failure(exc)


def _machine_ms(cpu: dict[str, float], rate: float) -> float:
    return 10 * sum(v for k, v in cpu.items() if k != "other") / max(rate, 1e-9)


def _print_row(row: Row, *, first: bool) -> None:
    if first:
        print(
            f"    {'tables':>6} {'offered/s':>9} {'who':<9} {'Act/s':>6} {'Act p50':>8} "
            f"{'Act p99':>8} {'bcast p99':>9} {'ratio':>6} {'machine ms/act':>14} {'setup s':>7}"
            " | CPU"
        )
    room, floor = row.room, row.floor
    if row.failure or room is None:
        print(f"    {row.tables:>6} {row.offered:>9,.0f} {'riverboat':<9} FAILED: {row.failure}")
    else:
        ratio = room.rate / floor.rate if floor is not None and floor.rate else float("nan")
        cpu = " ".join(f"{k} {row.room_cpu.get(k, 0.0):.0f}%" for k in CPU_COLUMNS)
        print(
            f"    {row.tables:>6} {row.offered:>9,.0f} {'riverboat':<9} {room.rate:>6,.0f} "
            f"{_ms(room.latencies, 0.5):>6.1f}ms {_ms(room.latencies, 0.99):>6.1f}ms "
            f"{_ms(room.broadcasts, 0.99):>7.1f}ms {ratio:>5.2f}x "
            f"{_machine_ms(row.room_cpu, room.rate):>14.2f} {row.setup:>7.1f} | {cpu}"
            + (f"  ({len(room.errors)} refused)" if room.errors else ""),
            flush=True,
        )
    if row.floor_failure or floor is None:
        print(f"    {row.tables:>6} {row.offered:>9,.0f} {'floor':<9} FAILED: {row.floor_failure}")
    else:
        cpu = " ".join(
            f"{k} {row.floor_cpu.get(k, 0.0):.0f}%" for k in ("nats", "server", "client", "other")
        )
        print(
            f"    {row.tables:>6} {row.offered:>9,.0f} {'floor':<9} {floor.rate:>6,.0f} "
            f"{_ms(floor.latencies, 0.5):>6.1f}ms {_ms(floor.latencies, 0.99):>6.1f}ms "
            f"{_ms(floor.broadcasts, 0.99):>7.1f}ms {'1.00x':>6} "
            f"{_machine_ms(row.floor_cpu, floor.rate):>14.2f} {'':>7} | {cpu}",
            flush=True,
        )


def _holds(latencies: list[float] | None) -> bool:
    return bool(latencies) and _ms(latencies or [], 0.99) < TARGET_P99_MS


def _print_verdict(rows: list[Row]) -> None:
    print(
        "    Act/s: Act calls completed in the window (offered: tables / pace); ratio: "
        "Riverboat's Act/s over the floor's at that table count. bcast p99: from an Act "
        "being sent to each player receiving its update."
    )
    ours = [r.tables for r in rows if r.room is not None and _holds(r.room.latencies)]
    floors = [r.tables for r in rows if r.floor is not None and _holds(r.floor.latencies)]
    best = max(ours, default=0)
    floor_best = max(floors, default=0)
    goal = max(TABLES)
    verdict = "met" if best >= goal else "MISSED"
    print(
        f"  largest table count with p99 Act < {TARGET_P99_MS:g} ms: Riverboat "
        f"{best:,}, the floor {floor_best:,} (of {', '.join(f'{n:,}' for n in TABLES)}); "
        f"goal {goal:,} tables: {verdict}",
        flush=True,
    )
