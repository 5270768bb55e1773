"""The room on one and on several table-service instances: actions/s and CPU per action per process.

One run on this machine, everything started by the bench: a private nats-server, a dealer, the
settlement service (SQLite ledger, following the table log as in production) and ``instances``
table-service instances on the same table stream, then ``TABLES`` tables of four ``play_bot``
players driven from this process (``bench/_room.py``). Tables are opened round-robin over the
instances; a call that reaches an instance not owning the table follows the owner redirect
(``riverboat.redirect``, FAILED_PRECONDITION NOT_OWNER) once, and the bots then talk to each
table's owner directly.

Per row: accepted Act calls per second in the window, their client-side p50/p99, and each
process's CPU in milliseconds per accepted action (``/proc`` counters over the window; ``other``
is the rest of the machine, which is shared), and the table stream's records per action. The
table instances' ms/action are what the capacity model in docs/scaling.md divides a core by;
a last line gives the raw JetStream publish rate of the same server (64 publishers), the
stream's ceiling.

``RIVERBOAT_BENCH_INSTANCES`` lists the rows' instance counts (default ``1,2``);
``RIVERBOAT_BENCH_TABLES`` the tables (default 20). Several instances need table ownership
(leases), without which each instance would deal every table.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import grpc.aio
import nats

from bench._room import (
    ACTION_SECONDS,
    STACK,
    CpuMeter,
    WindowResult,
    dealer_process,
    drive,
    percentile,
    player_names,
    raw_publish,
    room_streams,
    table_ids,
)
from riverboat import eventloop
from riverboat.auth import TokenIssuer
from riverboat.natsserver import NatsServer
from riverboat.routing import call_owner
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.v1 import table_pb2, table_pb2_grpc

ENV_INSTANCES = "RIVERBOAT_BENCH_INSTANCES"
ENV_TABLES = "RIVERBOAT_BENCH_TABLES"
DEFAULT_INSTANCES = (1, 2)
DEFAULT_TABLES = 20
WARMUP = (3.0, 20.0)
WINDOW = 12.0
SETUP_TIMEOUT = 120.0
#: Seconds a table waits for an owner (a new instance's leases settling) before the row fails.
PLACEMENT_TIMEOUT = 30.0
#: The raw publish line after the rows (as in the room bench: one table record's size).
RAW_CONCURRENCY = 64
RAW_SECONDS = 3.0
RAW_PAYLOAD = 400


@dataclass
class Row:
    """One instance count's measurement."""

    instances: int
    tables: int
    result: WindowResult | None = None
    cpu: dict[str, float] = field(default_factory=dict)  # % of one core over the window
    placement: dict[str, int] = field(default_factory=dict)  # instance address -> tables
    records: int = 0  # the table stream's growth over the window (actions and deals)
    failure: str = ""

    @property
    def actions(self) -> int:
        return len(self.result.latencies) if self.result else 0

    def ms_per_action(self, name: str) -> float:
        """CPU milliseconds ``name`` spent per accepted action in the window."""
        if not self.result or not self.actions:
            return float("nan")
        return self.cpu[name] / 100 * self.result.seconds / self.actions * 1000


@dataclass
class ScaledRoom:
    """NATS is the caller's; the dealer, settlement and table instances are this room's."""

    dealer: ServiceProcess
    settlement: ServiceProcess
    tables: list[ServiceProcess]
    stream: str

    def pids(self) -> dict[str, int]:
        named = [("dealer", self.dealer), ("settlement", self.settlement)]
        named += [(f"table-{k}", t) for k, t in enumerate(self.tables, start=1)]
        return {name: p.process.pid for name, p in named if p.process is not None}

    def stop(self) -> None:
        for process in [*self.tables, self.settlement, self.dealer]:
            process.stop()


