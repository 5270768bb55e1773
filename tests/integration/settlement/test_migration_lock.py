"""Ledger migrations on PostgreSQL wait for one another (an advisory lock around Alembic's
upgrade), so settlement replicas can start together on an empty database."""

from __future__ import annotations

import asyncio
import threading
import uuid

import psycopg
import pytest

from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.migrate import MIGRATION_LOCK, current_revision, head_revision, upgrade
from tests.integration.settlement.conftest import PG_DB, PG_HOST, PG_PORT, PG_USER, postgres_schema
from tests.waiting import until_true


def _connect() -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=PG_DB, autocommit=True)


async def test_a_migration_waits_for_the_one_holding_the_lock(postgres_reachable: bool) -> None:
    if not postgres_reachable:
        pytest.skip("PostgreSQL at 127.0.0.1:5432 is not reachable")
    with postgres_schema() as url, _connect() as holder, _connect() as observer:
        name = f"rb-migrate-{uuid.uuid4().hex[:8]}"
        engine = create_ledger_engine(url, connect_args={"application_name": name})
        # Another replica is migrating: it holds the lock.
        holder.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        done = threading.Event()
        failed: list[BaseException] = []
        result: list[tuple[str | None, str | None]] = []

        def migrate() -> None:
            try:
                result.append(upgrade(engine))
            except BaseException as exc:  # reported below
                failed.append(exc)
            finally:
                done.set()

        thread = threading.Thread(target=migrate)
        thread.start()

        def waiting() -> bool:
            # Our migration's session, waiting for the migration lock (others may test too).
            row = observer.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = %s "
                "AND (l.classid::bigint << 32) + l.objid::bigint = %s",
                (name, MIGRATION_LOCK),
            ).fetchone()
            return bool(row and row[0] == 1) or done.is_set()

        await until_true(waiting, "the migration asking for the lock")
        assert not done.is_set(), "the migration ran while another held the lock"
        assert current_revision(engine) is None  # nothing written meanwhile

        holder.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
        await asyncio.to_thread(thread.join, 30)
        assert not failed, failed
        head = head_revision()
        assert result == [(None, head)] and current_revision(engine) == head
        # A replica that comes second finds the schema current.
        assert upgrade(engine) == (head, head)
        engine.dispose()
