"""One table in the table service: its state, its log, its clock, its watchers.

Every change goes through :meth:`TableRunner.submit`, which (under the table's lock) checks the
request id, lets the pure table code decide the events, appends them as ONE message with
optimistic concurrency, and only then folds them into the in-memory state. A refused command
writes nothing. The in-memory state is always the fold of the log up to ``version``.

The log may hold more than that fold: another writer appended, or one of our appends got no
answer (a NATS outage) and was stored anyway. So an append whose outcome is unknown leaves the
table *in doubt* (the next command reads the log first), and every catch-up, failed append or
reconnection ends in :meth:`TableRunner.reconcile`: fold what the log holds, then re-derive from
that state what is due (the next deal, the clock, a reshuffle: the step
:func:`riverboat.table.lifecycle.due` names, which the runner executes). Background work
therefore never stalls on a conflict or an outage; while the log stays unreachable, reconciling
is retried with a capped backoff (riverboat.retrying's RECONCILE; a hand's failing step:
HAND_STEP).
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog

from riverboat.engine.commands import Reshuffle
from riverboat.engine.errors import EngineError
from riverboat.engine.events import (
    DiscardsReshuffled,
    HandEnded,
    HandStarted,
    ReshuffleRequested,
)
from riverboat.engine.state import HandState
from riverboat.eventcodec import GENESIS_HASH, chain_end, decode_batch, encode_chained_batch
from riverboat.eventstore import ConcurrencyError, EventStore, EventStoreError, StoredRecord
from riverboat.idempotency import RequestKey, RequestMemory
from riverboat.retrying import HAND_STEP, RECONCILE, SEED_REVEAL, RepeatedFailure
from riverboat.retrying import call as retry_call
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import DealerUnavailable
from riverboat.services.table.mailbox import Inbox, Mailbox, MailboxFull
from riverboat.services.table.ports import ALWAYS_HELD, Clock, Dealer, LoopClock, TableLease, Timer
from riverboat.services.table.proofs import HandProofs, deal_indices
from riverboat.table import aggregate as table
from riverboat.table import choice, lifecycle
from riverboat.table.aggregate import Decided, TableState
from riverboat.table.clock import act_for_leaver, clock_expiry
from riverboat.table.events import (
    AnyEvent,
    HandCommitted,
    HandVoided,
    LeaveRequested,
    PlayerLeft,
    PlayerTimedOut,
    TimeBankStarted,
    TimeBankUsed,
)

log = structlog.get_logger("riverboat.table")

#: Updates a watcher may fall behind before its stream is ended (it can resume from its last
#: version).
WATCH_BACKLOG = 10_000

Decider = Callable[[TableState], list[AnyEvent]]
#: What :meth:`TableRunner.submit` takes: a decider, or one that also gives the table its events
#: lead to (a hand's action, whose events the engine folded as it decided them: not folded
#: again here).
Deciding = Callable[[TableState], list[AnyEvent] | Decided]

#: Request keys remembered per table for answering retries without re-deciding.
_REQUEST_MEMORY = 50_000

#: The kind of the runner's own commands (deals, the clock, voids): their ids are derived
#: from the hand and version, so a second instance doing the same step is recognised.
INTERNAL = "internal"

#: The actor of the turns taken at once for players who asked to leave (not the clock's: no
#: clock ran, and the auditor replays them as the moves they are).
LEAVER = "service:table"


@dataclass(frozen=True, slots=True)
class Update:
    """One accepted command's events, as broadcast to watchers (unredacted: redact per viewer)."""

    version: int
    events: tuple[AnyEvent, ...]
    request_id: str = ""
    actor: str = ""
    occurred_at: datetime | None = None

    @classmethod
    def from_record(cls, record: StoredRecord) -> Update:
        """The update a stored log record holds (its events decoded, actor and time from the
        first event's envelope)."""
        pairs = decode_batch(record.payload)
        meta = pairs[0][1] if pairs else None
        return cls(
            record.version,
            tuple(e for e, _ in pairs),
            # The client's own id, as the live update carried it (the record's is the key).
            meta.request_id if meta else record.request_id,
            meta.actor if meta else "",
            meta.occurred_at if meta else record.recorded_at,
        )


@dataclass(frozen=True, slots=True)
class Submitted:
    """The outcome of a submitted command.

    ``left`` is, for a batch that takes a player off (``UnseatPlayer``), whether they leave
    when the hand ends (True) or left now (False) and the stack they hold or left with; it is
    worked out when the batch is folded, so a retry after a restart gets the same answer.
    """

    version: int
    duplicate: bool
    left: tuple[bool, int] | None = None


class LeaseNotHeld(RuntimeError):
    """This instance no longer owns the table (its lease expired or was handed over): it
    writes nothing more to the table's log."""


