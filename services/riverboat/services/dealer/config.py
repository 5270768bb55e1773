"""Dealer settings: command-line flags, then environment variables, then defaults."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from riverboat.services.common.config import (
    DEFAULT_NATS_URL,
    ENV_LOG_FORMAT,
    ENV_LOG_LEVEL,
    ENV_NATS_URL,
    ConfigError,
    ServiceConfig,
    Settings,
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

ENV_ADDRESS = address_env("dealer")
ENV_KEY = "RIVERBOAT_DEALER_KEY"
ENV_KEY_FILE = "RIVERBOAT_DEALER_KEY_FILE"
ENV_SCHEME = "RIVERBOAT_DEALER_SCHEME"
#: The shuffle schemes a dealer commits new hands under (docs/shuffle.md parts I and II).
SCHEMES = ("CRV1", "RBS1")


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerConfig(ServiceConfig):
    """Everything the dealer process needs to know (NATS and logging: :class:`ServiceConfig`).

    Attributes:
        address: gRPC ``host:port`` to listen on (port 0: any free port).
        seal_key_file: file holding the AES-256 sealing key (hex or base64).
        seal_key_text: the key itself (from ``RIVERBOAT_DEALER_KEY``); hidden from ``repr``.
        dev_key_file: where ``riverboat up`` keeps its development key (created if missing);
            ``None`` (the default) makes a missing key a start-up error.
        tables_stream, tables_prefix: the table logs (read only): stream and subject prefix.
        seeds_stream, seeds_prefix: the dealer-only stream of sealed seeds.
        audit_stream, audit_prefix: the auditors' stream of revealed seeds.
        scheme: the shuffle scheme of new hands: CRV1 (players verify every card) or RBS1.
    """

    address: str = DEFAULT_ADDRESS
    seal_key_file: Path | None = None
    seal_key_text: str | None = field(default=None, repr=False)
    dev_key_file: Path | None = None
    tables_stream: str = "RB_TABLES"
    tables_prefix: str = "rb.tables"
    seeds_stream: str = "RB_DEALER"
    seeds_prefix: str = "rb.dealer.seeds"
    audit_stream: str = "RB_AUDIT"
    audit_prefix: str = "rb.audit.seeds"
    scheme: str = "CRV1"

    def __post_init__(self) -> None:
        check_address("--address", self.address)
        if self.scheme not in SCHEMES:
            raise ConfigError(f"--scheme: {self.scheme!r} is not one of {', '.join(SCHEMES)}")
        self.check_common()
        for flag, name in (
            ("--tables-stream", self.tables_stream),
            ("--seeds-stream", self.seeds_stream),
            ("--audit-stream", self.audit_stream),
        ):
            check_name(flag, name)
        prefixes = {
            "--tables-prefix": self.tables_prefix,
            "--seeds-prefix": self.seeds_prefix,
            "--audit-prefix": self.audit_prefix,
        }
        for flag, prefix in prefixes.items():
            check_subject_prefix(flag, prefix)
        if len(set(prefixes.values())) != len(prefixes):
            raise ConfigError("the tables, seeds and audit subject prefixes must differ")
        if len({self.tables_stream, self.seeds_stream, self.audit_stream}) != 3:
            raise ConfigError("the tables, seeds and audit streams must be different streams")

    @classmethod
    def from_namespace(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> DealerConfig:
        """Build from parsed :func:`add_arguments` flags, falling back to the environment.

        Raises:
            ConfigError: a value is malformed.
        """
        settings = Settings(args, environ)
        key_file = settings.get("seal_key_file", ENV_KEY_FILE, None)
        return cls(
            **service_values(settings, service="dealer", default_address=DEFAULT_ADDRESS),
            seal_key_file=Path(key_file) if key_file else None,
            seal_key_text=settings.env.get(ENV_KEY) or None,
            dev_key_file=Path(args.dev_key_file) if args.dev_key_file else None,
            tables_stream=args.tables_stream,
            tables_prefix=args.tables_prefix,
            seeds_stream=args.seeds_stream,
            seeds_prefix=args.seeds_prefix,
            audit_stream=args.audit_stream,
            audit_prefix=args.audit_prefix,
            scheme=settings.get("scheme", ENV_SCHEME, defaults_scheme()),
        )


def defaults_scheme() -> str:
    """The default shuffle scheme of new hands."""
    return str(DealerConfig.__dataclass_fields__["scheme"].default)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the dealer's flags (shared by ``python -m`` and ``riverboat dealer serve``)."""
    defaults = DealerConfig()
    add_service_arguments(parser, service="dealer", default_address=DEFAULT_ADDRESS)
    keys = parser.add_argument_group("sealing key")
    keys.add_argument(
        "--seal-key-file",
        help=f"file with the AES-256 seed-sealing key, 64 hex digits or base64 (env "
        f"{ENV_KEY_FILE}, or the key itself in {ENV_KEY}); required: without a key the "
        "dealer does not start",
    )
    keys.add_argument(
        "--dev-key-file",
        metavar="FILE",
        help="the embedded room's development key (riverboat up passes it): created in FILE "
        "if missing, used only when no key is configured; never in production",
    )
    parser.add_argument(
        "--scheme",
        choices=SCHEMES,
        help=f"shuffle scheme of new hands (env {ENV_SCHEME}; default {defaults.scheme}): "
        "CRV1, every player verifies every card; RBS1, only auditors verify (docs/shuffle.md)",
    )
    streams = parser.add_argument_group("JetStream")
    streams.add_argument("--tables-stream", default=defaults.tables_stream)
    streams.add_argument("--tables-prefix", default=defaults.tables_prefix)
    streams.add_argument("--seeds-stream", default=defaults.seeds_stream)
    streams.add_argument("--seeds-prefix", default=defaults.seeds_prefix)
    streams.add_argument("--audit-stream", default=defaults.audit_stream)
    streams.add_argument("--audit-prefix", default=defaults.audit_prefix)
