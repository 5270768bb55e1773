"""Applying log records to the ledger: exactly once, in order, one transaction per record.

A *record* is one message of a wallet or table log (all events of one command). Applying it:

1. reads the aggregate's :class:`~riverboat.ledger.models.Position`: a version already applied
   is a :attr:`Outcome.DUPLICATE` (nothing happens); a version beyond the next one is a
   :attr:`Outcome.GAP` (the caller must apply the missing records first);
2. inserts the record's :class:`~riverboat.ledger.models.ProcessedEvent` row (primary key: a
   concurrent second apply of the same record fails here and is reported as a duplicate);
3. writes the postings and read-model changes the projection derives from its events, and runs
   the hand-end invariant checks;
4. moves the position on; and commits all of it at once.

So a record redelivered any number of times, or delivered after a crash between the commit and
the acknowledgement, changes the ledger once.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from riverboat.engine.money import LEDGER_LIMIT
from riverboat.eventcodec import decode_batch
from riverboat.ledger import accounts as acc
from riverboat.ledger.db import WRITE
from riverboat.ledger.models import (
    Account,
    Hand,
    LedgerTable,
    Position,
    Posting,
    PostingLine,
    ProcessedEvent,
    TableSeat,
    Wallet,
)
from riverboat.ledger.moneyfilter import Unmoved, moves_money
from riverboat.ledger.projection import (
    TABLES,
    WALLETS,
    Effect,
    HandCheck,
    HandClosed,
    HandOpened,
    HandRaked,
    PostingSpec,
    SeatInfo,
    TableContext,
    WalletSeen,
    project_table_event,
    project_wallet_event,
)
from riverboat.ledger.walletcodec import decode_wallet_batch

__all__ = ["ApplyResult", "Ledger", "LedgerOverflow", "LedgerWriter", "Outcome", "Violation"]


class LedgerOverflow(ValueError):
    """A posting would take a balance outside signed 64 bits.

    Amounts are bounded where they enter the room (:mod:`riverboat.engine.money`), so this
    never happens; if it did, SQLite would silently turn the balance into a float and
    PostgreSQL would refuse the row. The transaction is rolled back instead, so the books stay
    integers and the record is retried (and seen) rather than half applied.
    """


class Outcome(enum.Enum):
    """What applying a record did."""

    APPLIED = "applied"
    DUPLICATE = "duplicate"  # applied before: nothing changed
    SKIPPED = "skipped"  # a table record that moves no money: nothing to apply (moneyfilter)
    GAP = "gap"  # an earlier record of the aggregate is missing: nothing changed


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken invariant, with where it was found."""

    check: str
    message: str
    table_id: str | None = None
    hand_id: str | None = None


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """The outcome, the aggregate's position after it, and any invariant the record broke."""

    outcome: Outcome
    position: int
    violations: tuple[Violation, ...] = field(default=())


def record_key(source: str, aggregate_id: str, version: int) -> str:
    """The processed-event key of a record."""
    return f"{source}:{aggregate_id}:{version}"


class _Statements:
    """The writer's statements, built once per dialect (building them costs more than running
    them on SQLite)."""

    def __init__(self, dialect: str) -> None:
        ins = postgresql.insert if dialect == "postgresql" else sqlite.insert
        b = bindparam
        self.position = select(Position.version).where(
            Position.source == b("source"), Position.aggregate_id == b("aggregate_id")
        )
        self.processed = insert(ProcessedEvent)
        self.position_new = insert(Position)
        self.position_move = (
            update(Position)
            .where(Position.source == b("s"), Position.aggregate_id == b("a"))
            .values(version=b("v"))
        )
        self.open_accounts = ins(Account).on_conflict_do_nothing(index_elements=["name"])
        self.posting = insert(Posting).returning(Posting.id)
        self.move = (
            update(Account)
            .where(Account.name == b("n"))
            .values(balance=Account.balance + b("d"))
            .returning(Account.id, Account.balance)
        )
        self.lines = insert(PostingLine)
        self.hand_open = insert(Hand)
        hand = (Hand.table_id == b("t")) & (Hand.hand_id == b("h"))
        self.hand_rake = update(Hand).where(hand).values(rake=Hand.rake + b("r"))
        self.hand_close = (
            update(Hand).where(hand).values(status=b("st"), ended_at=b("at"), day=b("day"))
        )
        upsert_wallet = ins(Wallet)
        self.wallet = upsert_wallet.on_conflict_do_update(
            index_elements=["player"],
            set_={
                "balance": upsert_wallet.excluded.balance,
                "version": upsert_wallet.excluded.version,
            },
        )
        self.balance = select(Account.balance).where(Account.name == b("n"))
        self.table = select(LedgerTable.variant, LedgerTable.current_hand_id).where(
            LedgerTable.table_id == b("t")
        )
        self.seats = select(TableSeat.seat, TableSeat.player, TableSeat.stack).where(
            TableSeat.table_id == b("t")
        )
        upsert_table = ins(LedgerTable)
        self.table_save = upsert_table.on_conflict_do_update(
            index_elements=["table_id"],
            set_={
                "variant": upsert_table.excluded.variant,
                "current_hand_id": upsert_table.excluded.current_hand_id,
            },
        )
        self.seats_clear = delete(TableSeat).where(TableSeat.table_id == b("t"))
        self.seats_save = insert(TableSeat)


