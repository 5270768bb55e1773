"""The ledger database, used from asyncio: every call runs on one worker thread.

SQLAlchemy's engine is synchronous. One dedicated thread keeps the event loop free while a
transaction commits, serialises this process's writers (no lock contention with itself on
SQLite), and keeps each SQLite connection on the thread that opened it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from sqlalchemy import Connection, Engine

from riverboat.ledger import Ledger
from riverboat.ledger.db import create_ledger_engine

__all__ = ["Database"]

P = ParamSpec("P")
T = TypeVar("T")


class Database:
    """The ledger plus a one-thread executor to reach it from coroutines."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.ledger = Ledger(engine)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ledger-db")

    @classmethod
    def open(cls, url: str) -> Database:
        """Connect (lazily) to the database at ``url``."""
        return cls(create_ledger_engine(url))

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn(*args, **kwargs)`` on the database thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))

    async def read(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(connection)`` in a read transaction on the database thread."""

        def reading() -> T:
            with self.engine.connect() as conn:
                return fn(conn)

        return await self.run(reading)

    def close(self) -> None:
        """Finish queued work, stop the thread, close pooled connections."""
        self._executor.shutdown(wait=True)
        self.engine.dispose()