def start_scaled_room(
    nats_url: str, var: Path, tag: str, token_key: bytes, instances: int
) -> ScaledRoom:
    """The dealer, ``instances`` table services on one table stream, settlement reading it."""
    env = {"RIVERBOAT_TOKEN_KEY": token_key.hex()}
    lower = tag.lower()
    tables_stream, tables_prefix = room_streams(tag)
    dealer = dealer_process(nats_url, var, tag, env)
    dealer_address = dealer.address
    settlement_address = f"127.0.0.1:{free_port()}"
    settlement = ServiceProcess(
        "settlement",
        settlement_address,
        [
            *("--address", settlement_address, "--nats", nats_url),
            *("--database", f"sqlite:///{var / f'settlement-{tag}.db'}"),
            *("--wallets-stream", f"RB_WALLETS_{tag}", "--wallets-prefix", f"rb.wallets{lower}"),
            *("--tables-stream", tables_stream, "--tables-prefix", tables_prefix),
            *("--accounts-stream", "", "--log-format", "json"),
        ],
        log_path=var / f"settlement-{tag}.log",
        env=env,
    )
    tables = []
    for k in range(1, instances + 1):
        address = f"127.0.0.1:{free_port()}"
        tables.append(
            ServiceProcess(
                "table",
                address,
                [
                    *("--address", address, "--nats", nats_url, "--dealer", dealer_address),
                    *("--hand-pause", "0", "--log-format", "json"),
                    *("--stream", tables_stream, "--subject-prefix", tables_prefix),
                ],
                log_path=var / f"table-{tag}-{k}.log",
                env={**env, "RIVERBOAT_INSTANCE_ID": f"bench-table-{k}"},
            )
        )
    room = ScaledRoom(dealer, settlement, [], tables_stream)
    try:
        dealer.start()
        settlement.start()
        for table in tables:
            table.start()
            room.tables.append(table)
    except BaseException:
        room.stop()
        raise
    return room


async def _owned_call(
    address: str, call: str, request: object, metadata: tuple[tuple[str, str], ...]
) -> str:
    """Send ``call`` to ``address`` through :func:`riverboat.routing.call_owner` (one owner
    redirect followed, NO_OWNER waited out while the leases settle); the address that
    answered."""

    async def send(at: str) -> None:
        async with grpc.aio.insecure_channel(at) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            await getattr(stub, call)(request, metadata=metadata, timeout=30)

    _, answered = await call_owner(send, address, no_owner_budget=PLACEMENT_TIMEOUT)
    return answered


async def open_and_place(
    addresses: list[str], issuer: TokenIssuer, ids: list[str]
) -> dict[str, str]:
    """Open and seat each table (round-robin over ``addresses``); table id -> owner address."""
    operator = (("authorization", f"Bearer {issuer.issue('bench-operator', 'operator')}"),)
    gate = asyncio.Semaphore(16)

    async def one(k: int, table_id: str) -> tuple[str, str]:
        async with gate:
            at = await _owned_call(
                addresses[k % len(addresses)],
                "OpenTable",
                table_pb2.OpenTableRequest(
                    table_id=table_id,
                    name=table_id,
                    variant="seven_card_stud_hi_lo",
                    action_seconds=ACTION_SECONDS,
                    request_id=f"create-{table_id}",
                ),
                operator,
            )
            for seat, name in enumerate(player_names(table_id), start=1):
                request = table_pb2.SeatPlayerRequest(
                    table_id=table_id,
                    seat=seat,
                    player=name,
                    stack=STACK,
                    request_id=f"seat-{table_id}-{seat}-{name}",
                )
                at = await _owned_call(at, "SeatPlayer", request, operator)
            view = table_pb2.GetTableViewRequest(table_id=table_id)
            return table_id, await _owned_call(at, "GetTableView", view, operator)

    return dict(await asyncio.gather(*(one(k, t) for k, t in enumerate(ids))))


def _run_row(server: NatsServer, var: Path, token_key: bytes, instances: int, tables: int) -> Row:
    row = Row(instances, tables)
    tag = f"S{instances}T{tables}"
    issuer = TokenIssuer(token_key)
    room = start_scaled_room(server.url, var, tag, token_key, instances)
    try:
        ids = table_ids(tag, tables)
        addresses = [t.address for t in room.tables]
        owners = eventloop.run(
            asyncio.wait_for(open_and_place(addresses, issuer, ids), SETUP_TIMEOUT)
        )
        for address in owners.values():
            row.placement[address] = row.placement.get(address, 0) + 1
        meter = CpuMeter({"nats": server.pid or 0, **room.pids(), "bots": os.getpid()})
        row.result = eventloop.run(
            _measure(row, server.url, room.stream, owners, issuer, ids, meter)
        )
        row.cpu = meter.percent
    except Exception as exc:  # a failed row is reported; the others still run
        row.failure = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
    finally:
        room.stop()
    return row


