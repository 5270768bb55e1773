"""A small async client of the table service, and a bot that plays through it.

Bots use exactly the API a third-party client uses: they watch the table, and when the view
lists legal actions for them (their turn, a simultaneous phase they owe, or the dealer's choice
of game) they pick one and send ``Act``: betting through a :data:`Chooser`, every other move
(choose_game, draw, pass, declare...) through a :data:`Picker` that reads the view's cards.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import random
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from riverboat import retrying
from riverboat.engine.betting import LegalAction
from riverboat.proofcheck import CardCheck, CardChecker, Verdict
from riverboat.redirect import no_owner_delay
from riverboat.routing import Channels, Connect, call_owner
from riverboat.rpcstatus import retry_delay
from riverboat.shuffle import crv1
from riverboat.table.aggregate import COMMIT_SEED, SEED
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc

T = TypeVar("T")


class TableClient:
    """Calls the table service with one bearer token; ``name`` labels its request ids.

    ``channel`` reaches any table-service instance. A call about a table goes to that table's
    owner once known (:meth:`set_owner`, or the last redirect followed); an instance that does
    not own it answers ``NOT_OWNER`` and the call is sent again, once, to the owner it names
    (the same request, so the same request id), over a channel ``connect`` opens; ``NO_OWNER``
    is waited out up to ``no_owner_budget`` seconds (see :mod:`riverboat.routing`).
    :meth:`close` closes the channels it opened.
    """

    def __init__(
        self,
        channel: grpc.aio.Channel,
        token: str,
        name: str = "",
        *,
        connect: Connect | None = None,
        no_owner_budget: float | None = None,
    ) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        self.player = name
        self.metadata: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {token}"),)
        self.no_owner_budget = no_owner_budget
        self._channels = Channels(connect)
        self._stubs: dict[str, table_pb2_grpc.TableServiceStub] = {}
        self._owners: dict[str, str] = {}  # table id -> its owner's address, where known

    def set_owner(self, table_id: str, address: str) -> None:
        """Send ``table_id``'s calls to ``address`` (a lobby record's ``owner_address``)."""
        if address:
            self._owners[table_id] = address
        else:
            self._owners.pop(table_id, None)

    def owner(self, table_id: str) -> str:
        """Where ``table_id``'s calls go ("": the channel given at construction)."""
        return self._owners.get(table_id, "")

    def stub_at(self, address: str) -> table_pb2_grpc.TableServiceStub:
        """The stub for ``address`` ("": the channel given at construction)."""
        if not address:
            return self.stub
        stub = self._stubs.get(address)
        if stub is None:
            channel = self._channels.get(address)
            stub = self._stubs[address] = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        return stub

    async def close(self) -> None:
        """Close the channels opened to owners (not the one given)."""
        self._stubs.clear()
        await self._channels.close()

    async def _owned(
        self, table_id: str, send: Callable[[table_pb2_grpc.TableServiceStub], Awaitable[T]]
    ) -> T:
        """``send`` to the table's owner, following one redirect (riverboat.routing)."""
        start = self.owner(table_id)
        try:
            reply, address = await call_owner(
                lambda address: send(self.stub_at(address)),
                start,
                no_owner_budget=self.no_owner_budget,
            )
        except grpc.aio.AioRpcError as exc:
            if start and exc.code() is grpc.StatusCode.UNAVAILABLE:
                self._owners.pop(table_id, None)  # that owner is gone: ask anyone next time
            raise
        self.set_owner(table_id, address)
        return reply

    async def _unary(
        self, table_id: str, method: str, request: Message, timeout: float | None = None
    ) -> Any:
        return await self._owned(
            table_id,
            lambda stub: getattr(stub, method)(request, metadata=self.metadata, timeout=timeout),
        )

    async def create_table(
        self,
        table_id: str,
        *,
        name: str = "",
        action_seconds: int = 30,
        options: Any = None,
        request_id: str | None = None,
        variant: str = "seven_card_stud_hi_lo",
        rules: Any = None,
        time_bank: Any = None,
    ) -> int:
        """Open a table; returns its version. ``rules``: a dealers_choice table's
        ``DealersChoiceRules`` message (default: every game); ``time_bank``: a
        ``TimeBankPolicy`` message (default: the service's, 60 s)."""
        request = table_pb2.OpenTableRequest(
            table_id=table_id,
            name=name or table_id,
            variant=variant,
            action_seconds=action_seconds,
            request_id=request_id or f"create-{table_id}",
        )
        if options is not None:
            request.options.CopyFrom(options)
        if rules is not None:
            request.dealers_choice.CopyFrom(rules)
        if time_bank is not None:
            request.time_bank.CopyFrom(time_bank)
        reply = await self._unary(table_id, "OpenTable", request)
        return int(reply.version)

    async def seat(self, table_id: str, seat: int, player: str, stack: int) -> int:
        """Seat a player (operator)."""
        request = table_pb2.SeatPlayerRequest(
            table_id=table_id,
            seat=seat,
            player=player,
            stack=stack,
            request_id=f"seat-{table_id}-{seat}-{player}",
        )
        reply = await self._unary(table_id, "SeatPlayer", request)
        return int(reply.version)

    async def sit_out(self, table_id: str, *, request_id: str) -> table_pb2.SitOutResponse:
        """Sit out from the next hand (this identity's own seat)."""
        request = table_pb2.SitOutRequest(table_id=table_id, request_id=request_id)
        reply: table_pb2.SitOutResponse = await self._unary(table_id, "SitOut", request)
        return reply

    async def close_table(
        self, table_id: str, *, request_id: str, reason: str = ""
    ) -> table_pb2.CloseTableResponse:
        """Close the table, now or after the hand in play (operators)."""
        request = table_pb2.CloseTableRequest(
            table_id=table_id, request_id=request_id, reason=reason
        )
        reply: table_pb2.CloseTableResponse = await self._unary(table_id, "CloseTable", request)
        return reply

    async def pause_table(
        self, table_id: str, *, request_id: str, reason: str = ""
    ) -> table_pb2.PauseTableResponse:
        """Pause dealing after the hand in play (operators)."""
        request = table_pb2.PauseTableRequest(
            table_id=table_id, request_id=request_id, reason=reason
        )
        reply: table_pb2.PauseTableResponse = await self._unary(table_id, "PauseTable", request)
        return reply

    async def resume_table(
        self, table_id: str, *, request_id: str
    ) -> table_pb2.ResumeTableResponse:
        """Resume dealing (operators)."""
        request = table_pb2.ResumeTableRequest(table_id=table_id, request_id=request_id)
        reply: table_pb2.ResumeTableResponse = await self._unary(table_id, "ResumeTable", request)
        return reply

    async def sit_in(self, table_id: str, *, request_id: str) -> table_pb2.SitInResponse:
        """Be dealt in again from the next hand."""
        request = table_pb2.SitInRequest(table_id=table_id, request_id=request_id)
        reply: table_pb2.SitInResponse = await self._unary(table_id, "SitIn", request)
        return reply

    async def view(self, table_id: str) -> table_pb2.TableView:
        """The table as this identity sees it."""
        request = table_pb2.GetTableViewRequest(table_id=table_id)
        reply = await self._unary(table_id, "GetTableView", request)
        view: table_pb2.TableView = reply.view
        return view

    async def list_hands(
        self, table_id: str, page_size: int = 0, page_token: str = "", player: str = ""
    ) -> table_pb2.ListHandsResponse:
        """A page of the table's hands that are over, newest first (a player: theirs)."""
        request = table_pb2.ListHandsRequest(
            table_id=table_id, page_size=page_size, page_token=page_token, player=player
        )
        reply: table_pb2.ListHandsResponse = await self._unary(table_id, "ListHands", request)
        return reply

    async def hand_history(self, table_id: str, hand_id: str) -> table_pb2.GetHandHistoryResponse:
        """One hand that is over, as this identity may see it."""
        request = table_pb2.GetHandHistoryRequest(table_id=table_id, hand_id=hand_id)
        reply: table_pb2.GetHandHistoryResponse = await self._unary(
            table_id, "GetHandHistory", request
        )
        return reply

    async def act(
        self,
        table_id: str,
        hand_id: str,
        seat: int,
        action: str,
        amount: int = 0,
        *,
        request_id: str,
        cards: tuple[str, ...] = (),
        choice: str = "",
        options: dict[str, Any] | None = None,
        timeout: float | None = None,
        client_seed: bytes = b"",
        seed_commitment: bytes = b"",
        small_bet: int = 0,
        big_bet: int = 0,
    ) -> table_pb2.ActResponse:
        """Send an action (``cards`` like ``"Ah"``; ``choice`` a game or a declaration;
        ``small_bet``/``big_bet`` the deal's limits a dealer declares with ``choose_game``, 0
        for the table's; ``seed_commitment`` for action ``commit_seed``, ``client_seed`` for
        ``seed``); ``timeout``: seconds before the call fails with DEADLINE_EXCEEDED."""
        request = table_pb2.ActRequest(
            table_id=table_id,
            hand_id=hand_id,
            seat=seat,
            action=action,
            amount=amount,
            request_id=request_id,
            cards=list(cards),
            choice=choice,
            client_seed=client_seed,
            seed_commitment=seed_commitment,
            small_bet=small_bet,
            big_bet=big_bet,
        )
        if options:
            request.options.update(options)
        response: table_pb2.ActResponse = await self._unary(table_id, "Act", request, timeout)
        return response

    async def watch(
        self, table_id: str, after_version: int = 0
    ) -> AsyncIterator[table_pb2.WatchResponse]:
        """Updates of the table as this identity sees them (from its owner)."""
        calls: list[Any] = []

        async def first(stub: table_pb2_grpc.TableServiceStub) -> Any:
            # A redirect comes as the stream's first answer: read it under the redirect rule.
            call = stub.Watch(request, metadata=self.metadata)
            calls.append(call)
            return await call.read()

        request = table_pb2.WatchRequest(table_id=table_id, after_version=after_version)
        try:
            update = await self._owned(table_id, first)
            while update is not grpc.aio.EOF:  # type: ignore[attr-defined]  # missing from the stubs
                yield update
                update = await calls[-1].read()
        finally:
            for call in calls:
                call.cancel()


