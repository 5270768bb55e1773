"""The settlement process: gRPC server, NATS, the ledger database, consumers and the sweeper.

Start-up order: listen (health ``NOT_SERVING``) -> connect to NATS -> migrate the ledger schema
-> open the wallet stream (created if missing) and the table stream -> start the durable
consumers and the cash-out sweeper -> health ``SERVING``. Shutdown (SIGTERM/SIGINT): health
``NOT_SERVING``, in-flight RPCs get ``grace`` seconds, the consumers finish the record in hand
(an unacknowledged one is simply redelivered next time), NATS is drained, the database closed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Sequence
from datetime import timedelta

import nats.errors
import structlog
from nats.aio.client import Client as NATS

from riverboat.auth import TokenIssuer, load_token_key
from riverboat.eventstore import EventStoreError, JetStreamEventStore, StreamSettings
from riverboat.ledger.migrate import upgrade
from riverboat.services.common import lifecycle
from riverboat.services.common.auth import AuthInterceptor
from riverboat.services.common.errors import ErrorInterceptor
from riverboat.services.common.grpcserver import BindError, GrpcServer
from riverboat.services.common.lifecycle import StartupError, connect_nats
from riverboat.services.common.natshealth import ConnectionHealth
from riverboat.services.common.startup import start
from riverboat.services.common.validation import ValidationInterceptor
from riverboat.services.settlement.config import SettlementConfig, add_arguments
from riverboat.services.settlement.consumers import AckFilter, BatchHandler, DurableConsumer
from riverboat.services.settlement.database import Database
from riverboat.services.settlement.projector import Projector
from riverboat.services.settlement.registry import Registry
from riverboat.services.settlement.service import RULES, SERVICE_NAME, SettlementService
from riverboat.services.settlement.wallets import WalletBook
from riverboat.v1 import settlement_pb2_grpc

__all__ = ["SettlementServer", "StartupError", "build_parser", "main", "run", "serve"]

PROG = "riverboat-settlement"
_log = structlog.get_logger("riverboat.settlement.server")


def wallet_stream_settings(config: SettlementConfig, replicas: int | None = None) -> StreamSettings:
    """The wallet logs' stream (history protected: no deletes, no purges)."""
    return StreamSettings(
        name=config.wallets_stream,
        subject_prefix=config.wallets_prefix,
        replicas=replicas or config.replicas or 1,
        description="Riverboat wallets (one subject per wallet)",
    )


def table_stream_settings(config: SettlementConfig, replicas: int | None = None) -> StreamSettings:
    """The table logs' stream, as the table service creates it (settlement may start first)."""
    return StreamSettings(
        name=config.tables_stream,
        subject_prefix=config.tables_prefix,
        replicas=replicas or config.replicas or 1,
    )


