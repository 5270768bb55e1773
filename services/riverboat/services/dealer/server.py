"""The dealer process: gRPC server, NATS connection, start-up order and shutdown.

Start-up order: listen (health ``NOT_SERVING``) -> connect to NATS (retrying for
``connect_timeout`` seconds) -> create or check the dealer's streams -> health ``SERVING``.
While NATS is disconnected, health reports ``NOT_SERVING`` and RPCs fail with ``UNAVAILABLE``.
Shutdown (SIGTERM/SIGINT): health ``NOT_SERVING``, in-flight RPCs get ``grace`` seconds, then the
NATS connection is drained.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any

import nats.errors
import structlog
from nats.aio.client import Client as NATS

from riverboat.auth import TokenIssuer, load_token_key
from riverboat.services.common import lifecycle
from riverboat.services.common.auth import AuthInterceptor
from riverboat.services.common.errors import ErrorInterceptor, ServiceError
from riverboat.services.common.grpcserver import BindError, GrpcServer
from riverboat.services.common.lifecycle import StartupError, connect_nats
from riverboat.services.common.natshealth import ConnectionHealth
from riverboat.services.common.startup import start
from riverboat.services.common.validation import ValidationInterceptor
from riverboat.services.dealer.config import DealerConfig, add_arguments
from riverboat.services.dealer.keys import SealingKey, SeedVault, load_seal_key
from riverboat.services.dealer.service import SERVICE_NAME, DealerService
from riverboat.services.dealer.store import DealerStore, StoreConfigError
from riverboat.v1 import dealer_pb2_grpc

__all__ = ["DealerServer", "StartupError", "build_parser", "main", "run", "serve"]

PROG = "riverboat-dealer"
_log = structlog.get_logger("riverboat.dealer.server")


class DealerServer:
    """One dealer: a :class:`GrpcServer` serving :class:`DealerService` over a NATS connection.

    Args:
        config: settings (see :class:`DealerConfig`).
        key: the sealing key (see :func:`load_seal_key`).
    """

    def __init__(
        self, config: DealerConfig, key: SealingKey, issuer: TokenIssuer | None = None
    ) -> None:
        self.config = config
        self.key_id = key.key_id
        self.key_source = key.source
        self._service = DealerService(SeedVault(key), config.scheme)
        # Only Riverboat's services deal; auditors may also ask for a finished hand's seed.
        rules = {
            "CommitHand": {"service"},
            "GetDeck": {"service"},
            "Reshuffle": {"service"},
            "RevealSeed": {"service", "auditor"},
        }
        auth = AuthInterceptor(issuer or TokenIssuer(load_token_key()), rules)
        self._grpc = GrpcServer(
            config.address,
            service_names=[SERVICE_NAME],
            interceptors=[
                ErrorInterceptor(context_fields=("table_id", "hand_id")),
                auth,
                ValidationInterceptor(),
            ],
            grace=config.grace,
            max_in_flight=config.max_in_flight,
            identify=auth.identify,
        )
        dealer_pb2_grpc.add_DealerServiceServicer_to_server(  # type: ignore[no-untyped-call]
            self._service, self._grpc.server
        )
        self._nc: NATS | None = None
        # Health follows NATS: NOT_SERVING while disconnected, SERVING again once back.
        self._health = ConnectionHealth(self._grpc, service="dealer")

    @property
    def address(self) -> str:
        """``host:port`` the gRPC server listens on (after :meth:`start`)."""
        return self._grpc.address

    @property
    def port(self) -> int:
        """The bound gRPC port (after :meth:`start`)."""
        return self._grpc.port

    async def start(self) -> None:
        """Listen, connect to NATS, prepare the streams, then report SERVING.

        Raises:
            StartupError: any step failed; everything started so far is stopped again.
        """
        try:
            await self._grpc.start()
            self._nc = await self._connect()
            store = DealerStore(self._nc, self.config)
            await store.ensure_streams()
        except (BindError, StoreConfigError, ServiceError) as exc:
            await self.stop(grace=0)
            raise StartupError(str(exc)) from None
        except BaseException:  # StartupError from _connect, cancellation
            await self.stop(grace=0)
            raise
        self._service.attach(store)
        await self._health.ready()
        _log.info(
            "dealer ready",
            address=self.address,
            nats=self.config.nats_url,
            seeds_stream=self.config.seeds_stream,
            audit_stream=self.config.audit_stream,
            tables_stream=self.config.tables_stream,
            key_id=self.key_id,
            key_source=self.key_source,
        )

    async def stop(self, grace: float | None = None) -> None:
        """Stop serving (health first), then drain NATS; idempotent."""
        await self._grpc.stop(grace)
        nc, self._nc = self._nc, None
        if nc is not None and not nc.is_closed:
            try:
                await asyncio.wait_for(nc.drain(), timeout=self.config.nats_timeout)
            except (TimeoutError, nats.errors.Error):
                await nc.close()

    async def _connect(self) -> NATS:
        return await connect_nats(self.config, name="riverboat-dealer", health=self._health)


async def serve(config: DealerConfig, key: SealingKey) -> int:
    """Run a dealer until SIGTERM/SIGINT; the process exit status (0, or 1 if it cannot start)."""
    return await lifecycle.serve(DealerServer(config, key), "dealer")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The dealer's command line."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Riverboat dealer: committed decks over gRPC (DealerService)"
    )
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Start the dealer from parsed flags (``common.startup``: exit status 2 for bad settings,
    a missing sealing key included)."""
    return start(PROG, "dealer", args, DealerConfig.from_namespace, _serve)


def _serve(config: DealerConfig) -> Coroutine[Any, Any, int]:
    # The key is loaded after logging is configured: the development key logs a warning.
    return serve(config, load_seal_key(config))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m riverboat.services.dealer``."""
    return run(build_parser().parse_args(argv))
