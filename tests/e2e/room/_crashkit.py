"""The crash battery's kit: a room of real processes (dealer, table, settlement) on its own
streams, a scripted hand of each game family driven through the protos, kill -9 at event
boundaries, and the oracles' inputs (the raw table log, the ledger without ids or times).

A *scripted* hand: every move is a pure function of what the mover's own view shows (check or
call, the first cards held, the family's declaration per seat), so two runs dealt the same
deck play the same hand. The same deck in two rooms: the crash room's dealer is handed the
reference room's sealed seed for the hand (same sealing key, same table and hand ids), which
it finds already stored when the table asks it to commit (``CommitHand`` is idempotent per
hand): the commitment, and so the deck, are those of the uninterrupted run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import nats
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from riverboat.auth import TokenIssuer
from riverboat.client import TableClient
from riverboat.engine import events as ev
from riverboat.ledger import canonical_dump
from riverboat.ledger.db import create_ledger_engine
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.services.settlement.config import SettlementConfig
from riverboat.shuffle import derive_deck
from riverboat.shuffle.scheme import derive_reshuffle
from riverboat.table.events import AnyEvent, HandCommitted
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc, table_pb2
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room._play import read_log
from tests.e2e.room.conftest import KEY_ENV, _dealer, _table
from tests.integration.settlement._kit import wait_caught_up

SERVICES = ("table", "dealer", "settlement")
STACK = 5000
# Nobody's clock runs out while a service restarts (a clock move would change the hand).
ACTION_SECONDS = 900
# Seating is done well within the pause, so every run deals to the same players.
HAND_PAUSE = "1.0"


PLANTS_DIR = Path(__file__).parent / "plants"
# (service killed, service planted, planted bug, what the oracles must report): see
# plants/sitecustomize.py.
PLANTS = [
    ("table", "table", "void-on-resume", ["the log departs", "the ledger differs"]),
    (
        "table",
        "dealer",
        "other-deck-on-resume",
        ["the log departs", "cards dealt that the revealed seed"],
    ),
    ("settlement", "settlement", "double-rake", ["the ledger differs"]),
]


@dataclass(frozen=True)
class Family:
    """One scripted hand: the table, how many play, the game the dealer chooses."""

    name: str
    players: int
    game: str = ""  # "" = a Pacific stud hi/lo table (no choice)
    options: dict[str, object] = field(default_factory=dict)


FAMILIES = {
    "stud": Family("stud", 3),
    # Six players drawing five each empty the stub: the dealer reshuffles the discards.
    "draw": Family("draw", 6, "draw"),
    "anaconda": Family("anaconda", 4, "anaconda"),
    "chicago": Family("chicago", 3, "chicago"),
}


class CrashRoom:
    """Dealer, table and settlement as child processes over one nats-server, on streams of
    their own (``tag``); the dealer's sealing key is the one in ``key``'s file."""

    def __init__(self, nats_url: str, var: Path, tag: str, key: Path | None = None) -> None:
        self.nats_url = nats_url
        self.var = var
        self.tag = tag
        var.mkdir(parents=True, exist_ok=True)
        if key is not None:
            shutil.copy(key, var / "dealer.key")
        self.issuer = TokenIssuer(TEST_TOKEN_KEY)
        # RBS1: the battery's oracle is "the same hand as the uninterrupted run", and under
        # CRV1 the table draws a fresh seed for every client that sends none, so two runs of
        # one script deal differently by design. CRV1's resume: test_room_crash.py.
        self.dealer = _dealer(nats_url, var, tag, "--scheme", "RBS1")
        self.table = _table(nats_url, var, self.dealer.address, tag)
        i = self.table.args.index("--hand-pause")
        self.table.args[i + 1] = HAND_PAUSE
        self.database_url = f"sqlite:///{var / 'settlement.db'}"
        self.settlement = self._settlement()
        self.tables_stream = f"RB_TABLES_{tag}"
        self.tables_prefix = f"rb.tables{tag.lower()}"
        self.seeds_stream = f"RB_DEALER_{tag}"
        self.seeds_prefix = f"rb.dealer{tag.lower()}"
        self.audit_stream = f"RB_AUDIT_{tag}"
        self.audit_prefix = f"rb.audit{tag.lower()}"

    def _settlement(self) -> ServiceProcess:
        address = f"127.0.0.1:{free_port()}"
        tag = self.tag
        return ServiceProcess(
            "settlement",
            address,
            [
                "--address",
                address,
                "--nats",
                self.nats_url,
                "--database",
                self.database_url,
                "--wallets-stream",
                f"RB_WALLETS_{tag}",
                "--wallets-prefix",
                f"rb.wallets{tag.lower()}",
                "--tables-stream",
                f"RB_TABLES_{tag}",
                "--tables-prefix",
                f"rb.tables{tag.lower()}",
                # A record applied but not acknowledged before a kill comes back soon.
                "--ack-wait",
                "1",
                "--log-format",
                "json",
            ],
            log_path=self.var / "settlement.log",
            env=KEY_ENV,
        )

    def plant_bug(self, service: str, plant: str) -> None:
        """From its next start on, ``service`` runs with a planted bug (``plants/``)."""
        proc = self.process(service)
        proc.env = {**(proc.env or {}), "RB_PLANT": plant, "PYTHONPATH": str(PLANTS_DIR)}

    @property
    def key(self) -> Path:
        return self.var / "dealer.key"

    def process(self, service: str) -> ServiceProcess:
        return {"table": self.table, "dealer": self.dealer, "settlement": self.settlement}[service]

    def settlement_config(self) -> SettlementConfig:
        return SettlementConfig(
            database_url=self.database_url,
            wallets_stream=f"RB_WALLETS_{self.tag}",
            wallets_prefix=f"rb.wallets{self.tag.lower()}",
            tables_stream=self.tables_stream,
            tables_prefix=self.tables_prefix,
        )

    async def start(self) -> None:
        # All at once: the table's dealer calls wait for the dealer, settlement for nobody.
        await asyncio.gather(
            *(asyncio.to_thread(p.start) for p in (self.dealer, self.table, self.settlement))
        )

    async def stop(self) -> None:
        for proc in (self.settlement, self.table, self.dealer):
            await asyncio.to_thread(proc.stop)

    def token(self, subject: str, role: str = "player") -> str:
        return self.issuer.issue(subject, role)

    def client(self, channel: grpc.aio.Channel, subject: str, role: str = "player") -> TableClient:
        return TableClient(channel, self.token(subject, role), subject)

    async def table_log(self, table_id: str) -> list[list[AnyEvent]]:
        """Every batch of the table's raw log."""
        return await read_log(self.nats_url, self.tables_stream, self.tables_prefix, table_id)

    async def seed(self, table_id: str, hand_id: str) -> bytes:
        """The hand's seed, as the dealer reveals it to auditors."""
        async with grpc.aio.insecure_channel(self.dealer.address) as channel:
            stub = dealer_pb2_grpc.DealerServiceStub(channel)  # type: ignore[no-untyped-call]
            reply = await stub.RevealSeed(
                dealer_pb2.RevealSeedRequest(table_id=table_id, hand_id=hand_id),
                timeout=30,
                metadata=(("authorization", f"Bearer {self.token('auditor-1', 'service')}"),),
            )
            return bytes(reply.seed)

    async def sealed_seed(self, nc: NATS, table_id: str, hand_id: str) -> bytes:
        """The dealer's stored (sealed) seed record of a hand, raw."""
        msg = await nc.jetstream().get_msg(
            self.seeds_stream, subject=f"{self.seeds_prefix}.{table_id}.{hand_id}"
        )
        return bytes(msg.data or b"")

    async def plant_seed(self, nc: NATS, table_id: str, hand_id: str, record: bytes) -> None:
        """Store another room's sealed seed record for the hand (write-once, as the dealer
        does), so this room's dealer commits to the same deck."""
        await nc.jetstream().publish(
            f"{self.seeds_prefix}.{table_id}.{hand_id}",
            record,
            stream=self.seeds_stream,
            headers={"Nats-Expected-Last-Subject-Sequence": "0"},
        )

    async def revealed(self, nc: NATS, table_id: str, hand_id: str) -> bool:
        """Whether the audit stream holds the hand's revealed seed."""
        with contextlib.suppress(nats.js.errors.NotFoundError):
            await nc.jetstream().get_msg(
                self.audit_stream, subject=f"{self.audit_prefix}.{table_id}.{hand_id}"
            )
            return True
        return False

    async def ledger(self, timeout: float = 60.0) -> list[str]:
        """The settlement ledger once it has applied every log record, without row ids and
        times (the canonical dump leaves ids out; the time columns are blanked here)."""
        nc = await nats.connect(self.nats_url)
        try:
            await wait_caught_up(nc, self.settlement_config(), timeout=timeout, settle=1.0)
        finally:
            await nc.close()
        engine = create_ledger_engine(self.database_url)
        try:
            with engine.connect() as conn:
                dump = canonical_dump(conn)
        finally:
            engine.dispose()
        return [_timeless(line) for line in dump.splitlines()]


