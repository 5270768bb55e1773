"""Two (and three) table-service instances over one log, with bots playing: table ownership
end to end.

The room: the dealer and two table-service processes (``--lease-ttl 3``) on the session's
nats-server. The bots find each table's owner in the lease bucket and follow NOT_OWNER
redirects. Oracles of our own:

* from the instances' logs: each table's ownership intervals (claimed / handed to us / taken
  back, until handed over / released / lost / unloaded, or the kill; a lost lease ends at its
  ``held_until``, when the instance stopped writing) never overlap between instances, and
  every hand was committed by the instance owning the table at that moment;
* from the dealer's log: no hand was committed twice (steady state);
* from the log: every hand started ends (played out, or voided with refunds), chips are
  conserved (last hand's stacks plus the rake equal what was seated), and ``riverboat audit``
  verifies the live streams;
* no stalled table: every table keeps dealing hands.

After a kill -9, every table of the dead instance is owned by a survivor within the TTL plus
a margin derived from the lease keeper's intervals (``FAILOVER_MARGIN``), and each hand in play
at the kill resumed with its committed deck or was voided and refunded (``check_interrupted``);
the times are printed. On a three-node cluster, two and three instances each own tables alone
(the logs against a watcher of the leases). An instance started later takes its share (two
tables of four) from the first, between hands. ``test_owners_money.py`` adds the lobby and
settlement to the kill -9 and checks the money from the ledger.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import grpc
import nats
import pytest

from riverboat.auth import TokenIssuer
from riverboat.cli.app import run
from riverboat.client import TableClient, next_move, random_chooser, random_picker
from riverboat.engine.events import HandEnded, HandStarted, RakeTaken
from riverboat.leases import (
    Holder,
    JetStreamLeaseStore,
    Lease,
    LeaseStoreUnavailable,
    owners_bucket,
)
from riverboat.natsserver import NatsCluster, NatsServer
from riverboat.redirect import Owner, owner_of
from riverboat.services.launcher import ServiceProcess
from riverboat.table.events import AnyEvent, HandCommitted, HandVoided, PlayerLeft, PlayerSeated
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc, table_pb2, table_pb2_grpc
from tests.battery import size
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room._crashkit import committed_cards, dealt_cards
from tests.e2e.room._play import read_log, read_records
from tests.e2e.room.conftest import _dealer, _table
from tests.waiting import until

pytestmark = pytest.mark.timeout(150)

CALL_SECONDS = 15.0  # the driver's deadline per call

T = TypeVar("T")

TTL = 3
STACK = 50_000
START = {"table_claimed", "table_handed_to_us", "table_taken_back"}
END = {"table_leaving", "table_handed_over", "table_released", "table_lease_lost", "table_unloaded"}


@dataclass
class Pair:
    """The dealer and two table-service instances over one stream."""

    #: The NATS URLs, comma-separated (one server, or every node of a cluster).
    nats_url: str
    dealer: ServiceProcess
    instances: dict[str, ServiceProcess]
    var: Path
    tag: str
    issuer: TokenIssuer = field(default_factory=lambda: TokenIssuer(TEST_TOKEN_KEY))
    #: UTC time each instance was killed -9 (its ownership ends there).
    killed: dict[str, datetime] = field(default_factory=dict)

    @property
    def stream(self) -> str:
        return f"RB_TABLES_{self.tag}"

    @property
    def prefix(self) -> str:
        return f"rb.tables{self.tag.lower()}"

    def log(self, name: str) -> Path:
        return self.var / f"table-{name}.log"

    @property
    def first_url(self) -> str:
        return self.nats_url.split(",")[0]


def _instance(
    nats_url: str, var: Path, dealer: str, tag: str, name: str, replicas: int = 1
) -> ServiceProcess:
    process = _table(nats_url, var, dealer, tag)
    process.args += ["--instance-id", name, "--lease-ttl", str(TTL), "--replicas", str(replicas)]
    process.log_path = var / f"table-{name}.log"
    return process


@contextlib.contextmanager
def _pair(
    nats_url: str,
    var: Path,
    tag: str,
    replicas: int = 1,
    names: str = "ab",
    dealer_flags: tuple[str, ...] = (),
) -> Iterator[Pair]:
    dealer = _dealer(nats_url, var, tag, *dealer_flags)
    dealer.start()
    instances = {n: _instance(nats_url, var, dealer.address, tag, n, replicas) for n in names}
    try:
        for process in instances.values():
            process.start()
        yield Pair(nats_url, dealer, instances, var, tag)
    finally:
        for process in instances.values():
            process.kill()
        dealer.stop()


def _tag(request: pytest.FixtureRequest) -> str:
    return f"O{abs(hash(request.node.nodeid)) % 10**8}"


@pytest.fixture
def pair(nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Pair]:
    """The room on the session's single nats-server."""
    with _pair(nats_server.url, tmp_path, _tag(request)) as pair:
        yield pair


