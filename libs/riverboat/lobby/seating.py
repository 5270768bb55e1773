"""The buy-in, move and cash-out saga as a process manager over ports (pure: no gRPC, no NATS).

A buy-in spans three owners: the lobby's log (the saga's own record), the wallet (settlement)
and the table. Each owner decides its own rules; this module only orders the steps, records
where the saga stands and undoes what a refusal leaves half done:

0. the wallet judges the buy-in without making it (:meth:`Wallets.check`): one it refuses
   (funds, a limit, a self-exclusion) is refused before anything is written;
1. ``JoinStarted`` in the lobby's log (:meth:`Journal.started`), before any change elsewhere,
   so a crash after it is seen and resolved (:meth:`Seating.recover`);
2. reserve the buy-in (:meth:`Wallets.reserve`); a refusal (the wallet changed since the
   check) ends the saga (``JoinFailed``), nothing to undo;
3. seat the player (:meth:`Tables.seat`); the table's ``PlayerSeated`` carries the reference,
   which is how the wallet's reservation becomes chips on the table (settlement commits it from
   the table's log: no call of its own);
4. ``JoinCompleted``; if seating failed, the reservation is released and ``JoinFailed``
   recorded (the compensation).

Every call carries the saga's reference, and each owner is idempotent by it: a saga resumed
(a retry of the request, or another lobby recovering it) repeats steps safely.

The decisions are data (:data:`TRANSITIONS`): from a stage and what a step answered, the next
stage and the effects to run. :class:`Seating` runs them through the ports. A move is a
cash-out (:meth:`Tables.unseat` between hands) followed by a buy-in of the same chips.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from riverboat.lobby.state import Join

__all__ = [
    "TRANSITIONS",
    "Effect",
    "Journal",
    "MoveIncomplete",
    "Outcome",
    "Seated",
    "Seating",
    "Stage",
    "Tables",
    "Unseated",
    "Wallets",
    "transition",
]


class Stage(enum.Enum):
    """Where a buy-in stands. STARTED, COMPLETED and FAILED are in the log (``Join.status``);
    RESERVED lasts only while one lobby runs the saga (a resumed saga reserves again: the
    wallet answers a repeated reference as the first time)."""

    STARTED = "started"
    RESERVED = "reserved"
    COMPLETED = "completed"
    FAILED = "failed"


class Outcome(enum.Enum):
    """What a step answered."""

    RESERVED = "reserved"
    RESERVE_REFUSED = "reserve_refused"
    SEATED = "seated"
    SEAT_FAILED = "seat_failed"
    #: Recovery: the table shows the player seated (the seat landed before the crash).
    FOUND_SEATED = "found_seated"
    #: Recovery: the table does not show the player: undo whatever was reserved.
    FOUND_NOT_SEATED = "found_not_seated"


class Effect(enum.Enum):
    """What the process manager does next."""

    SEAT = "seat"
    RELEASE = "release"
    RECORD_COMPLETED = "record_completed"
    RECORD_FAILED = "record_failed"


#: The saga's transitions: (stage, outcome) -> (next stage, effects in order). An outcome not
#: listed for a stage (a step whose answer never came) leaves the stage as it is: the saga is
#: resumed by a retry or recovered later.
TRANSITIONS: Mapping[tuple[Stage, Outcome], tuple[Stage, tuple[Effect, ...]]] = {
    (Stage.STARTED, Outcome.RESERVED): (Stage.RESERVED, (Effect.SEAT,)),
    (Stage.STARTED, Outcome.RESERVE_REFUSED): (Stage.FAILED, (Effect.RECORD_FAILED,)),
    (Stage.RESERVED, Outcome.SEATED): (Stage.COMPLETED, (Effect.RECORD_COMPLETED,)),
    (Stage.RESERVED, Outcome.SEAT_FAILED): (
        Stage.FAILED,
        (Effect.RELEASE, Effect.RECORD_FAILED),
    ),
    (Stage.STARTED, Outcome.FOUND_SEATED): (Stage.COMPLETED, (Effect.RECORD_COMPLETED,)),
    (Stage.STARTED, Outcome.FOUND_NOT_SEATED): (
        Stage.FAILED,
        (Effect.RELEASE, Effect.RECORD_FAILED),
    ),
}


def transition(stage: Stage, outcome: Outcome) -> tuple[Stage, tuple[Effect, ...]]:
    """The next stage and the effects to run; ``(stage, ())`` for an unlisted pair."""
    return TRANSITIONS.get((stage, outcome), (stage, ()))


@dataclass(frozen=True, slots=True)
class Seated:
    """A buy-in done: the wallet's balance after the reservation, and who owns the table."""

    seat: int
    stack: int
    balance: int
    owner_address: str


