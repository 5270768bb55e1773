"""Table service configuration (flags, then environment, then defaults)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from riverboat.natsauth import NatsCredentials
from riverboat.services.common.limits import RateLimits

DEFAULT_ADDRESS = "127.0.0.1:50052"
DEFAULT_NATS_URL = "nats://127.0.0.1:4333"
DEFAULT_DEALER_ADDRESS = "127.0.0.1:50053"


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Where the table service listens and what it talks to."""

    address: str = DEFAULT_ADDRESS
    nats_url: str = DEFAULT_NATS_URL
    #: How to log in to NATS (``--nats-user`` etc., see riverboat.services.common.natslogin).
    nats_login: NatsCredentials = field(default_factory=NatsCredentials)
    dealer_address: str = DEFAULT_DEALER_ADDRESS
    stream: str = "RB_TABLES"
    subject_prefix: str = "rb.tables"
    #: Pause between hands, seconds (players see the showdown before the next deal).
    hand_pause: float = 2.0
    #: Deal hands automatically when enough players sit (off: hands start on request only).
    auto_deal: bool = True
    #: A hand that cannot resume (dealer unreachable) within this many seconds is voided.
    resume_timeout: float = 120.0
    #: Largest request accepted, bytes; larger ones get RESOURCE_EXHAUSTED.
    max_request_bytes: int = 64 * 1024
    #: Act and Watch per account and per peer, and the Watch streams one account may hold.
    rate_limits: RateLimits = field(default_factory=RateLimits)

    @classmethod
    def from_env(
        cls,
        *,
        rate_limits: list[str] | None = None,
        max_watch_streams: int | None = None,
        **overrides: object,
    ) -> TableConfig:
        """Defaults, overridden by RIVERBOAT_* variables, overridden by ``overrides``.

        ``rate_limits`` are ``--rate-limit`` specs, applied over ``RIVERBOAT_RATE_LIMITS``;
        ``max_watch_streams`` overrides ``RIVERBOAT_MAX_WATCH_STREAMS``.

        Raises:
            ValueError: a setting is malformed.
        """
        env = os.environ
        if max_watch_streams is None and "RIVERBOAT_MAX_WATCH_STREAMS" in env:
            max_watch_streams = int(env["RIVERBOAT_MAX_WATCH_STREAMS"])
        values: dict[str, object] = {
            "address": env.get("RIVERBOAT_TABLE_ADDRESS", DEFAULT_ADDRESS),
            "nats_url": env.get("RIVERBOAT_NATS_URL", DEFAULT_NATS_URL),
            "dealer_address": env.get("RIVERBOAT_DEALER_ADDRESS", DEFAULT_DEALER_ADDRESS),
        }
        if "RIVERBOAT_HAND_PAUSE" in env:
            values["hand_pause"] = float(env["RIVERBOAT_HAND_PAUSE"])
        values["rate_limits"] = RateLimits.from_settings(
            env, rate_limits or (), max_streams=max_watch_streams
        )
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