@pytest.fixture
def rbs1_pair(
    nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Pair]:
    """The room with a dealer shuffling under RBS1: a hand's whole deck follows from its
    revealed seed alone, so the test can derive it and compare what was dealt."""
    with _pair(nats_server.url, tmp_path, _tag(request), dealer_flags=("--scheme", "RBS1")) as pair:
        yield pair


@pytest.fixture
async def rbs1_driver(rbs1_pair: Pair) -> AsyncIterator[Driver]:
    async with _driver(rbs1_pair) as driver:
        yield driver


@pytest.fixture
def trio(nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Pair]:
    """Three instances on the session's nats-server."""
    with _pair(nats_server.url, tmp_path, _tag(request), names="abc") as pair:
        yield pair


@pytest.fixture
async def trio_driver(trio: Pair) -> AsyncIterator[Driver]:
    async with _driver(trio) as driver:
        yield driver


@pytest.fixture
def cluster_pair(
    nats_cluster: NatsCluster, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Pair]:
    """The room on a three-node cluster on loopback, R3 streams and lease buckets."""
    with _pair(",".join(nats_cluster.urls), tmp_path, _tag(request), replicas=3) as pair:
        yield pair


@pytest.fixture(params=[2, 3], ids=["two-instances", "three-instances"])
def cluster_room(
    nats_cluster: NatsCluster, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Pair]:
    """Two, then three instances on a three-node cluster on loopback (R3 streams and buckets)."""
    names = "abc"[: request.param]
    urls = ",".join(nats_cluster.urls)
    with _pair(urls, tmp_path, _tag(request), replicas=3, names=names) as pair:
        yield pair


class LeaseLog:
    """Every change of the table leases as a watcher saw it: (monotonic-free UTC time, table,
    holder instance or "" when the lease went), from the start of the run."""

    def __init__(self, leases: JetStreamLeaseStore) -> None:
        self.leases = leases
        self.changes: list[tuple[datetime, str, str]] = []
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LeaseLog:
        self._task = asyncio.ensure_future(self._run())
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        while True:
            try:
                async with await self.leases.watch() as watch:
                    async for change in watch:
                        holder = change.lease.holder.instance if change.lease else ""
                        self.changes.append((datetime.now(UTC), change.key, holder))
            except LeaseStoreUnavailable:
                await asyncio.sleep(0.1)

    def holders(self, table_id: str, start: datetime, end: datetime) -> set[str]:
        """Who the leases named for ``table_id`` at any moment of ``[start, end]``."""
        named = ""
        seen: set[str] = set()
        for when, key, holder in self.changes:
            if key != table_id:
                continue
            if when > end:
                break
            if when <= start:
                named = holder
            else:
                seen.add(holder)
        return seen | {named}


#: Watch delivery and log timestamps come from different processes on a loaded machine: a
#: lease change and the log line that reports it may be this far apart.
LEASE_SKEW = timedelta(seconds=0.5)


def check_leases_match_the_logs(pair: Pair, tables: list[str], log: LeaseLog) -> None:
    """While an instance's log says it owned a table, the leases named that instance and no
    other (the skew allowed at both ends of each interval). Every table is checked."""
    checked: set[str] = set()
    for table_id, spans in ownership_intervals(pair).items():
        if table_id not in tables:
            continue
        for start, end, name in spans:
            if end - start <= 2 * LEASE_SKEW:
                continue
            named = log.holders(table_id, start + LEASE_SKEW, end - LEASE_SKEW)
            assert named == {name}, (
                f"{table_id}: {name}'s log owned it {start:%T.%f}-{end:%T.%f}, the leases "
                f"named {sorted(named)}"
            )
            checked.add(table_id)
    assert checked == set(tables), f"no ownership to compare for {set(tables) - checked}"


class Driver:
    """Bots and the operator as clients: a TableClient follows NOT_OWNER redirects and waits
    out NO_OWNER itself; the driver starts each table's calls at the owner the leases name and
    retries while an owner is unreachable (it just died)."""

    def __init__(self, pair: Pair, leases: JetStreamLeaseStore) -> None:
        self.pair = pair
        self.leases = leases
        self.channel = grpc.aio.insecure_channel(pair.instances["a"].address)
        self.clients: dict[str, TableClient] = {}
        #: (monotonic time, table, address) of every accepted action.
        self.accepted: list[tuple[float, str, str]] = []
        self.hands: dict[str, set[str]] = defaultdict(set)

    async def call(
        self, table_id: str, who: str, role: str, fn: Callable[[TableClient], Awaitable[T]]
    ) -> tuple[T, str]:
        """``fn`` at ``table_id``'s owner; returns its answer and the owner's address."""
        client = self.clients.get(who)
        if client is None:
            token = self.pair.issuer.issue(who, role)
            client = self.clients[who] = TableClient(self.channel, token, who)
        for _ in range(2000):
            if not client.owner(table_id):
                try:
                    lease = await self.leases.get(table_id)
                except LeaseStoreUnavailable:  # a node restarting: ask again
                    await asyncio.sleep(0.05)
                    continue
                client.set_owner(table_id, lease.holder.address if lease else "")
            try:
                # A deadline, as any client's: once, during a rolling restart, a view sent as
                # an instance stopped never answered (cause not found; see the closing note).
                result = await asyncio.wait_for(fn(client), CALL_SECONDS)
            except TimeoutError:
                client.set_owner(table_id, "")
                continue
            except grpc.aio.AioRpcError as exc:
                if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    client.set_owner(table_id, "")
                    await asyncio.sleep(0.05)
                    continue
                raise
            return result, client.owner(table_id) or self.pair.instances["a"].address
        raise AssertionError(f"{table_id}: no owner answered")

    async def open(self, table_id: str, players: int) -> list[str]:
        await self.call(
            table_id,
            "operator",
            "operator",
            lambda c: c.create_table(table_id, action_seconds=5),
        )
        names = [f"{table_id}-p{k}" for k in range(1, players + 1)]
        for k, name in enumerate(names, start=1):
            await self.call(
                table_id,
                "operator",
                "operator",
                lambda c, k=k, name=name: c.seat(table_id, k, name, STACK),  # type: ignore[misc]
            )
        return names

    async def play(self, table_id: str, players: list[str], stop: asyncio.Event) -> None:
        """Each player looks and acts when it is their turn, until ``stop``."""
        rng = random.Random(table_id)
        choose, pick = random_chooser(rng), random_picker(rng)
        while not stop.is_set():
            acted = False
            for player in players:
                view, _ = await self.call(table_id, player, "player", lambda c: c.view(table_id))
                if view.hand_id:
                    self.hands[table_id].add(view.hand_id)
                move = next_move(view, choose, pick) if view.legal_actions else None
                if move is None:
                    continue
                try:
                    _, address = await self.call(
                        table_id,
                        player,
                        "player",
                        lambda c, view=view, move=move, player=player: c.act(  # type: ignore[misc]
                            table_id,
                            view.hand_id,
                            view.viewer_seat,
                            move.action,
                            move.amount,
                            request_id=f"{player}-{view.hand_id}-{view.version}",
                            cards=move.cards,
                            choice=move.choice,
                            options=move.options,
                            timeout=10,
                        ),
                    )
                except grpc.aio.AioRpcError:
                    continue  # the clock or a redirect beat us to it: look again
                self.accepted.append((time.monotonic(), table_id, address))
                acted = True
            if not acted:
                await asyncio.sleep(0.03)

    async def until_hands(self, tables: list[str], count: int, timeout: float = 90) -> None:
        """Wait until each table has shown ``count`` more hands than now (no stalled table)."""
        goal = {t: len(self.hands[t]) + count for t in tables}

        async def stalled() -> list[str]:
            return [t for t in tables if len(self.hands[t]) < goal[t]]

        await until(stalled, lambda left: not left, f"{count} more hands at every table", timeout)

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()
        await self.channel.close(None)