@dataclass(frozen=True, slots=True)
class Unseated:
    """A cash-out: ``pending`` (standing up when the hand ends) and the chips left with."""

    pending: bool
    stack: int


class MoveIncomplete(Exception):
    """A move whose player left the first table but was not seated at the second: their
    ``stack`` is in their wallet. ``cause`` is the refusal (or failure) of the buy-in."""

    def __init__(self, stack: int, cause: Exception) -> None:
        super().__init__(str(cause))
        self.stack = stack
        self.cause = cause


class Wallets(Protocol):
    """The wallet's owner (settlement): it decides limits and funds.

    A refusal is an exception of the type given to :class:`Seating` (nothing was reserved);
    any other exception leaves the outcome unknown.
    """

    async def reserve(
        self, player: str, table_id: str, amount: int, reference: str, *, moved_from: str
    ) -> int:
        """Reserve ``amount`` for the buy-in ``reference``; the balance after."""
        ...

    async def release(self, player: str, reference: str, reason: str) -> None:
        """Give a reservation back to the wallet (a repeat does nothing)."""
        ...

    async def check(self, player: str, table_id: str, amount: int, reference: str) -> None:
        """Refuse (the refusal type) a reservation :meth:`reserve` would refuse; change
        nothing."""
        ...


class Tables(Protocol):
    """The tables' owner: it decides seats (taken, closed, already seated, in a hand)."""

    async def seat(self, table_id: str, seat: int, player: str, stack: int, reference: str) -> str:
        """Seat ``player`` with ``stack`` bought by ``reference``; the owner's address."""
        ...

    async def unseat(
        self, table_id: str, player: str, request_id: str, *, between_hands: bool
    ) -> Unseated:
        """Stand ``player`` up (now, or when their hand ends unless ``between_hands``)."""
        ...

    async def seat_of(self, table_id: str, player: str) -> int | None:
        """The seat ``player`` holds at ``table_id`` now (None: not seated)."""
        ...


class Journal(Protocol):
    """The saga's own record: the lobby's log (``join-<reference>`` aggregates)."""

    async def started(self, join: Join) -> None:
        """Record ``JoinStarted``."""
        ...

    async def completed(self, reference: str, seat: int) -> None:
        """Record ``JoinCompleted``."""
        ...

    async def failed(self, reference: str, reason: str) -> None:
        """Record ``JoinFailed``."""
        ...


