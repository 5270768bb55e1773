"""Ledger account names and kinds.

Every chip is always in exactly one account. Names are readable strings; the kind says what
the account stands for and which side of the conservation invariant it counts on:

========== ================================ ==================================================
kind       name                             holds
========== ================================ ==================================================
cashier    ``cashier``                      the outside world: minus everything deposited
wallet     ``wallet:<player>``              a player's money not at a table
buyin      ``buyin:<reference>``            a reserved buy-in the table has not seated yet
table      ``table:<table>:<player>``       a player's chips on a table
pot        ``pot:<table>:<hand>``           chips bet in a hand, until it is settled
pot        ``pot:<table>:carried``          a pot riding to the next deal (dealer's choice)
cashout    ``cashout:<table event id>``     chips of a player who left, on their way to the wallet
rake       ``rake``                         the house's revenue
========== ================================ ==================================================

Amounts are integers in cents. A line's amount is positive when money goes *into* the account,
so every posting's lines sum to zero and so do all balances together: the cashier's balance is
``-(deposits - withdrawals)``, and everything else adds up to ``deposits - withdrawals``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

__all__ = [
    "CASHIER",
    "CASHIER_ACCOUNT",
    "RAKE",
    "RAKE_ACCOUNT",
    "AccountKind",
    "AccountRef",
    "buyin",
    "carried_pot",
    "cashout",
    "kind_of",
    "pot",
    "table_stack",
    "wallet",
]

CASHIER = "cashier"
RAKE = "rake"


class AccountKind(StrEnum):
    """What an account stands for (stored with the account)."""

    CASHIER = "cashier"
    WALLET = "wallet"
    BUYIN = "buyin"
    TABLE = "table"
    POT = "pot"
    CASHOUT = "cashout"
    RAKE = "rake"


class AccountRef(NamedTuple):
    """An account's name with what the ledger records about it when it is opened."""

    name: str
    kind: AccountKind
    player: str | None = None
    table_id: str | None = None


CASHIER_ACCOUNT = AccountRef(CASHIER, AccountKind.CASHIER)
RAKE_ACCOUNT = AccountRef(RAKE, AccountKind.RAKE)


def wallet(player: str) -> AccountRef:
    """A player's wallet."""
    return AccountRef(f"wallet:{player}", AccountKind.WALLET, player)


def table_stack(table_id: str, player: str) -> AccountRef:
    """A player's chips on a table (table ids never contain a colon)."""
    return AccountRef(f"table:{table_id}:{player}", AccountKind.TABLE, player, table_id)


def pot(table_id: str, hand_id: str) -> AccountRef:
    """The pot of one hand."""
    return AccountRef(f"pot:{table_id}:{hand_id}", AccountKind.POT, None, table_id)


def carried_pot(table_id: str) -> AccountRef:
    """A pot riding from one deal to the next at a table (dealer's choice games)."""
    return AccountRef(f"pot:{table_id}:carried", AccountKind.POT, None, table_id)


def buyin(reference: str, player: str, table_id: str) -> AccountRef:
    """A buy-in in transit from the wallet to the table."""
    return AccountRef(f"buyin:{reference}", AccountKind.BUYIN, player, table_id)


def cashout(table_event_id: str, player: str, table_id: str) -> AccountRef:
    """A cash-out in transit from the table to the wallet."""
    return AccountRef(f"cashout:{table_event_id}", AccountKind.CASHOUT, player, table_id)


def kind_of(name: str) -> AccountKind:
    """The kind of an account, from its name."""
    head = name.split(":", 1)[0]
    try:
        return AccountKind(head)
    except ValueError:
        raise ValueError(f"not a ledger account name: {name!r}") from None