@pytest.fixture
async def driver(pair: Pair) -> AsyncIterator[Driver]:
    async with _driver(pair) as driver:
        yield driver


@pytest.fixture
async def cluster_driver(cluster_pair: Pair) -> AsyncIterator[Driver]:
    async with _driver(cluster_pair) as driver:
        yield driver


@contextlib.asynccontextmanager
async def _driver(pair: Pair) -> AsyncIterator[Driver]:
    nc = await nats.connect(servers=pair.nats_url.split(","))
    leases = await JetStreamLeaseStore.open(nc, ttl=TTL, bucket=owners_bucket(pair.stream))
    driver = Driver(pair, leases)
    try:
        yield driver
    finally:
        await driver.close()
        await nc.close()


# --- oracles ---------------------------------------------------------------------------------


def _lines(path: Path) -> list[dict[str, object]]:
    out = []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def _when(line: dict[str, object]) -> datetime:
    return datetime.fromisoformat(str(line["timestamp"]).replace("Z", "+00:00"))


def ownership_intervals(pair: Pair) -> dict[str, list[tuple[datetime, datetime, str]]]:
    """Each table's ownership intervals (start, end, instance), from the instances' logs."""
    now = datetime.now(UTC)
    intervals: dict[str, list[tuple[datetime, datetime, str]]] = defaultdict(list)
    for name in pair.instances:
        opened: dict[str, datetime] = {}
        for line in _lines(pair.log(name)):
            table_id, event = str(line.get("table_id", "")), line.get("event")
            if event in START and table_id not in opened:
                opened[table_id] = _when(line)
            elif event in END and table_id in opened:
                # A lost lease: the instance stopped writing at held_until (its lease
                # unconfirmed too long), before it noticed the loss.
                end = _when(line)
                if "held_until" in line:
                    end = min(end, datetime.fromisoformat(str(line["held_until"])))
                intervals[table_id].append((opened.pop(table_id), end, name))
        end = pair.killed.get(name, now)
        for table_id, start in opened.items():
            intervals[table_id].append((start, end, name))
    return intervals


def check_ownership(pair: Pair, tables: list[str]) -> dict[str, str]:
    """Ownership intervals never overlap and every hand was committed by its table's owner of
    the moment; returns each committed hand's instance."""
    intervals = ownership_intervals(pair)
    committed: dict[str, str] = {}
    commits = [
        (str(line.get("table_id", "")), str(line["hand_id"]), _when(line), name)
        for name in pair.instances
        for line in _lines(pair.log(name))
        if line.get("event") == "hand_committed"
    ]
    for table_id in tables:
        spans = sorted(intervals[table_id])
        assert spans, f"{table_id} was never owned"
        for (_, end, first), (start, _, second) in itertools.pairwise(spans):
            assert end <= start, f"{table_id}: {first} and {second} owned it at once"
    for table_id, hand_id, when, name in commits:
        assert hand_id not in committed, f"{hand_id} committed by {committed[hand_id]} and {name}"
        committed[hand_id] = name
        assert any(s <= when <= e and who == name for s, e, who in intervals[table_id]), (
            f"{hand_id} committed by {name}, which did not own {table_id} then"
        )
    return committed


def dealer_commits(pair: Pair) -> Counter[str]:
    assert pair.dealer.log_path is not None
    return Counter(
        str(line["hand_id"])
        for line in _lines(pair.dealer.log_path)
        if line.get("event") == "rpc finished" and line.get("rpc") == "DealerService/CommitHand"
    )


async def check_log(pair: Pair, tables: list[str]) -> int:
    """Every hand started ended or was voided; chips are conserved. Returns voided hands."""
    voided = 0
    for table_id in tables:
        batches = await read_log(pair.first_url, pair.stream, pair.prefix, table_id)
        events = [e for batch in batches for e in batch]
        seated = sum(e.stack for e in events if isinstance(e, PlayerSeated))
        rake = sum(e.amount for e in events if isinstance(e, RakeTaken))
        started = [e.hand_id for e in events if isinstance(e, HandStarted)]
        ends = [e for e in events if isinstance(e, HandEnded | HandVoided)]
        voided += sum(isinstance(e, HandVoided) for e in events)
        # Only the last hand may still be in play.
        assert len(started) - len(ends) in (0, 1), f"{table_id}: a hand never ended"
        assert any(isinstance(e, HandEnded) for e in events), f"{table_id}: no hand played"
        assert table_chips(events) + rake == seated, f"{table_id}: chips"
    return voided