Chooser = Callable[[list[LegalAction]], tuple[str, int]]

#: Seconds a bot waits for an answer to ``Act`` before giving up on that move.
ACT_TIMEOUT = 10.0


def throttle_delay(error: grpc.RpcError) -> float | None:
    """Seconds to wait before sending a throttled request again (a rate limit's
    ``RESOURCE_EXHAUSTED`` with its ``RetryInfo``), or None for any other error. A bot that
    dropped a throttled move would leave its table waiting for the action clock."""
    if error.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    delay = retry_delay(error)
    return None if delay is None else max(delay, retrying.THROTTLED.first)


async def retry_throttled(call: Callable[[], Awaitable[T]], stats: BotStats | None = None) -> T:
    """Await ``call()``; while it is throttled (:func:`throttle_delay`), wait as told and call
    again, within :data:`riverboat.retrying.THROTTLED`'s attempts (each wait counted in
    ``stats.throttled``). ``call`` must send the same request each time (the same request id),
    so a retry never acts twice."""

    def delay(exc: BaseException) -> float | None:
        return throttle_delay(exc) if isinstance(exc, grpc.aio.AioRpcError) else None

    def counted(exc: BaseException, pause: float, failures: int) -> None:
        if stats is not None:
            stats.throttled += 1

    return await retrying.call(
        call,
        retrying.THROTTLED,
        transient=lambda exc: delay(exc) is not None,
        after=delay,
        on_retry=counted,
    )