def _timeless(line: str) -> str:
    cols = line.split("\t")
    if cols[0] == "posting":  # posting key kind reference table hand occurred_at lines...
        cols[6] = "-"
    elif cols[0] == "hand":  # hand table hand variant status started ended day rake
        cols[5] = cols[6] = cols[7] = "-"
    return "\t".join(cols)


# --- the scripted hand ----------------------------------------------------------------------


def scripted_move(view: table_pb2.TableView, family: Family) -> dict[str, object] | None:
    """The mover's scripted move from their own view (None: nothing owed)."""
    legal = {a.action: a for a in view.legal_actions}
    if not legal:
        return None
    seat = next((s for s in view.seats if s.seat == view.viewer_seat), None)
    held = [c for c in seat.cards if c.card] if seat is not None else []
    mine = [c.card for c in held]
    if "choose_game" in legal:
        return {"action": "choose_game", "choice": family.game, "options": family.options}
    for action in ("check", "call", "bring_in"):
        if action in legal:
            return {"action": action}
    for action in ("draw", "discard", "pass"):
        if action in legal:
            a = legal[action]
            count = a.max_cards if action == "draw" else a.min_cards
            return {"action": action, "cards": tuple(mine[:count])}
    if "order" in legal:
        return {"action": "order", "cards": tuple(mine)}
    if "expose" in legal:
        return {"action": "expose", "cards": (next(c.card for c in held if not c.face_up),)}
    if "declare" in legal:
        choices = list(legal["declare"].choices)
        # Odd seats go low (Chicago: the spade), even seats high: never two PIGs, no ride.
        wanted = ("low", "spade") if view.viewer_seat % 2 else ("high",)
        return {"action": "declare", "choice": next((c for c in choices if c in wanted), "high")}
    first = view.legal_actions[0]
    return {"action": first.action}