def table_chips(events: Sequence[object]) -> int:
    """The chips on the table's seats after its last finished hand: each seat's buy-in, then
    its stack at every HandEnded that dealt it in (a seat sitting a hand out keeps its own)."""
    stacks: dict[int, int] = {}
    for e in events:
        if isinstance(e, PlayerSeated):
            stacks[e.seat] = e.stack
        elif isinstance(e, PlayerLeft):
            stacks.pop(e.seat, None)
        elif isinstance(e, HandEnded):
            stacks.update(dict(e.stacks))
    return sum(stacks.values())


async def audit(pair: Pair, *extra: str) -> int:
    """``riverboat audit`` of the room's streams (and ``extra`` flags); its exit status."""
    flags = [
        "--tables-stream",
        pair.stream,
        "--tables-prefix",
        pair.prefix,
        "--seeds-stream",
        f"RB_AUDIT_{pair.tag}",
        "--seeds-prefix",
        f"rb.audit{pair.tag.lower()}",
    ]
    return await asyncio.to_thread(
        run, ["audit", "--nats", pair.nats_url, *flags, *extra, "--no-progress"]
    )


async def _room(
    driver: Driver, count: int
) -> tuple[list[str], asyncio.Event, list[asyncio.Task[None]]]:
    tables = [f"t-own-{k}" for k in range(count)]
    seated = [await driver.open(t, 3) for t in tables]
    stop = asyncio.Event()
    tasks = [
        asyncio.ensure_future(driver.play(t, p, stop)) for t, p in zip(tables, seated, strict=True)
    ]
    return tables, stop, tasks


async def _stop(stop: asyncio.Event, tasks: list[asyncio.Task[None]]) -> None:
    stop.set()
    await asyncio.gather(*tasks)


def _holders(leases: dict[str, Lease]) -> Counter[str]:
    return Counter(lease.holder.instance for lease in leases.values())


# --- tests -------------------------------------------------------------------------------------


async def test_two_instances_share_the_tables_and_each_is_owned_by_one(
    pair: Pair, driver: Driver
) -> None:
    tables, stop, tasks = await _room(driver, 4)
    try:
        await driver.until_hands(tables, 4)
    finally:
        await _stop(stop, tasks)
    # New tables went to the least-loaded instance: two each.
    leases = await driver.leases.all()
    assert _holders(leases) == {"a": 2, "b": 2}
    # Every table call to the non-owner names the owner (the redirect detail).
    for table_id, lease in leases.items():
        other = pair.instances["b" if lease.holder.instance == "a" else "a"]
        async with grpc.aio.insecure_channel(other.address) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            token = pair.issuer.issue("obs", "auditor")
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=table_id),
                    metadata=(("authorization", f"Bearer {token}"),),
                )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert owner_of(refused.value) == Owner(
            table_id, lease.holder.instance, lease.holder.address
        )
    committed = check_ownership(pair, tables)
    assert set(committed.values()) == {"a", "b"}
    repeated = {h: n for h, n in dealer_commits(pair).items() if n > 1}
    assert not repeated, f"CommitHand repeated: {repeated}"
    assert await check_log(pair, tables) == 0
    assert await audit(pair) == 0


async def test_three_instances_divide_six_tables_two_each(trio: Pair, trio_driver: Driver) -> None:
    driver = trio_driver
    tables, stop, tasks = await _room(driver, 6)
    try:
        await driver.until_hands(tables, 3)
    finally:
        await _stop(stop, tasks)
    assert _holders(await driver.leases.all()) == {"a": 2, "b": 2, "c": 2}
    committed = check_ownership(trio, tables)
    assert set(committed.values()) == {"a", "b", "c"}
    repeated = {h: n for h, n in dealer_commits(trio).items() if n > 1}
    assert not repeated, f"CommitHand repeated: {repeated}"
    assert await check_log(trio, tables) == 0
    assert await audit(trio) == 0


