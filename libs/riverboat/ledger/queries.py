"""Reading the ledger: balances, an account's entries, the rake report, pending cash-outs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, func, select

from riverboat.ledger.accounts import AccountKind, pot
from riverboat.ledger.models import Account, Hand, Posting, PostingLine

__all__ = [
    "AccountInfo",
    "Entry",
    "PendingCashOut",
    "RakeRow",
    "account_info",
    "at_tables",
    "entries",
    "pending_cash_outs",
    "rake_report",
]


@dataclass(frozen=True, slots=True)
class AccountInfo:
    """An account as the ledger has it."""

    name: str
    kind: str
    player: str | None
    table_id: str | None
    balance: int


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a posting on an account."""

    line_id: int
    posting_id: int
    account: str
    amount: int
    kind: str
    reference: str
    occurred_at: datetime
    balance_after: int


@dataclass(frozen=True, slots=True)
class RakeRow:
    """Rake of one table and game on one day (hands that ended that day, UTC)."""

    table_id: str
    variant: str
    day: str
    hands: int
    rake: int


@dataclass(frozen=True, slots=True)
class PendingCashOut:
    """Chips of a player who left a table, not yet credited to the wallet."""

    table_event_id: str
    player: str
    table_id: str
    amount: int


def account_info(conn: Connection, name: str) -> AccountInfo | None:
    """The account called ``name``, if the ledger has one."""
    row = conn.execute(
        select(Account.name, Account.kind, Account.player, Account.table_id, Account.balance).where(
            Account.name == name
        )
    ).one_or_none()
    return AccountInfo(*row) if row is not None else None


def at_tables(conn: Connection, player: str) -> int:
    """The chips on ``player``'s table stacks."""
    total = conn.scalar(
        select(func.coalesce(func.sum(Account.balance), 0)).where(
            Account.player == player, Account.kind == AccountKind.TABLE.value
        )
    )
    return int(total or 0)


def entries(
    conn: Connection, account: str, *, limit: int, before_line: int | None = None
) -> list[Entry]:
    """The account's lines, newest first, at most ``limit``, older than ``before_line``."""
    query = (
        select(
            PostingLine.id,
            PostingLine.posting_id,
            Account.name,
            PostingLine.amount,
            Posting.kind,
            Posting.reference,
            Posting.occurred_at,
            PostingLine.balance_after,
            Posting.table_id,
            Posting.hand_id,
        )
        .join(Account, Account.id == PostingLine.account_id)
        .join(Posting, Posting.id == PostingLine.posting_id)
        .where(Account.name == account)
        .order_by(PostingLine.id.desc())
        .limit(limit)
    )
    if before_line is not None:
        query = query.where(PostingLine.id < before_line)
    return [
        Entry(*row[:5], row.reference or _hand_reference(row.table_id, row.hand_id), *row[6:8])
        for row in conn.execute(query)
    ]


def _hand_reference(table_id: str | None, hand_id: str | None) -> str:
    """What a hand's posting without a reference of its own (rake, antes) is about: the hand's
    pot, ``pot:TABLE:HAND``, the account it moved from or to (``ledger pot:...`` lists it)."""
    return pot(table_id, hand_id).name if table_id and hand_id else ""


def rake_report(
    conn: Connection,
    *,
    from_day: str | None = None,
    to_day: str | None = None,
    table_id: str | None = None,
) -> list[RakeRow]:
    """Rake per table, game and day over the hands that ended in ``[from_day, to_day]``."""
    query = (
        select(Hand.table_id, Hand.variant, Hand.day, func.count(), func.sum(Hand.rake))
        .where(Hand.status == "ended")
        .group_by(Hand.table_id, Hand.variant, Hand.day)
        .order_by(Hand.day, Hand.table_id, Hand.variant)
    )
    if from_day:
        query = query.where(Hand.day >= from_day)
    if to_day:
        query = query.where(Hand.day <= to_day)
    if table_id:
        query = query.where(Hand.table_id == table_id)
    return [
        RakeRow(table, variant, day or "", int(hands), int(rake or 0))
        for table, variant, day, hands, rake in conn.execute(query)
    ]


def pending_cash_outs(conn: Connection) -> list[PendingCashOut]:
    """Cash-outs the tables recorded whose wallet credit the ledger has not seen yet."""
    query = (
        select(Account.name, Account.player, Account.table_id, Account.balance)
        .where(Account.kind == AccountKind.CASHOUT.value, Account.balance > 0)
        .order_by(Account.id)
    )
    return [
        PendingCashOut(name.split(":", 1)[1], player or "", table or "", int(balance))
        for name, player, table, balance in conn.execute(query)
    ]
