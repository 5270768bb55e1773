"""Lobby configuration: flags, then ``RIVERBOAT_*`` environment variables, then defaults.

Built on the one idiom of :mod:`riverboat.services.common.config` (the shared NATS and logging
settings live in :class:`~riverboat.services.common.config.ServiceConfig`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field

from riverboat.leases import DEFAULT_BUCKET
from riverboat.services.common.config import (
    ConfigError,
    ServiceConfig,
    Settings,
    add_service_arguments,
    check_address,
    check_name,
    check_subject_prefix,
    service_values,
)
from riverboat.services.common.limits import RateLimits

__all__ = [
    "DEFAULT_ADDRESS",
    "DEFAULT_HASH_PER_PEER",
    "DEFAULT_HASH_QUEUE",
    "DEFAULT_HASH_WORKERS",
    "LobbyConfig",
    "add_arguments",
]

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_TABLE_ADDRESS = "127.0.0.1:50052"
DEFAULT_SETTLEMENT_ADDRESS = "127.0.0.1:50054"
#: Argon2 hashes at once (64 MiB each) and calls that may wait for one.
DEFAULT_HASH_WORKERS = 2
DEFAULT_HASH_QUEUE = 16
#: Of those places (running or waiting), how many one peer address may hold.
DEFAULT_HASH_PER_PEER = 4
#: Seconds between a lobby's reads of its log's tail when no nudge came: the longest a change
#: another instance made can go unseen (several lobbies agree within a second).
DEFAULT_FOLLOW_SECONDS = 0.25
#: Seconds a seat offered to the first on a waiting list is theirs.
DEFAULT_SEAT_OFFER_SECONDS = 60.0


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyConfig(ServiceConfig):
    """Where the lobby listens and what it talks to (NATS, logging: its base)."""

    address: str = DEFAULT_ADDRESS
    table_address: str = DEFAULT_TABLE_ADDRESS
    settlement_address: str = DEFAULT_SETTLEMENT_ADDRESS
    stream: str = "RB_LOBBY"
    subject_prefix: str = "rb.lobby"
    token_ttl: int = 12 * 3600
    #: Accounts ensured at start-up, as (username, password, role).
    bootstrap: tuple[tuple[str, str, str], ...] = field(default=(), repr=False)
    #: Register and Login, per account and per peer (see riverboat.services.common.limits).
    rate_limits: RateLimits = field(default_factory=RateLimits)
    #: Password hashes run at once, and calls that may wait for one (more: RESOURCE_EXHAUSTED).
    hash_workers: int = DEFAULT_HASH_WORKERS
    hash_queue: int = DEFAULT_HASH_QUEUE
    hash_per_peer: int = DEFAULT_HASH_PER_PEER
    #: Seconds between reads of the log's tail when no nudge came (see lobby.log).
    follow_seconds: float = DEFAULT_FOLLOW_SECONDS
    #: The table leases' KV bucket (who owns each table: riverboat.leases).
    owners_bucket: str = DEFAULT_BUCKET
    #: Seconds a seat offered to the first on a waiting list is theirs.
    seat_offer_seconds: float = DEFAULT_SEAT_OFFER_SECONDS

    def __post_init__(self) -> None:
        check_address("--address", self.address)
        check_name("--stream", self.stream)
        check_subject_prefix("--subject-prefix", self.subject_prefix)
        self.check_common()
        if self.hash_workers < 1:
            raise ConfigError("--hash-workers must be at least 1")
        if self.hash_queue < 0:
            raise ConfigError("--hash-queue must be 0 or more")
        if self.hash_per_peer < 1:
            raise ConfigError("--hash-per-peer must be at least 1")
        if not self.follow_seconds > 0:
            raise ConfigError("--follow-seconds must be more than 0")
        if not self.seat_offer_seconds > 0:
            raise ConfigError("--seat-offer-seconds must be more than 0")

    @classmethod
    def from_namespace(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> LobbyConfig:
        """Build from parsed :func:`add_arguments` flags, falling back to the environment.

        ``--account USER:ROLE`` takes USER's password from ``RIVERBOAT_PASSWORD_<USER>``.

        Raises:
            ValueError: a setting is malformed (a ``ConfigError`` names the flag).
        """
        settings = Settings(args, environ)
        env = settings.env
        bootstrap = []
        for spec in getattr(args, "account", None) or ():
            user, _, role = spec.partition(":")
            if role not in ("operator", "auditor"):
                raise ConfigError(f"--account {spec}: the role is operator or auditor")
            variable = f"RIVERBOAT_PASSWORD_{user.upper().replace('-', '_')}"
            password = env.get(variable)
            if not password:
                raise ConfigError(f"--account {spec}: set {variable}")
            bootstrap.append((user, password, role))
        values = service_values(settings, service="lobby", default_address=DEFAULT_ADDRESS)
        values.update(
            table_address=settings.get("table", "RIVERBOAT_TABLE_ADDRESS", DEFAULT_TABLE_ADDRESS),
            settlement_address=settings.get(
                "settlement", "RIVERBOAT_SETTLEMENT_ADDRESS", DEFAULT_SETTLEMENT_ADDRESS
            ),
            rate_limits=RateLimits.from_settings(env, getattr(args, "rate_limit", None) or ()),
            hash_workers=settings.get(
                "hash_workers", "RIVERBOAT_HASH_WORKERS", DEFAULT_HASH_WORKERS, int
            ),
            hash_queue=settings.get("hash_queue", "RIVERBOAT_HASH_QUEUE", DEFAULT_HASH_QUEUE, int),
            hash_per_peer=settings.get(
                "hash_per_peer", "RIVERBOAT_HASH_PER_PEER", DEFAULT_HASH_PER_PEER, int
            ),
            follow_seconds=settings.get(
                "follow_seconds", "RIVERBOAT_LOBBY_FOLLOW_SECONDS", DEFAULT_FOLLOW_SECONDS, float
            ),
            owners_bucket=settings.get("owners_bucket", "RIVERBOAT_OWNERS_BUCKET", DEFAULT_BUCKET),
            seat_offer_seconds=settings.get(
                "seat_offer_seconds",
                "RIVERBOAT_SEAT_OFFER_SECONDS",
                DEFAULT_SEAT_OFFER_SECONDS,
                float,
            ),
            bootstrap=tuple(bootstrap),
        )
        for name in ("stream", "subject_prefix"):
            if getattr(args, name, None) is not None:
                values[name] = getattr(args, name)
        return cls(**values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The lobby's flags: the shared ones, then its own."""
    add_service_arguments(parser, service="lobby", default_address=DEFAULT_ADDRESS)
    own = parser.add_argument_group("lobby")
    own.add_argument(
        "--table",
        help=f"table service (env RIVERBOAT_TABLE_ADDRESS; default {DEFAULT_TABLE_ADDRESS})",
    )
    own.add_argument(
        "--settlement",
        help="settlement service (env RIVERBOAT_SETTLEMENT_ADDRESS; default "
        f"{DEFAULT_SETTLEMENT_ADDRESS})",
    )
    own.add_argument("--stream", help="JetStream stream of the lobby's log (RB_LOBBY)")
    own.add_argument("--subject-prefix", help="subject prefix of the lobby's log (rb.lobby)")
    own.add_argument(
        "--account",
        action="append",
        default=[],
        metavar="USER:ROLE",
        help="ensure an operator or auditor account exists at start-up; its password comes "
        "from the environment variable RIVERBOAT_PASSWORD_<USER> (repeatable)",
    )
    own.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        metavar="METHOD.SCOPE=RATE",
        help="a Register or Login limit per account or per peer, e.g. Login.peer=30/min or "
        "Register.account=off (repeatable; over RIVERBOAT_RATE_LIMITS; defaults: "
        "Register.account=5/min, Register.peer=120/min, Login.account=30/min, "
        "Login.peer=300/min)",
    )
    own.add_argument(
        "--hash-workers",
        type=int,
        help="password hashes run at once, 64 MiB each (env RIVERBOAT_HASH_WORKERS; default 2)",
    )
    own.add_argument(
        "--hash-queue",
        type=int,
        help="Register/Login calls that may wait for a hash; more are refused with "
        "RESOURCE_EXHAUSTED (env RIVERBOAT_HASH_QUEUE; default 16)",
    )
    own.add_argument(
        "--hash-per-peer",
        type=int,
        help="of the hashing places (running or waiting), how many one peer address may hold "
        "(env RIVERBOAT_HASH_PER_PEER; default 4)",
    )
    own.add_argument(
        "--owners-bucket",
        help="the table leases' KV bucket, where the owner of each table is read "
        "(env RIVERBOAT_OWNERS_BUCKET; default RB_TABLE_OWNERS)",
    )
    own.add_argument(
        "--follow-seconds",
        type=float,
        help="seconds between reads of the lobby log's tail when no nudge came: the longest "
        "another lobby instance's change goes unseen (env RIVERBOAT_LOBBY_FOLLOW_SECONDS; "
        "default 0.25)",
    )
    own.add_argument(
        "--seat-offer-seconds",
        type=float,
        help="seconds a seat offered to the first on a waiting list is theirs before it goes "
        "to the next (env RIVERBOAT_SEAT_OFFER_SECONDS; default 60)",
    )
