"""Who exists, as settlement checks it before it writes: players and tables.

The room's account registry is the lobby's log (stream ``RB_LOBBY``): the lobby alone creates
accounts, each as an ``AccountRegistered`` record on the subject ``<prefix>.account-<name>``,
and never deletes one. Settlement reads that log (it never writes it), the same way the dealer
reads the table logs: one source of truth, no copy to keep in step, and a deposit made by any
caller (the admin CLI goes straight to settlement) is checked where the money is written.
Tables are known the same way, from their own logs (a table exists once its log has a record).

Both answers are cached once positive: accounts and tables are never removed.
"""

from __future__ import annotations

from riverboat.eventstore import EventStore, EventStoreError
from riverboat.services.common.errors import NotFound, Unavailable

__all__ = ["Registry"]

_CACHE_LIMIT = 100_000


class Registry:
    """Existence checks against the logs.

    Args:
        accounts: the lobby's log.
        tables: the table logs.

    Settlement run on its own (no lobby, as in its own tests) has no registry: the service is
    then given none and checks neither players nor tables.
    """

    def __init__(self, accounts: EventStore, tables: EventStore) -> None:
        self._accounts = accounts
        self._tables = tables
        self._known: set[str] = set()

    async def check_player(self, player: str) -> None:
        """Raise ``NOT_FOUND`` unless the lobby registered ``player``."""
        await self._check(self._accounts, f"account-{player}", f"no account {player!r}")

    async def check_table(self, table_id: str) -> None:
        """Raise ``NOT_FOUND`` unless the table's log has a record."""
        await self._check(self._tables, table_id, f"no table {table_id!r}", prefix="table:")

    async def _check(
        self, log: EventStore, aggregate_id: str, missing: str, *, prefix: str = "account:"
    ) -> None:
        key = prefix + aggregate_id
        if key in self._known:
            return
        try:
            version = await log.last_version(aggregate_id)
        except ValueError:  # not even a valid id: nothing by that name can exist
            raise NotFound(missing, reason="NOT_REGISTERED") from None
        except EventStoreError:
            raise Unavailable(
                "the registry log is unavailable; retry shortly", reason="LOG_UNAVAILABLE"
            ) from None
        if version == 0:
            raise NotFound(missing, reason="NOT_REGISTERED")
        if len(self._known) >= _CACHE_LIMIT:
            self._known.clear()
        self._known.add(key)
