"""Settlement settings: command-line flags, then environment variables, then defaults."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from riverboat.services.common.config import (
    DEFAULT_NATS_URL,
    ENV_DATABASE_URL,
    ENV_NATS_URL,
    ConfigError,
    ServiceConfig,
    Settings,
    add_database_arguments,
    add_nats_arguments,
    add_service_arguments,
    address_env,
    check_address,
    check_name,
    check_subject_prefix,
    service_values,
)

__all__ = [
    "DEFAULT_ADDRESS",
    "DEFAULT_NATS_URL",
    "ENV_ADDRESS",
    "ENV_NATS_URL",
    "ConfigError",
    "SettlementConfig",
    "add_arguments",
    "add_store_arguments",
]

DEFAULT_ADDRESS = "127.0.0.1:50054"
DEFAULT_DATABASE_URL = "sqlite:///var/settlement.db"
ENV_ADDRESS = address_env("settlement")


def _database_url(explicit: str | None = None, env: Mapping[str, str] | None = None) -> str:
    environ = os.environ if env is None else env
    return explicit or environ.get(ENV_DATABASE_URL) or DEFAULT_DATABASE_URL


@dataclass(frozen=True, slots=True, kw_only=True)
class SettlementConfig(ServiceConfig):
    """Everything the settlement process needs to know (NATS and logging: its base).

    Attributes:
        address: gRPC ``host:port`` (port 0: any free port).
        database_url: the ledger (SQLite file or PostgreSQL); hidden from ``repr``.
        wallets_stream, wallets_prefix: the wallet logs (written here).
        tables_stream, tables_prefix: the table logs (read here).
        accounts_stream, accounts_prefix: the lobby's log, the room's account registry (read
            here: deposits, withdrawals, balances and buy-ins are for registered players and
            existing tables only). An empty ``accounts_stream`` means no registry: settlement
            run on its own (as in its own tests) checks neither.
        consumer: durable consumer name prefix (``<consumer>-wallets``, ``<consumer>-tables``).
        ack_wait: seconds JetStream waits for an ack before redelivering.
        fetch_batch: messages per pull.
        release_wait: seconds ReleaseBuyIn waits for the ledger to catch up with the table log.
        sweep_interval: seconds between sweeps for cash-outs still in transit.
    """

    address: str = DEFAULT_ADDRESS
    database_url: str = field(default_factory=_database_url, repr=False)
    wallets_stream: str = "RB_WALLETS"
    wallets_prefix: str = "rb.wallets"
    tables_stream: str = "RB_TABLES"
    tables_prefix: str = "rb.tables"
    accounts_stream: str = "RB_LOBBY"
    accounts_prefix: str = "rb.lobby"
    consumer: str = "settlement"
    ack_wait: float = 30.0
    fetch_batch: int = 64
    release_wait: float = 5.0
    sweep_interval: float = 30.0
    #: Seconds a higher responsible-gaming limit waits before it applies.
    limit_cooling_off: float = 86400.0

    def __post_init__(self) -> None:
        check_address("--address", self.address)
        self.check_common()
        from sqlalchemy.engine import make_url  # here, not at import: the CLI stays quick

        try:
            make_url(self.database_url)
        except Exception:
            raise ConfigError("--database: not a database URL") from None
        for flag, name in (
            ("--wallets-stream", self.wallets_stream),
            ("--tables-stream", self.tables_stream),
            ("--consumer", self.consumer),
        ):
            check_name(flag, name)
        if self.accounts_stream:
            check_name("--accounts-stream", self.accounts_stream)
            check_subject_prefix("--accounts-prefix", self.accounts_prefix)
        for flag, prefix in (
            ("--wallets-prefix", self.wallets_prefix),
            ("--tables-prefix", self.tables_prefix),
        ):
            check_subject_prefix(flag, prefix)
        if self.wallets_stream == self.tables_stream or self.wallets_prefix == self.tables_prefix:
            raise ConfigError("the wallet and table logs must be different streams and subjects")
        for flag, seconds in (
            ("--ack-wait", self.ack_wait),
            ("--release-wait", self.release_wait),
            ("--sweep-interval", self.sweep_interval),
            ("--limit-cooling-off", self.limit_cooling_off),
        ):
            if not seconds > 0:
                raise ConfigError(f"{flag} must be a positive number of seconds")
        if not 1 <= self.fetch_batch <= 1000:
            raise ConfigError("--fetch-batch must be 1..1000")

    @property
    def database_display(self) -> str:
        """The database URL without a password."""
        from riverboat.ledger.db import redact

        return redact(self.database_url)

    @classmethod
    def from_namespace(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> SettlementConfig:
        """Build from parsed :func:`add_arguments` flags, falling back to the environment."""
        settings = Settings(args, environ)
        values = service_values(settings, service="settlement", default_address=DEFAULT_ADDRESS)
        values.update(
            database_url=_database_url(args.database, settings.env),
            wallets_stream=args.wallets_stream,
            wallets_prefix=args.wallets_prefix,
            tables_stream=args.tables_stream,
            tables_prefix=args.tables_prefix,
            accounts_stream=getattr(args, "accounts_stream", "RB_LOBBY"),
            accounts_prefix=getattr(args, "accounts_prefix", "rb.lobby"),
        )
        for name in (
            "consumer",
            "ack_wait",
            "fetch_batch",
            "release_wait",
            "sweep_interval",
            "limit_cooling_off",
        ):
            if getattr(args, name, None) is not None:
                values[name] = getattr(args, name)
        return cls(**values)


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the ledger and the logs are (shared by serve, migrate, rebuild, check)."""
    group = parser.add_argument_group("ledger and logs")
    add_database_arguments(group, default=DEFAULT_DATABASE_URL)
    add_nats_arguments(group)
    group.add_argument("--wallets-stream", default="RB_WALLETS", help="default %(default)s")
    group.add_argument("--wallets-prefix", default="rb.wallets", help="default %(default)s")
    group.add_argument("--tables-stream", default="RB_TABLES", help="default %(default)s")
    group.add_argument("--tables-prefix", default="rb.tables", help="default %(default)s")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """All the service's flags (``python -m`` and ``riverboat settlement serve``)."""
    add_service_arguments(
        parser, service="settlement", default_address=DEFAULT_ADDRESS, with_nats=False
    )
    add_store_arguments(parser)
    registry = parser.add_argument_group("account registry (the lobby's log)")
    registry.add_argument(
        "--accounts-stream",
        default="RB_LOBBY",
        help="stream of the lobby's log, where accounts are registered (default %(default)s; "
        "'' for none: settlement on its own checks no player or table)",
    )
    registry.add_argument("--accounts-prefix", default="rb.lobby", help="default %(default)s")
    consume = parser.add_argument_group("consumers")
    consume.add_argument("--consumer", default=None, help="durable consumer name prefix")
    consume.add_argument("--ack-wait", type=float, default=None, help="seconds (default 30)")
    consume.add_argument("--fetch-batch", type=int, default=None, help="messages per pull (64)")
    consume.add_argument(
        "--release-wait",
        type=float,
        default=None,
        help="seconds ReleaseBuyIn waits for the ledger to catch up with the table (default 5)",
    )
    consume.add_argument(
        "--sweep-interval", type=float, default=None, help="cash-out sweep period (default 30)"
    )
    limits = parser.add_argument_group("responsible-gaming limits")
    limits.add_argument(
        "--limit-cooling-off",
        type=float,
        default=None,
        help="seconds a higher deposit or buy-in limit waits before it applies (default 86400)",
    )
