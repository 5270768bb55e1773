"""All the tables one table-service instance serves, loaded from the log on demand.

With a :class:`~riverboat.services.table.owners.LeaseKeeper` (the running service always has
one) only the tables this instance owns are loaded; a call about any other table gets the
keeper's redirect (NOT_OWNER naming the owner, or NO_OWNER), and a new table is opened here
only if this instance is the least loaded.
"""

from __future__ import annotations

import asyncio

import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from riverboat.eventstore import EventStore
from riverboat.redirect import Owner
from riverboat.services.common.errors import NotOwner, ServiceError
from riverboat.services.common.metrics import set_consumer_lag
from riverboat.services.table.config import TableConfig
from riverboat.services.table.owners import LeaseKeeper
from riverboat.services.table.ports import ALWAYS_HELD, Dealer
from riverboat.services.table.runner import TableRunner

log = structlog.get_logger("riverboat.table")

_REGISTRY_CONSUMER = "table-registry"  # its lag in riverboat_consumer_lag_records


class TableRegistry:
    """Table id -> live :class:`TableRunner`; a table is rebuilt from its log on first use."""

    def __init__(
        self,
        store: EventStore,
        dealer: Dealer,
        config: TableConfig,
        nc: NATS | None = None,
        keeper: LeaseKeeper | None = None,
    ) -> None:
        self.store = store
        self.dealer = dealer
        self.config = config
        self.nc = nc
        self.keeper = keeper
        self._tables: dict[str, TableRunner] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._subscription: Subscription | None = None
        #: Runners closed since (lost or handed over) whose seed reveals may still run.
        self._dropped: list[TableRunner] = []

    async def start(self) -> None:
        """Load every table in the log, resume hands in progress, follow other writers."""
        if self.nc is not None:
            # Core NATS sees every message published to the table subjects, including other
            # instances' appends: we use it only as a nudge to re-read the log.
            self._subscription = await self.nc.subscribe(
                f"{self.config.subject_prefix}.*", cb=self._on_message
            )
            if self.keeper is not None:
                await self.keeper.start(
                    adopt=self._adopt,
                    drop=self._drop,
                    hand_over=self._hand_over,
                    cancel_hand_over=self._cancel_hand_over,
                    table_ids=self._table_ids,
                    settle=self._settle,
                )
                return
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
        """The live table, loading it from the log; None if it does not exist.

        Raises:
            ServiceError: another instance owns the table (NOT_OWNER), or nobody does right
                now (NO_OWNER); for ``create``, a less loaded instance should open it.
        """
        keeper = self.keeper
        if (
            keeper is not None
            and not keeper.holds(table_id)
            and not await self._claim_for_call(keeper, table_id, create=create)
        ):
            return None  # no such table
        runner = self._tables.get(table_id)
        if runner is not None:
            return runner
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            runner = self._tables.get(table_id)
            if runner is None:
                if keeper is not None and not keeper.holds(table_id):
                    raise await keeper.redirect(table_id)
                runner = await TableRunner.load(
                    table_id,
                    self.store,
                    self.dealer,
                    self.config,
                    lease=keeper.handle(table_id) if keeper is not None else ALWAYS_HELD,
                )
                if runner.version == 0 and not create:
                    return None
                self._tables[table_id] = runner
                log.info("table_loaded", table_id=table_id, version=runner.version)
        return runner

    async def _claim_for_call(self, keeper: LeaseKeeper, table_id: str, *, create: bool) -> bool:
        """A call about a table this instance does not hold: take it if nobody holds it and
        it belongs here (True), else raise the redirect; False if there is no such table."""
        if keeper.owner(table_id) is not None:
            raise await keeper.redirect(table_id)
        if create:
            target = await keeper.placement()
            if (
                target.instance != keeper.me.instance
                and await self.store.last_version(table_id) == 0
            ):
                # A new table goes to the least-loaded instance.
                raise NotOwner(Owner(table_id, target.instance, target.address))
        elif await self.store.last_version(table_id) == 0:
            return False
        if not await keeper.claim(table_id):
            raise await keeper.redirect(table_id)
        return True

    async def forget_unopened(self, table_id: str) -> None:
        """An OpenTable failed: if the log holds nothing of ``table_id``, unload it and release
        its lease (else this instance would keep a lease on a table that does not exist)."""
        runner = self._tables.get(table_id)
        if runner is None or runner.version != 0 or self.keeper is None:
            return
        try:
            if await self.store.last_version(table_id) != 0:
                return  # an append answered late did land: the table exists
        except Exception as exc:  # unknown: keep the lease (it is renewed, harmlessly)
            log.warning("table_check_failed", table_id=table_id, reason=str(exc))
            return
        if self._tables.get(table_id) is runner and runner.version == 0:
            del self._tables[table_id]
            await runner.close()
            await self.keeper.release(table_id)

    async def redirect(self, table_id: str) -> ServiceError | None:
        """The error for a call about a table this instance no longer owns (None: no keeper)."""
        return await self.keeper.redirect(table_id) if self.keeper is not None else None

    async def _adopt(self, table_id: str) -> None:
        """The keeper took ``table_id``: replay it, resume its hand in progress."""
        runner = await self.get(table_id)
        if runner is not None:
            await runner.resume()

    async def _drop(self, table_id: str) -> None:
        """The table is no longer ours: let a write in flight finish, then stop it."""
        runner = self._tables.pop(table_id, None)
        if runner is not None:
            await runner.settle()
            await runner.close()
            self._dropped = [r for r in self._dropped if r.revealing] + [runner]
            log.info("table_unloaded", table_id=table_id, version=runner.version)

    async def _settle(self, table_id: str) -> None:
        runner = self._tables.get(table_id)
        if runner is not None:
            await runner.settle()

    async def _hand_over(self, table_id: str, patience: float) -> bool:
        runner = self._tables.get(table_id)
        return True if runner is None else await runner.hand_over(patience)

    def _cancel_hand_over(self, table_id: str) -> None:
        runner = self._tables.get(table_id)
        if runner is not None:
            runner.cancel_hand_over()

    def reconcile_all(self) -> None:
        """Have every loaded table catch up with the log and re-derive what is due, now."""
        for runner in self._tables.values():
            runner.reconcile_soon()

    def tables(self) -> list[TableRunner]:
        """Loaded tables."""
        return list(self._tables.values())

    async def close(self, reveal_timeout: float = 5.0) -> None:
        """Hand owned tables over (with a keeper), then stop every table, letting seed reveals
        in flight (of tables dropped earlier too) finish within ``reveal_timeout``."""
        if self.keeper is not None and not self.keeper.stopped:
            await self.keeper.stop()
        for runner in self._tables.values():
            await runner.close()
        runners = [*self._tables.values(), *self._dropped]
        await asyncio.gather(*(r.finish_reveals(reveal_timeout) for r in runners))
        if self._subscription is not None:
            await self._subscription.unsubscribe()
