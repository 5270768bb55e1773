"""The runner's liveness battery: random tables driven over the fakes, and one invariant.

Whenever a table's state lets a hand start and no command is pending, the next hand is dealt
within the configured pause (plus, at a dealer's choice table, the dealer's clock and a second
pause); while a hand is in play or a dealer chooses, something happens within the action clock
(or the time bank running). What "lets a hand start" means is worked out here from the rules
(:func:`startable`), not with the table's own ``can_start_hand``.

The tables are Pacific stud hi/lo (with and without antes) and dealer's choice; stacks are
random, some no bigger than the ante (all in on it: a heads-up hand then ends in its own deal);
players act, sit out and in, leave, sit down, let the clock act for them (two time-outs sit
them out), and a dealer's choice dealer sits out after being called; an operator pauses and
resumes dealing, and closes the table (which must then close once the hand in play is over).
Some commands race the runner's own work (the dealer fake yields on every call). A failure
names its table's seed.

The battery found two stalls (tests/unit/table/test_runner_stalls.py pins each down):
a hand that ended inside its deal left the table idle, and a dealer who sat out after the call
was given the clock's choice and a hand committed and voided for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from structlog.testing import capture_logs

from riverboat.audit.archive import StoredMessage
from riverboat.audit.report import Check
from riverboat.audit.tableaudit import audit_table
from riverboat.audit.tablelog import HEADER_VERSION
from riverboat.engine.errors import EngineError
from riverboat.engine.events import HandEnded, HandStarted
from riverboat.engine.games import waiting_for
from riverboat.engine.options import TableOptions, dealers_choice_options, pacific_options
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore, StoredRecord
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import Commitment
from riverboat.services.table.runner import TableRunner
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import DEALERS_CHOICE, TableState
from riverboat.table.events import (
    AnyEvent,
    DealingPaused,
    DealingResumed,
    HandCommitted,
    HandVoided,
    PlayerSatOut,
    TableClosed,
    TimeBankPolicy,
)
from tests.battery import size
from tests.unit.table.fakes import CountingDealer, ManualClock, settle
from tests.unit.table.test_dealers_choice_table import random_act

PAUSE = 2.0
ACTION = 10
#: Tables driven, and the commands (or waits) per table.
TABLES = size(36, 2_000)
STEPS = size(70, 250)
#: Background failures the runner logs (an exception in its own work is a defect here).
FAILURES = frozenset({"hand_start_failed", "deal_failed", "reshuffle_failed"})


def startable(state: TableState) -> bool:
    """The oracle: the table's state lets a hand start (the rules' own terms: an open table,
    dealing not paused, not closing (but for a riding pot's redeal), no hand committed or in
    play, and at least the table's minimum of seated players with chips who neither sit out
    nor leave)."""
    if not state.created or state.options is None or state.pending is not None:
        return False
    if state.hand is not None and not state.hand.finished:
        return False
    if state.closed or state.paused or (state.closing is not None and not state.carried):
        return False
    return len(_dealt_in(state)) >= state.options.min_players


def closing_now(state: TableState) -> bool:
    """The oracle: a close was asked for and nothing it waits for is left (no hand committed
    or in play, no pot riding into a deal that can be dealt)."""
    if state.closing is None or state.closed or state.options is None:
        return False
    if state.pending is not None or (state.hand is not None and not state.hand.finished):
        return False
    return not (state.carried and len(_dealt_in(state)) >= state.options.min_players)


def _dealt_in(state: TableState) -> list[int]:
    """The seats the next hand would deal in."""
    return [s.seat for s in state.seats if s.stack > 0 and not s.sitting_out and not s.leaving]


def choosing(state: TableState) -> bool:
    """A dealer's choice dealer who can deal is choosing the game."""
    return state.choosing and state.dealer in _dealt_in(state)


def deal_deadline(state: TableState) -> float:
    """The longest a startable table may wait for its next deal: the pause; at a dealer's
    choice table the dealer is called after the pause, chooses within the action clock (or
    the clock chooses), and the hand is dealt after another pause."""
    if state.variant == DEALERS_CHOICE:
        return PAUSE + ACTION + PAUSE + 1.0
    return PAUSE + 1.0


def turn_deadline(state: TableState) -> float:
    """The longest a hand in play (or a dealer choosing) may wait for anything to happen: the
    action clock, or a time bank's (or the disconnect protection's) seconds."""
    return max(ACTION, state.time_bank.seconds) + 1.0


