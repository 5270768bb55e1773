"""All the tables one table-service instance serves, loaded from the log on demand."""

from __future__ import annotations

import asyncio

import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from riverboat.eventstore import EventStore
from riverboat.services.common.metrics import set_consumer_lag
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import DealerClient
from riverboat.services.table.runner import TableRunner

log = structlog.get_logger("riverboat.table")

_REGISTRY_CONSUMER = "table-registry"  # its lag in riverboat_consumer_lag_records


class TableRegistry:
    """Table id -> live :class:`TableRunner`; a table is rebuilt from its log on first use."""

    def __init__(
        self,
        store: EventStore,
        dealer: DealerClient,
        config: TableConfig,
        nc: NATS | None = None,
    ) -> None:
        self.store = store
        self.dealer = dealer
        self.config = config
        self.nc = nc
        self._tables: dict[str, TableRunner] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._subscription: Subscription | None = None

    async def start(self) -> None:
        """Load every table in the log, resume hands in progress, follow other writers."""
        if self.nc is not None:
            # Core NATS sees every message published to the table subjects, including other
            # instances' appends: we use it only as a nudge to re-read the log.
            self._subscription = await self.nc.subscribe(
                f"{self.config.subject_prefix}.*", cb=self._on_message
            )
            for table_id in await self._table_ids():
                runner = await self.get(table_id)
                if runner is not None:
                    await runner.resume()

    async def _table_ids(self) -> list[str]:
        assert self.nc is not None
        js = self.nc.jetstream()
        try:
            info = await js.stream_info(self.config.stream, subjects_filter=">")
        except Exception:  # no stream yet: no tables
            return []
        subjects = info.state.subjects or {}
        prefix = self.config.subject_prefix + "."
        return sorted(s[len(prefix) :] for s in subjects if s.startswith(prefix))

    async def _on_message(self, msg: Msg) -> None:
        if self._subscription is not None:
            # Nudges queued behind this one: how far this instance trails other writers.
            set_consumer_lag(_REGISTRY_CONSUMER, self._subscription.pending_msgs)
        table_id = msg.subject.rsplit(".", 1)[-1]
        runner = self._tables.get(table_id)
        if runner is None:
            return
        version = int((msg.headers or {}).get("Rb-Version", "0") or 0)
        if version > runner.version:
            await runner.external_change(version)

    def known(self, table_id: str) -> TableRunner | None:
        """The runner if loaded."""
        return self._tables.get(table_id)

    async def get(self, table_id: str, *, create: bool = False) -> TableRunner | None:
        """The live table, loading it from the log; None if it does not exist."""
        runner = self._tables.get(table_id)
        if runner is not None:
            return runner
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            runner = self._tables.get(table_id)
            if runner is None:
                runner = await TableRunner.load(table_id, self.store, self.dealer, self.config)
                if runner.version == 0 and not create:
                    return None
                self._tables[table_id] = runner
                log.info("table_loaded", table_id=table_id, version=runner.version)
        return runner

    def reconcile_all(self) -> None:
        """Have every loaded table catch up with the log and re-derive what is due, now."""
        for runner in self._tables.values():
            runner.reconcile_soon()

    def tables(self) -> list[TableRunner]:
        """Loaded tables."""
        return list(self._tables.values())

    async def close(self) -> None:
        """Stop every table."""
        for runner in self._tables.values():
            await runner.close()
        if self._subscription is not None:
            await self._subscription.unsubscribe()
