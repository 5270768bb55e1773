"""The ledger contract on PostgreSQL: the machine's server, a fresh schema per test (skipped
without it, except under ``CI=true`` where it fails)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.migrate import upgrade
from tests.contract.ledger import LedgerContract
from tests.integration.settlement.conftest import PG_HOST, PG_PORT, postgres_schema


class TestPostgresLedger(LedgerContract):
    """The ledger on PostgreSQL keeps every promise of the contract."""

    @pytest.fixture
    def engine(self, postgres_reachable: bool) -> Iterator[Engine]:
        if not postgres_reachable:
            pytest.skip(f"PostgreSQL at {PG_HOST}:{PG_PORT} is not reachable")
        with postgres_schema() as url:
            eng = create_ledger_engine(url)
            upgrade(eng)
            try:
                yield eng
            finally:
                eng.dispose()
