"""Where the ledger lives: SQLite by default (``./var/settlement.db``), PostgreSQL on request.

``RIVERBOAT_DATABASE_URL`` (or an explicit URL) selects the database, for example
``postgresql+psycopg://riverboat@db.example/riverboat``. SQLite runs in WAL mode with full
synchronous commits (a committed posting survives a power cut) and writers take the write lock
up front (``BEGIN IMMEDIATE``), so two processes never fail half-way through a transaction.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

__all__ = [
    "DEFAULT_SQLITE_PATH",
    "ENV_DATABASE_URL",
    "WRITE",
    "create_ledger_engine",
    "database_url",
    "redact",
]

DEFAULT_SQLITE_PATH = Path("var/settlement.db")
ENV_DATABASE_URL = "RIVERBOAT_DATABASE_URL"

# Execution option asking for a write transaction (BEGIN IMMEDIATE on SQLite).
WRITE = "riverboat_write"


def database_url(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The ledger's URL: ``explicit``, else ``RIVERBOAT_DATABASE_URL``, else SQLite under var/."""
    env = os.environ if environ is None else environ
    url = explicit or env.get(ENV_DATABASE_URL) or f"sqlite:///{DEFAULT_SQLITE_PATH}"
    make_url(url)  # raises ArgumentError for a malformed URL
    return url


def redact(url: str) -> str:
    """The URL without its password, for logs and reports."""
    return make_url(url).render_as_string(hide_password=True)


def create_ledger_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for the ledger, with SQLite set up for safe concurrent use."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, **kwargs)
    database = parsed.database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's own handling defers it
        # past the first SELECT, which breaks read-then-write transactions).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine
