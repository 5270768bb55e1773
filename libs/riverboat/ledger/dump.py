"""A canonical text dump of the ledger, to compare two ledgers byte for byte.

Everything the logs determine is in it, sorted, without what depends on the order records
arrived in (row ids, per-line running balances, processing times): accounts and balances,
postings and their lines, hands and rake, seats, wallets, positions and processed records. A
ledger rebuilt from the logs must dump to exactly the bytes of the live one.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

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

__all__ = ["canonical_dump", "digest"]


def _time(value: datetime | None) -> str:
    return "" if value is None else value.isoformat(timespec="microseconds")


def _v(value: object) -> str:
    return "" if value is None else str(value)


def canonical_dump(conn: Connection) -> str:
    """The ledger as sorted, tab-separated lines (see the module docstring)."""
    out: list[str] = ["# riverboat ledger dump v1"]

    def rows(kind: str, *columns: Any) -> None:
        for row in conn.execute(select(*columns)):
            out.append("\t".join((kind, *map(_v, row))))

    rows("account", Account.name, Account.kind, Account.player, Account.table_id, Account.balance)
    names = dict(conn.execute(select(Account.id, Account.name)).all())
    lines: dict[int, list[str]] = defaultdict(list)
    for posting_id, account_id, amount in conn.execute(
        select(PostingLine.posting_id, PostingLine.account_id, PostingLine.amount)
    ):
        lines[posting_id].append(f"{names[account_id]}={amount}")
    for pid, key, kind, ref, table, hand, at in conn.execute(
        select(
            Posting.id,
            Posting.key,
            Posting.kind,
            Posting.reference,
            Posting.table_id,
            Posting.hand_id,
            Posting.occurred_at,
        )
    ):
        parts = ("posting", key, kind, ref, _v(table), _v(hand), _time(at), *sorted(lines[pid]))
        out.append("\t".join(parts))
    for hand_row in conn.execute(
        select(
            Hand.table_id,
            Hand.hand_id,
            Hand.variant,
            Hand.status,
            Hand.started_at,
            Hand.ended_at,
            Hand.day,
            Hand.rake,
        )
    ):
        t, h, variant, status, started, ended, day, rake = hand_row
        out.append(
            "\t".join(
                ("hand", t, h, variant, status, _time(started), _time(ended), _v(day), str(rake))
            )
        )
    rows("table", LedgerTable.table_id, LedgerTable.variant, LedgerTable.current_hand_id)
    rows("seat", TableSeat.table_id, TableSeat.seat, TableSeat.player, TableSeat.stack)
    rows("wallet", Wallet.player, Wallet.wallet_id, Wallet.balance, Wallet.version)
    rows("position", Position.source, Position.aggregate_id, Position.version)
    rows("processed", ProcessedEvent.key)
    header, body = out[0], sorted(out[1:])
    return "\n".join([header, *body]) + "\n"


def digest(dump: str) -> str:
    """SHA-256 of a dump, hex."""
    return hashlib.sha256(dump.encode()).hexdigest()
