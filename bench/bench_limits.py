"""Rate limits under a flood: the bots' Act p99 alone, then beside one client at 10x its limit.

One run, everything started by the bench: a private nats-server, a dealer and a table service
(child processes, the default limits) and ``TABLES`` tables of four ``play_bot`` players driven
from this process, as in the room bench (``bench/_room.py``). Two windows of the same tables:

1. ``alone``: the bots only.
2. ``flooded``: the bots, and beside them one more account (``bench/_flooder.py``, its own
   process, at the lowest CPU priority: a real one runs elsewhere) sending ``Act`` at ten
   times its per-account limit, never waiting for an answer.
   The limiter admits the account's share (answered on its merits: not its seat) and refuses
   the rest with RESOURCE_EXHAUSTED from the token alone, before its request is decoded or any
   other interceptor runs (``riverboat.services.common.admission``).

The row prints both p99s and their ratio; the target is under 1.10 (a flood costs the others
less than 10%). The machine is shared: read a single run as a smoke figure, not a verdict.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

from bench._room import (
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
from riverboat.services.common.limits import RateLimits

TABLES = 10
#: Seconds of warm-up (at least, at most) and of each measured window.
WARMUP = (2.0, 15.0)
WINDOW = 10.0
#: The flooder's rate as a multiple of its per-account Act limit.
FLOOD_FACTOR = 10.0
TARGET_RATIO = 1.10


def run() -> None:
    token_key = secrets.token_bytes(32)
    issuer = TokenIssuer(token_key)
    limit = RateLimits().rate("Act", "account")
    assert limit is not None
    flood_rate = FLOOD_FACTOR * limit.per_second
    with tempfile.TemporaryDirectory(prefix="rb-bench-limits-") as tmp:
        var = Path(tmp)
        with NatsServer(var / "store", port=0) as server:
            room = start_room(server.url, var, "LIM", token_key, hand_pause=0.0)
            try:
                ids = table_ids("LIM", TABLES)
                eventloop.run(create_tables(room.address, issuer, ids))
                pids = {"nats": server.pid or 0, **room.pids(), "bots": os.getpid()}
                alone = eventloop.run(_window(room.address, issuer, ids, CpuMeter(dict(pids))))
                flooder = subprocess.Popen(
                    [
                        # A real flooder runs on its own machine; here it shares the two cores,
                        # so it runs at the lowest priority: the row measures the service's
                        # cost of the flood, not the flooder's own.
                        *("nice", "-n", "19", sys.executable, "-m", "bench._flooder"),
                        *("--address", room.address),
                        *("--token", issuer.issue("bench-flooder", "player")),
                        *("--table-id", ids[0], "--rate", f"{flood_rate:g}"),
                        *("--seconds", f"{WARMUP[1] + WINDOW + 5:g}"),
                    ],
                    cwd=Path(__file__).resolve().parent.parent,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                try:
                    meter = CpuMeter({**pids, "flooder": flooder.pid})
                    flooded = eventloop.run(_window(room.address, issuer, ids, meter))
                    out, _ = flooder.communicate(timeout=WARMUP[1] + WINDOW + 60)
                finally:
                    if flooder.poll() is None:
                        flooder.kill()
                        flooder.wait()
            finally:
                room.stop()
    counts = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    _print(alone, flooded, flood_rate, str(limit), counts)


async def _window(
    address: str, issuer: TokenIssuer, ids: list[str], meter: CpuMeter
) -> tuple[WindowResult, dict[str, float]]:
    async def measure(opening: bool) -> None:
        (meter.start if opening else meter.stop)()

    result = await asyncio.wait_for(
        drive(address, issuer, ids, "bots", warmup=WARMUP, window=WINDOW, on_window=measure),
        WARMUP[1] + WINDOW + 60,
    )
    return result, meter.percent


CPU_COLUMNS = ("table", "dealer", "nats", "bots", "flooder", "other")


def _print(
    alone_row: tuple[WindowResult, dict[str, float]],
    flooded_row: tuple[WindowResult, dict[str, float]],
    rate: float,
    limit: str,
    counts: dict[str, int],
) -> None:
    (alone, alone_cpu), (flooded, flooded_cpu) = alone_row, flooded_row
    print(
        f"  {TABLES} tables x 4 play_bot, default limits; {WINDOW:g} s windows; the flooder: one "
        f"account's Act at {rate:,.0f}/s = {FLOOD_FACTOR:g}x its limit ({limit}), own process "
        "at nice 19"
    )
    cpu_head = " ".join(f"{c:>7}" for c in CPU_COLUMNS)
    print(
        f"    {'window':<8} {'Act/s':>6} {'p50 ms':>8} {'p99 ms':>8} {'errs':>4} | CPU % of a "
        f"core: {cpu_head}"
    )
    for label, result, cpu in (("alone", alone, alone_cpu), ("flooded", flooded, flooded_cpu)):
        cpu_text = " ".join(f"{cpu.get(c, 0.0):>7.0f}" for c in CPU_COLUMNS)
        print(
            f"    {label:<8} {result.rate:>6,.0f} {1000 * percentile(result.latencies, 0.5):>8.1f} "
            f"{1000 * percentile(result.latencies, 0.99):>8.1f} {len(result.errors):>4} | "
            f"{'':>16}{cpu_text}"
        )
    answered = ", ".join(f"{count:,} {code}" for code, count in sorted(counts.items()))
    print(f"    the flood's calls were answered: {answered or 'not counted'}")
    extra = flooded_cpu.get("table", 0.0) - alone_cpu.get("table", 0.0)
    print(
        f"    the table service's extra CPU while flooded: {extra:.0f}% of a core, about "
        f"{10 * extra / rate:.2f} ms per flood call"
    )
    ratio = percentile(flooded.latencies, 0.99) / percentile(alone.latencies, 0.99)
    # Outside the bench the flooder runs on its own machine; here it shares the two cores.
    print(
        f"    bots' Act p99 flooded / alone = {ratio:.2f} (target < {TARGET_RATIO:.2f}) -> "
        + ("MET" if ratio < TARGET_RATIO else "MISSED"),
        flush=True,
    )
