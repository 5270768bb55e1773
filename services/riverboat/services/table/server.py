"""Start the table service: connect to NATS, open the log, load every table, serve gRPC."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import nats.errors
import structlog
from nats.aio.client import Client as NATS

from riverboat.auth import TokenIssuer, load_token_key
from riverboat.eventstore import JetStreamEventStore, StreamConfigError, StreamSettings
from riverboat.leases import (
    Holder,
    JetStreamLeaseStore,
    LeaseStore,
    LeaseStoreUnavailable,
    owners_bucket,
)
from riverboat.liveness import AddressProbe
from riverboat.services.common import (
    ConnectionHealth,
    ErrorInterceptor,
    GrpcServer,
    lifecycle,
)
from riverboat.services.common.auth import AuthInterceptor
from riverboat.services.common.lifecycle import StartupError, connect_nats
from riverboat.services.common.limits import RateLimitInterceptor
from riverboat.services.common.validation import ValidationInterceptor
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import DealerClient
from riverboat.services.table.owners import LeaseKeeper, default_instance_id, safe_id
from riverboat.services.table.registry import TableRegistry
from riverboat.services.table.renewer import RenewalThread
from riverboat.services.table.service import RULES, TableService
from riverboat.services.table.wire import add_table_service

log = structlog.get_logger("riverboat.table")

SERVICE_NAME = "riverboat.v1.TableService"


class TableServer:
    """The running service: gRPC server, NATS connection, event store and tables."""

    def __init__(self, config: TableConfig, issuer: TokenIssuer | None = None) -> None:
        self.config = config
        self.issuer = issuer or TokenIssuer(load_token_key())
        self.nc: NATS | None = None
        self.registry: TableRegistry | None = None
        self.dealer: DealerClient | None = None
        auth = AuthInterceptor(self.issuer, RULES)
        limits = RateLimitInterceptor(config.rate_limits, identify=auth.identify)
        #: Asks another instance's health before a redirect names it (riverboat.liveness).
        self.probe = AddressProbe(timeout=min(2.0, config.lease_ttl / 3))
        self.grpc = GrpcServer(
            config.address,
            service_names=[SERVICE_NAME],
            interceptors=[
                ErrorInterceptor(
                    context_fields=["table_id"],
                    # The hot calls log at debug: a line per action is a real share of its cost.
                    quiet_prefixes=(
                        "/grpc.health.",
                        "/grpc.reflection.",
                        "/riverboat.v1.TableService/Act",
                        "/riverboat.v1.TableService/GetTableView",
                        "/riverboat.v1.TableService/Watch",
                        "/riverboat.v1.TableService/Play",
                    ),
                    max_request_bytes=config.max_request_bytes,
                ),
                auth,
                limits,
                ValidationInterceptor(),
            ],
            # An account over its Act rate is refused before its request is even decoded.
            early_checks=[limits.early],
            identify=auth.identify,
            max_in_flight=config.max_in_flight,
        )
        # NOT_SERVING while NATS is gone; back to SERVING once every table has reconciled.
        self.health = ConnectionHealth(self.grpc, service="table", on_reconnected=self._reconcile)

    @property
    def address(self) -> str:
        """Where it listens (the real port when configured with port 0)."""
        return self.grpc.address

    async def start(self) -> None:
        """Connect, bind, rebuild every table from the log, then report SERVING."""
        # no_echo: the registry follows the table subjects to hear of other instances'
        # appends; our own would only come back to be parsed and ignored, once per action.
        self.nc = await connect_nats(
            self.config, name="riverboat-table", health=self.health, no_echo=True
        )
        store = await JetStreamEventStore.open(
            self.nc,
            StreamSettings(
                name=self.config.stream,
                subject_prefix=self.config.subject_prefix,
                replicas=self.config.stream_replicas(self.nc),
            ),
        )
        self.dealer = DealerClient(
            self.config.dealer_address,
            patience=self.config.resume_timeout,
            token=self.issuer.issue("table", "service"),
        )
        self.registry = TableRegistry(store, self.dealer, self.config, self.nc)
        servicer = TableService(self.registry)
        add_table_service(servicer, self.grpc.server)
        await self.grpc.start()
        # Only now is the real port known (the address may say port 0).
        self.registry.keeper = await self._keeper(self.nc)
        try:
            await self.registry.start()
        except LeaseStoreUnavailable as exc:
            raise StartupError(f"the table owners' lease store did not answer: {exc}") from exc
        await self.health.ready()
        log.info(
            "table_service_ready",
            address=self.address,
            tables=len(self.registry.tables()),
            rate_limits=self.config.rate_limits.describe(),
            max_watch_streams=self.config.rate_limits.max_streams,
        )

    async def _keeper(self, nc: NATS) -> LeaseKeeper:
        config = self.config
        me = Holder(
            safe_id(config.instance_id) if config.instance_id else default_instance_id(),
            config.advertise_address or self.address,
        )
        bucket = config.owners_bucket or owners_bucket(config.stream)
        # The leases are as precious as the log: the same replicas (a lone R1 bucket would lose
        # every table's owner with its node).
        replicas = config.stream_replicas(nc)
        try:
            tables = await JetStreamLeaseStore.open(
                nc, ttl=config.lease_ttl, bucket=bucket, replicas=replicas
            )
            instances = await JetStreamLeaseStore.open(
                nc, ttl=config.lease_ttl, bucket=f"{bucket}_INSTANCES", replicas=replicas
            )
        except StreamConfigError as exc:
            raise StartupError(f"the table owners' lease bucket: {exc}") from None
        log.info(
            "table_instance",
            instance=me.instance,
            address=me.address,
            lease_ttl=config.lease_ttl,
            lease_bucket=bucket,
        )
        ttl = config.lease_ttl

        async def renewal_stores() -> tuple[LeaseStore, LeaseStore, Callable[[], Awaitable[None]]]:
            # On the renewal thread's own loop: a connection of its own (a nats-py client
            # belongs to one loop), the same login, the buckets opened above.
            own = NATS()
            try:
                await own.connect(
                    name="riverboat-table-leases",
                    connect_timeout=2,
                    allow_reconnect=True,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=1,
                    **config.nats.connect_options(),
                )
            except (OSError, nats.errors.Error) as exc:
                raise LeaseStoreUnavailable(f"the lease renewals' NATS connection: {exc}") from exc
            try:
                leases = await JetStreamLeaseStore.attach(own, ttl=ttl, bucket=bucket)
                present = await JetStreamLeaseStore.attach(
                    own, ttl=ttl, bucket=f"{bucket}_INSTANCES"
                )
            except BaseException:
                await own.close()
                raise
            return leases, present, own.close

        return LeaseKeeper(
            tables,
            instances,
            me,
            handover_patience=config.handover_seconds,
            answers=self.probe.answers,
            renewals=RenewalThread(ttl, renewal_stores),
        )

    async def _reconcile(self) -> None:
        """NATS is back: every table reads what it may have missed and re-derives what is due
        (an append cut off by the outage may have landed when nats-py resent it)."""
        if self.registry is not None:
            self.registry.reconcile_all()

    async def stop(self) -> None:
        """Hand owned tables over (serving their hands until then), stop answering, finish
        in-flight calls, stop the tables, disconnect."""
        if self.registry is not None and self.registry.keeper is not None:
            await self.registry.keeper.stop()
        await self.grpc.stop()
        if self.registry is not None:
            await self.registry.close()
        if self.dealer is not None:
            await self.dealer.close()
        await self.probe.close()
        if self.nc is not None:
            await self.nc.drain()


async def serve(config: TableConfig) -> int:
    """Run until SIGTERM or SIGINT; the exit status (0, or 1 if it cannot start)."""
    return await lifecycle.serve(TableServer(config), "table")
