"""Dealer settings: command-line flags, then environment variables, then defaults."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from riverboat.natsauth import NatsCredentials
from riverboat.natsserver import DEFAULT_HOST, DEFAULT_PORT
from riverboat.services.common.addresses import split_address
from riverboat.services.common.metrics import add_metrics_arguments
from riverboat.services.common.natslogin import (
    NatsLoginError,
    add_nats_login_arguments,
    nats_login,
)
from riverboat.services.common.tracing import add_tracing_arguments

__all__ = [
    "DEFAULT_ADDRESS",
    "DEFAULT_DEV_KEY_FILE",
    "DEFAULT_NATS_URL",
    "ENV_ADDRESS",
    "ENV_KEY",
    "ENV_KEY_FILE",
    "ENV_LOG_FORMAT",
    "ENV_LOG_LEVEL",
    "ENV_NATS_URL",
    "ConfigError",
    "DealerConfig",
    "add_arguments",
]

DEFAULT_ADDRESS = "127.0.0.1:50053"
DEFAULT_NATS_URL = f"nats://{DEFAULT_HOST}:{DEFAULT_PORT}"  # Riverboat's own NATS, never 4222
DEFAULT_DEV_KEY_FILE = Path("var/dealer.key")

ENV_ADDRESS = "RIVERBOAT_DEALER_ADDRESS"
ENV_NATS_URL = "RIVERBOAT_NATS_URL"
ENV_KEY = "RIVERBOAT_DEALER_KEY"
ENV_KEY_FILE = "RIVERBOAT_DEALER_KEY_FILE"
ENV_LOG_FORMAT = "RIVERBOAT_LOG_FORMAT"
ENV_LOG_LEVEL = "RIVERBOAT_LOG_LEVEL"

_STREAM_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SUBJECT_PREFIX_RE = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names it (never a secret's value)."""