#: Betting actions: a :data:`Chooser` picks among these.
BETTING = frozenset({"bring_in", "complete", "bet", "raise", "call", "check", "fold"})


@dataclass(frozen=True, slots=True)
class Move:
    """One ``Act`` request's content."""

    action: str
    amount: int = 0
    cards: tuple[str, ...] = ()
    choice: str = ""
    options: dict[str, Any] | None = None
    #: choose_game: the limits the dealer declares for the deal (0: the table's).
    small_bet: int = 0
    big_bet: int = 0


#: Picks a non-betting move (a game, cards, a declaration, an offer) from the viewer's view.
Picker = Callable[[table_pb2.TableView], Move]


def next_move(view: table_pb2.TableView, choose: Chooser, pick: Picker) -> Move | None:
    """The bot's move for ``view``: betting through ``choose``, anything else ``pick``."""
    legal = [LegalAction(a.action, tuple(a.to)) for a in view.legal_actions]
    if not legal:
        return None
    if {a.action for a in legal} <= BETTING:
        action, amount = choose(legal)
        return Move(action, amount)
    return pick(view)


def random_picker(rng: random.Random) -> Picker:
    """Random legal card moves, games and declarations (matches and takes the pot mostly)."""

    def pick(view: table_pb2.TableView) -> Move:
        legal = list(view.legal_actions)
        names = {a.action for a in legal}
        if "match" in names and rng.random() < 0.8:
            return Move("match")
        a = rng.choice(legal)
        seat = next((s for s in view.seats if s.seat == view.viewer_seat), None)
        held = [c for c in seat.cards if c.card] if seat is not None else []
        mine = [c.card for c in held]
        if a.action in ("draw", "discard", "pass"):
            count = rng.randint(a.min_cards, min(a.max_cards, len(mine)))
            return Move(a.action, cards=tuple(rng.sample(mine, count)))
        if a.action == "order":
            rng.shuffle(mine)
            return Move("order", cards=tuple(mine))
        if a.action == "expose":
            down = [c.card for c in held if not c.face_up]
            return Move("expose", cards=(rng.choice(down),))
        if a.choices:  # choose_game, declare
            return Move(a.action, choice=rng.choice(list(a.choices)))
        return Move(a.action)

    return pick


@dataclass
class BotStats:
    """What a bot did."""

    actions: int = 0
    #: Actions sent whose answer never came (a stream that ended first): in the log or not.
    unanswered: int = 0
    hands_seen: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    #: CRV1: client seeds sent and refused (late: the seeds were locked), cards verified,
    #: and every failed card proof (which must never happen).
    seeds_sent: int = 0
    seeds_refused: int = 0
    cards_verified: int = 0
    proof_failures: list[str] = field(default_factory=list)
    #: Hands in which no seed of the bot's went into the lock (one was drawn for it).
    seeds_drawn: int = 0
    #: Hands whose lock holds a seed as the bot's that an earlier process of it sent (the
    #: bot restarted): beyond its check, not a failure.
    seeds_unchecked: int = 0
    #: Actions the table throttled (a rate limit) and the bot sent again after the wait.
    throttled: int = 0

    def tally(self, checks: list[CardCheck]) -> None:
        """Count a batch of the bot's own proof checks."""
        for check in checks:
            if check.verdict is Verdict.VERIFIED:
                self.cards_verified += 1
            elif check.verdict is Verdict.FAILED:
                self.proof_failures.append(check.line())
            elif check.verdict is Verdict.UNCHECKED:
                self.seeds_unchecked += 1
            else:
                self.seeds_drawn += 1


def _seed_request_id(kind: str, hand_id: str) -> str:
    """A request id per hand for a seed Act: hashed, since a long table id cut to 64
    characters would give every hand of the table the same one."""
    return f"{kind}-{hashlib.sha256(hand_id.encode()).hexdigest()[:32]}"


