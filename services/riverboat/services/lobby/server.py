"""Start the lobby: connect to NATS, replay the lobby's log, serve gRPC."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import structlog
from nats.aio.client import Client as NATS

from riverboat.auth import TokenIssuer, load_token_key
from riverboat.eventstore import JetStreamEventStore, StreamSettings
from riverboat.leases import JetStreamLeaseStore, LeaseStore
from riverboat.routing import Channels
from riverboat.services.common import (
    ConnectionHealth,
    ErrorInterceptor,
    GrpcServer,
    lifecycle,
)
from riverboat.services.common.auth import AuthInterceptor
from riverboat.services.common.lifecycle import connect_nats
from riverboat.services.common.limits import RateLimitInterceptor
from riverboat.services.common.tracing import client_interceptors
from riverboat.services.common.validation import ValidationInterceptor
from riverboat.services.lobby.config import LobbyConfig
from riverboat.services.lobby.hashing import PasswordHashing
from riverboat.services.lobby.log import Lobby
from riverboat.services.lobby.owners import OwnerDirectory, TableServices
from riverboat.services.lobby.service import JOIN_GRACE_SECONDS, RULES, LobbyService
from riverboat.v1 import lobby_pb2_grpc, settlement_pb2_grpc

log = structlog.get_logger("riverboat.lobby")

SERVICE_NAME = "riverboat.v1.LobbyService"
#: Seconds between the waiting lists' rounds (offers that expired, seats freed at a table).
OFFER_ROUND_SECONDS = 1.0
#: Open to callers without a token: how else would anyone get one.
OPEN_METHODS = ("/riverboat.v1.LobbyService/Register", "/riverboat.v1.LobbyService/Login")


class LobbyServer:
    """The running lobby."""

    def __init__(self, config: LobbyConfig, issuer: TokenIssuer | None = None) -> None:
        self.config = config
        self.issuer = issuer or TokenIssuer(load_token_key())
        self.nc: NATS | None = None
        self.service: LobbyService | None = None
        self.lobby: Lobby | None = None
        self.owners: OwnerDirectory | None = None
        self.tables: TableServices | None = None
        self._resolver: asyncio.Task[None] | None = None
        self._offers: asyncio.Task[None] | None = None
        self._channels: list[grpc.aio.Channel] = []
        self.hashing = PasswordHashing(config.hash_workers, config.hash_queue, config.hash_per_peer)
        auth = AuthInterceptor(
            self.issuer, RULES, open_prefixes=("/grpc.health.", "/grpc.reflection.", *OPEN_METHODS)
        )
        limits = RateLimitInterceptor(config.rate_limits, identify=auth.identify)
        self.grpc = GrpcServer(
            config.address,
            service_names=[SERVICE_NAME],
            interceptors=[
                ErrorInterceptor(context_fields=["table_id"]),
                auth,
                limits,
                ValidationInterceptor(),
            ],
            early_checks=[limits.early],
            identify=auth.identify,
            max_in_flight=config.max_in_flight,
        )
        # NOT_SERVING while NATS is gone (every lobby change is written there).
        self.health = ConnectionHealth(self.grpc, service="lobby", on_reconnected=self._reconnected)

    @property
    def address(self) -> str:
        """Where it listens."""
        return self.grpc.address

    async def start(self) -> None:
        """Replay the log, ensure bootstrap accounts, settle interrupted buy-ins, serve."""
        self.nc = await connect_nats(self.config, name="riverboat-lobby", health=self.health)
        store = await JetStreamEventStore.open(
            self.nc,
            StreamSettings(
                name=self.config.stream,
                subject_prefix=self.config.subject_prefix,
                replicas=self.config.stream_replicas(self.nc),
                description="Riverboat lobby (accounts, tables, buy-ins)",
            ),
        )
        lobby = Lobby(store)
        self.lobby = lobby
        # Every instance folds the whole log and follows what the others append.
        await lobby.follow(store, every=self.config.follow_seconds)
        nc = self.nc
        bucket = self.config.owners_bucket

        async def open_leases() -> LeaseStore:
            # The table service creates the bucket (with its replicas); the lobby only reads
            # it, so it waits for it rather than creating one of its own.
            return await JetStreamLeaseStore.attach(nc, bucket=bucket)

        self.owners = OwnerDirectory(open_leases)
        self.owners.start()
        # A channel per table-service instance, traced like every other.
        channels = Channels(
            lambda address: grpc.aio.insecure_channel(address, interceptors=client_interceptors())
        )
        self.tables = TableServices(self.config.table_address, self.owners, channels)
        settlement = grpc.aio.insecure_channel(
            self.config.settlement_address, interceptors=client_interceptors()
        )
        self._channels = [settlement]
        self.service = LobbyService(
            lobby,
            self.issuer,
            self.tables,
            settlement_pb2_grpc.SettlementServiceStub(settlement),  # type: ignore[no-untyped-call]
            service_token=self.issuer.issue("lobby", "service", ttl=10 * 365 * 86400),
            token_ttl=self.config.token_ttl,
            hashing=self.hashing,
            seat_offer_seconds=self.config.seat_offer_seconds,
        )
        for username, password, role in self.config.bootstrap:
            await self.service.ensure_account(username, password, role)
        add = lobby_pb2_grpc.add_LobbyServiceServicer_to_server
        add(self.service, self.grpc.server)  # type: ignore[no-untyped-call]
        await self.grpc.start()
        self._resolver = asyncio.create_task(self._resolve_joins(), name="lobby-joins")
        self._offers = asyncio.create_task(self._offer_seats(), name="lobby-offers")
        await self.health.ready()
        log.info(
            "lobby_ready",
            address=self.address,
            accounts=len(lobby.state.accounts),
            tables=len(lobby.state.tables),
            rate_limits=self.config.rate_limits.describe(),
            hash_workers=self.config.hash_workers,
            hash_queue=self.config.hash_queue,
            hash_per_peer=self.config.hash_per_peer,
        )

    async def _resolve_joins(self) -> None:
        """Now and every half grace period: finish or undo buy-ins a crashed lobby left."""
        assert self.service is not None
        while True:
            try:
                await self.service.resolve_pending_joins()
            except Exception as exc:  # the log or a service is away: next round
                log.warning("joins_unresolved", reason=str(exc) or type(exc).__name__)
            await asyncio.sleep(JOIN_GRACE_SECONDS / 2)

    async def _offer_seats(self) -> None:
        """Offer free seats to waiting lists: at once when a seat may have freed, else every
        second (offers expire, and seats free at the table without passing the lobby)."""
        assert self.service is not None
        service = self.service
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(service.seats_changed.wait(), OFFER_ROUND_SECONDS)
            service.seats_changed.clear()
            try:
                await service.offer_seats()
            except Exception as exc:  # the log or the table service is away: next round
                log.warning("seats_not_offered", reason=str(exc) or type(exc).__name__)

    async def _reconnected(self) -> None:
        """Back on NATS: read what the other lobbies appended meanwhile, then serve again."""
        if self.lobby is not None:
            await self.lobby.catch_up()

    async def stop(self) -> None:
        """Graceful stop."""
        await self.grpc.stop()
        for task in (self._resolver, self._offers):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.lobby is not None:
            await self.lobby.stop_following()
        self.hashing.close()
        if self.owners is not None:
            await self.owners.stop()
        if self.tables is not None:
            await self.tables.close()
        for channel in self._channels:
            await channel.close(None)
        if self.nc is not None:
            await self.nc.drain()


async def serve(config: LobbyConfig) -> int:
    """Run until SIGTERM or SIGINT; the exit status (0, or 1 if it cannot start)."""
    return await lifecycle.serve(LobbyServer(config), "lobby")
