"""Replaying a table this instance just took, again and again until it is loaded.

A table taken (claimed, handed over or taken back) is replayed from its log and its hand in
play resumed (the registry's ``adopt``). If the log does not answer (a NATS read timeout while
a stream elects its leader), the replay is tried again under :data:`riverboat.retrying.ADOPTION`
(0.1 s, doubling up to 5 s, with jitter), for as long as the table is still ours. Before, one
failed replay was only logged: the table stayed owned, unloaded and with nobody's clock
running until a player's call loaded it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

from riverboat import retrying

log = structlog.get_logger("riverboat.table.owners")

__all__ = ["Adoption"]


class _NotLoaded(Exception):
    """A replay failed (logged already): try again."""


class Adoption:
    """Adopts tables through ``adopt`` (set by the keeper's start), retrying failures while
    ``still_ours(table_id)``."""

    def __init__(self, still_ours: Callable[[str], bool]) -> None:
        self.adopt: Callable[[str], Awaitable[None]] | None = None
        self._still_ours = still_ours
        self._retrying: dict[str, asyncio.Task[None]] = {}

    async def __call__(self, table_id: str) -> None:
        """Replay ``table_id`` now; on failure keep trying in the background."""
        if await self._try(table_id, attempt=1) or table_id in self._retrying:
            return
        task = asyncio.ensure_future(self._until_loaded(table_id))
        self._retrying[table_id] = task
        task.add_done_callback(lambda _: self._retrying.pop(table_id, None))

    def cancel(self) -> None:
        """Stop every retry (the instance is stopping)."""
        for task in list(self._retrying.values()):
            task.cancel()

    async def _try(self, table_id: str, *, attempt: int) -> bool:
        assert self.adopt is not None
        try:
            await self.adopt(table_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning(
                "table_adopt_failed",
                table_id=table_id,
                attempt=attempt,
                reason=str(exc) or repr(exc),
                exc_info=attempt == 1,
            )
            return False
        if attempt > 1:
            log.info("table_adopted", table_id=table_id, attempt=attempt)
        return True

    async def _until_loaded(self, table_id: str) -> None:
        attempt = 0

        async def again() -> None:
            nonlocal attempt
            attempt += 1
            if attempt == 1:
                raise _NotLoaded  # __call__'s try, failed: the first pause comes first
            if not self._still_ours(table_id):
                return  # taken from us meanwhile: its new owner replays it
            if not await self._try(table_id, attempt=attempt):
                raise _NotLoaded

        await retrying.call(
            again,
            retrying.ADOPTION,
            transient=lambda exc: isinstance(exc, _NotLoaded) and self._still_ours(table_id),
        )