@dataclass
class Run:
    """What one scripted hand left: its id, the log versions killed after, and skipped ones."""

    table_id: str
    hand_id: str = ""
    killed_after: list[int] = field(default_factory=list)
    setup_versions: int = 0
    last_version: int = 0


class Killer:
    """Follows the table's subject and kill -9s ``service`` as soon as a chosen version is
    appended (``kill_after``: log versions, or a predicate on them)."""

    def __init__(
        self, room: CrashRoom, service: str | None, kill_after: Callable[[int], bool]
    ) -> None:
        self.room = room
        self.service = service
        self.kill_after = kill_after
        self.killed: list[int] = []
        self.dead = False
        self.latest = 0
        self.changed = asyncio.Event()

    def on_message(self, msg: Msg) -> None:
        version = int((msg.headers or {}).get("Rb-Version", "0") or 0)
        self.latest = max(self.latest, version)
        if self.service and not self.dead and self.kill_after(version):
            self.room.process(self.service).kill()  # at once: the next append may be close
            self.dead = True
            self.killed.append(version)
        self.changed.set()

    async def revive(self) -> bool:
        """Restart the killed service; whether one was. A chosen version appended while it
        was down (the table resuming on its own, the others not being needed) is killed
        after now, as soon as the service is back."""
        if not self.dead or self.service is None:
            return False
        while self.dead:
            await asyncio.to_thread(self.room.process(self.service).start)
            self.dead = False
            version = self.latest
            if version not in self.killed and self.kill_after(version):
                self.room.process(self.service).kill()
                self.dead = True
                self.killed.append(version)
        return True


@contextlib.asynccontextmanager
async def following(room: CrashRoom, table_id: str, killer: Killer) -> AsyncIterator[None]:
    """Core NATS sees each append to the table's subject the moment it is stored."""
    nc = await nats.connect(room.nats_url)

    async def cb(msg: Msg) -> None:
        killer.on_message(msg)

    sub = await nc.subscribe(f"{room.tables_prefix}.{table_id}", cb=cb)
    try:
        yield
    finally:
        await sub.unsubscribe()
        await nc.close()


_RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


async def play_scripted(
    room: CrashRoom,
    family: Family,
    table_id: str,
    *,
    service: str | None = None,
    kill_after: Callable[[int], bool] = lambda v: False,
    timeout: float = 180.0,
) -> Run:
    """Open the table, seat the family's players, play the scripted hand to its end (dealing
    paused once it is dealt, so no next hand follows; then everyone leaves); kill ``service``
    after each chosen version of the hand (setup versions are never chosen) and restart it
    before going on. The hand must end within ``timeout`` seconds, and a minute more for each
    restart."""
    run = Run(table_id)
    players = [f"{table_id}-p{k}" for k in range(1, family.players + 1)]
    setup = 1 + family.players
    run.setup_versions = setup
    killer = Killer(room, service, lambda v: v > setup and kill_after(v))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with following(room, table_id, killer):
        await _setup(room, family, table_id, players)
        channel = grpc.aio.insecure_channel(room.table.address)
        try:
            while True:
                if loop.time() > deadline:
                    raise AssertionError(f"{table_id}: the hand did not end in {timeout}s")
                if await killer.revive():
                    deadline += 60  # a restart under load takes its time
                    await channel.close(None)  # a fresh channel: no reconnect back-off
                    channel = grpc.aio.insecure_channel(room.table.address)
                killer.changed.clear()
                try:
                    done = await _step(room, family, table_id, channel, run)
                except grpc.aio.AioRpcError as exc:
                    if exc.code() not in _RETRY:
                        raise
                    done = False
                    await asyncio.sleep(0.05)
                    continue
                if done:
                    break
                if done is None:  # nothing owed: the service is working; wait for the log
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(killer.changed.wait(), 0.5)
        finally:
            await channel.close(None)
        await killer.revive()
    run.killed_after = killer.killed
    run.last_version = killer.latest
    return run


async def _setup(room: CrashRoom, family: Family, table_id: str, players: list[str]) -> None:
    async with grpc.aio.insecure_channel(room.table.address) as channel:
        operator = room.client(channel, "operator", "operator")
        if family.game:
            await operator.create_table(
                table_id, variant="dealers_choice", action_seconds=ACTION_SECONDS
            )
        else:
            await operator.create_table(table_id, action_seconds=ACTION_SECONDS)
        for k, name in enumerate(players, start=1):
            await operator.seat(table_id, k, name, STACK)


async def _step(
    room: CrashRoom,
    family: Family,
    table_id: str,
    channel: grpc.aio.Channel,
    run: Run,
) -> bool | None:
    """One move of the script: True when the hand is over, False after a move, None when
    nothing is owed right now."""
    observer = room.client(channel, "observer", "auditor")
    view = await observer.view(table_id)
    if os.environ.get("RB_CRASH_DEBUG"):
        print(
            f"{table_id} v{view.version} hand={view.hand_id} in={view.hand_in_progress} "
            f"phase={view.phase} to_act={view.to_act} waiting={list(view.waiting_for)} "
            f"choosing={view.choosing_game} seats={len(view.seats)}",
            flush=True,
        )
    if view.hand_id and view.hand_in_progress:
        run.hand_id = view.hand_id
    operator = room.client(channel, "operator", "operator")
    if run.hand_id and not view.hand_in_progress:
        if not view.seats:
            return True  # the hand ended and everyone has left
        # The hand is over (dealing paused: no next hand): its players leave, one a step,
        # each with the chips it left them.
        seat = view.seats[0].seat
        await operator.stub.UnseatPlayer(
            table_pb2.UnseatPlayerRequest(
                table_id=table_id, seat=seat, request_id=f"leave-after-{table_id}-{seat}"
            ),
            metadata=operator.metadata,
        )
        return False
    # Once dealt (hand_id set), no next hand: dealing pauses after this one. (Not everyone
    # asking to leave: the table does not wait for a player who asked to leave, it checks or
    # folds for them at once, which would cut the scripted hand short.)
    if view.hand_id and view.hand_in_progress and not view.paused:
        await operator.pause_table(table_id, request_id=f"pause-{table_id}")
        return False
    owed = sorted(set(view.waiting_for) | ({view.to_act} if view.to_act else set()))
    if view.choosing_game:
        owed = [view.dealer]
    for seat in owed:
        name = next(s.player for s in view.seats if s.seat == seat)
        player = room.client(channel, name)
        mine = await player.view(table_id)
        move = scripted_move(mine, family)
        if move is None:
            continue
        await player.act(
            table_id,
            mine.hand_id,
            seat,
            str(move["action"]),
            request_id=f"{table_id}-v{mine.version}-s{seat}",
            cards=tuple(move.get("cards", ())),  # type: ignore[arg-type]
            choice=str(move.get("choice", "")),
            options=move.get("options") or None,  # type: ignore[arg-type]
            timeout=30,
        )
        return False
    return None