@pytest.mark.battery
async def test_instances_on_a_three_node_cluster_own_each_table_alone(cluster_room: Pair) -> None:
    """Two and three instances on a three-node NATS cluster, bots playing: every table owned
    by exactly one instance at every moment (the logs' intervals never overlap, and while a
    log says an instance owned a table the leases named it alone), every hand committed by its
    table's owner of the moment and once by the dealer, no table stalled. Small in make test;
    ``make soak``: twice the tables, 50 hands each."""
    pair = cluster_room
    count = len(pair.instances) * size(1, 2)
    async with _driver(pair) as driver, LeaseLog(driver.leases) as leases:
        tables, stop, tasks = await _room(driver, count)
        try:
            await driver.until_hands(tables, size(10, 50), timeout=size(90, 1800))
        finally:
            await _stop(stop, tasks)
        held = _holders(await driver.leases.all())
    assert sum(held.values()) == count and set(held) == set(pair.instances), held
    committed = check_ownership(pair, tables)
    assert set(committed.values()) == set(pair.instances)
    check_leases_match_the_logs(pair, tables, leases)
    repeated = {h: n for h, n in dealer_commits(pair).items() if n > 1}
    assert not repeated, f"CommitHand repeated: {repeated}"
    assert await check_log(pair, tables) == 0
    assert await audit(pair) == 0


async def test_kill_9_moves_its_tables_within_the_ttl(rbs1_pair: Pair, rbs1_driver: Driver) -> None:
    await _kill_9(rbs1_pair, rbs1_driver)


async def test_kill_9_on_a_three_node_cluster(cluster_pair: Pair, cluster_driver: Driver) -> None:
    """The same on a three-node NATS cluster: R3 table log, R3 lease buckets (CRV1 decks:
    the audit checks each card against the hand's one commitment)."""
    info = await cluster_driver.leases._js.stream_info(f"KV_{owners_bucket(cluster_pair.stream)}")
    assert info.config.num_replicas == 3
    await _kill_9(cluster_pair, cluster_driver)


#: How long after a kill -9 every table of the dead instance must be owned by a live one:
#: the TTL, plus a margin derived from riverboat.services.table.owners (LeaseKeeper). The dead
#: instance renewed at most TTL/3 before the kill, so its leases expire within TTL of it; the
#: server then removes each (per-message TTL; its expiry timer ticks once a second: up to 1 s)
#: and the survivors' watch hears the marker; a survivor waits its claim delay (rank x 0.05 s
#: + up to 0.02 s: at most 0.07 s with two instances) and claims with one KV write, answered
#: within TTL/3 (the lease store's request timeout) or retried by the balance loop. So:
#: TTL + 1 s + 0.07 s + TTL/3, rounded up to TTL + 1.5 s + TTL/3 (the rest is this loaded
#: machine's scheduling).
FAILOVER_MARGIN = 1.5 + TTL / 3


async def _kill_9(pair: Pair, driver: Driver) -> KillReport:
    tables, stop, tasks = await _room(driver, 4)
    try:
        report = await kill_9_under_load(pair, driver, tables)
    finally:
        await _stop(stop, tasks)
    assert _holders(await driver.leases.all()) == {"a": 4}
    check_ownership(pair, tables)
    await check_log(pair, tables)
    await check_interrupted(pair, report)
    assert await audit(pair) == 0
    return report


@dataclass
class KillReport:
    """What a kill -9 of instance b did: its tables, when each was claimed by a survivor
    (seconds after the kill), and the first action a survivor accepted."""

    lost: list[str]
    claimed: dict[str, float]
    first_action: dict[str, float]


async def kill_9_under_load(pair: Pair, driver: Driver, tables: list[str]) -> KillReport:
    """Kill -9 instance b while the bots play ``tables``; returns once every table dealt two
    more hands, having checked b's tables were owned again within TTL + FAILOVER_MARGIN."""
    await driver.until_hands(tables, 2)
    lost = [t for t, lease in (await driver.leases.all()).items() if lease.holder.instance == "b"]
    assert lost
    survivor = pair.instances["a"].address
    pair.instances["b"].kill()
    killed = time.monotonic()
    pair.killed["b"] = datetime.now(UTC)
    await driver.until_hands(tables, 2)
    claimed = {
        table_id: (_when(line) - pair.killed["b"]).total_seconds()
        for line in _lines(pair.log("a"))
        if line.get("event") in START
        and (table_id := str(line.get("table_id", ""))) in lost
        and _when(line) >= pair.killed["b"]
    }
    assert set(claimed) == set(lost), f"never claimed after the kill: {set(lost) - set(claimed)}"
    first_action = {
        t: min(w for w, table, a in driver.accepted if table == t and w > killed and a == survivor)
        - killed
        for t in lost
    }
    where = "3-node cluster" if "," in pair.nats_url else "one nats-server"
    print(
        f"\nfail-over after kill -9 (TTL {TTL} s, {where}, {len(lost)} tables): owned again "
        f"{min(claimed.values()):.2f}-{max(claimed.values()):.2f} s after the kill (bound "
        f"{TTL + FAILOVER_MARGIN:.2f} s); first action accepted by the new owner "
        f"{min(first_action.values()):.2f}-{max(first_action.values()):.2f} s"
    )
    assert max(claimed.values()) <= TTL + FAILOVER_MARGIN, (
        f"a table of the dead instance was owned again only {max(claimed.values()):.2f} s "
        f"after the kill (TTL {TTL} s + margin {FAILOVER_MARGIN:.2f} s)"
    )
    return KillReport(lost, claimed, first_action)