@dataclass(frozen=True, slots=True)
class DealerConfig:
    """Everything the dealer process needs to know.

    Attributes:
        address: gRPC ``host:port`` to listen on (port 0: any free port).
        nats_url: the NATS server(s), comma-separated URLs.
        nats_login: how to log in to NATS (see ``riverboat.services.common.natslogin``).
        seal_key_file: file holding the AES-256 sealing key (hex or base64).
        seal_key_text: the key itself (from ``RIVERBOAT_DEALER_KEY``); hidden from ``repr``.
        dev_key_file: where a development key is kept when no key is configured.
        tables_stream, tables_prefix: the table logs (read only): stream and subject prefix.
        seeds_stream, seeds_prefix: the dealer-only stream of sealed seeds.
        audit_stream, audit_prefix: the auditors' stream of revealed seeds.
        replicas: replicas for the streams the dealer creates (3 in a cluster).
        nats_timeout: seconds to wait for each JetStream request.
        connect_timeout: seconds start-up keeps trying to reach NATS before giving up.
        grace: seconds in-flight RPCs get on shutdown.
        log_format: ``json``, ``console`` or ``auto``.
        log_level: ``debug``, ``info``, ``warning`` or ``error``.
    """

    address: str = DEFAULT_ADDRESS
    nats_url: str = DEFAULT_NATS_URL
    nats_login: NatsCredentials = field(default_factory=NatsCredentials)
    seal_key_file: Path | None = None
    seal_key_text: str | None = field(default=None, repr=False)
    dev_key_file: Path = DEFAULT_DEV_KEY_FILE
    tables_stream: str = "RB_TABLES"
    tables_prefix: str = "rb.tables"
    seeds_stream: str = "RB_DEALER"
    seeds_prefix: str = "rb.dealer.seeds"
    audit_stream: str = "RB_AUDIT"
    audit_prefix: str = "rb.audit.seeds"
    replicas: int = 1
    nats_timeout: float = 5.0
    connect_timeout: float = 30.0
    grace: float = 5.0
    log_format: str = "auto"
    log_level: str = "info"

    def __post_init__(self) -> None:
        try:
            split_address(self.address)
        except ValueError as exc:
            raise ConfigError(f"--address: {exc}") from None
        if not self.nats_url.strip():
            raise ConfigError("--nats: the NATS URL is empty")
        for flag, name in (
            ("--tables-stream", self.tables_stream),
            ("--seeds-stream", self.seeds_stream),
            ("--audit-stream", self.audit_stream),
        ):
            if _STREAM_NAME_RE.fullmatch(name) is None:
                raise ConfigError(f"{flag}: invalid stream name {name!r}")
        prefixes = {
            "--tables-prefix": self.tables_prefix,
            "--seeds-prefix": self.seeds_prefix,
            "--audit-prefix": self.audit_prefix,
        }
        for flag, prefix in prefixes.items():
            if _SUBJECT_PREFIX_RE.fullmatch(prefix) is None:
                raise ConfigError(f"{flag}: invalid subject prefix {prefix!r}")
        if len(set(prefixes.values())) != len(prefixes):
            raise ConfigError("the tables, seeds and audit subject prefixes must differ")
        if len({self.tables_stream, self.seeds_stream, self.audit_stream}) != 3:
            raise ConfigError("the tables, seeds and audit streams must be different streams")
        if self.replicas < 1:
            raise ConfigError("--replicas must be at least 1")
        for flag, seconds in (
            ("--nats-timeout", self.nats_timeout),
            ("--connect-timeout", self.connect_timeout),
            ("--grace", self.grace),
        ):
            if not seconds > 0:
                raise ConfigError(f"{flag} must be a positive number of seconds")
        if self.log_format not in ("json", "console", "auto"):
            raise ConfigError(
                f"--log-format must be json, console or auto, not {self.log_format!r}"
            )
        if self.log_level.lower() not in ("debug", "info", "warning", "error"):
            raise ConfigError("--log-level must be debug, info, warning or error")

    @classmethod
    def from_namespace(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> DealerConfig:
        """Build from parsed :func:`add_arguments` flags, falling back to the environment.

        Raises:
            ConfigError: a value is malformed.
        """
        env = os.environ if environ is None else environ

        def pick(flag_value: str | None, env_name: str, default: str) -> str:
            if flag_value is not None:
                return flag_value
            return env.get(env_name) or default

        key_file = args.seal_key_file or env.get(ENV_KEY_FILE) or None
        try:
            login = nats_login(args, env)
        except NatsLoginError as exc:
            raise ConfigError(str(exc)) from None
        return cls(
            address=pick(args.address, ENV_ADDRESS, DEFAULT_ADDRESS),
            nats_url=pick(args.nats, ENV_NATS_URL, DEFAULT_NATS_URL),
            nats_login=login,
            seal_key_file=Path(key_file) if key_file else None,
            seal_key_text=env.get(ENV_KEY) or None,
            dev_key_file=Path(args.dev_key_file),
            tables_stream=args.tables_stream,
            tables_prefix=args.tables_prefix,
            seeds_stream=args.seeds_stream,
            seeds_prefix=args.seeds_prefix,
            audit_stream=args.audit_stream,
            audit_prefix=args.audit_prefix,
            replicas=args.replicas,
            nats_timeout=args.nats_timeout,
            connect_timeout=args.connect_timeout,
            grace=args.grace,
            log_format=pick(args.log_format, ENV_LOG_FORMAT, "auto"),
            log_level=pick(args.log_level, ENV_LOG_LEVEL, "info"),
        )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the dealer's flags (shared by ``python -m`` and ``riverboat dealer serve``)."""
    defaults = DealerConfig()
    net = parser.add_argument_group("network")
    net.add_argument(
        "--address",
        help=f"gRPC host:port to listen on (env {ENV_ADDRESS}; default {DEFAULT_ADDRESS})",
    )
    net.add_argument("--nats", help=f"NATS URL (env {ENV_NATS_URL}; default {DEFAULT_NATS_URL})")
    add_nats_login_arguments(net)
    keys = parser.add_argument_group("sealing key")
    keys.add_argument(
        "--seal-key-file",
        help=f"file with the AES-256 seed-sealing key, 64 hex digits or base64 (env "
        f"{ENV_KEY_FILE}, or the key itself in {ENV_KEY}); without either, a development "
        f"key is created in --dev-key-file",
    )
    keys.add_argument(
        "--dev-key-file",
        default=str(DEFAULT_DEV_KEY_FILE),
        help="development key file, used only when no key is configured (default %(default)s)",
    )
    streams = parser.add_argument_group("JetStream")
    streams.add_argument("--tables-stream", default=defaults.tables_stream)
    streams.add_argument("--tables-prefix", default=defaults.tables_prefix)
    streams.add_argument("--seeds-stream", default=defaults.seeds_stream)
    streams.add_argument("--seeds-prefix", default=defaults.seeds_prefix)
    streams.add_argument("--audit-stream", default=defaults.audit_stream)
    streams.add_argument("--audit-prefix", default=defaults.audit_prefix)
    streams.add_argument("--replicas", type=int, default=defaults.replicas)
    streams.add_argument(
        "--nats-timeout", type=float, default=defaults.nats_timeout, help="seconds per request"
    )
    streams.add_argument(
        "--connect-timeout",
        type=float,
        default=defaults.connect_timeout,
        help="seconds start-up keeps retrying NATS (default %(default)s)",
    )
    ops = parser.add_argument_group("operation")
    ops.add_argument("--grace", type=float, default=defaults.grace, help="shutdown grace seconds")
    ops.add_argument(
        "--log-format",
        choices=("json", "console", "auto"),
        help=f"log output (env {ENV_LOG_FORMAT}; default auto: console on a terminal)",
    )
    ops.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        help=f"minimum level (env {ENV_LOG_LEVEL}; default info)",
    )
    add_metrics_arguments(ops)
    add_tracing_arguments(ops)