class TableRunner:
    """A live table. Create with :meth:`load`.

    Its ports: ``store`` (the log), ``dealer``, ``clock`` (the event loop's by default) and
    ``lease`` (whether this instance owns the table; always, by default). Nothing is written
    while the lease is not held, and no background work (deal, clock, reshuffle) starts.
    """

    def __init__(
        self,
        table_id: str,
        store: EventStore,
        dealer: Dealer,
        config: TableConfig,
        *,
        clock: Clock | None = None,
        lease: TableLease = ALWAYS_HELD,
    ) -> None:
        self.table_id = table_id
        self.store = store
        self.dealer = dealer
        self.config = config
        self.clock: Clock = clock or LoopClock()
        self.lease = lease
        self.state = TableState(table_id)
        self.version = 0
        self.deck: tuple[int, ...] | None = None
        #: The discards each reshuffle of this hand asked for, in order (draw): the deck is the
        #: committed deck followed by the dealer's permutation of each.
        self.reshuffles: list[tuple[int, ...]] = []
        self.commit_sequence = 0
        #: CRV1: the proofs of the hand in play (or last played), from the dealer's GetDeck.
        self.proofs: HandProofs | None = None
        #: The last committed hand's commitment and Merkle root, by hand id.
        self._commits: dict[str, tuple[bytes, bytes]] = {}
        #: CRV1: version -> {event index: dealing index} of the hand's CardDealt events.
        self.deal_indices: dict[int, dict[int, int]] = {}
        #: CRV1: set when every player to be dealt in has sent a client seed.
        self._seeds_in: asyncio.Event | None = None
        #: Hash of the last event in the log: the next batch chains to it (docs/audit.md).
        self.chain_hash = GENESIS_HASH
        self._lock = asyncio.Lock()
        self._requests: RequestMemory[Submitted] = RequestMemory(_REQUEST_MEMORY)
        self._watchers: set[Inbox[Update | None]] = set()
        #: Open Watch streams per player (a player with none is disconnected).
        self._watching: Counter[str] = Counter()
        self._watcher_of: dict[Inbox[Update | None], str] = {}
        #: When each turn now running on a time bank started, by this runner's clock (a
        #: restart starts it again: the log holds the grant, not the instant).
        self._bank_since: dict[int, float] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Seed reveals in flight: not cancelled by close() (a new owner reveals only the last
        #: ended hand, so a reveal cut off by a hand-over left a hand the audit cannot check).
        self._reveals: set[asyncio.Task[None]] = set()
        self._clock: Timer | None = None
        #: What the armed clock is for: re-deriving the same turn must not restart its clock.
        self._clock_for: tuple[str, int, tuple[int, ...]] | None = None
        #: An append got no answer: it may be in the log, so read the log before deciding.
        self._in_doubt = False
        self._reconcile_timer: Timer | None = None
        #: The log unreadable again and again: the backoff before reconciling again.
        self._reconcile_failures = RepeatedFailure(RECONCILE)
        #: The hand's next step failing again and again: its backoff, and what to report.
        self._step_failures = RepeatedFailure(HAND_STEP)
        self._dealing = False
        self._closed = False
        #: Handing the table over: no new hand starts; waiters learn when none is in play.
        self._handing_over = False
        self._between_hands: list[asyncio.Future[bool]] = []
        self.log = log.bind(table_id=table_id)

    # --- loading and catching up ---------------------------------------------------------

    @classmethod
    async def load(
        cls,
        table_id: str,
        store: EventStore,
        dealer: Dealer,
        config: TableConfig,
        *,
        clock: Clock | None = None,
        lease: TableLease = ALWAYS_HELD,
    ) -> TableRunner:
        """Rebuild the table by replaying its log."""
        runner = cls(table_id, store, dealer, config, clock=clock, lease=lease)
        async with runner._lock:
            await runner._catch_up()
        return runner

    async def _catch_up(self) -> list[Update]:
        """Fold records written after ``version`` (by us before a crash or an outage, or by
        another instance). Raises :class:`EventStoreError` if the log cannot be read (what was
        read before that is folded, broadcast and revealed all the same)."""
        loading = self.version == 0
        updates = []
        ended: list[tuple[str, int]] = []
        try:
            async for record in self.store.iter_records(self.table_id, self.version + 1):
                update = Update.from_record(record)
                ended += self._fold(
                    update.events, record.version, record.stream_sequence, record.request_id
                )
                self.chain_hash = chain_end(record.payload, self.chain_hash)
                updates.append(update)
            self._in_doubt = False
        finally:
            for update in updates:
                self._broadcast(update)
            # Loading a log, only its last finished hand may have missed its reveal (a crash
            # right after its end); every earlier one was revealed when it ended.
            self._reveal_ended(ended[-1:] if loading else ended)
        return updates

    def _fold(
        self,
        events: Sequence[AnyEvent],
        version: int,
        sequence: int,
        request_id: str,
        after: TableState | None = None,
    ) -> list[tuple[str, int]]:
        """Fold one record's events; returns the hands they ended (id, commitment sequence).
        ``after``: the table they lead to, when the deciding worked it out (then it is taken
        as it is, not folded again).

        Which hand an event ends is worked out event by event, from the events themselves:
        never the state after the whole record (or the whole log), which may be a later
        hand still in play whose seed must stay sealed.
        """
        hand = self.state.hand
        current = hand.hand_id if hand is not None else ""
        ended: list[tuple[str, int]] = []
        self.state = after if after is not None else table.fold(events, self.state)
        self._note_deal_indices(events, version)
        self.version = version
        self._remember(request_id, version, events)
        for event in events:
            if isinstance(event, HandCommitted):
                self.deal_indices = {}
                self._commits = {event.hand_id: (event.commitment, event.root)}
                self.commit_sequence = sequence
                self.deck = None
                self.reshuffles = []
                self.proofs = None
            elif isinstance(event, HandStarted):
                current = event.hand_id
            elif isinstance(event, HandEnded):
                self.deck = None
                ended.append((current, self.commit_sequence))
            elif isinstance(event, HandVoided):
                self.deck = None
                ended.append((event.hand_id, self.commit_sequence))
            elif isinstance(event, ReshuffleRequested):
                self.reshuffles.append(event.cards)
            elif isinstance(event, DiscardsReshuffled):
                self.deck = None  # fetched again with the reshuffled stub appended
            elif isinstance(event, TimeBankStarted):
                self._bank_since[event.seat] = self.clock.time()
            elif isinstance(event, TimeBankUsed | PlayerTimedOut):
                self._bank_since.pop(event.seat, None)
        if not self.state.banking:
            self._bank_since.clear()  # a hand's end or void ends every turn on a bank
        if self._seeds_in is not None and self._seeds_complete():
            # Everyone the seed phase waits for has answered, or left: it ends now.
            self._seeds_in.set()
        return ended

    def _note_deal_indices(self, events: Sequence[AnyEvent], version: int) -> None:
        """CRV1: each ``CardDealt``'s public dealing index, for the views (II.6)."""
        found = deal_indices(self.state, events)
        if found is not None:
            self.deal_indices[version] = found

    def _remember(self, stored: str, version: int, events: Sequence[AnyEvent]) -> None:
        """Remember the record's request key (``stored``: see :meth:`RequestKey.stored`) with
        the original result, as folding it finds it."""
        parsed = RequestKey.parse(stored)
        key, fp = parsed or (RequestKey("", "", stored), "")  # a record from before keys
        left = None
        for event in events:
            if isinstance(event, LeaveRequested):
                seat = self.state.seat_at(event.seat)
                left = (True, seat.stack if seat is not None else 0)
            elif isinstance(event, PlayerLeft) and key.kind == "unseat":
                left = (False, event.stack)
        self._requests.remember(key, fp, Submitted(version, True, left))

    # --- commands ------------------------------------------------------------------------

    def recall(self, key: RequestKey, fingerprint: str) -> Submitted | None:
        """The original outcome of ``key`` if it was accepted before (with the same command),
        else None.

        Raises:
            RequestClash: ``key`` was used for a different command (nothing is done).
        """
        return self._requests.recall(key, fingerprint, f"table {self.table_id}")

    async def submit(
        self,
        decide: Deciding,
        *,
        request_id: str,
        actor: str,
        kind: str = INTERNAL,
        fingerprint: str = "",
    ) -> Submitted:
        """Decide and append one command; see the module docstring.

        The command is known by its key ``(kind, actor, request_id)`` and ``fingerprint``
        (:mod:`riverboat.idempotency`): a key seen before with the same fingerprint returns
        the original outcome, with another one raises :class:`RequestClash`.

        Raises the deciding code's errors (nothing written), or :class:`ConcurrencyError` if
        another writer got there first (the state is then caught up, and nothing of ours
        written).
        """
        key = RequestKey(kind, actor, request_id)
        stored = key.stored(fingerprint)
        async with self._lock:
            # An earlier append may have landed after all: decide on what the log holds.
            if self._in_doubt and await self._catch_up():
                self._reconcile_soon()
            known = self.recall(key, fingerprint)
            if known is not None:
                return known
            decided = decide(self.state)
            if isinstance(decided, Decided):
                events, after = decided.events, decided.state
            else:
                events, after = decided, None
            if not events:
                return Submitted(self.version, False)
            if not self.lease.held:
                # The owner's check before every write; the optimistic append stays the last
                # line of defence should two instances ever both believe they own the table.
                raise LeaseNotHeld(f"table {self.table_id} is not owned here")
            version = self.version + 1
            now = datetime.now(UTC)
            payload, chain_hash = encode_chained_batch(
                events,
                aggregate_id=self.table_id,
                version=version,
                request_id=request_id,
                actor=actor,
                occurred_at=now,
                previous_hash=self.chain_hash,
            )
            try:
                result = await self.store.append(
                    self.table_id, payload, expected_version=self.version, request_id=stored
                )
            except ConcurrencyError:
                await self._catch_up()
                # What is due follows from the state caught up to, not from the refused command.
                self._reconcile_soon()
                raise
            except EventStoreError:
                # No answer, or no connection: the events may be stored (now, or when the client
                # resends what it buffered). The caller retries with the same request id.
                self._in_doubt = True
                self._reconcile_soon(self._reconcile_failures.pending)
                raise
            if result.duplicate:
                # Written before by us or by another instance: the log is the truth.
                await self._catch_up()
                self._reconcile_soon()
                return self.recall(key, fingerprint) or Submitted(result.version, True)
            ended = self._fold(events, result.version, result.stream_sequence, stored, after)
            self.chain_hash = chain_hash
            update = Update(result.version, tuple(events), request_id, actor, now)
            done = self.recall(key, fingerprint)
        self._broadcast(update)
        self._reveal_ended(ended)
        self._log_update(update, actor)
        self.after_change()
        left = done.left if done is not None else None
        return Submitted(result.version, False, left)

    def _log_update(self, update: Update, actor: str) -> None:
        hand = self.state.hand
        kinds = [type(e).__name__ for e in update.events]
        # Event kinds only: never card values (hidden cards must not reach a log line).
        # Debug: one line per action would cost a busy table more than the action itself.
        self.log.debug(
            "table_update",
            version=update.version,
            hand_id=hand.hand_id if hand is not None else None,
            actor=actor,
            events=len(kinds),
            first=kinds[0],
        )

    async def act(
        self,
        decide: Deciding,
        *,
        request_id: str,
        actor: str,
        kind: str = INTERNAL,
        fingerprint: str = "",
    ) -> Submitted:
        """Submit a hand action, making sure this instance holds the hand's deck first."""
        await self._ensure_deck()
        return await self.submit(
            decide, request_id=request_id, actor=actor, kind=kind, fingerprint=fingerprint
        )

    async def _ensure_deck(self) -> None:
        hand = self.state.hand
        needs = self.state.pending is not None or (hand is not None and not hand.finished)
        if needs and self.deck is None and self.commit_sequence:
            if self.state.needs_seeds:
                return  # CRV1: the deal's order exists once the seeds are locked
            if self.state.undealable:
                return  # never dealt: it is voided (_voided_undealt)
            pending = self.state.pending
            hand_id = pending.hand_id if pending is not None else hand.hand_id  # type: ignore[union-attr]
            locked = self.state.locked
            seeds = locked.seeds if locked is not None and locked.hand_id == hand_id else ()
            if seeds:
                deck, openings = await self.dealer.get_dealt(
                    self.table_id, hand_id, self.commit_sequence, seeds
                )
                proofs = HandProofs.of(hand_id, self._commits[hand_id], deck, openings)
            else:
                deck = await self.dealer.get_deck(self.table_id, hand_id, self.commit_sequence)
                proofs = None
            # Reshuffles already made (one still awaited is made by _reshuffle).
            done = len(self.reshuffles) - (1 if lifecycle.awaits_reshuffle(hand) else 0)
            for round_, cards in enumerate(self.reshuffles[:done], start=1):
                stub = await self.dealer.reshuffle(
                    self.table_id, hand_id, round_, cards, seeds, self.commit_sequence
                )
                deck += stub
                if proofs is not None:
                    proofs.add_round(stub)
            self.deck = deck
            self.proofs = proofs

    # --- the hand's life: dealing, the clock, the reveal ---------------------------------

    def after_change(self) -> None:
        """Schedule what follows from the current state: the step
        :func:`riverboat.table.lifecycle.due` names (the next deal, a reshuffle, a leaver's
        turn, the action clock, a close), executed here."""
        if self._closed or not self.lease.held:
            return
        if self._handing_over and self.between_hands():
            self._wake_hand_over()
            return
        step = lifecycle.due(
            self.state,
            self.clock.time(),
            bank_since=self._bank_since,
            pause=self.config.hand_pause,
            auto_deal=self.config.auto_deal,
        )
        match step:
            case lifecycle.DealPending(hand_id=hand_id, void=reason) if (
                reason and not self._dealing
            ):
                # Never dealable now (everyone left, say): voided at once, no seed phase waited.
                self._spawn(self._void_undealt(hand_id))
            case lifecycle.DealPending() if not self._dealing:
                self._spawn(self._deal_pending())
            case lifecycle.Reshuffle(hand_id=hand_id):
                self._spawn(self._reshuffle(hand_id, self.version))
            case lifecycle.ActForLeaver(hand_id=hand_id):
                # A player who asked to leave is not waited for: no clock, no time bank.
                self._spawn(self._act_for_leaver(hand_id, self.version))
            case lifecycle.RunClock(hand_id=hand_id, seats=seats, at=at):
                self._arm_clock(hand_id, self.version, seats, at)
            case lifecycle.CloseTable():
                self._spawn(self._finish_close())
            case lifecycle.StartHand() if not self._dealing:
                self._spawn(self._start_hand(delay=self.config.hand_pause))

    def between_hands(self) -> bool:
        """No hand is committed, in play or being started: the table can change owner."""
        hand = self.state.hand
        return self.state.pending is None and (hand is None or hand.finished) and not self._dealing

    async def hand_over(self, patience: float) -> bool:
        """Start no new hand; wait (at most ``patience`` seconds) until none is in play.

        Returns True if the table is between hands, False if a hand is still in play after
        ``patience`` (its next owner resumes it with the same committed deck).
        """
        self._handing_over = True
        if self.between_hands():
            return True
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._between_hands.append(waiter)

        def give_up() -> None:
            if not waiter.done():
                waiter.set_result(self.between_hands())

        timer = self.clock.call_later(patience, give_up)
        try:
            return await waiter
        finally:
            timer.cancel()

    @property
    def closed(self) -> bool:
        """:meth:`close` was called."""
        return self._closed

    def cancel_hand_over(self) -> None:
        """Keep the table after all: deal again as usual."""
        self._handing_over = False
        self._wake_hand_over()
        self.after_change()

    async def settle(self) -> None:
        """Wait for the command being decided or appended, if any, to finish."""
        async with self._lock:
            pass

    def _wake_hand_over(self) -> None:
        for waiter in self._between_hands:
            if not waiter.done():
                waiter.set_result(True)
        self._between_hands.clear()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start_hand(self) -> None:
        """Commit and deal the next hand now (used by tests and operators)."""
        await self._start_hand(delay=0.0)

    async def _start_hand(self, *, delay: float) -> None:
        if self._dealing:
            return
        self._dealing = True
        # Whether a retry is already scheduled (the reconcile timer re-derives what is due).
        retrying = False
        try:
            if delay:
                await self.clock.sleep(delay)
            # CRV1: after the commitment, two seed phases (docs/shuffle.md II.4): clients
            # commit to their seeds, then reveal them; each cut short once all have answered,
            # and never absent, also with no pause (else every seed would be drawn).
            window = self.config.seed_phase_seconds(delay)
            if self._handing_over or not self.lease.held or not self.state.can_start_hand():
                return
            if self.state.needs_dealer():
                # Dealer's choice: call the dealer; unless the pot rode, they choose first.
                await self.submit(
                    choice.call_dealer,
                    request_id=f"dealer-{self.table_id}-{self.version + 1}",
                    actor="service:table",
                )
            if self.state.choosing or self.state.needs_dealer():
                return  # the dealer's choice (or their clock) brings us back here
            hand_id = f"{self.table_id}-{self.version + 1}"
            commitment = await self.dealer.commit_hand(self.table_id, hand_id)
            await self.submit(
                lambda s: table.commit_hand(
                    s,
                    hand_id=hand_id,
                    scheme=commitment.scheme,
                    commitment=commitment.commitment,
                    deck_size=commitment.deck_size,
                    root=commitment.root,
                ),
                request_id=f"commit-{hand_id}",
                actor="service:table",
            )
            # One line per hand (not per action): which instance dealt it, for the record.
            self.log.info("hand_committed", hand_id=hand_id, version=self.version)
            await self._gather_seeds(window)
            await self._deal()
            self._step_succeeded()
        except (EngineError, ConcurrencyError) as exc:
            # Another instance dealt first, or players left meanwhile: nothing to do.
            self.log.info("hand_not_started", reason=str(exc))
        except EventStoreError as exc:
            self.log.warning("hand_not_started", reason=str(exc))  # submit() reconciles later
            retrying = True
        except DealerUnavailable as exc:
            self._step_failed("dealer_unavailable", exc)  # try the next deal again later
            retrying = True
        except LeaseNotHeld:
            self.log.info("hand_not_started", reason="the table is not owned here")
        except Exception as exc:
            self._step_failed("hand_start_failed", exc)
            retrying = True
        finally:
            self._done_dealing(retrying)

    def _step_failed(self, what: str, exc: BaseException) -> None:
        """The hand's next step failed: try it again after a backoff that grows while it keeps
        failing the same way, and say so once (then only at the 2nd, 4th, 8th... failure in a
        row), not at every try: a cause that stays must not flood the log."""
        # One cause is one run, whichever step met it (starting a hand, or dealing it).
        retry = self._step_failures.failed(f"{type(exc).__name__}: {exc}")
        if retry.report:
            self.log.error(
                what,
                reason=str(exc) or type(exc).__name__,
                failures=retry.count,
                retry_in=retry.delay,
                exc_info=retry.count == 1 and not isinstance(exc, DealerUnavailable),
            )
        self._reconcile_soon(retry.delay)

    def _step_succeeded(self) -> None:
        """The hand's next step went through: a run of failures before it is over."""
        failures = self._step_failures.succeeded()
        if failures:
            self.log.info("hand_step_recovered", failures=failures)

    async def _deal_pending(self) -> None:
        """A hand was committed but not dealt (e.g. we crashed in between): deal it now."""
        if self._dealing:
            return
        self._dealing = True
        retrying = False
        try:
            # After a restart in the seed phases: they go on, for the shortest window.
            await self._gather_seeds(self.config.min_seed_window)
            await self._deal()
            self._step_succeeded()
        except DealerUnavailable as exc:
            self.log.error("dealer_unavailable", reason=str(exc))
            await self._void("the dealer could not be reached to resume the hand")
        except (EngineError, ConcurrencyError, LeaseNotHeld) as exc:
            self.log.info("deal_skipped", reason=str(exc))
        except EventStoreError as exc:
            self.log.warning("deal_skipped", reason=str(exc))  # submit() reconciles later
            retrying = True
        except Exception as exc:
            self._step_failed("deal_failed", exc)
            retrying = True
        finally:
            self._done_dealing(retrying)

    def _done_dealing(self, retrying: bool) -> None:
        """A deal (or a start) is over, however it went. What it wrote ran :meth:`after_change`
        while it was still dealing, which therefore started nothing: a hand that ended in its
        own deal, or a deal voided, must still be followed by the next one. So what is due is
        derived again now, unless a retry is already scheduled (which derives it then)."""
        self._dealing = False
        if retrying:
            if self._handing_over and self.between_hands():
                self._wake_hand_over()
            return
        self.after_change()

    async def _finish_close(self) -> None:
        """The hand a close waited for is over: close the table now (every seated player
        leaves with their chips), for whoever asked."""
        closing = self.state.closing
        if closing is None:
            return
        try:
            await self.submit(
                lambda s: table.close_table(s, by=closing.by, reason=closing.reason),
                request_id=f"close-{self.table_id}-{self.version}",
                actor="service:table",
            )
            self.log.info("table_closed", by=closing.by)
        except (EngineError, ConcurrencyError, LeaseNotHeld) as exc:
            self.log.info("close_skipped", reason=str(exc))  # submit() reconciles a conflict
        except EventStoreError as exc:
            self.log.warning("close_skipped", reason=str(exc))  # submit() reconciles later

    def _seeds_complete(self) -> bool:
        """CRV1: every client the current seed phase waits for has answered (in the commit
        phase every player to be dealt in; in the reveal phase, each of those who committed)."""
        state = self.state
        ready = {s.seat for s in state.ready_players()}
        if state.seed_phase == "commit":
            return ready <= set(state.seed_commits)
        if state.seed_phase == "reveal" and state.commits_locked is not None:
            committed = {seat for seat, _, _ in state.commits_locked.commits}
            return ready & committed <= set(state.client_seeds)
        return True

    async def _gather_seeds(self, seconds: float) -> None:
        """CRV1's seed phases, from wherever the hand is: wait for the commitments (or
        ``seconds``), lock them; wait for the seeds committed to (or ``seconds``). The lock
        itself is :meth:`_deal`'s."""
        pending = self.state.pending
        if pending is None:
            return
        if self.state.seed_phase == "commit":
            await self._seed_phase(seconds)
            if await self._voided_undealt(pending.hand_id):
                return
            await self.submit(
                table.lock_seed_commits,
                request_id=f"commits-{pending.hand_id}",
                actor="service:table",
            )
        if self.state.seed_phase == "reveal":
            await self._seed_phase(seconds)

    async def _void_undealt(self, hand_id: str) -> None:
        """The lifecycle's void of a committed hand that can no longer be dealt."""
        try:
            await self._voided_undealt(hand_id)
        except (EngineError, ConcurrencyError, LeaseNotHeld) as exc:
            self.log.info("void_skipped", hand_id=hand_id, reason=str(exc))
        except EventStoreError as exc:
            self.log.warning("void_skipped", hand_id=hand_id, reason=str(exc))  # reconciled later

    async def _voided_undealt(self, hand_id: str) -> bool:
        """Void the committed hand ``hand_id`` if the rules say it can no longer be dealt
        (``TableState.undealable``: everyone left in its seed phases, say); True if it is no
        longer the hand awaiting its deal (voided now or before)."""
        reason = self.state.undealable
        if reason:
            await self.submit(
                table.void_undealt, request_id=f"undealt-{hand_id}", actor="service:table"
            )
            self.log.info("hand_voided", hand_id=hand_id, reason=reason)
        pending = self.state.pending
        return pending is None or pending.hand_id != hand_id

    async def _seed_phase(self, seconds: float) -> None:
        """Wait until every client the seed phase waits for answered, or ``seconds`` passed."""
        event = self._seeds_in = asyncio.Event()
        if self._seeds_complete():
            self._seeds_in = None
            return
        timer = self.clock.call_later(seconds, event.set)
        try:
            await event.wait()
        finally:
            timer.cancel()
            self._seeds_in = None

    async def _deal(self) -> None:
        pending = self.state.pending
        if pending is None or await self._voided_undealt(pending.hand_id):
            return
        if self.state.seed_phase == "reveal":
            # Lock the seeds: each player's own, else the seat's derived one (the lock says
            # which; nobody here chooses it).
            await self.submit(
                table.lock_seeds,
                request_id=f"lock-{pending.hand_id}",
                actor="service:table",
            )
        await self._ensure_deck()
        deck = self.deck
        if deck is None:
            # Undealable now (the players left since the lock): voided, never dealt.
            await self._voided_undealt(pending.hand_id)
            return
        await self.submit(
            lambda s: table.deal_hand(s, deck),
            request_id=f"deal-{pending.hand_id}",
            actor="service:table",
        )

    async def resume(self) -> None:
        """After a restart: fetch the deck of a hand in progress and restart its clock."""
        hand = self.state.hand
        if self.state.pending is not None or (hand is not None and not hand.finished):
            try:
                await self._ensure_deck()
            except DealerUnavailable:
                await self._void("the dealer could not be reached to resume the hand")
                return
        self.after_change()

    async def _void(self, reason: str) -> None:
        try:
            hand_id = (
                self.state.pending.hand_id
                if self.state.pending
                else (self.state.hand.hand_id if self.state.hand else "none")
            )
            await self.submit(
                lambda s: table.void_hand(s, reason),
                request_id=f"void-{hand_id}",
                actor="service:table",
            )
            self.log.warning("hand_voided", hand_id=hand_id, reason=reason)
        except (EngineError, ConcurrencyError, EventStoreError, LeaseNotHeld) as exc:
            self.log.info("void_skipped", reason=str(exc))

    async def _reshuffle(self, hand_id: str, version: int) -> None:
        """A draw ran out of cards: the dealer shuffles the discards asked for (derived from
        the hand's sealed seed, so auditors can check it) and they become the new stub."""
        try:
            await self._ensure_deck()
            hand = self.state.hand
            if self.version != version or not lifecycle.awaits_reshuffle(hand):
                return
            assert isinstance(hand, HandState) and self.deck is not None
            round_ = len(self.reshuffles)
            locked = self.state.locked
            seeds = locked.seeds if locked is not None and locked.hand_id == hand_id else ()
            cards = await self.dealer.reshuffle(
                self.table_id, hand_id, round_, hand.reshuffle_cards, seeds, self.commit_sequence
            )
            proofs = self.proofs
            if proofs is not None and proofs.hand_id == hand_id and len(proofs.rounds) < round_:
                proofs.add_round(cards)  # (a retry after a refused append adds it once)
            deck = self.deck
            await self.submit(
                lambda s: table.act(s, Reshuffle(cards), deck, hand_id),
                request_id=f"reshuffle-{hand_id}-{round_}",
                actor="service:table",
            )
        except (EngineError, ConcurrencyError, LeaseNotHeld) as exc:
            self.log.info("reshuffle_skipped", hand_id=hand_id, reason=str(exc))
        except EventStoreError as exc:
            self.log.warning("reshuffle_skipped", hand_id=hand_id, reason=str(exc))
        except DealerUnavailable as exc:
            self.log.error("dealer_unavailable", reason=str(exc))
            await self._void("the dealer could not be reached to reshuffle")
        except Exception:
            self.log.exception("reshuffle_failed", hand_id=hand_id)

    def bank_used(self, seat: int) -> int:
        """Whole seconds the turn of ``seat`` has run on its time bank (0: not on one)."""
        since = self._bank_since.get(seat)
        if since is None or seat not in self.state.banking:
            return 0
        return max(0, math.ceil(self.clock.time() - since))

    def _banks_due(self) -> frozenset[int]:
        """Seats whose turn on a time bank has run all its seconds."""
        return lifecycle.banks_due(self.state, self.clock.time(), self._bank_since)

    def connected(self, player: str) -> bool:
        """``player`` has a Watch stream open."""
        return self._watching[player] > 0

    def _disconnected(self) -> frozenset[str]:
        return frozenset(s.player for s in self.state.seats if not self.connected(s.player))

    def _arm_clock(self, hand_id: str, version: int, seats: tuple[int, ...], at: float) -> None:
        # A timer, not a task, per decision: re-armed on every action of a busy table, it must
        # be cheap, and cancelling it never interrupts a clock action already under way.
        turn = (hand_id, version, seats)
        if self._clock is not None:
            if self._clock_for == turn:
                return  # re-derived after a catch-up: this turn's clock keeps running
            self._clock.cancel()
        self._clock_for = turn
        delay = max(0.0, at - self.clock.time())
        self._clock = self.clock.call_later(delay, self._clock_due, hand_id, version, seats)

    def _clock_due(self, hand_id: str, version: int, seats: tuple[int, ...]) -> None:
        self._clock = None
        self._clock_for = None
        if not self._closed and self.version == version and self.lease.held:
            # (else someone acted in time, or the table is no longer ours)
            self._spawn(self._clock_expiry(hand_id, version, seats))

    async def _clock_expiry(self, hand_id: str, version: int, seats: tuple[int, ...]) -> None:
        """Nobody acted in time: the clock acts for every seat still waited for (a dealer's
        choice takes the table's default game)."""
        stale: list[bool] = []

        def unchanged(decide: Decider) -> Decider:
            # Decided under the table's lock: if anyone acted since the timer fired (the
            # deck fetch and the lock are waits), this clock is stale and does nothing;
            # acting on the seats it was armed for would time out a turn already taken.
            def decided(state: TableState) -> list[AnyEvent]:
                if self.version != version:
                    stale.append(True)
                    return []
                return decide(state)

            return decided

        try:
            if not hand_id:
                await self.submit(
                    unchanged(lambda s: choice.time_out_choice(s, seat=seats[0])),
                    request_id=f"clock-choice-{self.table_id}-{version}",
                    actor="clock",
                )
                return
            # What the clock's timer measured and who is connected are inputs, recorded in
            # the events (riverboat.table.clock), so the decision replays.
            due, gone = self._banks_due(), self._disconnected()
            done = await self.act(
                unchanged(
                    lambda s: clock_expiry(
                        s, seats, self.deck or (), hand_id, due=due, disconnected=gone
                    )
                ),
                request_id=f"clock-{hand_id}-{version}",
                actor="clock",
            )
            if stale:
                return  # whoever acted meanwhile armed the clock for what is due now
            if done.version == version:
                # Nothing was due after all (a bank with time left): arm the clock again.
                self.after_change()
                return
            self.log.info("clock_expired", hand_id=hand_id, seats=list(seats))
        except (EngineError, ConcurrencyError, LeaseNotHeld) as exc:
            self.log.info("clock_skipped", hand_id=hand_id, reason=str(exc))
        except EventStoreError as exc:
            self.log.warning("clock_skipped", hand_id=hand_id, reason=str(exc))
        except DealerUnavailable as exc:
            self.log.error("dealer_unavailable", reason=str(exc))
            self._reconcile_soon(self._reconcile_failures.pending)

    async def _act_for_leaver(self, hand_id: str, version: int) -> None:
        """The hand waits for a player who asked to leave: take their turn now, as the rules
        say (:func:`riverboat.table.clock.act_for_leaver`); the next turn is derived again
        from what that writes."""

        def decided(state: TableState) -> list[AnyEvent]:
            if self.version != version:
                return []  # someone acted meanwhile, and re-derived what is due
            deck = self.deck or ()
            return act_for_leaver(state, deck, hand_id, bank_used=self.bank_used)

        try:
            await self.act(decided, request_id=f"leaver-{hand_id}-{version}", actor=LEAVER)
        except (EngineError, ConcurrencyError, LeaseNotHeld) as exc:
            self.log.info("leaver_turn_skipped", hand_id=hand_id, reason=str(exc))
        except EventStoreError as exc:
            self.log.warning("leaver_turn_skipped", hand_id=hand_id, reason=str(exc))
        except DealerUnavailable as exc:
            self.log.error("dealer_unavailable", reason=str(exc))
            self._reconcile_soon(self._reconcile_failures.pending)

    # --- watchers --------------------------------------------------------------------------

    def watch(self, player: str | None = None) -> Mailbox[Update | None]:
        """A mailbox receiving every update from now on (None when the table closes, or when
        the watcher fell :data:`WATCH_BACKLOG` updates behind). ``player``: whose stream it
        is (for the disconnect protection); None for an observer."""
        mailbox = Mailbox[Update | None](WATCH_BACKLOG)
        self.subscribe(mailbox, player)
        return mailbox

    def subscribe(self, inbox: Inbox[Update | None], player: str | None = None) -> None:
        """Like :meth:`watch`, into an inbox of the caller's (a Play stream's mailbox, which
        also carries its actions' outcomes)."""
        self._watchers.add(inbox)
        if player is not None:
            self._watching[player] += 1
            self._watcher_of[inbox] = player

    def unwatch(self, mailbox: Inbox[Update | None]) -> None:
        """Stop sending updates to ``mailbox``."""
        self._watchers.discard(mailbox)
        player = self._watcher_of.pop(mailbox, None)
        if player is not None:
            self._watching[player] -= 1
            if self._watching[player] <= 0:
                del self._watching[player]

    def _broadcast(self, update: Update) -> None:
        for mailbox in list(self._watchers):
            try:
                mailbox.put_nowait(update)
            except MailboxFull:
                # A watcher this far behind is dropped; it can resume from its last version.
                self._watchers.discard(mailbox)
                mailbox.force(None)

    def _reveal_ended(self, ended: list[tuple[str, int]]) -> None:
        """Once a hand is over (played out or voided) its seed goes to the auditors; only
        hands the log shows ended are ever asked for (the dealer refusing one still in play
        is the second line of defence, not the first)."""
        for hand_id, commit_sequence in ended:
            if hand_id:
                task = asyncio.ensure_future(self._reveal(hand_id, commit_sequence))
                self._reveals.add(task)
                task.add_done_callback(self._reveals.discard)

    async def _reveal(self, hand_id: str, commit_sequence: int) -> None:
        """Ask until the dealer answers: its reveal is idempotent, and a hand whose seed never
        reaches the auditors cannot be checked. A background task: the table deals on."""

        def retried(exc: BaseException, pause: float, failures: int) -> None:
            self.log.warning("seed_reveal_retry", hand_id=hand_id, reason=str(exc), retry_in=pause)

        await retry_call(
            lambda: self.dealer.reveal_seed(self.table_id, hand_id, commit_sequence),
            SEED_REVEAL,
            transient=lambda exc: True,
            on_retry=retried,
            sleep=self.clock.sleep,
        )

    # --- reconciling with the log ---------------------------------------------------------

    def reconcile_soon(self) -> None:
        """Run :meth:`reconcile` at once, in the background (e.g. NATS reconnected)."""
        self._reconcile_soon()

    def _reconcile_soon(self, delay: float = 0.0) -> None:
        """Have :meth:`reconcile` run in ``delay`` seconds (or sooner, if already due sooner).

        A timer rather than a direct call: the caller may hold the lock or be a background task
        that has yet to clear ``_dealing``; by the time the timer fires it has.
        """
        if self._closed:
            return
        timer = self._reconcile_timer
        if timer is not None:
            if timer.when() <= self.clock.time() + delay:
                return
            timer.cancel()
        self._reconcile_timer = self.clock.call_later(delay, self._reconcile_due)

    def _reconcile_due(self) -> None:
        self._reconcile_timer = None
        if not self._closed:
            self._spawn(self.reconcile())

    async def reconcile(self) -> None:
        """Fold whatever the log holds beyond ``version``, then re-derive what is due.

        Called after a conflict, a failed append, a failed deal, and (by the registry) when the
        NATS connection comes back. If the log cannot be read, it tries again after a backoff.
        """
        if self._closed:
            return
        try:
            async with self._lock:
                await self._catch_up()
        except EventStoreError as exc:
            retry = self._reconcile_failures.failed("log unreadable")
            self.log.warning("reconcile_failed", reason=str(exc), retry_in=retry.delay)
            self._reconcile_soon(retry.delay)
            return
        self._reconcile_failures.succeeded()
        self.after_change()

    async def external_change(self, version: int = 0) -> None:
        """Another writer appended to this table: fold what we have not seen.

        ``version`` is the one the nudge announced; our own appends announce themselves too,
        and once under the lock they are usually folded already, so no read is needed.
        """
        async with self._lock:
            if version and version <= self.version:
                return
            updates = await self._catch_up()
        if updates:
            self.after_change()

    @property
    def revealing(self) -> bool:
        """A seed reveal is in flight."""
        return bool(self._reveals)

    async def finish_reveals(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) for the seed reveals in flight, then cancel the
        rest (the auditor's copy can be fetched again later)."""
        pending = set(self._reveals)
        if not pending:
            return
        _, late = await asyncio.wait(pending, timeout=timeout)
        for task in late:
            task.cancel()
        if late:
            self.log.warning("seed_reveals_cut_off", count=len(late))

    async def close(self) -> None:
        """Stop timers and background work (seed reveals go on: see :meth:`finish_reveals`);
        end watch streams."""
        self._closed = True
        if self._clock is not None:
            self._clock.cancel()
        if self._reconcile_timer is not None:
            self._reconcile_timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        for mailbox in list(self._watchers):
            mailbox.force(None)
        self._watchers.clear()
        for waiter in self._between_hands:
            if not waiter.done():
                waiter.set_result(self.between_hands())
        self._between_hands.clear()