class YieldingDealer(CountingDealer):
    """The counting dealer, answering after a few turns of the event loop, as a remote one
    does: commands sent meanwhile land between the commitment, the deck and the deal.
    ``meanwhile`` holds commands to send while the next deck is fetched (after the hand's
    commitment is written, before its deal); ``sent`` what they became."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng
        self.meanwhile: list[Callable[[], Coroutine[Any, Any, None]]] = []
        self.sent: list[asyncio.Future[None]] = []

    async def _pause(self) -> None:
        for _ in range(self.rng.randrange(4)):
            await asyncio.sleep(0)

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        await self._pause()
        return await super().commit_hand(table_id, hand_id)

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        self.sent += [asyncio.ensure_future(send()) for send in self.meanwhile]
        self.meanwhile.clear()
        await self._pause()
        if self.sent:
            await settle(5)
        return await super().get_deck(table_id, hand_id, log_sequence)


@dataclass
class Drive:
    """One random table and what was done to it."""

    seed: int
    rng: random.Random
    runner: TableRunner
    clock: ManualClock
    store: InMemoryEventStore
    joined: int = 0
    racing: list[asyncio.Future[Any]] = field(default_factory=list)
    did: list[str] = field(default_factory=list)

    @property
    def state(self) -> TableState:
        return self.runner.state

    def where(self) -> str:
        s = self.state
        seats = [f"{x.seat}:{x.player}:{x.stack}{':out' if x.sitting_out else ''}" for x in s.seats]
        return (
            f"table seed {self.seed} ({s.variant}) at t={self.clock.now:.1f}s, version "
            f"{self.runner.version}, hands {s.hands_played}, seats {seats}, dealer {s.dealer} "
            f"choosing {s.choosing} chosen {s.chosen}; last commands {self.did[-8:]}"
        )

    async def submit(
        self,
        what: str,
        decide: Callable[[TableState], list[AnyEvent]],
        *,
        mid_deal: bool = False,
    ) -> None:
        """Send a command as a player or operator would: awaited, or (one in four) racing the
        runner's own work, or (``mid_deal``) while the next deck is on its way; a refusal
        changes nothing and is no failure."""
        key = f"cmd-{len(self.did)}"

        async def send() -> None:
            self.did.append(what)
            with contextlib.suppress(EngineError):  # refused: nothing changed
                await self.runner.act(decide, request_id=key, actor="battery", kind="battery")

        if mid_deal:
            self.dealer.meanwhile.append(send)
        elif self.rng.random() < 0.25:
            self.racing.append(asyncio.ensure_future(send()))
        else:
            await send()

    @property
    def dealer(self) -> YieldingDealer:
        dealer = self.runner.dealer
        assert isinstance(dealer, YieldingDealer)
        return dealer

    async def quiet(self) -> None:
        """Wait for every command sent to be answered: none is pending (those waiting for the
        next deal are not sent yet)."""
        while self.racing or self.dealer.sent:
            pending = [*self.racing, *self.dealer.sent]
            self.racing.clear()
            self.dealer.sent.clear()
            await asyncio.gather(*pending)
        await settle()


def _stack(rng: random.Random, options: TableOptions) -> int:
    """Most stacks are a few buy-ins; some are no more than the forced bet (all in on it)."""
    forced = max(options.ante, options.bring_in, 1)
    if rng.random() < 0.3:
        return rng.randint(1, forced)
    return rng.randint(5, 60) * forced


async def _open(seed: int) -> Drive:
    rng = random.Random(seed)
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await TableRunner.load(
        f"live{seed}",
        store,
        YieldingDealer(rng),
        TableConfig(hand_pause=PAUSE, seed_window=0.0),
        clock=clock,
    )
    kind = rng.choice(["pacific", "pacific_ante", DEALERS_CHOICE])
    variant = DEALERS_CHOICE if kind == DEALERS_CHOICE else "seven_card_stud_hi_lo"
    options = {
        "pacific": pacific_options(),
        "pacific_ante": pacific_options(small_bet=500, big_bet=1000),
        DEALERS_CHOICE: dealers_choice_options(),
    }[kind]
    bank = None
    if rng.random() < 0.3:
        bank = TimeBankPolicy(rng.choice([5, 15]), 5, rng.choice([0, 3]), rng.choice([0, 4]))
    await runner.submit(
        lambda s: table.create_table(
            s, name="live", variant=variant, options=options, action_seconds=ACTION,
            time_bank=bank,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    drive = Drive(seed, rng, runner, clock, store)
    for _ in range(rng.randint(2, 5)):
        await _sit_down(drive)
    return drive


async def _sit_down(d: Drive) -> None:
    options = d.state.options
    assert options is not None
    free = [n for n in range(1, options.max_players + 1) if d.state.seat_at(n) is None]
    if not free:
        return
    d.joined += 1
    seat, player, stack = d.rng.choice(free), f"p{d.joined}", _stack(d.rng, options)
    await d.submit(
        f"seat {player}@{seat}:{stack}",
        lambda s: table.seat_player(s, seat=seat, player=player, stack=stack),
    )


def _someone(d: Drive, which: Callable[[table.Seat], bool]) -> str | None:
    players = [s.player for s in d.state.seats if which(s)]
    return d.rng.choice(players) if players else None


async def _step(d: Drive) -> None:
    """One random thing a room does to a table."""
    s, rng = d.state, d.rng
    hand = s.hand
    roll = rng.random()
    if hand is not None and not hand.finished and (seats := waiting_for(hand)) and roll < 0.45:
        seat = rng.choice(seats)
        act = random_act(hand, seat, rng)
        hand_id = hand.hand_id
        runner = d.runner
        await d.submit(
            f"act {seat} {act.action}",
            lambda st: table.act(
                st, act, runner.deck or (), hand_id, bank_used=runner.bank_used(seat)
            ),
        )
    elif choosing(s) and roll < 0.45:
        game = rng.choice(choice.offered_games(s))
        dealer = s.dealer
        await d.submit(
            f"choose {game}",
            lambda st: choice.choose_game(st, seat=dealer, game=game, options=None),
        )
    elif roll < 0.55 and s.dealers_choice and (s.choosing or s.chosen) and s.dealer:
        # The dealer called (or who chose) sits out before the deal: now, or once the hand
        # is committed.
        who = s.seat_at(s.dealer)
        if who is not None:
            player = who.player
            await d.submit(
                f"dealer {player} sits out",
                lambda st: table.sit_out(st, player=player),
                mid_deal=s.chosen and rng.random() < 0.5,
            )
    elif roll < 0.58 and not s.hand_in_progress:
        # Someone sits out or leaves while the next hand is committed but not yet dealt.
        if (anyone := _someone(d, lambda x: True)) is not None:
            leave = rng.random() < 0.5
            await d.submit(
                f"{anyone} {'leaves' if leave else 'sits out'} mid-deal",
                (lambda st: table.unseat_player(st, seat=0, player=anyone))
                if leave
                else (lambda st: table.sit_out(st, player=anyone)),
                mid_deal=True,
            )
    elif roll < 0.62:
        if (playing := _someone(d, lambda x: not x.sitting_out)) is not None:
            await d.submit(f"{playing} sits out", lambda st: table.sit_out(st, player=playing))
    elif roll < 0.72:
        if (resting := _someone(d, lambda x: x.sitting_out)) is not None:
            await d.submit(f"{resting} sits in", lambda st: table.sit_in(st, player=resting))
    elif roll < 0.78:
        if (goer := _someone(d, lambda x: x.stack == 0 or rng.random() < 0.3)) is not None:
            await d.submit(
                f"{goer} leaves", lambda st: table.unseat_player(st, seat=0, player=goer)
            )
    elif roll < 0.84:
        await _sit_down(d)
    elif roll < 0.86:
        await d.submit("pause", lambda st: table.pause_dealing(st, by="operator:op"))
    elif roll < 0.89:
        await d.submit("resume", lambda st: table.resume_dealing(st, by="operator:op"))
    elif roll < 0.8925:
        await d.submit("close", lambda st: table.close_table(st, by="operator:op"))
    else:
        # Nobody does anything for a while: the clock acts for whoever it waits for.
        await d.clock.advance(rng.choice([0.3, 1.0, PAUSE, ACTION / 2, ACTION + 0.5]))


async def _check_liveness(d: Drive) -> None:
    """The invariant, from now on with nobody sending anything. A command waiting for the
    next deal (``mid_deal``) is sent once the deal comes: the wait then starts again from the
    state it left."""
    while True:
        await d.quiet()
        state = d.state
        if startable(state):
            hands, deadline = state.hands_played, deal_deadline(state)
            waited = 0.0
            while d.state.hands_played == hands and waited < deadline and not d.dealer.sent:
                await d.clock.advance(0.5)
                waited += 0.5
            if d.dealer.sent:
                continue
            assert d.state.hands_played > hands, (
                f"no hand dealt {deadline:.1f}s after the table could start one: {d.where()}"
            )
        elif closing_now(state):
            await d.clock.advance(PAUSE)
            assert d.state.closed and not d.state.seats, (
                f"not closed {PAUSE:.1f}s after the hand it waited for: {d.where()}"
            )
        elif (state.hand is not None and not state.hand.finished) or choosing(state):
            version, deadline = d.runner.version, turn_deadline(state)
            await d.clock.advance(deadline)
            assert d.runner.version > version, (
                f"nothing happened {deadline:.1f}s into a turn: {d.where()}"
            )
        return


async def drive_table(seed: int, steps: int) -> Drive:
    """Open a random table and drive it ``steps`` times, checking the invariant after each
    command (from a state nobody changes until it is checked)."""
    d = await _open(seed)
    try:
        await _check_liveness(d)
        for _ in range(steps):
            if d.state.closed:
                break
            await _step(d)
            if d.rng.random() < 0.5 or not d.racing:
                await _check_liveness(d)
        await _check_liveness(d)
    finally:
        d.dealer.meanwhile.clear()  # never sent: no deal came for them
        await d.quiet()
        await d.runner.close()
    return d


def audit_log(table_id: str, records: Sequence[StoredRecord]) -> list[str]:
    """The auditor's verdict on the log (riverboat.audit): the rules replayed over every
    message, the chain, the money. No seeds are revealed here, so only their absence is
    excused."""
    messages = [
        StoredMessage("RB_TABLES", r.stream_sequence, f"rb.tables.{table_id}", "",
                      {HEADER_VERSION: str(r.version)}, r.payload)
        for r in records
    ]  # fmt: skip
    result = audit_table(table_id, messages, {})
    return [str(v) for v in result.violations if v.check is not Check.SEED_MISSING]


def dealt_while_stopped(records: Sequence[StoredRecord]) -> int | None:
    """The safety side: the version of a hand committed while dealing was paused or after the
    table closed, if any (None: none was)."""
    paused = closed = False
    for record in records:
        for event, _ in decode_batch(record.payload):
            if isinstance(event, DealingPaused | DealingResumed):
                paused = isinstance(event, DealingPaused)
            elif isinstance(event, TableClosed):
                closed = True
            elif isinstance(event, HandCommitted) and (paused or closed):
                return record.version
    return None


async def run_battery(seeds: Sequence[int], steps: int) -> tuple[list[str], dict[str, int]]:
    """Drive a table per seed; the failures (one line each) and what was seen."""
    failures: list[str] = []
    seen = dict.fromkeys(
        (
            "hands",
            "ended_in_deal",
            "voided",
            "dealers_sat_out",
            "sit_outs_by_clock",
            "paused",
            "closed",
        ),
        0,
    )
    for seed in seeds:
        with capture_logs() as logs:
            try:
                d = await drive_table(seed, steps)
            except AssertionError as exc:
                failures.append(str(exc).splitlines()[0])
                continue
        broken = [e for e in logs if e.get("event") in FAILURES]
        if broken:
            failures.append(f"table seed {seed}: background failure {broken[0]}")
        seen["hands"] += d.state.hands_played
        seen["dealers_sat_out"] += sum("dealer" in c and "sits out" in c for c in d.did)
        seen["closed"] += d.state.closed
        records = await d.store.read(d.runner.table_id)
        wrong = audit_log(d.runner.table_id, records)
        if wrong:
            failures.append(f"table seed {seed}: the audit's replay disagrees: {wrong[0]}")
        if (dealt := dealt_while_stopped(records)) is not None:
            failures.append(
                f"table seed {seed}: a hand committed at version {dealt} while dealing was "
                f"paused or the table closed ({d.where()})"
            )
        for record in records:
            batch = [e for e, _ in decode_batch(record.payload)]
            kinds = {type(e) for e in batch}
            seen["ended_in_deal"] += {HandStarted, HandEnded} <= kinds
            seen["voided"] += HandVoided in kinds
            seen["paused"] += DealingPaused in kinds
            seen["sit_outs_by_clock"] += any(
                isinstance(e, PlayerSatOut) and e.reason == "timeouts" for e in batch
            )
    return failures, seen


@pytest.mark.battery
@pytest.mark.timeout(3600)
async def test_a_table_that_can_deal_deals_within_the_pause() -> None:
    failures, seen = await run_battery(range(TABLES), STEPS)
    print(f"\nliveness battery: {TABLES} tables x {STEPS} steps; seen {seen}")
    assert failures == [], "\n".join(failures[:10])
    # The battery reached what it is about.
    assert seen["hands"] > TABLES * 3
    assert all(seen.values()), seen
