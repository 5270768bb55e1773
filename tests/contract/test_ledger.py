"""The ledger contract on SQLite (a file under the test's tmp_path; no server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.migrate import upgrade
from tests.contract.ledger import LedgerContract


class TestSqliteLedger(LedgerContract):
    """The ledger on SQLite keeps every promise of the contract."""

    @pytest.fixture
    def engine(self, tmp_path: Path) -> Iterator[Engine]:
        eng = create_ledger_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
        upgrade(eng)
        try:
            yield eng
        finally:
            eng.dispose()