class ClientSeeds:
    """This client's CRV1 seeds (docs/shuffle.md II.4), driven by the views: when a hand it
    is dealt into awaits commitments, commit to a fresh 32-byte seed; once the commitments
    are locked with its own among them, reveal that seed. What it sent, and what the table
    answered, goes to ``checker``, which checks the lock (and says when a seed was drawn).

    Keep one per player and table for as long as the process lives, across streams: what was
    sent (``checker.sent``) must outlive the stream, or a re-watch would take the client's own
    seed in the lock for a stranger's. Each new stream takes :meth:`fresh_checker`.
    """

    def __init__(
        self, client: TableClient, table_id: str, checker: CardChecker | None = None
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.checker = checker if checker is not None else CardChecker()
        self.checker.sent.sender = True
        self.sent = 0
        """Seeds revealed and accepted."""
        self.refused = 0
        """Commitments or seeds the table refused (late, or not committed)."""
        self._started: set[tuple[str, str]] = set()

    def fresh_checker(self) -> CardChecker:
        """A checker for a new stream of the table (its count starts afresh), sharing what
        this client sent: the answers to seed Acts settle on it from now on."""
        self.checker = CardChecker(self.checker.sent)
        return self.checker

    def due(self, view: table_pb2.TableView) -> tuple[str, str, int] | None:
        """The seed Act due now, as (action, hand id, seat), or None."""
        if not view.HasField("seeding") or not view.viewer_seat:
            return None
        seeding, seat = view.seeding, view.viewer_seat
        hand_id = seeding.hand_id
        # A commitment the table already holds for us came from another process (this one
        # would have started it): its seed is not ours to reveal, and a second one would be
        # a different seed under the same request id.
        if (
            seeding.phase == "commit"
            and (COMMIT_SEED, hand_id) not in self._started
            and not seeding.my_commitment
        ):
            me = next((s for s in view.seats if s.seat == seat), None)
            if me is not None and not me.sitting_out and me.stack > 0:
                return COMMIT_SEED, hand_id, seat
        if seeding.phase == "reveal" and (SEED, hand_id) not in self._started:
            sent = self.checker.sent.get(hand_id)
            seed = sent.seed if sent is not None else b""
            mine = crv1.seed_commitment(hand_id, seat, seed) if seed else b""
            if mine and any(c.seat == seat and c.commitment == mine for c in seeding.commits):
                return SEED, hand_id, seat
        return None

    def claim(self, view: table_pb2.TableView) -> tuple[str, str, int] | None:
        """The seed Act due in ``view``, marked as started (so it is sent once): pass it to
        :meth:`send`."""
        due = self.due(view)
        if due is not None:
            self._started.add((due[0], due[1]))
        return due

    async def step(self, view: table_pb2.TableView) -> list[CardCheck]:
        """Send the seed Act due in ``view``, if any; the checks its answer settles."""
        due = self.claim(view)
        return [] if due is None else await self.send(*due)

    def request(self, action: str, hand_id: str, seat: int) -> SeedRequest:
        """The seed Act for ``action`` (from :meth:`claim`), its seed drawn and noted: send it
        (unary :meth:`send` does; a Play stream sends it itself), then pass what the table
        answered to :meth:`answered`."""
        if action == COMMIT_SEED:
            seed = secrets.token_bytes(crv1.CLIENT_SEED_SIZE)
            self.checker.committing(hand_id, seat, seed)
            digest = crv1.seed_commitment(hand_id, seat, seed)
            return SeedRequest(
                action, hand_id, seat, _seed_request_id(action, hand_id), b"", digest
            )
        self.checker.revealing(hand_id)
        sent = self.checker.sent.get(hand_id)
        seed = sent.seed if sent is not None else b""
        return SeedRequest(action, hand_id, seat, _seed_request_id(action, hand_id), seed, b"")

    def answered(self, request: SeedRequest, refused: str | None) -> list[CardCheck]:
        """What the table answered ``request``: None accepted, else the refusal's details
        (a refusal, not a lost answer); the checks this settles."""
        if refused is not None:
            self.refused += 1
            return self.checker.refused(request.hand_id, f"the table refused it: {refused}")
        if request.action == COMMIT_SEED:
            return self.checker.commit_accepted(request.hand_id)
        self.sent += 1
        return self.checker.reveal_accepted(request.hand_id)

    async def send(self, action: str, hand_id: str, seat: int) -> list[CardCheck]:
        """Send one seed Act (from :meth:`claim`) and wait; the checks its answer settles."""
        request = self.request(action, hand_id, seat)
        try:
            await retry_throttled(
                functools.partial(
                    self.client.act,
                    self.table_id,
                    hand_id,
                    seat,
                    action,
                    request_id=request.request_id,
                    timeout=ACT_TIMEOUT,
                    client_seed=request.client_seed,
                    seed_commitment=request.seed_commitment,
                )
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() in (
                grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.INVALID_ARGUMENT,
            ):
                return self.answered(request, exc.details() or exc.code().name)
            # No answer: it may have been accepted; the views say so (seeding.my_*).
            return []
        return self.answered(request, None)


@dataclass(frozen=True, slots=True)
class SeedRequest:
    """One seed Act of :class:`ClientSeeds`: ``commit_seed`` carries ``seed_commitment``,
    ``seed`` carries ``client_seed``."""

    action: str
    hand_id: str
    seat: int
    request_id: str
    client_seed: bytes
    seed_commitment: bytes


async def play_bot(
    client: TableClient,
    table_id: str,
    choose: Chooser,
    *,
    stop: asyncio.Event,
    on_update: Callable[[table_pb2.WatchResponse], None] | None = None,
    think: float = 0.0,
    stats: BotStats | None = None,
    pick: Picker | None = None,
) -> BotStats:
    """Watch ``table_id`` and act whenever the view lists moves for this bot, until ``stop``
    is set. ``pick`` makes the non-betting moves (default: :func:`random_picker`)."""
    stats = stats or BotStats()
    pick = pick or random_picker(random.Random())
    checker = CardChecker()
    seeds = ClientSeeds(client, table_id, checker)
    acted: set[tuple[str, int]] = set()
    # Views older than our last accepted action may still list the move we just made.
    acted_version = 0
    after = 0

    async def session() -> None:
        nonlocal after, acted_version
        # A stream quiet for a while is reopened from the last version seen: a bot must
        # not go deaf because one stream stalled.
        async for update in watch_until(client, table_id, stop, after=after, idle=10.0):
            after = update.version
            if on_update is not None:
                on_update(update)
            checks = checker.update(update)
            if not update.HasField("view"):
                stats.tally(checks)
                continue
            view = update.view
            checks += await seeds.step(view)
            stats.seeds_sent, stats.seeds_refused = seeds.sent, seeds.refused
            stats.tally(checks)
            if view.hand_id:
                stats.hands_seen.add(view.hand_id)
            if sat_out(view):
                # The clock sat us out (a slow turn, a stalled stream): a bot sits in again.
                try:
                    await client.sit_in(
                        table_id, request_id=f"{client.player}-sit-in-{view.version}"
                    )
                except grpc.aio.AioRpcError as exc:
                    stats.errors.append(f"{exc.code().name}: sit in: {exc.details()}")
            key = (view.hand_id, view.version)
            if not view.legal_actions or key in acted or view.version < acted_version:
                continue
            acted.add(key)
            move = next_move(view, choose, pick)
            if move is None:
                continue
            if think:
                await asyncio.sleep(think)
            started = time.perf_counter()  # loop.time() is in whole ms on uvloop
            try:
                reply = await retry_throttled(
                    functools.partial(
                        client.act,
                        table_id,
                        view.hand_id,
                        view.viewer_seat,
                        move.action,
                        move.amount,
                        request_id=f"{client.player}-{view.hand_id or 'choice'}-{view.version}",
                        cards=move.cards,
                        choice=move.choice,
                        options=move.options,
                        small_bet=move.small_bet,
                        big_bet=move.big_bet,
                        timeout=ACT_TIMEOUT,
                    ),
                    stats,
                )
                acted_version = reply.version
                stats.actions += 1
                stats.latencies.append(time.perf_counter() - started)
            except grpc.aio.AioRpcError as exc:
                # A clock expiry can beat us to it; the next update brings the new turn.
                if exc.code() is grpc.StatusCode.DEADLINE_EXCEEDED:
                    stats.errors.append(f"act: no answer in {ACT_TIMEOUT:g} s")
                else:
                    stats.errors.append(f"{exc.code().name}: {exc.details()}")

    def reopen(exc: BaseException, pause: float, failures: int) -> None:
        assert isinstance(exc, grpc.aio.AioRpcError)
        # Code first, as for Act's errors, so callers can sort them by status.
        stats.errors.append(f"{exc.code().name}: watch: {exc.details()}")

    while not stop.is_set():
        try:
            # The service may be restarting, or the table changing hands (NO_OWNER says how
            # long): resume from `after`, at the owner (a redirect is followed on reopening).
            await retrying.call(
                session,
                retrying.STREAM_REOPEN,
                transient=lambda exc: isinstance(exc, grpc.aio.AioRpcError) and not stop.is_set(),
                after=reopen_delay,
                on_retry=reopen,
            )
        except grpc.aio.AioRpcError:
            break  # stopped meanwhile
    return stats


def reopen_delay(exc: BaseException) -> float | None:
    """NO_OWNER's RetryInfo, if that is what ended a stream (else the policy's pause)."""
    return (no_owner_delay(exc) or None) if isinstance(exc, grpc.aio.AioRpcError) else None


def sat_out(view: table_pb2.TableView) -> bool:
    """The viewer's own seat sits out."""
    return any(s.seat == view.viewer_seat and s.sitting_out for s in view.seats if s.seat)


async def watch_until(
    client: TableClient,
    table_id: str,
    stop: asyncio.Event,
    *,
    after: int = 0,
    idle: float | None = None,
) -> AsyncIterator[table_pb2.WatchResponse]:
    """``table_id``'s updates after version ``after``, until ``stop`` is set or (with
    ``idle``) nothing came for ``idle`` seconds: the stream is then cancelled and the
    iteration simply ends.

    One timer and one waiter per stream, not per message: a bot reads many messages, and
    racing each read against ``stop`` would cost more than the read itself.
    """
    request = table_pb2.WatchRequest(table_id=table_id, after_version=after)
    calls: list[Any] = []  # the stream opened last is the one read (the owner's, once found)
    loop = asyncio.get_running_loop()
    last = loop.time()
    timer: asyncio.TimerHandle | None = None

    def cancel() -> None:
        if calls:
            calls[-1].cancel()

    def check_idle() -> None:
        nonlocal timer
        assert idle is not None
        if loop.time() - last >= idle:
            cancel()
        else:
            timer = loop.call_at(last + idle, check_idle)

    async def first(stub: table_pb2_grpc.TableServiceStub) -> Any:
        # A redirect comes as the stream's first answer: read it under the redirect rule.
        call = stub.Watch(request, metadata=client.metadata)
        calls.append(call)
        if stop.is_set():
            call.cancel()
        return await call.read()

    if idle is not None:
        timer = loop.call_later(idle, check_idle)
    stopper = asyncio.ensure_future(stop.wait())
    stopper.add_done_callback(lambda _: cancel())
    try:
        opened = False
        while True:
            try:
                if opened:
                    update = await calls[-1].read()
                else:
                    update = await client._owned(table_id, first)
                    opened = True
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if calls and calls[-1].cancelled() and not (task is not None and task.cancelling()):
                    return  # stopped or idle: our own cancel, not the task's
                raise
            if update is grpc.aio.EOF:  # type: ignore[attr-defined]  # missing from the stubs
                return
            last = loop.time()
            yield update
    finally:
        if timer is not None:
            timer.cancel()
        stopper.cancel()
        for call in calls:
            call.cancel()


def random_chooser(rng: random.Random) -> Chooser:
    """A bot that mostly calls or checks, sometimes bets or raises, rarely folds."""

    def choose(legal: list[LegalAction]) -> tuple[str, int]:
        by_name = {a.action: a for a in legal}
        roll = rng.random()
        for name in ("raise", "bet", "complete"):
            if name in by_name and roll < 0.25:
                return name, by_name[name].to[0]
        if "call" in by_name and roll > 0.9:
            return "fold", 0
        for name in ("check", "call", "bring_in"):
            if name in by_name:
                return name, by_name[name].to[0]
        return legal[0].action, legal[0].to[0]

    return choose


class LobbyClient:
    """Calls the lobby; ``token`` (from :meth:`login`) is sent with every call but the first two."""

    def __init__(self, channel: grpc.aio.Channel, token: str | None = None) -> None:
        self.stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        self.token = token

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The bearer token, once logged in."""
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()

    async def register(self, username: str, password: str) -> str:
        """Create a player account; returns the player id."""
        reply = await self.stub.Register(
            lobby_pb2.RegisterRequest(username=username, password=password)
        )
        return str(reply.player_id)

    async def login(self, username: str, password: str) -> lobby_pb2.LoginResponse:
        """Log in; later calls carry the token."""
        reply: lobby_pb2.LoginResponse = await self.stub.Login(
            lobby_pb2.LoginRequest(username=username, password=password)
        )
        self.token = reply.token
        return reply

    async def create_table(
        self,
        template: str,
        name: str,
        *,
        request_id: str,
        overrides: dict[str, Any] | None = None,
        action_seconds: int = 0,
        time_bank: Any = None,
        rules: Any = None,
    ) -> lobby_pb2.LobbyTable:
        """Open a table (operators). ``time_bank``: a ``TimeBankPolicy`` message, ``rules`` a
        dealers_choice table's ``DealersChoiceRules`` (default: the template's)."""
        request = lobby_pb2.CreateTableRequest(
            template=template, name=name, request_id=request_id, action_seconds=action_seconds
        )
        if overrides:
            request.overrides.update(overrides)
        if time_bank is not None:
            request.time_bank.CopyFrom(time_bank)
        if rules is not None:
            request.dealers_choice.CopyFrom(rules)
        reply = await self.stub.CreateTable(request, metadata=self.metadata)
        table: lobby_pb2.LobbyTable = reply.table
        return table

    async def list_tables(
        self, page_size: int = 20, page_token: str = ""
    ) -> lobby_pb2.ListTablesResponse:
        """A page of tables."""
        reply: lobby_pb2.ListTablesResponse = await self.stub.ListTables(
            lobby_pb2.ListTablesRequest(page_size=page_size, page_token=page_token),
            metadata=self.metadata,
        )
        return reply

    async def get_table(self, table_id: str) -> lobby_pb2.LobbyTable:
        """One table."""
        reply = await self.stub.GetTable(
            lobby_pb2.GetTableRequest(table_id=table_id), metadata=self.metadata
        )
        table: lobby_pb2.LobbyTable = reply.table
        return table

    async def join(
        self, table_id: str, buy_in: int, *, request_id: str, seat: int = 0
    ) -> lobby_pb2.JoinTableResponse:
        """Buy in and sit down."""
        reply: lobby_pb2.JoinTableResponse = await self.stub.JoinTable(
            lobby_pb2.JoinTableRequest(
                table_id=table_id, seat=seat, buy_in=buy_in, request_id=request_id
            ),
            metadata=self.metadata,
        )
        return reply

    async def move_player(
        self, player: str, from_table: str, to_table: str, *, request_id: str, seat: int = 0
    ) -> lobby_pb2.MovePlayerResponse:
        """Move a seated player with their chips to another table (operators)."""
        reply: lobby_pb2.MovePlayerResponse = await self.stub.MovePlayer(
            lobby_pb2.MovePlayerRequest(
                player=player,
                from_table_id=from_table,
                to_table_id=to_table,
                seat=seat,
                request_id=request_id,
            ),
            metadata=self.metadata,
        )
        return reply

    async def leave(self, table_id: str, *, request_id: str) -> lobby_pb2.LeaveTableResponse:
        """Stand up with your chips."""
        reply: lobby_pb2.LeaveTableResponse = await self.stub.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=table_id, request_id=request_id),
            metadata=self.metadata,
        )
        return reply

    async def lock_account(self, username: str, reason: str = "") -> lobby_pb2.PlayerAccount:
        """Lock an account (operators)."""
        reply = await self.stub.LockAccount(
            lobby_pb2.LockAccountRequest(username=username, reason=reason), metadata=self.metadata
        )
        account: lobby_pb2.PlayerAccount = reply.account
        return account

    async def unlock_account(self, username: str) -> lobby_pb2.PlayerAccount:
        """Unlock an account (operators)."""
        reply = await self.stub.UnlockAccount(
            lobby_pb2.UnlockAccountRequest(username=username), metadata=self.metadata
        )
        account: lobby_pb2.PlayerAccount = reply.account
        return account

    async def reset_password(self, username: str, new_password: str) -> lobby_pb2.PlayerAccount:
        """Give an account a new password (operators)."""
        reply = await self.stub.ResetPassword(
            lobby_pb2.ResetPasswordRequest(username=username, new_password=new_password),
            metadata=self.metadata,
        )
        account: lobby_pb2.PlayerAccount = reply.account
        return account

    async def list_players(
        self, page_size: int = 20, page_token: str = ""
    ) -> lobby_pb2.ListPlayersResponse:
        """A page of player accounts with their wallets (operators, auditors)."""
        reply: lobby_pb2.ListPlayersResponse = await self.stub.ListPlayers(
            lobby_pb2.ListPlayersRequest(page_size=page_size, page_token=page_token),
            metadata=self.metadata,
        )
        return reply

    async def join_waiting_list(self, table_id: str) -> lobby_pb2.JoinWaitingListResponse:
        """Wait for a seat at a full table (players)."""
        reply: lobby_pb2.JoinWaitingListResponse = await self.stub.JoinWaitingList(
            lobby_pb2.JoinWaitingListRequest(table_id=table_id), metadata=self.metadata
        )
        return reply

    async def leave_waiting_list(self, table_id: str) -> lobby_pb2.WaitingList:
        """Stop waiting for a seat (players)."""
        reply = await self.stub.LeaveWaitingList(
            lobby_pb2.LeaveWaitingListRequest(table_id=table_id), metadata=self.metadata
        )
        listed: lobby_pb2.WaitingList = reply.waiting_list
        return listed

    async def waiting_list(self, table_id: str) -> lobby_pb2.WaitingList:
        """A table's waiting list."""
        reply = await self.stub.GetWaitingList(
            lobby_pb2.GetWaitingListRequest(table_id=table_id), metadata=self.metadata
        )
        listed: lobby_pb2.WaitingList = reply.waiting_list
        return listed
