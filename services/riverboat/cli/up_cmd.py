"""``riverboat up``: the whole room on one machine (what ``make run`` starts).

NATS, the dealer, table, settlement and lobby services as child processes; an operator account;
a Pacific $1/$2 table and a dealer's choice table opened through the lobby; bots that register,
get a deposit, buy in through the lobby and play through the table service. Ctrl-C stops it all.

Start and stop cannot hurt the store: before anything starts, a process still holding the NATS
store or one of the ports (a server an earlier run left behind) is named in one line with its pid;
the children run in their own process groups, so only this launcher gets the terminal's Ctrl-C
and it stops them in order, also when its stdout is a pipe whose reader is gone (``| head -1``,
``| tee`` then Ctrl-C). NATS runs with one user per service and tool (``riverboat.natsauth``),
their passwords kept in ``VAR/nats-auth/``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import grpc

from riverboat.auth import load_token_key
from riverboat.bots.demo import DemoBot
from riverboat.cli.clientkit import (
    DEFAULT_LOBBY,
    DEFAULT_SETTLEMENT,
    DEFAULT_TABLE,
    TOKEN_FILE_PATTERN,
)
from riverboat.client import LobbyClient, TableClient, random_chooser
from riverboat.natsauth import room_passwords, room_users
from riverboat.natsserver import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    NatsCluster,
    NatsServer,
    StoreInUseError,
    is_listening,
    port_holder,
    reserve_ports,
)
from riverboat.services.common.addresses import split_address
from riverboat.services.launcher import ServiceProcess, ToolProcess, free_port
from riverboat.v1 import lobby_pb2, settlement_pb2, settlement_pb2_grpc

OPERATOR = "operator"
#: A demo bot buys in for this many minimum buy-ins, and its first deposit pays this many such
#: buy-ins: it can bust and buy back in four times before its wallet is empty.
DEMO_BUY_INS = 4
DEMO_BANKROLL = 5
#: Seconds between published chain heads: a log rewritten after a publication fails the audit,
#: so this bounds how far back a rewrite can go unseen (docs/audit.md).
HEADS_INTERVAL = 10.0
DEMO_TABLES = (
    ("pacific", "Pacific $1/$2 stud hi/lo", "demo-pacific"),
    ("dealers_choice", "Dealer's choice", "demo-choice"),
)


def register(groups: Any) -> None:
    """Add ``up``."""
    up = groups.add_parser("up", help="start the whole room: NATS, services, demo tables, bots")
    up.add_argument("--nats", help="use this NATS server instead of starting one")
    up.add_argument("--nats-port", type=int, default=DEFAULT_PORT, help="port of the NATS started")
    up.add_argument(
        "--cluster",
        type=int,
        default=0,
        metavar="N",
        help="start a NATS cluster of N nodes on loopback (free ports) instead of one server; "
        "the streams get min(N, 3) replicas",
    )
    up.add_argument(
        "--table-instances",
        type=int,
        default=1,
        metavar="N",
        help="table-service instances to start (the first on --table-address, the others on "
        "free ports); they divide the tables between them with table leases",
    )
    up.add_argument(
        "--lease-ttl",
        type=float,
        metavar="SECONDS",
        help="seconds a table lease lasts unless renewed (the table service's --lease-ttl; "
        "default its RIVERBOAT_LEASE_TTL, else 10): a dead instance's tables move within it, "
        "and it must outlast a NATS leader election (docs/table-service.md)",
    )
    up.add_argument("--var", default="var", help="logs, keys, the NATS store, the ledger (./var)")
    up.add_argument("--lobby-address", default=DEFAULT_LOBBY)
    up.add_argument("--table-address", default=DEFAULT_TABLE)
    up.add_argument("--dealer-address", default="127.0.0.1:50053")
    up.add_argument("--settlement-address", default=DEFAULT_SETTLEMENT)
    up.add_argument("--database", help="ledger database URL (default sqlite:///VAR/settlement.db)")
    up.add_argument("--bots", type=int, default=3, help="bots at each demo table (default 3)")
    up.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands")
    up.add_argument("--quiet", action="store_true", help="do not print the demo table's hands")
    up.add_argument(
        "--heads-interval",
        type=float,
        default=HEADS_INTERVAL,
        metavar="SECONDS",
        help="publish the signed chain heads every SECONDS (riverboat audit heads; default "
        f"{HEADS_INTERVAL:g}) to VAR/chain-heads.jsonl; 0: no publisher",
    )
    up.add_argument(
        "--heads-command",
        metavar="COMMAND",
        help="also pipe each signed publication to COMMAND (an external timestamping service "
        "the operator does not control alone; docs/audit.md)",
    )
    up.set_defaults(handler=cmd_up)


def _operator_password(var: Path) -> str:
    """The demo operator's password: kept in VAR/operator.password (0600) across runs."""
    path = var / "operator.password"
    if path.exists():
        return path.read_text().strip()
    password = secrets.token_urlsafe(12)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(password + "\n")
    return password