class SettlementServer:
    """One settlement service instance.

    Args:
        config: settings.
        issuer: verifies bearer tokens (default: the shared key, see ``load_token_key``).
        ack_filter: test hook for the consumers (see :data:`AckFilter`).
    """

    def __init__(
        self,
        config: SettlementConfig,
        issuer: TokenIssuer | None = None,
        *,
        ack_filter: AckFilter | None = None,
    ) -> None:
        self.config = config
        self._issuer = issuer or TokenIssuer(load_token_key())
        self._ack_filter = ack_filter
        auth = AuthInterceptor(self._issuer, RULES)
        self._grpc = GrpcServer(
            config.address,
            service_names=[SERVICE_NAME],
            interceptors=[
                ErrorInterceptor(context_fields=("player", "table_id", "account")),
                auth,
                ValidationInterceptor(),
            ],
            grace=config.grace,
            max_in_flight=config.max_in_flight,
            identify=auth.identify,
        )
        self._service = SettlementService(
            release_wait=config.release_wait,
            cooling_off=timedelta(seconds=config.limit_cooling_off),
        )
        settlement_pb2_grpc.add_SettlementServiceServicer_to_server(  # type: ignore[no-untyped-call]
            self._service, self._grpc.server
        )
        self._nc: NATS | None = None
        self.db: Database | None = None
        self.projector: Projector | None = None
        self.consumers: list[DurableConsumer] = []
        self._sweeper: asyncio.Task[None] | None = None
        # Health follows NATS: NOT_SERVING while disconnected, SERVING again once back.
        self._health = ConnectionHealth(self._grpc, service="settlement")

    @property
    def address(self) -> str:
        """``host:port`` of the gRPC server (after :meth:`start`)."""
        return self._grpc.address

    async def start(self) -> None:
        """Listen, connect, migrate, consume, then report SERVING.

        Raises:
            StartupError: a step failed; everything started so far is stopped again.
        """
        try:
            await self._grpc.start()
            self._nc = await self._connect()
            self.db = Database.open(self.config.database_url)
            found, now = await self.db.run(upgrade, self.db.engine)
            # Under the migration lock: of replicas starting together, one migrates.
            _log.info("ledger_schema", found=found or "empty", revision=now)
            timeout = self.config.nats_timeout
            replicas = self.config.stream_replicas(self._nc)
            wallet_log = JetStreamEventStore(
                self._nc, wallet_stream_settings(self.config, replicas), timeout=timeout
            )
            table_log = JetStreamEventStore(
                self._nc, table_stream_settings(self.config, replicas), timeout=timeout
            )
            await wallet_log.ensure_stream()
            await table_log.ensure_stream()
            wallets = WalletBook(wallet_log)
            self.projector = Projector(self.db, wallets, wallet_log, table_log)
            registry = None
            if self.config.accounts_stream:
                accounts = JetStreamEventStore(  # the lobby's log: read only, never ensured
                    self._nc,
                    StreamSettings(
                        name=self.config.accounts_stream,
                        subject_prefix=self.config.accounts_prefix,
                    ),
                    timeout=timeout,
                )
                registry = Registry(accounts, table_log)
            self._service.attach(self.db, wallets, self.projector, registry)
            self.consumers = [
                self._consumer(
                    self.config.wallets_stream,
                    self.config.wallets_prefix,
                    "wallets",
                    self.projector.on_wallet_record,
                ),
                self._consumer(
                    self.config.tables_stream,
                    self.config.tables_prefix,
                    "tables",
                    self.projector.on_table_record,
                    batch_handler=self.projector.on_table_records,
                ),
            ]
            for consumer in self.consumers:
                await consumer.start()
        except (BindError, EventStoreError, OSError) as exc:
            await self.stop(grace=0)
            raise StartupError(str(exc)) from None
        except BaseException:
            await self.stop(grace=0)
            raise
        self._sweeper = asyncio.create_task(self._sweep(), name="cash-out-sweeper")
        await self._health.ready()
        _log.info(
            "settlement_ready",
            address=self.address,
            nats=self.config.nats_url,
            database=self.config.database_display,
            wallets_stream=self.config.wallets_stream,
            tables_stream=self.config.tables_stream,
        )

    async def stop(self, grace: float | None = None) -> None:
        """Stop serving, stop consuming, disconnect; idempotent."""
        await self._grpc.stop(grace)
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        await asyncio.gather(*(consumer.stop() for consumer in self.consumers))
        self.consumers = []
        nc, self._nc = self._nc, None
        if nc is not None and not nc.is_closed:
            try:
                await asyncio.wait_for(nc.drain(), timeout=self.config.nats_timeout)
            except (TimeoutError, nats.errors.Error):
                await nc.close()
        db, self.db = self.db, None
        if db is not None:
            await asyncio.to_thread(db.close)

    def _consumer(
        self,
        stream: str,
        prefix: str,
        kind: str,
        handler: object,
        batch_handler: BatchHandler | None = None,
    ) -> DurableConsumer:
        assert self._nc is not None
        return DurableConsumer(
            self._nc,
            stream=stream,
            subject_prefix=prefix,
            durable=f"{self.config.consumer}-{kind}",
            handler=handler,  # type: ignore[arg-type]
            ack_wait=self.config.ack_wait,
            batch=self.config.fetch_batch,
            timeout=self.config.nats_timeout,
            ack_filter=self._ack_filter,
            batch_handler=batch_handler,
        )

    async def _sweep(self) -> None:
        """Credit cash-outs stuck in transit (e.g. after a rebuild) now and then."""
        assert self.projector is not None
        while True:
            try:
                await self.projector.sweep_cash_outs()
            except Exception as exc:  # keep sweeping; the next round retries
                _log.warning("cash_out_sweep_failed", error=str(exc) or type(exc).__name__)
            await asyncio.sleep(self.config.sweep_interval)

    async def _connect(self) -> NATS:
        return await connect_nats(self.config, name="riverboat-settlement", health=self._health)


async def serve(config: SettlementConfig) -> int:
    """Run until SIGTERM/SIGINT; the exit status (0, or 1 if it cannot start)."""
    return await lifecycle.serve(SettlementServer(config), "settlement")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The service's command line."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Riverboat settlement: wallets, ledger and rake over gRPC"
    )
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Start the service from parsed flags (``common.startup``: exit status 2 for bad
    settings)."""
    return start(PROG, "settlement", args, SettlementConfig.from_namespace, serve)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m riverboat.services.settlement``."""
    return run(build_parser().parse_args(argv))
