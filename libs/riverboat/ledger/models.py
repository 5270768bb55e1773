"""The ledger's tables (SQLAlchemy 2 declarative models).

Double entry: a :class:`Posting` is one balanced movement, made of :class:`PostingLine` rows
whose amounts sum to zero; :class:`Account` keeps each account's running balance. Everything
here is a projection of the wallet and table logs, so every row can be rebuilt from them:

* :class:`ProcessedEvent`: one row per applied log record (the idempotency key), written in the
  same transaction as the record's postings; :class:`Position` is the last version applied per
  aggregate, which keeps each aggregate's records in order.
* Read models the postings need or the reports show: :class:`LedgerTable` and
  :class:`TableSeat` (who sits where, the hand in progress), :class:`Hand` (variant, day, rake),
  :class:`Wallet` (the wallet log's own balance, for the invariant check).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    TypeDecorator,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Account",
    "Base",
    "Hand",
    "LedgerTable",
    "Position",
    "Posting",
    "PostingLine",
    "ProcessedEvent",
    "TableSeat",
    "UtcDateTime",
    "Wallet",
]

# Explicit constraint names: migrations and models then agree on every dialect.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only auto-increments an INTEGER PRIMARY KEY (a rowid alias), not a BIGINT one.
BigId = BigInteger().with_variant(Integer(), "sqlite")

NAME = 300  # account names and posting keys: a prefix plus ids of up to 128 characters
ID = 128  # player, table, hand and aggregate ids


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every backend (SQLite has no time zones: stored as naive UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the ledger; use UTC-aware datetimes")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    """Declarative base with the ledger's naming convention."""

    metadata = MetaData(naming_convention=NAMING)


class Account(Base):
    """An account and its running balance (sum of its lines)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(NAME), unique=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    # Whose and where, for access checks and reports (None for house accounts).
    player: Mapped[str | None] = mapped_column(String(ID), index=True)
    table_id: Mapped[str | None] = mapped_column(String(ID))
    balance: Mapped[int] = mapped_column(BigInteger, default=0)


class Posting(Base):
    """One balanced movement of money, caused by one event."""

    __tablename__ = "postings"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    # Deterministic effect id: the event that caused it ("tables:<table>:<version>:<index>").
    key: Mapped[str] = mapped_column(String(NAME), unique=True)
    kind: Mapped[str] = mapped_column(String(32))
    reference: Mapped[str] = mapped_column(String(NAME), default="")
    table_id: Mapped[str | None] = mapped_column(String(ID))
    hand_id: Mapped[str | None] = mapped_column(String(ID))
    occurred_at: Mapped[datetime] = mapped_column(UtcDateTime)


class PostingLine(Base):
    """One account's side of a posting; positive means money into the account."""

    __tablename__ = "posting_lines"
    __table_args__ = (
        CheckConstraint("amount <> 0", name="nonzero"),
        Index("ix_posting_lines_account_id_id", "account_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    posting_id: Mapped[int] = mapped_column(ForeignKey("postings.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    amount: Mapped[int] = mapped_column(BigInteger)
    # The account's balance right after this line, in the order the ledger recorded them.
    balance_after: Mapped[int] = mapped_column(BigInteger)


class ProcessedEvent(Base):
    """A log record already applied: its key is written in the same transaction as its effects."""

    __tablename__ = "processed_events"

    # "<source>:<aggregate>:<version>", one per log record (one record = one command's events).
    key: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    source: Mapped[str] = mapped_column(String(16))
    aggregate_id: Mapped[str] = mapped_column(String(ID))
    version: Mapped[int] = mapped_column(BigInteger)
    processed_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Position(Base):
    """The last record version applied for one aggregate (records apply strictly in order)."""

    __tablename__ = "positions"

    source: Mapped[str] = mapped_column(String(16), primary_key=True)
    aggregate_id: Mapped[str] = mapped_column(String(ID), primary_key=True)
    version: Mapped[int] = mapped_column(BigInteger)


class LedgerTable(Base):
    """A table as the ledger needs it: its game and the hand in progress."""

    __tablename__ = "tables"

    table_id: Mapped[str] = mapped_column(String(ID), primary_key=True)
    variant: Mapped[str] = mapped_column(String(64), default="")
    current_hand_id: Mapped[str | None] = mapped_column(String(ID))


class TableSeat(Base):
    """Who sits where, and the stack the table last stated for them (seating, hand start/end)."""

    __tablename__ = "table_seats"

    table_id: Mapped[str] = mapped_column(String(ID), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player: Mapped[str] = mapped_column(String(ID))
    stack: Mapped[int] = mapped_column(BigInteger)


class Hand(Base):
    """A hand: its game, when it ended (its day in the rake report) and the rake taken."""

    __tablename__ = "hands"

    table_id: Mapped[str] = mapped_column(String(ID), primary_key=True)
    hand_id: Mapped[str] = mapped_column(String(ID), primary_key=True)
    variant: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))  # playing, ended, voided
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    day: Mapped[str | None] = mapped_column(String(10), index=True)  # YYYY-MM-DD, UTC
    rake: Mapped[int] = mapped_column(BigInteger, default=0)


class Wallet(Base):
    """A wallet as its own log states it (balance after its last event)."""

    __tablename__ = "wallets"

    player: Mapped[str] = mapped_column(String(ID), primary_key=True)
    wallet_id: Mapped[str] = mapped_column(String(ID), unique=True)
    balance: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(BigInteger)
