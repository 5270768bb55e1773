"""Table service configuration: flags, then ``RIVERBOAT_*`` environment, then defaults.

Built on the one idiom of :mod:`riverboat.services.common.config` (the shared NATS and logging
settings live in :class:`~riverboat.services.common.config.ServiceConfig`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field

from riverboat.services.common.config import (
    ServiceConfig,
    Settings,
    add_service_arguments,
    check_address,
    check_name,
    check_subject_prefix,
    service_values,
)
from riverboat.services.common.limits import RateLimits

__all__ = ["DEFAULT_ADDRESS", "DEFAULT_DEALER_ADDRESS", "TableConfig", "add_arguments"]

DEFAULT_ADDRESS = "127.0.0.1:50052"
DEFAULT_DEALER_ADDRESS = "127.0.0.1:50053"


@dataclass(frozen=True, slots=True, kw_only=True)
class TableConfig(ServiceConfig):
    """Where the table service listens and what it talks to (NATS, logging: its base)."""

    address: str = DEFAULT_ADDRESS
    dealer_address: str = DEFAULT_DEALER_ADDRESS
    stream: str = "RB_TABLES"
    subject_prefix: str = "rb.tables"
    #: Pause between hands, seconds (players see the showdown before the next deal).
    hand_pause: float = 2.0
    #: CRV1: seconds each of the two seed phases after a hand's commitment lasts at most
    #: (clients commit to their seeds, then reveal them; each phase is cut short once every
    #: client it waits for has answered): the pause, within [min_seed_window, seed_window].
    seed_window: float = 1.0
    #: CRV1: the shortest seed phase, also when the pause between hands is 0: a client must
    #: always have time to send its seed (else the table could make every seed drawn).
    min_seed_window: float = 0.25
    #: Deal hands automatically when enough players sit (off: hands start on request only).
    auto_deal: bool = True
    #: A hand that cannot resume (dealer unreachable) within this many seconds is voided.
    resume_timeout: float = 120.0
    #: Largest request accepted, bytes; larger ones get RESOURCE_EXHAUSTED.
    max_request_bytes: int = 64 * 1024
    #: Act and Watch per account and per peer, and the Watch streams one account may hold.
    rate_limits: RateLimits = field(default_factory=RateLimits)
    #: This instance's id in the table leases (empty: hostname-pid).
    instance_id: str = ""
    #: The gRPC address other instances redirect clients to (empty: the listen address).
    advertise_address: str = ""
    #: Seconds a table's lease lasts unless renewed (an instance killed -9 loses its tables
    #: to the others within it).
    lease_ttl: float = 10.0
    #: The KV bucket of table leases (instances announce themselves in
    #: ``<bucket>_INSTANCES``); empty: ``riverboat.leases.owners_bucket(stream)``, which is
    #: ``RB_TABLE_OWNERS`` for the default stream.
    owners_bucket: str = ""
    #: Seconds a stopping instance waits for each table's hand in play before handing it over
    #: anyway (the next owner resumes the hand); the whole hand-over, lease writes included,
    #: is bounded by about twice this, so a SIGTERM'd instance exits whatever NATS does.
    handover_seconds: float = 30.0

    def seed_phase_seconds(self, pause: float) -> float:
        """How long one CRV1 seed phase waits for the clients after a ``pause`` between
        hands: the pause, but never less than ``min_seed_window`` nor (unless that minimum
        is longer) more than ``seed_window``."""
        return max(self.min_seed_window, min(self.seed_window, pause))

    def __post_init__(self) -> None:
        check_address("--address", self.address)
        check_name("--stream", self.stream)
        check_subject_prefix("--subject-prefix", self.subject_prefix)
        check_address("--dealer", self.dealer_address)
        self.check_common()
        if self.hand_pause < 0:
            raise ValueError("--hand-pause must be 0 or more seconds")
        if self.seed_window < 0:
            raise ValueError("--seed-window must be 0 or more seconds")
        if self.min_seed_window <= 0:
            raise ValueError("--min-seed-window must be more than 0 seconds")
        if self.lease_ttl < 1:
            raise ValueError("--lease-ttl must be at least 1 second")
        if self.handover_seconds <= 0:
            raise ValueError("--handover-timeout must be more than 0 seconds")

    @classmethod
    def from_namespace(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> TableConfig:
        """Build from parsed :func:`add_arguments` flags, falling back to the environment.

        Raises:
            ValueError: a setting is malformed (a ``ConfigError`` names the flag).
        """
        settings = Settings(args, environ)
        max_streams = settings.get("max_watch_streams", "RIVERBOAT_MAX_WATCH_STREAMS", None, int)
        values = service_values(settings, service="table", default_address=DEFAULT_ADDRESS)
        values.update(
            dealer_address=settings.get(
                "dealer", "RIVERBOAT_DEALER_ADDRESS", DEFAULT_DEALER_ADDRESS
            ),
            rate_limits=RateLimits.from_settings(
                settings.env, getattr(args, "rate_limit", None) or (), max_streams=max_streams
            ),
        )
        hand_pause = settings.get("hand_pause", "RIVERBOAT_HAND_PAUSE", None, float)
        if hand_pause is not None:
            values["hand_pause"] = hand_pause
        seed_window = settings.get("seed_window", "RIVERBOAT_SEED_WINDOW", None, float)
        if seed_window is not None:
            values["seed_window"] = seed_window
        least = settings.get("min_seed_window", "RIVERBOAT_MIN_SEED_WINDOW", None, float)
        if least is not None:
            values["min_seed_window"] = least
        for name in ("stream", "subject_prefix"):
            if getattr(args, name, None) is not None:
                values[name] = getattr(args, name)
        values.update(
            instance_id=settings.get("instance_id", "RIVERBOAT_INSTANCE_ID", ""),
            advertise_address=settings.get("advertise_address", "RIVERBOAT_ADVERTISE_ADDRESS", ""),
            lease_ttl=settings.get("lease_ttl", "RIVERBOAT_LEASE_TTL", 10.0, float),
            owners_bucket=settings.get("owners_bucket", "RIVERBOAT_OWNERS_BUCKET", ""),
            handover_seconds=settings.get(
                "handover_timeout", "RIVERBOAT_HANDOVER_TIMEOUT", 30.0, float
            ),
        )
        return cls(**values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The table service's flags: the shared ones, then its own."""
    add_service_arguments(parser, service="table", default_address=DEFAULT_ADDRESS)
    own = parser.add_argument_group("table service")
    own.add_argument(
        "--dealer",
        help=f"dealer address (env RIVERBOAT_DEALER_ADDRESS; default {DEFAULT_DEALER_ADDRESS})",
    )
    own.add_argument(
        "--hand-pause",
        type=float,
        help="seconds between hands (env RIVERBOAT_HAND_PAUSE; default 2)",
    )
    own.add_argument(
        "--seed-window",
        type=float,
        help="CRV1: longest seed phase, seconds (env RIVERBOAT_SEED_WINDOW; default 1); each "
        "phase lasts the pause between hands, within the shortest and the longest",
    )
    own.add_argument(
        "--min-seed-window",
        type=float,
        help="CRV1: shortest seed phase, seconds, also with no pause (env "
        "RIVERBOAT_MIN_SEED_WINDOW; default 0.25)",
    )
    own.add_argument("--stream", help="JetStream stream of table logs (default RB_TABLES)")
    own.add_argument("--subject-prefix", help="subject prefix of table logs (rb.tables)")
    own.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        metavar="METHOD.SCOPE=RATE",
        help="an Act or Watch limit per account or per peer, e.g. Act.account=20/s or "
        "Watch.peer=off (repeatable; over RIVERBOAT_RATE_LIMITS; defaults: Act.account=50/s, "
        "Act.peer=5000/s, Watch.account=120/min, Watch.peer=20000/min)",
    )
    own.add_argument(
        "--max-watch-streams",
        type=int,
        help="Watch streams one account may hold open at once (env "
        "RIVERBOAT_MAX_WATCH_STREAMS; default 32)",
    )
    own.add_argument(
        "--instance-id",
        help="this instance's id in the table leases (env RIVERBOAT_INSTANCE_ID; "
        "default hostname-pid)",
    )
    own.add_argument(
        "--advertise-address",
        help="host:port other instances send this instance's clients to (env "
        "RIVERBOAT_ADVERTISE_ADDRESS; default the listen address)",
    )
    own.add_argument(
        "--lease-ttl",
        type=float,
        help="seconds a table lease lasts unless renewed (env RIVERBOAT_LEASE_TTL; default 10)",
    )
    own.add_argument(
        "--handover-timeout",
        type=float,
        help="seconds a stopping instance waits for a table's hand in play before handing the "
        "table over anyway (env RIVERBOAT_HANDOVER_TIMEOUT; default 30)",
    )
    own.add_argument(
        "--owners-bucket",
        help="KV bucket of the table leases (env RIVERBOAT_OWNERS_BUCKET; default "
        "RB_TABLE_OWNERS, or <stream>_OWNERS for another --stream)",
    )
