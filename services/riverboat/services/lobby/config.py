"""Lobby configuration: flags, then RIVERBOAT_* environment variables, then defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from riverboat.natsauth import NatsCredentials

DEFAULT_ADDRESS = "127.0.0.1:50051"


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

    @classmethod
    def from_env(cls, **overrides: object) -> LobbyConfig:
        """Defaults, overridden by the environment, overridden by ``overrides``."""
        env = os.environ
        values: dict[str, object] = {
            "address": env.get("RIVERBOAT_LOBBY_ADDRESS", DEFAULT_ADDRESS),
            "nats_url": env.get("RIVERBOAT_NATS_URL", "nats://127.0.0.1:4333"),
            "table_address": env.get("RIVERBOAT_TABLE_ADDRESS", "127.0.0.1:50052"),
            "settlement_address": env.get("RIVERBOAT_SETTLEMENT_ADDRESS", "127.0.0.1:50054"),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
