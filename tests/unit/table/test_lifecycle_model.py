"""A model-based test of the hand lifecycle: random interleavings of every input a table gets
(players sitting down, leaving, being moved, sitting out and in, acting, connecting and
disconnecting; CRV1 seed messages; time passing; an operator pausing, resuming and closing; the
service crashing and the table reloaded from its log) against the real ``TableRunner`` over the
in-memory ports (the log, a CRV1 dealer, a clock moved by hand), with invariants checked after
every step:

- **ends**: every committed hand ends or is voided within :data:`BOUND` seconds of its
  commitment, and while one is in play something is scheduled to move it on;
- **waits**: no hand waits on a seat that cannot act (gone, or asked to leave);
- **chips**: chips are conserved (bought in = at the table + in the pot + cashed out + raked);
- **openings**: every card shown at showdown of a CRV1 hand comes with its opening, for every
  viewer;
- **leaks**: every Watch message, for every viewer, is what the information-flow oracle of
  ``tests/leak/oracle.py`` allows.

The steps run on one event loop of their own; each step lets every ready task run before the
invariants are checked. ``make test`` runs :data:`EXAMPLES` x :data:`STEPS` steps, ``make soak``
a hundred times more (``tests/battery.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from riverboat.engine import events as ev
from riverboat.engine.cards import card_str
from riverboat.engine.errors import EngineError
from riverboat.engine.games import DEALERS_CHOICE, waiting_for
from riverboat.engine.options import pacific_options
from riverboat.engine.state import STUD_VARIANT
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import TableRunner, Update
from riverboat.services.table.viewpb import TableViews
from riverboat.shuffle import crv1
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import TableState
from riverboat.table.events import (
    AnyEvent,
    HandCommitted,
    HandVoided,
    PlayerLeft,
    PlayerSeated,
    TimeBankPolicy,
)
from tests.battery import size
from tests.leak.inprocess import _random_act
from tests.leak.oracle import Checker, Report, Truth
from tests.unit.table.crv1kit import Crv1Dealer, client_seed
from tests.unit.table.fakes import ManualClock, settle

T = TypeVar("T")

pytestmark = pytest.mark.timeout(3600)

#: Examples x steps: 10^4 steps in ``make test``, 10^6 in ``make soak``.
EXAMPLES = size(125, 12_500)
STEPS = 100

SEATS = (1, 2, 3, 4)
PAUSE = 2.0
ACTION_SECONDS = 30
BANK_SECONDS = 60
#: The longest a committed hand may stay unfinished, in clock seconds: every turn is bounded
#: by its clock, its time bank and one disconnect protection; a hand has at most a few dozen
#: turns (each street's bets are capped).
BOUND = 3600.0
#: The games a dealer chooses: the draw (the only one that reshuffles), and Pacific stud.
GAMES_CHOSEN = ("draw", STUD_VARIANT, *DEALERS_CHOICE)
#: Time steps a rule may take (seconds): within a seed phase, a pause, a clock, a bank.
TICKS = (0.25, 1.0, PAUSE, float(ACTION_SECONDS), 61.0, 300.0)


class _Presence:
    """A player's open Watch stream, for the disconnect protection: what it receives is
    checked through the recorder, so it keeps nothing."""

    def put_nowait(self, item: Update | None) -> None:
        pass

    def force(self, item: Update | None) -> None:
        pass


class Lifecycle(RuleBasedStateMachine):
    """One table, its inputs as rules, the lifecycle's promises as invariants."""

    #: Steps checked (every rule's, in every example): the test's real size.
    checked = 0

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = ManualClock()
        self.store = InMemoryEventStore()
        self.dealer = Crv1Dealer()
        self.config = TableConfig(hand_pause=PAUSE)
        self.runner: TableRunner | None = None
        self.views = TableViews("t1")
        self.truth = Truth()
        self.report = Report()
        self.checker = Checker(self.truth, self.report)
        self.presence: dict[str, _Presence] = {}
        self.committed_at: dict[str, float] = {}
        self.open_hands: set[str] = set()
        self.bought = self.cashed = self.raked = 0
        self.problems: list[str] = []
        self.requests = 0
        self.steps = 0
        self.current = ""

    # --- plumbing --------------------------------------------------------------------------

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    @property
    def live(self) -> TableRunner:
        assert self.runner is not None
        return self.runner

    def _submit(
        self, decide: Callable[[TableState], list[AnyEvent]], actor: str, kind: str
    ) -> None:
        """A request from outside, as the service submits it; refusals are fine."""
        self.requests += 1
        request_id = f"r{self.requests}"

        async def go() -> None:
            # The rules may refuse it now: a client is told, the table goes on.
            with contextlib.suppress(EngineError):
                await self.live.act(decide, request_id=request_id, actor=actor, kind=kind)
            await settle()

        self._run(go())
        self.steps += 1

    def put_nowait(self, update: Update | None) -> None:
        """The recorder's inbox: every update the runner broadcasts, as every viewer gets it."""
        if update is None:
            return
        self._record(update)
        runner = self.live
        if update.version != runner.version:
            return
        self.views.proofs, self.views.deal_indices = runner.proofs, runner.deal_indices
        shown = [e for e in update.events if isinstance(e, ev.HandShown)]
        crv1_hand = runner.state.locked is not None and runner.state.hand is not None
        crv1_hand = crv1_hand and runner.state.locked.hand_id == runner.state.hand.hand_id  # type: ignore[union-attr]
        for viewer in (0, *SEATS):
            message = self.views.update(runner.state, runner.version, viewer, update)
            self.checker.update(viewer, message, f"step {self.steps}")
            if shown and crv1_hand:
                opened = {
                    p.card: crv1.Opening.from_bytes(p.opening).card
                    for p in message.view.proofs
                    if p.opening
                }
                for event in shown:
                    for card in event.cards:
                        name = card_str(card)
                        if opened.get(name) != card:
                            self.problems.append(
                                f"v{update.version}: seat {viewer} has no opening of {name},"
                                f" shown by seat {event.seat}"
                            )

    def force(self, update: Update | None) -> None:
        pass

    def _record(self, update: Update) -> None:
        """The log's truth, kept by the version (the oracle's, and the chips' and hands'
        books)."""
        if update.version != len(self.truth.batches) + 1:
            return
        self.truth.add(update.events)
        for event in update.events:
            if isinstance(event, PlayerSeated):
                self.bought += event.stack
            elif isinstance(event, PlayerLeft):
                self.cashed += event.stack
            elif isinstance(event, ev.RakeTaken):
                self.raked += event.amount
            elif isinstance(event, HandCommitted):
                self.committed_at[event.hand_id] = self.clock.now
                self.open_hands.add(event.hand_id)
            elif isinstance(event, HandVoided):
                self.open_hands.discard(event.hand_id)
            elif isinstance(event, ev.HandStarted):
                self.current = event.hand_id
            elif isinstance(event, ev.HandEnded):
                self.open_hands.discard(self.current)

    def _sync(self) -> None:
        """Anything in the log not broadcast (folded at a reload) goes into the books too."""

        async def records() -> None:
            async for record in self.store.iter_records("t1", len(self.truth.batches) + 1):
                self._record(
                    Update(record.version, tuple(e for e, _ in decode_batch(record.payload)))
                )

        self._run(records())

    def _watch(self, runner: TableRunner) -> None:
        runner.subscribe(self)
        for player, presence in self.presence.items():
            runner.subscribe(presence, player)

    # --- the inputs ------------------------------------------------------------------------

    @initialize(
        variant=st.sampled_from([STUD_VARIANT, "dealers_choice"]),
        players=st.integers(2, len(SEATS)),
    )
    def open_table(self, variant: str, players: int) -> None:
        """The table opens with ``players`` seated (more sit down, leave and come back)."""

        async def go() -> TableRunner:
            runner = await TableRunner.load(
                "t1", self.store, self.dealer, self.config, clock=self.clock
            )
            self.runner = runner
            self._watch(runner)
            await runner.submit(
                lambda s: table.create_table(
                    s, name="t1", variant=variant, options=pacific_options(),
                    action_seconds=ACTION_SECONDS,
                    time_bank=TimeBankPolicy(seconds=BANK_SECONDS),
                ),
                request_id="open",
                actor="op",
            )  # fmt: skip
            for seat in SEATS[:players]:
                await runner.submit(
                    partial(table.seat_player, seat=seat, player=f"p{seat}", stack=1000),
                    request_id=f"seat-{seat}",
                    actor="op",
                )
            return runner

        self._run(go())

    @rule(seat=st.sampled_from(SEATS), stack=st.sampled_from([40, 1000]))
    def sit(self, seat: int, stack: int) -> None:
        self._submit(
            lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=stack),
            "op",
            "seat",
        )

    @rule(seat=st.sampled_from(SEATS), moved=st.booleans())
    def leave(self, seat: int, moved: bool) -> None:
        """A player leaves (now, or when their hand ends), or is moved to another table
        (between hands only)."""
        self._submit(
            lambda s: table.unseat_player(s, seat=seat, player=f"p{seat}", between_hands=moved),
            f"p{seat}",
            "unseat",
        )

    @rule(order=st.permutations(SEATS))
    def everyone_leaves(self, order: list[int]) -> None:
        """Every player leaves, one after the other (in a seed phase: the hand that hung)."""
        for seat in order:
            if self.live.state.seat_at(seat) is not None:
                self.leave(seat, False)

    @rule(seat=st.sampled_from(SEATS), out=st.booleans())
    def sit_out(self, seat: int, out: bool) -> None:
        change = table.sit_out if out else table.sit_in
        self._submit(lambda s: change(s, player=f"p{seat}"), f"p{seat}", "sit")

    @rule(seed=st.integers(0, 2**32 - 1))
    def act(self, seed: int) -> None:
        """A legal move of one of the seats the hand waits for (none: nothing happens)."""
        hand = self.live.state.hand
        if hand is None or hand.finished or not waiting_for(hand):
            return
        rng = random.Random(seed)
        seat = rng.choice(waiting_for(hand))
        command = _random_act(hand, seat, rng)
        runner = self.live
        self._submit(
            lambda s: table.act(
                s, command, runner.deck or (), hand.hand_id, bank_used=runner.bank_used(seat)
            ),
            f"p{seat}",
            "act",
        )

    @rule(seeds=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=8))
    def play(self, seeds: list[int]) -> None:
        """Several moves in a row, as a busy table makes them between two ticks."""
        for seed in seeds:
            self.act(seed)

    @rule(game=st.sampled_from(GAMES_CHOSEN))
    def choose(self, game: str) -> None:
        """The dealer at a dealer's choice table chooses the next game (else the clock does)."""
        state = self.live.state
        if not state.awaits_choice:
            return
        dealer = state.dealer
        self._submit(
            lambda s: choice.choose_game(s, seat=dealer, game=game, options=None),
            f"p{dealer}",
            "choose",
        )

    @rule(seats=st.lists(st.sampled_from(SEATS), max_size=4), honest=st.booleans())
    def seeds(self, seats: list[int], honest: bool) -> None:
        """CRV1: clients commit to their seeds, or reveal them (another one, if not honest),
        as the hand's seed phase asks; the seed phase's window passes or not meanwhile."""
        for seat in seats:
            pending = self.live.state.pending
            if pending is None:
                return
            phase = self.live.state.seed_phase
            mine = client_seed(seat) if honest else b"x" * 32
            hand_id = pending.hand_id
            decide: Callable[[TableState], list[AnyEvent]]
            if phase == "reveal":
                decide = partial(
                    table.send_seed, seat=seat, player=f"p{seat}", hand_id=hand_id, seed=mine
                )
            else:
                digest = crv1.seed_commitment(hand_id, seat, client_seed(seat))
                decide = partial(
                    table.commit_seed,
                    seat=seat,
                    player=f"p{seat}",
                    hand_id=hand_id,
                    commitment=digest,
                )
            self._submit(decide, f"p{seat}", "seed")

    @rule(seconds=st.sampled_from(TICKS))
    def wait(self, seconds: float) -> None:
        self._run(self.clock.advance(seconds))
        self.steps += 1

    @rule(clients=st.lists(st.sampled_from(SEATS), max_size=4))
    def next_timer(self, clients: list[int]) -> None:
        """Time moves on to the next thing scheduled (a pause's end, a seed phase's window,
        a clock, a bank), so that every phase between them is met; then the ``clients``
        answer a seed phase if one is open (honestly)."""
        due = self.clock.next_due()
        if due is not None:
            self.wait(max(0.0, due - self.clock.now))
        self.seeds(clients, True)

    @rule(seat=st.sampled_from(SEATS))
    def connect(self, seat: int) -> None:
        """A player opens a Watch stream, or closes the one open."""
        player = f"p{seat}"
        presence = self.presence.pop(player, None)
        if presence is None:
            presence = self.presence[player] = _Presence()
            self.live.subscribe(presence, player)
        else:
            self.live.unwatch(presence)

    @rule(paused=st.booleans())
    def pause(self, paused: bool) -> None:
        change = table.pause_dealing if paused else table.resume_dealing
        self._submit(lambda s: change(s, by="op"), "op", "pause")

    @precondition(lambda self: self.steps > STEPS // 2)
    @rule()
    def close(self) -> None:
        self._submit(lambda s: table.close_table(s, by="op"), "op", "close")

    @rule()
    def crash(self) -> None:
        """The service dies (its tasks with it) and the table is loaded again from its log."""

        async def go() -> None:
            old = self.live
            await old.close()
            await old.finish_reveals(0)
            await settle()
            runner = await TableRunner.load(
                "t1", self.store, self.dealer, self.config, clock=self.clock
            )
            self.runner = runner
            self.views = TableViews("t1")
            self._watch(runner)
            await runner.resume()
            await settle()

        self._run(go())
        self._sync()

    # --- the promises ----------------------------------------------------------------------

    @invariant()
    def ends(self) -> None:
        Lifecycle.checked += 1
        if self.runner is None:
            return
        self._sync()
        for hand_id in self.open_hands:
            late = self.clock.now - self.committed_at[hand_id]
            assert late <= BOUND, f"hand {hand_id} committed {late:.0f} s ago, not over"
        state = self.live.state
        hand = state.hand
        live = state.pending is not None or (hand is not None and not hand.finished)
        if live:
            assert self.clock.pending(), "a hand is in play and nothing will move it on"

    @invariant()
    def waits(self) -> None:
        if self.runner is None:
            return
        state = self.live.state
        hand = state.hand
        if hand is None or hand.finished:
            return
        for seat in waiting_for(hand):
            who = state.seat_at(seat)
            assert who is not None and who.player == hand.players[hand.seats.index(seat)], (
                f"the hand waits for seat {seat}, which is gone"
            )
            assert not who.leaving, f"the hand waits for seat {seat}, who asked to leave"

    @invariant()
    def chips(self) -> None:
        if self.runner is None:
            return
        state = self.live.state
        hand = state.hand
        at_table = sum(s.stack for s in state.seats)
        if hand is not None and not hand.finished:
            in_hand = set(hand.seats)
            at_table = sum(s.stack for s in state.seats if s.seat not in in_hand)
            at_table += sum(hand.stacks) + sum(hand.committed)
        assert at_table + self.cashed + self.raked == self.bought, (
            f"chips: {at_table} at the table + {self.cashed} cashed + {self.raked} raked"
            f" != {self.bought} bought in"
        )

    @invariant()
    def openings(self) -> None:
        assert not self.problems, self.problems[:5]

    @invariant()
    def leaks(self) -> None:
        assert not self.report.leaks, self.report.leaks[:5]

    def teardown(self) -> None:
        """Time alone must end every hand in play: players gone quiet are timed out."""
        try:
            if self.runner is not None:
                for _ in range(int(BOUND // 300) + 2):
                    self._run(self.clock.advance(300.0))
                self._sync()
                assert not [
                    h for h in self.open_hands if self.clock.now - self.committed_at[h] > BOUND
                ], f"hands never over: {sorted(self.open_hands)}"
                self._run(self.live.close())
        finally:
            for task in asyncio.all_tasks(self.loop):
                task.cancel()
            self.loop.run_until_complete(asyncio.sleep(0))
            self.loop.close()


def _check(machine: Lifecycle) -> None:
    machine.ends()
    machine.waits()
    machine.chips()
    machine.openings()
    machine.leaks()


@pytest.mark.parametrize("phase", ["commit", "reveal"])
def test_everyone_leaving_in_a_seed_phase_then_a_crash(phase: str) -> None:
    """The hand that hung for good: every player leaves in its seed phase (here with a
    restart right after), and the table must still void it and deal again later."""
    machine = Lifecycle()
    try:
        machine.open_table(STUD_VARIANT, 3)
        machine.next_timer([1] if phase == "reveal" else [])  # the pause: the hand is committed
        if phase == "reveal":
            machine.next_timer([])
            assert machine.live.state.seed_phase == "reveal"
        assert machine.live.state.pending is not None
        machine.everyone_leaves([2, 1, 3])
        _check(machine)
        machine.crash()
        _check(machine)
        for _ in range(4):
            machine.next_timer([])
            _check(machine)
        assert machine.live.state.pending is None and not machine.open_hands
        machine.sit(1, 1000)
        machine.sit(4, 1000)
        machine.wait(PAUSE)
        assert machine.live.state.pending is not None
    finally:
        machine.teardown()


def test_the_views_after_a_hand_voided_undealt_name_no_hand() -> None:
    """Found by the model (shrunk): a hand played out, the next one committed, everyone
    leaves in its seed phase and it is voided. The table then has no hand at all, and its
    views name none; the oracle took the hand before for the table's (a false leak)."""
    machine = Lifecycle()
    try:
        machine.open_table(STUD_VARIANT, 3)
        machine.choose("draw")
        machine.leave(1, False)
        machine.crash()
        machine.wait(300.0)
        machine.crash()
        machine.next_timer([])
        machine.next_timer([])
        machine.everyone_leaves([1, 2, 3, 4])
        _check(machine)
    finally:
        machine.teardown()


@pytest.mark.battery
def test_the_hand_lifecycle_keeps_its_promises_under_any_interleaving() -> None:
    Lifecycle.checked = 0
    run_state_machine_as_test(
        Lifecycle,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    print(f"\nlifecycle model: {EXAMPLES} runs, {Lifecycle.checked} steps checked")