_STATEMENTS: dict[str, _Statements] = {}


def _statements(conn: Connection) -> _Statements:
    name = conn.dialect.name
    if name not in _STATEMENTS:
        _STATEMENTS[name] = _Statements(name)
    return _STATEMENTS[name]


class LedgerWriter:
    """Applies records inside one open transaction (see :meth:`Ledger.writer`).

    Args:
        conn: the open connection.
        unmoved: the table versions known to move no money; by default the writer's own
            (enough when it is given every record of a table in order, as a replay is).
    """

    def __init__(self, conn: Connection, unmoved: Unmoved | None = None) -> None:
        self.conn = conn
        self._q = _statements(conn)
        self.unmoved = unmoved if unmoved is not None else Unmoved()
        # What this transaction read or wrote already: a batch of records of one table reads
        # its position and its context once. Only this transaction writes them until it ends
        # (a concurrent writer of the same record loses on the processed-event key).
        self._positions: dict[tuple[str, str], int] = {}
        self._tables: dict[str, TableContext] = {}

    # -- records --------------------------------------------------------------------------

    def apply_table_record(self, table_id: str, version: int, payload: bytes) -> ApplyResult:
        """Apply one table log record (an ``EventBatch``); one that moves no money is only
        noted (:attr:`Outcome.SKIPPED`, its version as the position: the database is not read).
        """
        if not moves_money(payload):
            self.unmoved.note(table_id, version)
            return ApplyResult(Outcome.SKIPPED, version)
        events = decode_batch(payload)  # before any write: a poison record changes nothing
        claimed = self._claim(TABLES, table_id, version)
        if claimed is not None:
            return claimed
        ctx = self._load_table(table_id)
        before = _snapshot(ctx)
        effects: list[Effect] = []
        for event, meta in events:
            effects.extend(project_table_event(ctx, event, meta))
        violations = self._write(effects)
        if _snapshot(ctx) != before:
            self._save_table(ctx)
        return ApplyResult(Outcome.APPLIED, version, tuple(violations))

    def apply_wallet_record(self, wallet_id: str, version: int, payload: bytes) -> ApplyResult:
        """Apply one wallet log record (a ``WalletEventBatch``)."""
        player, items = decode_wallet_batch(payload)
        claimed = self._claim(WALLETS, wallet_id, version)
        if claimed is not None:
            return claimed
        effects: list[Effect] = []
        for item in items:
            effects.extend(project_wallet_event(player, wallet_id, version, item))
        violations = self._write(effects)
        return ApplyResult(Outcome.APPLIED, version, tuple(violations))

    def position(self, source: str, aggregate_id: str) -> int:
        """The last version applied of an aggregate (0: none)."""
        known = self._positions.get((source, aggregate_id))
        if known is not None:
            return known
        found = self.conn.scalar(self._q.position, {"source": source, "aggregate_id": aggregate_id})
        self._positions[(source, aggregate_id)] = int(found or 0)
        return int(found or 0)

    def _claim(self, source: str, aggregate_id: str, version: int) -> ApplyResult | None:
        """Record the version as processed, or say why not (None: go ahead)."""
        last = self.position(source, aggregate_id)
        if version <= last:
            return ApplyResult(Outcome.DUPLICATE, last)
        if version > last + 1 and not (
            source == TABLES and self.unmoved.covers(aggregate_id, last + 1, version - 1)
        ):
            return ApplyResult(Outcome.GAP, last)
        self.conn.execute(
            self._q.processed,
            {
                "key": record_key(source, aggregate_id, version),
                "source": source,
                "aggregate_id": aggregate_id,
                "version": version,
                "processed_at": datetime.now(UTC),
            },
        )
        if source == TABLES:
            self.unmoved.applied(aggregate_id, version)
        self._positions[(source, aggregate_id)] = version
        if last == 0:
            self.conn.execute(
                self._q.position_new,
                {"source": source, "aggregate_id": aggregate_id, "version": version},
            )
        else:
            self.conn.execute(self._q.position_move, {"s": source, "a": aggregate_id, "v": version})
        return None

    # -- effects --------------------------------------------------------------------------

    def _write(self, effects: Sequence[Effect]) -> list[Violation]:
        violations: list[Violation] = []
        q = self._q
        for effect in effects:
            match effect:
                case PostingSpec():
                    self._post(effect)
                case HandOpened():
                    self.conn.execute(
                        q.hand_open,
                        {
                            "table_id": effect.table_id,
                            "hand_id": effect.hand_id,
                            "variant": effect.variant,
                            "status": "playing",
                            "started_at": effect.started_at,
                            "ended_at": None,
                            "day": None,
                            "rake": 0,
                        },
                    )
                case HandRaked():
                    self.conn.execute(
                        q.hand_rake, {"t": effect.table_id, "h": effect.hand_id, "r": effect.amount}
                    )
                case HandClosed():
                    self.conn.execute(
                        q.hand_close,
                        {
                            "t": effect.table_id,
                            "h": effect.hand_id,
                            "st": effect.status,
                            "at": effect.ended_at,
                            "day": effect.ended_at.astimezone(UTC).date().isoformat(),
                        },
                    )
                case HandCheck():
                    violations.extend(self._check_hand(effect))
                case WalletSeen():
                    self.conn.execute(
                        q.wallet,
                        {
                            "player": effect.player,
                            "wallet_id": effect.wallet_id,
                            "balance": effect.balance,
                            "version": effect.version,
                        },
                    )
        return violations

    def _post(self, spec: PostingSpec) -> None:
        q = self._q
        self.conn.execute(
            q.open_accounts,
            [
                {
                    "name": a.name,
                    "kind": str(a.kind),
                    "player": a.player,
                    "table_id": a.table_id or None,
                    "balance": 0,
                }
                for a, _ in spec.lines
            ],
        )
        posting_id = self.conn.scalar(
            q.posting,
            {
                "key": spec.key,
                "kind": spec.kind,
                "reference": spec.reference[:300],
                "table_id": spec.table_id,
                "hand_id": spec.hand_id,
                "occurred_at": spec.occurred_at,
            },
        )
        lines = []
        for account, amount in spec.lines:
            if not isinstance(amount, int) or abs(amount) > LEDGER_LIMIT:
                raise LedgerOverflow(f"posting {spec.key}: amount {amount} is not an int64")
            row = self.conn.execute(q.move, {"n": account.name, "d": amount}).one()
            if not isinstance(row.balance, int) or abs(row.balance) > LEDGER_LIMIT:
                raise LedgerOverflow(f"posting {spec.key}: {account.name} would overflow")
            lines.append(
                {
                    "posting_id": posting_id,
                    "account_id": row.id,
                    "amount": amount,
                    "balance_after": row.balance,
                }
            )
        self.conn.execute(q.lines, lines)

    def _balance(self, name: str) -> int:
        return int(self.conn.scalar(self._q.balance, {"n": name}) or 0)

    def _check_hand(self, check: HandCheck) -> list[Violation]:
        """The invariants at a hand's start, end or void (see :class:`HandCheck`)."""
        out: list[Violation] = []

        def fail(name: str, message: str) -> None:
            out.append(Violation(name, message, check.table_id, check.hand_id))

        pot = acc.pot(check.table_id, check.hand_id).name
        if check.pot_empty and (left := self._balance(pot)) != 0:
            fail("pot_empty", f"{pot} holds {left} after the hand's {check.moment}")
        for player, stated in check.stacks:
            name = acc.table_stack(check.table_id, player).name
            if (held := self._balance(name)) != stated:
                fail("stack_matches_table", f"{name} is {held}, the table says {stated}")
        if check.moment == "start":
            return out
        sums = (
            select(PostingLine.posting_id, func.sum(PostingLine.amount).label("total"))
            .join(Posting, Posting.id == PostingLine.posting_id)
            .where(Posting.table_id == check.table_id, Posting.hand_id == check.hand_id)
            .group_by(PostingLine.posting_id)
            .having(func.sum(PostingLine.amount) != 0)
        )
        for posting_id, total in self.conn.execute(sums):
            fail("posting_balances", f"posting {posting_id} is off by {total}")
        total = int(self.conn.scalar(select(func.coalesce(func.sum(Account.balance), 0))) or 0)
        if total != 0:
            fail("conservation", f"all balances sum to {total}, not 0: chips were made or lost")
        return out

    # -- table context --------------------------------------------------------------------

    def _load_table(self, table_id: str) -> TableContext:
        known = self._tables.get(table_id)
        if known is not None:
            return known  # the context the last record of this transaction left
        ctx = self._tables[table_id] = TableContext(table_id)
        row = self.conn.execute(self._q.table, {"t": table_id}).one_or_none()
        if row is not None:
            ctx.variant, ctx.current_hand = row.variant, row.current_hand_id
        for seat, player, stack in self.conn.execute(self._q.seats, {"t": table_id}):
            ctx.seats[seat] = SeatInfo(player, stack)
        return ctx

    def _save_table(self, ctx: TableContext) -> None:
        q = self._q
        self.conn.execute(
            q.table_save,
            {"table_id": ctx.table_id, "variant": ctx.variant, "current_hand_id": ctx.current_hand},
        )
        self.conn.execute(q.seats_clear, {"t": ctx.table_id})
        if ctx.seats:
            self.conn.execute(
                q.seats_save,
                [
                    {"table_id": ctx.table_id, "seat": s, "player": i.player, "stack": i.stack}
                    for s, i in sorted(ctx.seats.items())
                ],
            )