async def _measure(
    row: Row,
    nats_url: str,
    stream: str,
    owners: dict[str, str],
    issuer: TokenIssuer,
    ids: list[str],
    meter: CpuMeter,
) -> WindowResult:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    first = 0

    async def on_window(opening: bool) -> None:
        nonlocal first
        messages = (await js.stream_info(stream)).state.messages
        if opening:
            first = messages
            meter.start()
        else:
            meter.stop()
            row.records = messages - first

    try:
        return await drive(
            owners, issuer, ids, "bots", warmup=WARMUP, window=WINDOW, on_window=on_window
        )
    finally:
        await nc.close()


def _print_row(row: Row) -> None:
    head = f"  {row.instances} instance{'s' if row.instances > 1 else ' '} {row.tables:4d} tables"
    if row.failure or row.result is None:
        print(f"{head}  FAILED: {row.failure}", flush=True)
        return
    r = row.result
    rate = r.rate
    p50, p99 = (1000 * percentile(r.latencies, q) for q in (0.5, 0.99))
    print(
        f"{head}  {rate:7.1f} actions/s  p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  "
        f"({row.actions} actions in {r.seconds:.1f} s, {len(r.errors)} errors, "
        f"{r.tables_acting}/{r.tables} tables acting; "
        f"{row.records / max(row.actions, 1):.2f} log records per action)",
        flush=True,
    )
    print(
        "      placement: "
        + ", ".join(f"{a}: {n} tables" for a, n in sorted(row.placement.items())),
        flush=True,
    )
    names = [n for n in row.cpu if n != "other"] + ["other"]
    print(
        "      CPU ms/action: "
        + "  ".join(f"{n} {row.ms_per_action(n):.3f}" for n in names)
        + "   (% of a core: "
        + "  ".join(f"{n} {row.cpu[n]:.0f}" for n in names)
        + ")",
        flush=True,
    )
    tables_ms = sum(row.ms_per_action(n) for n in names if n.startswith("table-"))
    print(f"      table instances together: {tables_ms:.3f} CPU ms/action", flush=True)


def _setting(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


def run() -> None:
    instances = [
        int(n) for n in _setting(ENV_INSTANCES, ",".join(map(str, DEFAULT_INSTANCES))).split(",")
    ]
    tables = int(_setting(ENV_TABLES, str(DEFAULT_TABLES)))
    token_key = secrets.token_bytes(32)
    print(f"  {os.cpu_count()} cores; {tables} tables of 4 bots; window {WINDOW:g} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="rb-bench-scaleout-") as tmp:
        var = Path(tmp)
        with NatsServer(var / "store", port=0) as server:
            for count in instances:
                _print_row(_run_row(server, var, token_key, count, tables))
            # The stream's ceiling on this machine, for the NATS side of the capacity model.
            raw = eventloop.run(
                raw_publish(
                    server.url,
                    concurrency=RAW_CONCURRENCY,
                    seconds=RAW_SECONDS,
                    payload_size=RAW_PAYLOAD,
                    meter=CpuMeter({"nats": server.pid or 0, "bench": os.getpid()}),
                    stream="RAW_SCALEOUT",
                )
            )
            nats_ms = raw.cpu["nats"] / 100 * raw.seconds / max(len(raw.latencies), 1) * 1000
            print(
                f"  raw JetStream publish, {RAW_CONCURRENCY} publishers, {RAW_PAYLOAD} B: "
                f"{raw.rate:.0f} acks/s, nats {nats_ms:.3f} CPU ms/publish "
                f"({raw.cpu['nats']:.0f}% of a core)",
                flush=True,
            )
