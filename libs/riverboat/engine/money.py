"""Money bounds: the one place that says how large an amount of cents may be.

Every amount that enters the room from outside (a deposit, a buy-in, a stack an operator seats,
a bet limit, an ante, a rake cap) must be a whole number of cents in ``1..MAX_AMOUNT`` (or
``0..MAX_AMOUNT`` where zero means "none"). The bound is checked at the edge, by the code that
first sees the number, so nothing out of range is ever written to a log or the ledger.

Why ``10**12`` ($10 billion): far beyond any real wallet or table, and small enough that no sum
the room forms can overflow a signed 64-bit integer (the ledger's ``BIGINT`` columns, SQLite's
``SUM()``, protobuf's ``int64``): a table's pot or stack is at most its eight seats' money, and
a ledger total would need more than nine million maximal amounts (2**63 / 10**12) before it
reached the limit. ``LEDGER_LIMIT`` is what the ledger itself refuses to hold.

The engine imports nothing of the rest of Riverboat, so this module lives here and everything
else (lobby, tables, settlement, ledger) imports it from here.

>>> amount_problem(500, "buy_in") is None
True
>>> amount_problem(2**63 - 1, "stack")
'stack must be 1..1000000000000 cents, got 9223372036854775807'
>>> amount_problem(0, "ante", minimum=0) is None
True
"""

from __future__ import annotations

from typing import Final

__all__ = ["LEDGER_LIMIT", "MAX_AMOUNT", "amount_problem", "is_amount"]

MAX_AMOUNT: Final = 10**12
"""The largest amount, in cents, any request may name."""

LEDGER_LIMIT: Final = 2**63 - 1
"""The largest magnitude a stored balance or sum may reach (signed 64-bit)."""


def is_amount(value: object, *, minimum: int = 1) -> bool:
    """Whether ``value`` is a whole number of cents in ``minimum..MAX_AMOUNT`` (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= MAX_AMOUNT


def amount_problem(value: object, what: str, *, minimum: int = 1) -> str | None:
    """A sentence for the caller when ``value`` is not an amount, else ``None``.

    Args:
        value: the number given.
        what: the field's name, to start the sentence with.
        minimum: 1 for amounts that must move money, 0 where zero means "none".
    """
    if is_amount(value, minimum=minimum):
        return None
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
    return f"{what} must be {minimum}..{MAX_AMOUNT} cents, got {shown}"