def _snapshot(ctx: TableContext) -> tuple[object, ...]:
    seats = tuple(sorted((s, i.player, i.stack) for s, i in ctx.seats.items()))
    return (ctx.variant, ctx.current_hand, seats)


class Ledger:
    """The ledger database: apply records, one transaction each (or many, for a replay)."""

    def __init__(self, engine: Engine, unmoved: Unmoved | None = None) -> None:
        self.engine = engine
        #: Table versions seen to move no money, shared by every writer (see moneyfilter).
        self.unmoved = unmoved if unmoved is not None else Unmoved()

    @contextmanager
    def writer(self) -> Iterator[LedgerWriter]:
        """One write transaction, committed when the block ends without an exception."""
        with self.engine.connect() as conn:
            conn.execution_options(**{WRITE: True})
            with conn.begin():
                yield LedgerWriter(conn, self.unmoved)

    def apply_table_record(self, table_id: str, version: int, payload: bytes) -> ApplyResult:
        """Apply one table record in its own transaction."""
        return self._apply(TABLES, table_id, version, payload)

    def apply_wallet_record(self, wallet_id: str, version: int, payload: bytes) -> ApplyResult:
        """Apply one wallet record in its own transaction."""
        return self._apply(WALLETS, wallet_id, version, payload)

    def apply_table_records(self, records: Sequence[tuple[str, int, bytes]]) -> list[ApplyResult]:
        """Apply table records ``(table id, version, payload)`` in one transaction (one commit
        for all: what a consumer's batch costs), up to the first that finds a gap.

        Returns:
            One result per record applied or skipped, the last a gap if one was found (the
            records after it are left to the caller).

        Raises:
            IntegrityError: another process applied one of them at the same moment; nothing
                of the batch is kept (apply them one by one).
        """
        results: list[ApplyResult] = []
        with self.writer() as writer:
            for table_id, version, payload in records:
                result = writer.apply_table_record(table_id, version, payload)
                results.append(result)
                if result.outcome is Outcome.GAP:
                    break
        return results

    def position(self, source: str, aggregate_id: str) -> int:
        """The last version of an aggregate the ledger has applied."""
        with self.engine.connect() as conn:
            return LedgerWriter(conn).position(source, aggregate_id)

    def _apply(self, source: str, aggregate_id: str, version: int, payload: bytes) -> ApplyResult:
        if source == TABLES and not moves_money(payload):
            # Nothing to write: no connection, no transaction.
            self.unmoved.note(aggregate_id, version)
            return ApplyResult(Outcome.SKIPPED, version)
        try:
            with self.writer() as writer:
                if source == TABLES:
                    return writer.apply_table_record(aggregate_id, version, payload)
                return writer.apply_wallet_record(aggregate_id, version, payload)
        except IntegrityError:
            # Another process applied the same record at the same moment (its processed-event
            # row won); anything else is a real error.
            last = self.position(source, aggregate_id)
            if last >= version:
                return ApplyResult(Outcome.DUPLICATE, last)
            raise
