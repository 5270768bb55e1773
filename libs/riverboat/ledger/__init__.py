"""The settlement ledger: double-entry accounts and postings, projected from the logs.

Modules:

* :mod:`.accounts`: account names and kinds (wallets, table stacks, pots, transit, rake, cashier).
* :mod:`.wallet` and :mod:`.walletcodec`: the wallet aggregate (events, state, decisions) and its
  protobuf records.
* :mod:`.projection`: events -> balanced postings and read-model facts, without I/O.
* :mod:`.models`, :mod:`.db`, :mod:`.migrate`: SQLAlchemy models, engines (SQLite or
  PostgreSQL) and the Alembic migrations shipped in :mod:`.migrations`.
* :mod:`.store`: applying records exactly once, in order, one transaction each.
* :mod:`.queries`, :mod:`.invariants`, :mod:`.dump`: balances and reports, the invariant check,
  and the canonical dump that compares a rebuilt ledger with the live one.

Design and a worked example: ``docs/settlement-service.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from riverboat.ledger.db import create_ledger_engine, database_url
    from riverboat.ledger.dump import canonical_dump, digest
    from riverboat.ledger.invariants import CheckReport, check_ledger
    from riverboat.ledger.migrate import upgrade
    from riverboat.ledger.store import ApplyResult, Ledger, LedgerWriter, Outcome, Violation

# Loaded on first use: importing a submodule (say the account names) must not pull in
# SQLAlchemy and Alembic, which every ``riverboat`` command would then pay for.
_EXPORTS = {
    "ApplyResult": "store",
    "CheckReport": "invariants",
    "Ledger": "store",
    "LedgerWriter": "store",
    "Outcome": "store",
    "Violation": "store",
    "canonical_dump": "dump",
    "check_ledger": "invariants",
    "create_ledger_engine": "db",
    "database_url": "db",
    "digest": "dump",
    "upgrade": "migrate",
}

__all__ = [
    "ApplyResult",
    "CheckReport",
    "Ledger",
    "LedgerWriter",
    "Outcome",
    "Violation",
    "canonical_dump",
    "check_ledger",
    "create_ledger_engine",
    "database_url",
    "digest",
    "upgrade",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'riverboat.ledger' has no attribute {name!r}")
    return getattr(importlib.import_module(f"riverboat.ledger.{module}"), name)