async def check_interrupted(pair: Pair, report: KillReport) -> int:
    """Each hand in play on a lost table at the kill either resumed with its committed deck
    (one HandCommitted for it; under RBS1 every card dealt, before and after the kill, is the
    next card of the deck derived from the revealed seed, the reshuffles included) or was
    voided with every seat's chips back as they were when it started. Returns how many."""
    interrupted = 0
    async with grpc.aio.insecure_channel(pair.dealer.address) as channel:
        dealer = dealer_pb2_grpc.DealerServiceStub(channel)  # type: ignore[no-untyped-call]
        token = pair.issuer.issue("auditor-1", "service")
        for table_id in report.lost:
            records = await read_records(pair.first_url, pair.stream, pair.prefix, table_id)
            before = [e for r in records if r.recorded_at < pair.killed["b"] for e in r.events]
            started = [e for e in before if isinstance(e, HandStarted)]
            ended = {e.hand_id for e in before if isinstance(e, HandVoided)} | {
                h.hand_id for h in started if _ended_before(before, h.hand_id)
            }
            in_play = [h for h in started if h.hand_id not in ended]
            events = [e for r in records for e in r.events]
            for hand in in_play:
                interrupted += 1
                mine = hand_events_of(events, hand.hand_id)
                commits = [e for e in events if isinstance(e, HandCommitted)]
                assert [c.hand_id for c in commits].count(hand.hand_id) == 1, hand.hand_id
                voided = [e for e in mine if isinstance(e, HandVoided)]
                if voided:
                    after = _stacks_after(events, hand.hand_id)
                    assert after is None or all(
                        after.get(s.player, s.stack) == s.stack for s in hand.seats
                    ), f"{hand.hand_id}: voided without every chip refunded"
                    continue
                assert any(isinstance(e, HandEnded) for e in mine), f"{hand.hand_id} never ended"
                commit = next(c for c in commits if c.hand_id == hand.hand_id)
                if commit.scheme != "RBS1":
                    continue  # CRV1: the audit checks every card against the commitment
                reply = await dealer.RevealSeed(
                    dealer_pb2.RevealSeedRequest(table_id=table_id, hand_id=hand.hand_id),
                    timeout=30,
                    metadata=(("authorization", f"Bearer {token}"),),
                )
                dealt = dealt_cards(mine)
                deck = committed_cards(mine, hand.hand_id, bytes(reply.seed))
                assert dealt == deck[: len(dealt)], f"{hand.hand_id}: not the committed deck"
    print(f"hands interrupted by the kill: {interrupted} (each resumed or voided and refunded)")
    return interrupted


def _ended_before(events: Sequence[object], hand_id: str) -> bool:
    inside = False
    for e in events:
        if isinstance(e, HandStarted):
            inside = e.hand_id == hand_id
        elif inside and isinstance(e, HandEnded):
            return True
    return False


def hand_events_of(events: Sequence[AnyEvent], hand_id: str) -> list[AnyEvent]:
    """The events from ``hand_id``'s HandStarted to its HandEnded or HandVoided."""
    out: list[AnyEvent] = []
    inside = False
    for e in events:
        if isinstance(e, HandStarted):
            inside = e.hand_id == hand_id
        if inside:
            out.append(e)
            if isinstance(e, HandEnded) or (isinstance(e, HandVoided) and e.hand_id == hand_id):
                return out
    return out


