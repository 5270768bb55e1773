"""Schema migrations (Alembic), shipped inside the package so an installed wheel can migrate.

The Alembic environment and versions live in :mod:`riverboat.ledger.migrations`; these helpers
run them against an engine without an ``alembic.ini``.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from riverboat.ledger.db import WRITE

__all__ = ["MIGRATION_LOCK", "current_revision", "downgrade_all", "head_revision", "upgrade"]

_SCRIPTS = Path(__file__).parent / "migrations"


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    return config


#: The PostgreSQL advisory lock that serialises migrations (any fixed 64-bit number: this
#: one is "RBLEDGER" in ASCII). Replicas starting together migrate one after the other.
MIGRATION_LOCK = 0x52424C4544474552


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Bring the schema up to ``revision`` (the latest by default); idempotent.

    Safe to run from several processes at once: on PostgreSQL each takes the advisory lock
    :data:`MIGRATION_LOCK` first (the one that gets it migrates, the others then find the
    schema current); on SQLite the write transaction (``BEGIN IMMEDIATE``) serialises them.

    Returns:
        The revision found once the lock was held (None: an empty schema) and the one after.
    """
    with engine.connect() as conn:
        conn.execution_options(**{WRITE: True})
        postgres = conn.dialect.name == "postgresql"
        if postgres:
            # Transaction-scoped: released by the commit below, or by the rollback if the
            # migration fails or the process dies (the server ends the session).
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        found = MigrationContext.configure(conn).get_current_revision()
        config = _config()
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
        now = MigrationContext.configure(conn).get_current_revision()
        conn.commit()
    return found, now


def downgrade_all(engine: Engine) -> None:
    """Drop every ledger table (back to an empty schema)."""
    with engine.connect() as conn:
        conn.execution_options(**{WRITE: True})
        config = _config()
        config.attributes["connection"] = conn
        command.downgrade(config, "base")
        conn.commit()


def current_revision(engine: Engine) -> str | None:
    """The schema's revision, or None for an empty database."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str:
    """The newest revision this code knows."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head