class Output:
    """Standard output that outlives its reader (``| head -1``; ``| tee`` and then Ctrl-C).

    Once a write finds the pipe closed, stdout is pointed at ``/dev/null`` and the room goes on
    (Ctrl-C still stops it): a vanished reader must not abort the launcher half-way, which is
    how an earlier run left its nats-server running on the store.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.reader_gone = False

    def say(self, text: str = "") -> None:
        """Print one line (or several), flushed; silently nothing once the reader is gone."""
        if self.reader_gone:
            return
        try:
            self._stream.write(text + "\n")
            self._stream.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.reader_gone = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self._stream.fileno())  # so the exit-time flush succeeds too
            finally:
                os.close(devnull)


def _describe(pid: int) -> str:
    """What process ``pid`` is, for the one-line message about it."""
    import psutil

    try:
        command = " ".join(psutil.Process(pid).cmdline())
        name = psutil.Process(pid).name()
    except psutil.Error:
        return f"a process (pid {pid})"
    for service in ("dealer", "table", "settlement", "lobby"):
        if f"riverboat.services.{service}" in command:
            return f"the {service} service (pid {pid})"
    return f"{name} (pid {pid})"


def _listening(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """What listens where in this room: (what, its flag, host:port); NATS only when the room
    starts its own single server (a cluster's nodes take free ports)."""
    own_nats = not args.nats and not args.cluster
    return [
        *([("NATS", "--nats-port", f"{DEFAULT_HOST}:{args.nats_port}")] if own_nats else []),
        ("dealer", "--dealer-address", args.dealer_address),
        ("table", "--table-address", args.table_address),
        ("settlement", "--settlement-address", args.settlement_address),
        ("lobby", "--lobby-address", args.lobby_address),
    ]


def shared_addresses(args: argparse.Namespace) -> str:
    """What two services were given the same address for ("" if none): only one of them could
    listen there, and the room would fail later, less clearly."""
    seen: dict[tuple[str, int], str] = {}
    for _, flag, address in _listening(args):
        host, port = split_address(address)
        key = ("127.0.0.1" if host in ("localhost", "") else host, port)
        if port and key in seen:
            return f"{seen[key]} and {flag} both name port {port}; give each service its own"
        seen[key] = flag
    return ""


def stale_processes(args: argparse.Namespace, var: Path) -> list[str]:
    """One line per process that holds the NATS store or a port this room needs (none: [])."""
    holders: dict[int | None, list[str]] = {}
    if not args.nats and not args.cluster:
        try:
            NatsServer(var / "nats", port=args.nats_port).check_store()
        except StoreInUseError as exc:
            holders.setdefault(exc.pid, []).append(f"the NATS store {var / 'nats'}")
    if args.cluster:
        for index in range(1, args.cluster + 1):
            store = var / "nats-cluster" / f"riverboat-{index}"
            try:
                NatsServer(store, port=0).check_store()
            except StoreInUseError as exc:
                holders.setdefault(exc.pid, []).append(f"the NATS store {store}")
    for what, _, address in _listening(args):
        host, port = split_address(address)
        if port and is_listening(host, port):
            holder = port_holder(port)
            holders.setdefault(holder[0] if holder else None, []).append(f"port {port} ({what})")
    lines = []
    for pid, things in holders.items():
        held = " and ".join(things)
        if pid is None:
            lines.append(f"{held} is in use by another process; stop it first")
        else:
            lines.append(
                f"{_describe(pid)} still holds {held} (left by an earlier run?); "
                f"stop it with: kill {pid}"
            )
    return lines


def _print_flushed(line: str) -> None:
    print(line, flush=True)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM/SIGHUP: stop in order, as Ctrl-C does


def cmd_up(args: argparse.Namespace) -> int:
    """Start everything, set up the demo, let the bots play; Ctrl-C stops it all cleanly."""
    out = Output(sys.stdout)
    shared = shared_addresses(args)
    if shared:
        print(f"riverboat up: {shared}", file=sys.stderr)
        return 2
    if args.lease_ttl is not None and args.lease_ttl < 1:
        print("riverboat up: --lease-ttl must be at least 1 second", file=sys.stderr)
        return 2
    var = Path(args.var)
    logs = var / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stale = stale_processes(args, var)
    if stale:
        for line in stale:
            print(f"riverboat up: {line}", file=sys.stderr)
        return 1
    # The cluster's nodes and extra table instances draw free ports before the services
    # listen on theirs: never one of theirs.
    reserve_ports(split_address(address)[1] for _, _, address in _listening(args))
    # The room's own keys, made here and passed to every service explicitly: a service on its
    # own never makes up a key (riverboat.services.common.secrets).
    load_token_key(var / "token.key", create=True)
    password = _operator_password(var)
    env = {
        "RIVERBOAT_TOKEN_KEY_FILE": str(var / "token.key"),
        "RIVERBOAT_PASSWORD_OPERATOR": password,
    }
    if args.cluster < 0 or args.table_instances < 1:
        print("riverboat up: --cluster is 0 or more, --table-instances 1 or more", file=sys.stderr)
        return 2
    if args.cluster and args.nats:
        print("riverboat up: --cluster starts its own NATS; leave out --nats", file=sys.stderr)
        return 2
    auth_dir = var / "nats-auth"
    nats_server: NatsServer | None = None
    nats_cluster: NatsCluster | None = None
    started: list[ServiceProcess] = []
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    try:
        replicas = 1
        if args.nats:
            nats_url = args.nats
        elif args.cluster:
            # Three nodes on loopback: the services see a cluster and make every stream R3
            # (their --replicas default; a two-node cluster gets R2).
            users = room_users(room_passwords(auth_dir))
            nats_cluster = NatsCluster(var / "nats-cluster", size=args.cluster, users=users)
            nats_cluster.start()
            nats_url = ",".join(nats_cluster.urls)
            replicas = min(args.cluster, 3)
        else:
            # One NATS user per service and tool, passwords made once and kept in VAR.
            users = room_users(room_passwords(auth_dir))
            nats_server = NatsServer(var / "nats", port=args.nats_port, users=users)
            nats_server.start()
            nats_url = nats_server.url
        ours = nats_server is not None or nats_cluster is not None

        def login(name: str) -> list[str]:
            if not ours:
                return []  # someone else's NATS: its logins are its operator's business
            return ["--nats-user", name, "--nats-password-file", str(auth_dir / f"{name}.password")]

        database = args.database or f"sqlite:///{(var / 'settlement.db').resolve()}"
        host, _ = split_address(args.table_address)
        table_addresses = [args.table_address] + [
            f"{host}:{free_port()}" for _ in range(args.table_instances - 1)
        ]
        plan = [
            ("dealer", "dealer", args.dealer_address, ["--dev-key-file", str(var / "dealer.key")]),
            *(
                (
                    "table",
                    "table" if k == 0 else f"table-{k + 1}",
                    address,
                    [
                        "--dealer",
                        args.dealer_address,
                        "--hand-pause",
                        str(args.hand_pause),
                        *_instance_flags(k, address),
                        *(["--lease-ttl", str(args.lease_ttl)] if args.lease_ttl else []),
                    ],
                )
                for k, address in enumerate(table_addresses)
            ),
            ("settlement", "settlement", args.settlement_address, ["--database", database]),
            (
                "lobby",
                "lobby",
                args.lobby_address,
                [
                    "--table",
                    args.table_address,
                    "--settlement",
                    args.settlement_address,
                    "--account",
                    f"{OPERATOR}:operator",
                ],
            ),
        ]
        labels: list[str] = []
        for name, label, address, extra in plan:
            process = ServiceProcess(
                name,
                address,
                [
                    "--address",
                    address,
                    "--nats",
                    nats_url,
                    *login(name),
                    "--log-format",
                    "json",
                    *extra,
                ],
                log_path=logs / f"{label}.log",
                env=env,
            )
            started.append(process)  # before start(): a Ctrl-C while it starts stops it too
            labels.append(label)
            process.start()
        if nats_cluster is not None:
            for node in nats_cluster:
                out.say(f"nats-server   {node.url}  ({node.server_name}, store {node.store_dir})")
            out.say(f"streams       {replicas} replicas each")
        else:
            where = f"  (store {var / 'nats'})" if nats_server else ""
            out.say(f"nats-server   {nats_url}{where}")
        for label, process in zip(labels, started, strict=True):
            out.say(f"{label:<13} {process.address}  (log {process.log_path})")
        if args.heads_interval > 0:
            publisher = _heads_publisher(args, var, nats_url, login("auditor"))
            started.append(publisher)
            publisher.start()
            out.say(
                f"chain heads   every {args.heads_interval:g} s to {var / HEADS_FILE}"
                f"{' and ' + repr(args.heads_command) if args.heads_command else ''}"
                f"  (key {var / HEADS_KEY}.pub, log {publisher.log_path})"
            )
        asyncio.run(_demo(args, password, out.say, nats_url if ours else None, auth_dir))
    except KeyboardInterrupt:
        pass
    except RuntimeError as exc:
        print(f"riverboat up: {exc}", file=sys.stderr)
        return 1
    finally:
        # Nothing may cut the stop short: not a second Ctrl-C, not a closed stdout.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        out.say("\nstopping...")
        for process in reversed(started):
            process.stop()
        if nats_server is not None:
            nats_server.close()  # its config and log directory too (the store stays)
        if nats_cluster is not None:
            nats_cluster.close()
    out.say("stopped.")
    return 0


#: The published chain heads and the publisher's key, under VAR.
HEADS_FILE = "chain-heads.jsonl"
HEADS_KEY = "heads.key"


def _heads_publisher(
    args: argparse.Namespace, var: Path, nats_url: str, login: list[str]
) -> ToolProcess:
    """``riverboat audit heads`` as a child: the room's chain heads, signed, every
    ``--heads-interval`` seconds, to VAR/chain-heads.jsonl (and ``--heads-command``)."""
    command = [
        "audit",
        "heads",
        "--nats",
        nats_url,
        *login,
        "--heads",
        str(var / HEADS_FILE),
        "--heads-key",
        str(var / HEADS_KEY),
        "--interval",
        str(args.heads_interval),
    ]
    if args.heads_command:
        command += ["--publish-command", args.heads_command]
    return ToolProcess("heads", "", command, log_path=var / "logs" / "heads.log")


def client_flags(args: argparse.Namespace) -> tuple[str, str]:
    """The address flags ``riverboat admin`` and ``riverboat play`` need to reach this room:
    only the addresses that differ from the clients' defaults, so the default room's hints stay
    short (returned with a leading space, or empty)."""
    lobby = [("--lobby", args.lobby_address, DEFAULT_LOBBY)]
    settlement = [("--settlement", args.settlement_address, DEFAULT_SETTLEMENT)]
    table = [("--table", args.table_address, DEFAULT_TABLE)]

    def flags(wanted: list[tuple[str, str, str]]) -> str:
        return "".join(f" {flag} {value}" for flag, value, default in wanted if value != default)

    return flags(lobby + settlement), flags(lobby + table + settlement)


def _instance_flags(index: int, address: str) -> list[str]:
    """A table instance's identity: its lease holder name and the address clients are sent to."""
    return ["--instance-id", f"table-{index + 1}", "--advertise-address", address]


async def _demo(
    args: argparse.Namespace,
    password: str,
    say: Callable[[str], None],
    nats_url: str | None,
    auth_dir: Path,
) -> None:
    async with (
        grpc.aio.insecure_channel(args.lobby_address) as lobby_channel,
        grpc.aio.insecure_channel(args.table_address) as table_channel,
        grpc.aio.insecure_channel(args.settlement_address) as settlement_channel,
    ):
        operator = LobbyClient(lobby_channel)
        await operator.login(OPERATOR, password)
        tables = []
        for template, name, request_id in DEMO_TABLES:
            tables.append(await operator.create_table(template, name, request_id=request_id))
        say("")
        for table in tables:
            say(f"table  {table.table_id:<28} {table.name}")
        var = Path(args.var)
        # The auditor checks with the publisher's public key; the private one stays the room's.
        heads = (
            f" \\\n      --heads {var / HEADS_FILE} --heads-key {var / HEADS_KEY}.pub"
            if args.heads_interval > 0
            else ""
        )
        audit = (
            f"""Audit the room as the auditor's NATS user (against the published chain heads):
  .venv/bin/riverboat audit --nats {nats_url} --nats-user auditor \\
      --nats-password-file {auth_dir / "auditor.password"}{heads}
"""
            if nats_url
            else ""
        )
        admin, play = client_flags(args)
        # Where `admin login --save` keeps this lobby's token (one file per lobby address).
        token_file = TOKEN_FILE_PATTERN.format(lobby=args.lobby_address)
        say(
            f"""
Operator account: {OPERATOR} / {password}
  .venv/bin/riverboat admin tables{admin} --user {OPERATOR} --password {password}
  .venv/bin/riverboat admin login{admin} --user {OPERATOR} --password {password} --save
      (then admin commands to this lobby need no password: the token is in {token_file})
Play as a person, in another terminal (register, then the operator deposits for you):
  .venv/bin/riverboat play{play} --register --user ann
  .venv/bin/riverboat admin deposit{admin} ann 100 --ref welcome-ann --user {OPERATOR} \\
      --password {password}
gRPC clients: reflection is on, e.g.
  grpcurl -plaintext {args.lobby_address} list
{audit}Press Ctrl-C to stop everything."""
        )
        settlement = settlement_pb2_grpc.SettlementServiceStub(  # type: ignore[no-untyped-call]
            settlement_channel
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        bots = []
        for t, table in enumerate(tables):
            for k in range(1, args.bots + 1):
                name = f"bot{k}-{table.table_id.split('-')[-1]}"
                token = await _ready_bot(operator, settlement, lobby_channel, table, name)
                narrate = (t, k) == (0, 1) and not args.quiet
                # The demo stays alive: a bot that busts buys back in from its wallet, and
                # leaves only when the wallet cannot pay the minimum (riverboat.bots.demo).
                bot = DemoBot(
                    name=name,
                    lobby=LobbyClient(lobby_channel, token),
                    table=TableClient(table_channel, token, name),
                    listed=table,
                    wallet=_wallet_of(settlement, name, token),
                    buy_in=DEMO_BUY_INS * table.min_buy_in,
                    choose=random_chooser(random.Random()),
                    on_update=narrator(say) if narrate else None,
                    say=say if not args.quiet else None,
                    think=0.3,
                )
                bots.append(bot.run(stop))
        await asyncio.gather(*bots)
        # Bots that all left (broke, or their tables closed) leave the room serving.
        await stop.wait()


def _wallet_of(settlement: Any, name: str, token: str) -> Callable[[], Awaitable[int]]:
    """The bot's wallet balance, asked of settlement as the bot itself."""

    async def balance() -> int:
        reply = await settlement.GetBalance(
            settlement_pb2.GetBalanceRequest(player=name),
            metadata=(("authorization", f"Bearer {token}"),),
        )
        return int(reply.balance)

    return balance


async def _ready_bot(
    operator: LobbyClient,
    settlement: Any,
    channel: grpc.aio.Channel,
    table: lobby_pb2.LobbyTable,
    name: str,
) -> str:
    """Register (once), fund (once) and seat (once) a bot; returns its token."""
    bot = LobbyClient(channel)
    password = f"{name}-demo-password"
    try:
        await bot.register(name, password)
    except grpc.aio.AioRpcError as exc:
        if exc.code() != grpc.StatusCode.ALREADY_EXISTS:
            raise
    await bot.login(name, password)
    buy_in = DEMO_BUY_INS * table.min_buy_in
    await settlement.Deposit(
        settlement_pb2.DepositRequest(
            player=name, amount=DEMO_BANKROLL * buy_in, external_ref=f"demo-{name}"
        ),
        metadata=operator.metadata,
    )
    try:
        await bot.join(table.table_id, buy_in, request_id=f"{name}-join")
    except grpc.aio.AioRpcError as exc:
        if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:  # already seated on a rerun
            raise
    assert bot.token is not None
    return bot.token


def narrator(say: Callable[[str], None] | None = None) -> Any:
    """Print one table's hands readably, as one bot sees them (through ``say``)."""
    if say is None:
        say = _print_flushed
    from riverboat.engine.events import HandStarted
    from riverboat.eventcodec import event_from_pb
    from riverboat.handlines import render

    names: dict[int, str] = {}
    numbers: dict[str, int] = {}
    started = False

    def show(update: Any) -> None:
        nonlocal started
        if update.HasField("view") and update.view.hand_number:
            numbers[update.view.hand_id] = update.view.hand_number
        events = [event_from_pb(env)[0] for env in update.events]
        # Start with a whole hand: one joined midway would print nameless seats.
        started = started or any(isinstance(e, HandStarted) for e in events)
        if started:
            for line in render(events, names=names, numbers=numbers):
                say(line)

    return show