def _stacks_after(events: Sequence[object], hand_id: str) -> dict[str, int] | None:
    """Each player's stack as the hand after ``hand_id`` starts (None: no later hand)."""
    seen = False
    for e in events:
        if isinstance(e, HandStarted):
            if seen:
                return {s.player: s.stack for s in e.seats}
            seen = e.hand_id == hand_id
    return None


async def test_sigterm_hands_its_tables_over_without_losing_a_hand(
    pair: Pair, driver: Driver
) -> None:
    tables, stop, tasks = await _room(driver, 4)
    try:
        await driver.until_hands(tables, 2)
        on_b = sorted(
            t
            for t, lease in (await driver.leases.all()).items()
            if lease.holder == _holder(pair, "b")
        )
        opened = asyncio.Event()
        watching = asyncio.ensure_future(_watch_to_the_end(pair, "b", on_b[0], opened))
        # Open before b stops: a Watch that came in while b was leaving could find nobody
        # holding the table yet (NO_OWNER), which is right then, but not what this tests.
        await asyncio.wait_for(opened.wait(), 30)
        await asyncio.to_thread(pair.instances["b"].stop, 60)
        assert pair.instances["b"].process is not None
        assert pair.instances["b"].process.returncode == 0
        # A Watch on b ends, once the table is handed over, with the redirect to a.
        ended = await asyncio.wait_for(watching, 30)
        assert ended.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert owner_of(ended) == Owner(on_b[0], "a", pair.instances["a"].address)
        await driver.until_hands(tables, 2)
    finally:
        await _stop(stop, tasks)
    assert _holders(await driver.leases.all()) == {"a": 4}
    check_ownership(pair, tables)
    assert await check_log(pair, tables) == 0, "a hand was voided in a clean hand-over"
    handed = [line for line in _lines(pair.log("b")) if line.get("event") == "table_handed_over"]
    assert len(handed) == 2
    assert await audit(pair) == 0


def _holder(pair: Pair, name: str) -> Holder:
    return Holder(name, pair.instances[name].address)


async def _watch_to_the_end(
    pair: Pair, name: str, table_id: str, opened: asyncio.Event
) -> grpc.aio.AioRpcError:
    """Watch ``table_id`` at instance ``name`` until the stream ends; the error it ends with
    (``opened`` is set on its first message)."""
    async with grpc.aio.insecure_channel(pair.instances[name].address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        token = pair.issuer.issue("obs", "auditor")
        stream = stub.Watch(
            table_pb2.WatchRequest(table_id=table_id),
            metadata=(("authorization", f"Bearer {token}"),),
        )
        try:
            async for _ in stream:
                opened.set()
        except grpc.aio.AioRpcError as exc:
            return exc
    raise AssertionError("the Watch stream ended without the redirect")


async def test_an_instance_joining_takes_its_share_between_hands(
    pair: Pair, driver: Driver
) -> None:
    await asyncio.to_thread(pair.instances["b"].stop, 30)  # the room starts with one instance
    tables, stop, tasks = await _room(driver, 4)
    try:
        await driver.until_hands(tables, 2)
        assert _holders(await driver.leases.all()) == {"a": 4}
        await asyncio.to_thread(pair.instances["b"].start)
        deadline = time.monotonic() + 90
        while _holders(await driver.leases.all()) != {"a": 2, "b": 2}:
            assert time.monotonic() < deadline, "the new instance never got its share"
            await asyncio.sleep(0.2)
        await driver.until_hands(tables, 2)  # and every table goes on dealing
    finally:
        await _stop(stop, tasks)
    check_ownership(pair, tables)
    assert await check_log(pair, tables) == 0, "a hand was voided by a balancing hand-over"
    assert await audit(pair) == 0


async def test_an_open_table_that_fails_keeps_no_lease(pair: Pair, driver: Driver) -> None:
    """OpenTable claims the table's lease before deciding; refused (a clock over 3600 s), it
    leaves no lease on a table that does not exist, and the id can be opened after."""
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await driver.call(
            "t-bad", "operator", "operator", lambda c: c.create_table("t-bad", action_seconds=5000)
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert await driver.leases.get("t-bad") is None
    await driver.open("t-bad", 2)
    lease = await driver.leases.get("t-bad")
    assert lease is not None and lease.holder.instance in pair.instances
