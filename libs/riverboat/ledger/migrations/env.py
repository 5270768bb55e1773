"""Alembic environment: runs on the connection riverboat.ledger.migrate hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from riverboat.ledger.models import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things: later migrations rebuild tables in batch mode.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run ledger migrations with riverboat.ledger.migrate (or the CLI)")
_run(connection)