# --- oracles --------------------------------------------------------------------------------


def hand_events(batches: list[list[AnyEvent]], hand_id: str) -> list[AnyEvent]:
    """The events of one hand, from its HandStarted to its HandEnded."""
    out: list[AnyEvent] = []
    inside = False
    for batch in batches:
        for e in batch:
            if isinstance(e, ev.HandStarted):
                inside = e.hand_id == hand_id
            if inside:
                out.append(e)
            if inside and isinstance(e, ev.HandEnded):
                return out
    raise AssertionError(f"hand {hand_id} did not end in the log")


def dealt_cards(events: list[AnyEvent]) -> list[int]:
    """Every card taken from the deck, in order."""
    return [e.card for e in events if isinstance(e, ev.CardDealt | ev.CommunityCardDealt)]


def committed_cards(events: list[AnyEvent], hand_id: str, seed: bytes) -> list[int]:
    """What the seed says the hand's stub is: the deck, then each reshuffle of the discards
    the log asked for (RBS1, derived here from the revealed seed alone)."""
    cards = list(derive_deck(hand_id, seed))
    rounds = [e.cards for e in events if isinstance(e, ev.ReshuffleRequested)]
    for round_, discards in enumerate(rounds, start=1):
        cards += derive_reshuffle(hand_id, seed, round_, discards)
    return cards


def commitments(batches: list[list[AnyEvent]]) -> list[HandCommitted]:
    return [e for batch in batches for e in batch if isinstance(e, HandCommitted)]


def spread(versions: list[int], count: int) -> Iterator[int]:
    """``count`` versions spread evenly over ``versions`` (all of them if fewer)."""
    if count >= len(versions):
        yield from versions
        return
    for k in range(count):
        yield versions[(2 * k + 1) * len(versions) // (2 * count)]


async def wait_revealed(room: CrashRoom, nc: NATS, table_id: str, hand_id: str) -> bool:
    """Whether the hand's seed reaches the audit stream within 30 s, nobody asking for it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while loop.time() < deadline:
        if await room.revealed(nc, table_id, hand_id):
            return True
        await asyncio.sleep(0.05)
    return False


async def hand_differences(
    ref: CrashRoom, crash: CrashRoom, nc: NATS, expected: Run, run: Run
) -> list[str]:
    """How the crash room's hand departs from the uninterrupted one (empty: not at all)."""
    table_id, hand_id = expected.table_id, expected.hand_id
    out: list[str] = []
    if run.hand_id != hand_id:
        return [f"{table_id}: played hand {run.hand_id!r}, not {hand_id!r}"]
    got, want = await crash.table_log(table_id), await ref.table_log(table_id)
    if got != want:
        first = next(
            (v for v, (a, b) in enumerate(zip(got, want, strict=False), start=1) if a != b),
            min(len(got), len(want)) + 1,
        )
        out.append(f"{table_id}: the log departs from the uninterrupted run's at version {first}")
    # Checked before anyone asks the dealer: the table must reveal the seed by itself.
    if not await wait_revealed(crash, nc, table_id, hand_id):
        out.append(f"{table_id}: the seed of {hand_id} never reached the audit stream")
    seed = await crash.seed(table_id, hand_id)
    if [c.commitment for c in commitments(got)] != [c.commitment for c in commitments(want)]:
        out.append(f"{table_id}: another commitment than the uninterrupted run's")
    try:
        events = hand_events(got, hand_id)
    except AssertionError as exc:
        return [*out, str(exc)]
    dealt = dealt_cards(events)
    if dealt != committed_cards(events, hand_id, seed)[: len(dealt)]:
        out.append(f"{table_id}: cards dealt that the revealed seed does not give")
    return out