class Seating:
    """The process manager: runs buy-ins, moves and cash-outs through the ports.

    ``refusal`` is the exception type by which an owner says no (the services' refusal of a
    precondition); it is passed on to the caller unchanged, after the saga recorded it.
    """

    def __init__(
        self,
        wallets: Wallets,
        tables: Tables,
        journal: Journal,
        *,
        refusal: type[Exception],
    ) -> None:
        self.wallets = wallets
        self.tables = tables
        self.journal = journal
        self.refusal = refusal

    async def join(self, join: Join) -> Seated:
        """A new buy-in: the wallet's check (a refusal writes nothing), its start recorded,
        then run (:meth:`buy_in`)."""
        await self.wallets.check(join.player, join.table_id, join.buy_in, join.reference)
        await self.journal.started(join)
        return await self.buy_in(join)

    async def buy_in(self, join: Join, *, moved_from: str = "") -> Seated:
        """Run a started buy-in to its end: reserve, seat, record; compensated on a refusal.

        Raises what the owner that refused raised (after ``JoinFailed`` is recorded), or
        what a step that did not answer raised (the saga stays started: resumed later).
        """
        stage = Stage.STARTED
        try:
            balance = await self.wallets.reserve(
                join.player, join.table_id, join.buy_in, join.reference, moved_from=moved_from
            )
        except self.refusal as exc:  # not enough money, a limit: nothing to undo
            await self._run(join, stage, Outcome.RESERVE_REFUSED, str(exc))
            raise
        stage, _ = transition(stage, Outcome.RESERVED)
        try:
            owner = await self.tables.seat(
                join.table_id, join.seat, join.player, join.buy_in, join.reference
            )
        except Exception as exc:
            await self._run(join, stage, Outcome.SEAT_FAILED, f"could not sit down: {exc}")
            raise
        await self._run(join, stage, Outcome.SEATED)
        return Seated(join.seat, join.buy_in, balance, owner)

    async def move(self, join: Join, *, source: str) -> Seated:
        """Move ``join.player`` from ``source`` to ``join.table_id`` with all their chips:
        cash out between hands (the table refuses a player in the hand in play), then buy in
        with the stack they left with. ``join.buy_in`` is ignored: the stack decides.

        Raises :class:`MoveIncomplete` when the player left but was not seated.
        """
        left = await self.tables.unseat(
            source, join.player, join.reference[:64], between_hands=True
        )
        moved = Join(join.reference, join.player, join.table_id, join.seat, left.stack)
        await self.journal.started(moved)
        return await self.resume_move(moved, source=source)

    async def resume_move(self, join: Join, *, source: str) -> Seated:
        """The buy-in of a move whose player already left ``source`` (a retry after a cut)."""
        try:
            return await self.buy_in(join, moved_from=source)
        except Exception as exc:
            raise MoveIncomplete(join.buy_in, exc) from exc

    async def leave(self, table_id: str, player: str, request_id: str) -> Unseated:
        """Cash out: the table stands the player up (now, or after their hand); settlement
        credits the stack from the table's ``PlayerLeft``."""
        return await self.tables.unseat(table_id, player, request_id, between_hands=False)

    async def recover(self, pending: list[Join]) -> list[tuple[Join, Exception]]:
        """Finish or undo buy-ins a crash interrupted: seated at the table -> completed, else
        released and failed. Those whose table did not answer are returned with why (tried
        again later)."""
        unresolved: list[tuple[Join, Exception]] = []
        for join in pending:
            try:
                seat = await self.tables.seat_of(join.table_id, join.player)
            except Exception as exc:
                unresolved.append((join, exc))
                continue
            if seat is not None:
                await self._run(
                    Join(join.reference, join.player, join.table_id, seat, join.buy_in),
                    Stage.STARTED,
                    Outcome.FOUND_SEATED,
                )
            else:
                await self._run(join, Stage.STARTED, Outcome.FOUND_NOT_SEATED, "interrupted")
        return unresolved

    async def _run(self, join: Join, stage: Stage, outcome: Outcome, reason: str = "") -> Stage:
        """Run the effects :data:`TRANSITIONS` gives for ``outcome`` at ``stage``."""
        following, effects = transition(stage, outcome)
        for effect in effects:
            if effect is Effect.RELEASE:
                await self.wallets.release(join.player, join.reference, reason[:200])
            elif effect is Effect.RECORD_FAILED:
                await self.journal.failed(join.reference, reason[:200])
            elif effect is Effect.RECORD_COMPLETED:
                await self.journal.completed(join.reference, join.seat)
            # Effect.SEAT is the next step of buy_in itself.
        return following
