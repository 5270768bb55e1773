"""Lobby configuration: flags, then RIVERBOAT_* environment variables, then defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from riverboat.leases import DEFAULT_BUCKET
from riverboat.natsauth import NatsCredentials
from riverboat.services.common.limits import RateLimits

DEFAULT_ADDRESS = "127.0.0.1:50051"
#: Argon2 hashes at once (64 MiB each) and calls that may wait for one.
DEFAULT_HASH_WORKERS = 2
DEFAULT_HASH_QUEUE = 16
#: Of those places (running or waiting), how many one peer address may hold.
DEFAULT_HASH_PER_PEER = 4
#: Seconds between a lobby's sweeps of its log for other instances' changes a nudge missed.
DEFAULT_SWEEP_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class LobbyConfig:
    """Where the lobby listens and what it talks to."""

    address: str = DEFAULT_ADDRESS
    nats_url: str = "nats://127.0.0.1:4333"
    #: How to log in to NATS (``--nats-user`` etc., see riverboat.services.common.natslogin).
    nats_login: NatsCredentials = field(default_factory=NatsCredentials)
    table_address: str = "127.0.0.1:50052"
    settlement_address: str = "127.0.0.1:50054"
    stream: str = "RB_LOBBY"
    subject_prefix: str = "rb.lobby"
    token_ttl: int = 12 * 3600
    #: Accounts ensured at start-up, as (username, password, role).
    bootstrap: tuple[tuple[str, str, str], ...] = field(default=())
    #: Register and Login, per account and per peer (see riverboat.services.common.limits).
    rate_limits: RateLimits = field(default_factory=RateLimits)
    #: Password hashes run at once, and calls that may wait for one (more: RESOURCE_EXHAUSTED).
    hash_workers: int = DEFAULT_HASH_WORKERS
    hash_queue: int = DEFAULT_HASH_QUEUE
    hash_per_peer: int = DEFAULT_HASH_PER_PEER
    #: Seconds between sweeps of the log for changes a nudge missed (see lobby.log).
    sweep_seconds: float = DEFAULT_SWEEP_SECONDS
    #: The table leases' KV bucket (who owns each table: riverboat.leases).
    owners_bucket: str = DEFAULT_BUCKET

    def __post_init__(self) -> None:
        if self.hash_workers < 1:
            raise ValueError("--hash-workers must be at least 1")
        if self.hash_queue < 0:
            raise ValueError("--hash-queue must be 0 or more")
        if self.hash_per_peer < 1:
            raise ValueError("--hash-per-peer must be at least 1")
        if self.sweep_seconds <= 0:
            raise ValueError("--sweep-seconds must be more than 0")

    @classmethod
    def from_env(cls, *, rate_limits: list[str] | None = None, **overrides: object) -> LobbyConfig:
        """Defaults, overridden by the environment, overridden by ``overrides``.

        ``rate_limits`` are ``--rate-limit`` specs, applied over ``RIVERBOAT_RATE_LIMITS``.

        Raises:
            ValueError: a setting is malformed.
        """
        env = os.environ
        values: dict[str, object] = {
            "address": env.get("RIVERBOAT_LOBBY_ADDRESS", DEFAULT_ADDRESS),
            "nats_url": env.get("RIVERBOAT_NATS_URL", "nats://127.0.0.1:4333"),
            "table_address": env.get("RIVERBOAT_TABLE_ADDRESS", "127.0.0.1:50052"),
            "settlement_address": env.get("RIVERBOAT_SETTLEMENT_ADDRESS", "127.0.0.1:50054"),
            "rate_limits": RateLimits.from_settings(env, rate_limits or ()),
            "hash_workers": int(env.get("RIVERBOAT_HASH_WORKERS", DEFAULT_HASH_WORKERS)),
            "hash_queue": int(env.get("RIVERBOAT_HASH_QUEUE", DEFAULT_HASH_QUEUE)),
            "hash_per_peer": int(env.get("RIVERBOAT_HASH_PER_PEER", DEFAULT_HASH_PER_PEER)),
            "owners_bucket": env.get("RIVERBOAT_OWNERS_BUCKET", DEFAULT_BUCKET),
            "sweep_seconds": float(env.get("RIVERBOAT_LOBBY_SWEEP_SECONDS", DEFAULT_SWEEP_SECONDS)),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
