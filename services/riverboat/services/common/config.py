"""One configuration idiom for every Riverboat service: flags over ``RIVERBOAT_*`` over defaults.

Every service (lobby, table, dealer, settlement) builds its settings the same way:

* :func:`add_service_arguments` adds the flags all four share (``--address``, the NATS flags of
  :func:`add_nats_arguments`, ``--replicas``, ``--connect-timeout``, ``--grace``,
  ``--log-format``, ``--log-level``, ``--metrics-address`` from ``common.metrics`` and
  ``--otel`` from ``common.tracing``); each service adds its own after them. Every flag
  defaults to ``None`` so that "not given" can fall back to the environment.
* :class:`Settings` resolves one value: the flag if given, else the environment variable, else
  the default; a malformed value is a :class:`ConfigError` naming the flag and the variable.
* :class:`ServiceConfig` is the base of every service's frozen config: the shared NATS settings
  (a list of URLs, credentials, TLS, stream replicas, timeouts) and logging.
  :meth:`ServiceConfig.nats` gives the :class:`NatsSettings` whose
  :meth:`~NatsSettings.connect_options` every service and tool spreads into ``nats.connect``.
* :func:`riverboat.services.common.startup.start` builds the config and turns a
  :class:`ConfigError` into one line on stderr and exit status 2 (no traceback).

The shared names:

====================  ===============================  ==============================
flag                  environment                      default
====================  ===============================  ==============================
``--address``         ``RIVERBOAT_<SERVICE>_ADDRESS``  the service's own port
``--nats``            ``RIVERBOAT_NATS_URL``           ``nats://127.0.0.1:4333``
``--nats-user``,      ``RIVERBOAT_NATS_USER``, ...     no login (see ``natslogin``)
``--nats-ca``         ``RIVERBOAT_NATS_CA``            no TLS
``--nats-cert``       ``RIVERBOAT_NATS_CERT``          no client certificate
``--nats-key``        ``RIVERBOAT_NATS_KEY``           no client certificate
``--replicas``        ``RIVERBOAT_REPLICAS``           1 alone, 3 on a cluster (as connected)
``--nats-timeout``    ``RIVERBOAT_NATS_TIMEOUT``       5 seconds per request
``--connect-timeout`` ``RIVERBOAT_CONNECT_TIMEOUT``    30 seconds at start-up
``--grace``           ``RIVERBOAT_GRACE``              5 seconds for in-flight RPCs
``--max-in-flight``   ``RIVERBOAT_MAX_IN_FLIGHT``      512 unary calls at once (``admission``)
``--log-format``      ``RIVERBOAT_LOG_FORMAT``         auto
``--log-level``       ``RIVERBOAT_LOG_LEVEL``          info
``--metrics-address`` ``RIVERBOAT_METRICS_ADDRESS``    off (see ``common.metrics``)
``--database``        ``RIVERBOAT_DATABASE_URL``       (the services that keep a database)
====================  ===============================  ==============================

``--nats`` takes a comma-separated list of URLs (and may be repeated): clients fail over
between a cluster's nodes.
"""

from __future__ import annotations

import argparse
import os
import re
import ssl
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from riverboat.natsauth import NatsCredentials
from riverboat.natsserver import DEFAULT_HOST, DEFAULT_PORT
from riverboat.services.common.addresses import split_address
from riverboat.services.common.admission import DEFAULT_MAX_IN_FLIGHT, ENV_MAX_IN_FLIGHT
from riverboat.services.common.metrics import add_metrics_arguments
from riverboat.services.common.natslogin import (
    NatsLoginError,
    add_nats_login_arguments,
    nats_login,
)
from riverboat.services.common.tracing import add_tracing_arguments

__all__ = [
    "DEFAULT_NATS_URL",
    "ENV_CONNECT_TIMEOUT",
    "ENV_DATABASE_URL",
    "ENV_GRACE",
    "ENV_LOG_FORMAT",
    "ENV_LOG_LEVEL",
    "ENV_NATS_CA",
    "ENV_NATS_CERT",
    "ENV_NATS_KEY",
    "ENV_NATS_TIMEOUT",
    "ENV_NATS_URL",
    "ENV_REPLICAS",
    "ConfigError",
    "NatsSettings",
    "NatsTls",
    "ServiceConfig",
    "Settings",
    "add_database_arguments",
    "add_nats_arguments",
    "add_nats_tls_arguments",
    "add_service_arguments",
    "address_env",
    "check_name",
    "check_subject_prefix",
    "nats_settings",
    "nats_values",
    "service_values",
    "split_urls",
    "stream_replicas",
]

DEFAULT_NATS_URL = f"nats://{DEFAULT_HOST}:{DEFAULT_PORT}"  # Riverboat's own NATS, never 4222

ENV_NATS_URL = "RIVERBOAT_NATS_URL"
ENV_NATS_CA = "RIVERBOAT_NATS_CA"
ENV_NATS_CERT = "RIVERBOAT_NATS_CERT"
ENV_NATS_KEY = "RIVERBOAT_NATS_KEY"
ENV_REPLICAS = "RIVERBOAT_REPLICAS"
ENV_NATS_TIMEOUT = "RIVERBOAT_NATS_TIMEOUT"
ENV_CONNECT_TIMEOUT = "RIVERBOAT_CONNECT_TIMEOUT"
ENV_GRACE = "RIVERBOAT_GRACE"
ENV_LOG_FORMAT = "RIVERBOAT_LOG_FORMAT"
ENV_LOG_LEVEL = "RIVERBOAT_LOG_LEVEL"
ENV_DATABASE_URL = "RIVERBOAT_DATABASE_URL"

LOG_FORMATS = ("json", "console", "auto")
LOG_LEVELS = ("debug", "info", "warning", "error")

T = TypeVar("T")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names it (never a secret's value)."""


def address_env(service: str) -> str:
    """The environment variable of a service's listen address, e.g. ``RIVERBOAT_TABLE_ADDRESS``."""
    return f"RIVERBOAT_{service.upper()}_ADDRESS"


def split_urls(values: str | Sequence[str]) -> tuple[str, ...]:
    """NATS URLs from a comma-separated string or several of them; blanks dropped."""
    parts = [values] if isinstance(values, str) else list(values)
    return tuple(url.strip() for part in parts for url in part.split(",") if url.strip())


# JetStream names (streams, consumers) and subject prefixes: what NATS accepts as one token
# without wildcards, and dotted tokens.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SUBJECT_PREFIX = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")


def check_name(flag: str, name: str) -> str:
    """``name`` if it is a stream or consumer name (1-64 of ``A-Z a-z 0-9 _ -``).

    Raises:
        ConfigError: naming ``flag``.
    """
    if _NAME.fullmatch(name) is None:
        raise ConfigError(f"{flag}: invalid name {name!r} (1-64 of A-Z a-z 0-9 _ -)")
    return name


def check_subject_prefix(flag: str, prefix: str) -> str:
    """``prefix`` if it is a subject prefix (dot-separated tokens of ``A-Z a-z 0-9 _ -``).

    Raises:
        ConfigError: naming ``flag``.
    """
    if _SUBJECT_PREFIX.fullmatch(prefix) is None:
        raise ConfigError(f"{flag}: invalid subject prefix {prefix!r}")
    return prefix


class Settings:
    """Resolves settings from parsed flags, then the environment, then defaults.

    Args:
        args: the parsed command line (a flag left out is ``None`` or absent).
        environ: the environment (default ``os.environ``); empty values count as unset.
    """

    def __init__(self, args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> None:
        self.args = args
        self.env = os.environ if environ is None else environ

    def raw(self, dest: str, env_name: str | None) -> tuple[str | None, Any]:
        """``(where, value)``: the flag if given, else the variable if set, else both None."""
        value = getattr(self.args, dest, None)
        if value is not None and value != []:
            return f"--{dest.replace('_', '-')}", value
        if env_name is not None:
            text = self.env.get(env_name)
            if text:
                return env_name, text
        return None, None

    def get(
        self,
        dest: str,
        env_name: str | None,
        default: T,
        parse: Callable[[str], T] | None = None,
    ) -> T:
        """The flag ``dest``, else ``$env_name`` (parsed with ``parse``), else ``default``.

        Raises:
            ConfigError: the value does not parse; the message names the flag or variable.
        """
        where, value = self.raw(dest, env_name)
        if where is None:
            return default
        if parse is None or not isinstance(value, str):
            return value  # type: ignore[no-any-return]
        try:
            return parse(value)
        except ValueError:
            kind = getattr(parse, "__name__", "value")
            raise ConfigError(f"{where}: {value!r} is not a valid {kind}") from None


@dataclass(frozen=True, slots=True)
class NatsTls:
    """TLS towards NATS: the CA that signed the servers, and a client certificate if required.

    Nothing set: plain connections (unless a URL says ``tls://``, then the system's CAs).
    """

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    def __post_init__(self) -> None:
        if (self.cert_file is None) != (self.key_file is None):
            raise ConfigError("--nats-cert and --nats-key go together (a certificate and its key)")
        for flag, path in (
            ("--nats-ca", self.ca_file),
            ("--nats-cert", self.cert_file),
            ("--nats-key", self.key_file),
        ):
            if path is not None and not path.is_file():
                raise ConfigError(f"{flag}: no such file {path}")

    @property
    def enabled(self) -> bool:
        """Whether any TLS setting is given."""
        return self.ca_file is not None or self.cert_file is not None

    def context(self) -> ssl.SSLContext:
        """An SSL context verifying the server (with :attr:`ca_file`) and presenting the cert.

        Raises:
            ConfigError: a file is not a usable certificate or key.
        """
        try:
            context = ssl.create_default_context(
                cafile=str(self.ca_file) if self.ca_file is not None else None
            )
            if self.cert_file is not None and self.key_file is not None:
                context.load_cert_chain(str(self.cert_file), str(self.key_file))
        except (ssl.SSLError, OSError) as exc:
            raise ConfigError(f"NATS TLS files are not usable: {exc}") from None
        return context


@dataclass(frozen=True, slots=True)
class NatsSettings:
    """Where NATS is and how to reach it: what every service and tool passes to ``nats.connect``.

    Attributes:
        urls: one URL per server (clients fail over between them).
        login: user/password or creds file (see :mod:`riverboat.services.common.natslogin`).
        tls: TLS settings (:class:`NatsTls`; empty: none).
    """

    urls: tuple[str, ...] = (DEFAULT_NATS_URL,)
    login: NatsCredentials = field(default_factory=NatsCredentials)
    tls: NatsTls = field(default_factory=NatsTls)

    @property
    def display(self) -> str:
        """The URLs, comma-separated, for log lines and messages."""
        return ",".join(self.urls)

    def connect_options(self) -> dict[str, Any]:
        """Keyword arguments for ``nats.connect``: ``servers``, the login and the TLS context."""
        options: dict[str, Any] = {"servers": list(self.urls), **self.login.connect_options()}
        if self.tls.enabled or any(url.startswith("tls://") for url in self.urls):
            options["tls"] = self.tls.context()
        return options


def add_nats_arguments(parser: argparse.ArgumentParser | Any) -> None:
    """``--nats``, the login flags, ``--nats-ca/-cert/-key`` and ``--nats-timeout``."""
    parser.add_argument(
        "--nats",
        action="append",
        metavar="URLS",
        help=f"NATS server URLs, comma-separated or repeated (env {ENV_NATS_URL}; default "
        f"{DEFAULT_NATS_URL})",
    )
    add_nats_login_arguments(parser)
    add_nats_tls_arguments(parser)
    parser.add_argument(
        "--nats-timeout",
        type=float,
        help=f"seconds per NATS request (env {ENV_NATS_TIMEOUT}; default 5)",
    )


def add_nats_tls_arguments(parser: argparse.ArgumentParser | Any) -> None:
    """``--nats-ca``, ``--nats-cert``, ``--nats-key`` (for tools that add ``--nats`` their way)."""
    parser.add_argument(
        "--nats-ca",
        metavar="FILE",
        help=f"CA certificate the NATS servers' TLS certificates "
        f"are signed by (env {ENV_NATS_CA}; default: no TLS)",
    )
    parser.add_argument(
        "--nats-cert",
        metavar="FILE",
        help=f"client certificate for NATS servers that require one (env {ENV_NATS_CERT})",
    )
    parser.add_argument(
        "--nats-key", metavar="FILE", help=f"the client certificate's key (env {ENV_NATS_KEY})"
    )


def add_service_arguments(
    parser: argparse.ArgumentParser,
    *,
    service: str,
    default_address: str,
    with_nats: bool = True,
) -> None:
    """The flags all four services share (see the module's table); each adds its own after.

    ``with_nats=False`` leaves out :func:`add_nats_arguments`, for a service that adds them in
    a group its tools share (settlement's ``add_store_arguments``).
    """
    net = parser.add_argument_group("network")
    net.add_argument(
        "--address",
        help=f"gRPC host:port to listen on (env {address_env(service)}; default {default_address})",
    )
    if with_nats:
        add_nats_arguments(net)
    net.add_argument(
        "--replicas",
        type=int,
        help=f"replicas of the streams this service creates (env {ENV_REPLICAS}; default 1 on a "
        "lone server, 3 on a cluster; an existing stream's replicas are never changed)",
    )
    ops = parser.add_argument_group("operation")
    ops.add_argument(
        "--connect-timeout",
        type=float,
        help=f"seconds start-up keeps trying to reach NATS (env {ENV_CONNECT_TIMEOUT}; default 30)",
    )
    ops.add_argument(
        "--grace",
        type=float,
        help=f"seconds in-flight RPCs get on shutdown (env {ENV_GRACE}; default 5)",
    )
    ops.add_argument(
        "--max-in-flight",
        type=int,
        help=f"unary calls handled at once; more are refused with RESOURCE_EXHAUSTED, reason "
        f"OVERLOADED (env {ENV_MAX_IN_FLIGHT}; default {DEFAULT_MAX_IN_FLIGHT})",
    )
    ops.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        help=f"log output (env {ENV_LOG_FORMAT}; default auto: console on a terminal)",
    )
    ops.add_argument(
        "--log-level", choices=LOG_LEVELS, help=f"minimum level (env {ENV_LOG_LEVEL}; default info)"
    )
    add_metrics_arguments(ops)
    add_tracing_arguments(ops)


def add_database_arguments(parser: argparse.ArgumentParser | Any, *, default: str) -> None:
    """``--database`` (env ``RIVERBOAT_DATABASE_URL``)."""
    parser.add_argument(
        "--database",
        help=f"database URL (env {ENV_DATABASE_URL}; default {default}; PostgreSQL: "
        "postgresql+psycopg://user@host/db)",
    )


def _path(value: str) -> Path:
    return Path(value)


def nats_values(settings: Settings) -> dict[str, Any]:
    """The NATS fields of a :class:`ServiceConfig`, resolved (``nats_url``, login, TLS, timeout).

    Raises:
        ConfigError: the login is incomplete, or a TLS file is missing.
    """
    urls = settings.get("nats", ENV_NATS_URL, [DEFAULT_NATS_URL], lambda text: [text])
    try:
        login = nats_login(settings.args, settings.env)
    except NatsLoginError as exc:
        raise ConfigError(str(exc)) from None
    values: dict[str, Any] = {
        "nats_url": ",".join(split_urls(urls)),
        "nats_login": login,
        "nats_tls": NatsTls(
            ca_file=settings.get("nats_ca", ENV_NATS_CA, None, _path),
            cert_file=settings.get("nats_cert", ENV_NATS_CERT, None, _path),
            key_file=settings.get("nats_key", ENV_NATS_KEY, None, _path),
        ),
    }
    timeout = settings.get("nats_timeout", ENV_NATS_TIMEOUT, None, float)
    if timeout is not None:
        values["nats_timeout"] = timeout
    return values


def nats_settings(settings: Settings) -> NatsSettings:
    """The :class:`NatsSettings` the flags and environment name (for tools without a config).

    Raises:
        ConfigError: the login is incomplete, a TLS file is missing or unusable.
    """
    values = nats_values(settings)
    tls: NatsTls = values["nats_tls"]
    if tls.enabled:
        tls.context()
    return NatsSettings(urls=split_urls(values["nats_url"]), login=values["nats_login"], tls=tls)


def service_values(settings: Settings, *, service: str, default_address: str) -> dict[str, Any]:
    """Every :class:`ServiceConfig` field plus ``address``, resolved; unset ones left out."""
    values = nats_values(settings)
    values["address"] = settings.get("address", address_env(service), default_address)
    for dest, env_name, parse in (
        ("replicas", ENV_REPLICAS, int),
        ("connect_timeout", ENV_CONNECT_TIMEOUT, float),
        ("grace", ENV_GRACE, float),
        ("max_in_flight", ENV_MAX_IN_FLIGHT, int),
        ("log_format", ENV_LOG_FORMAT, str),
        ("log_level", ENV_LOG_LEVEL, str),
    ):
        value = settings.get(dest, env_name, None, parse)
        if value is not None:
            values[dest] = value
    return values


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceConfig:
    """What every service's config holds: NATS (URLs, login, TLS, replicas, timeouts), logging.

    Attributes:
        nats_url: the NATS servers, comma-separated URLs.
        nats_login: how to log in to NATS; hidden secrets (see ``natslogin``).
        nats_tls: TLS towards NATS (:class:`NatsTls`).
        replicas: replicas for the streams the service creates; None (no ``--replicas``): 1 on a
            lone server, 3 on a cluster (:func:`stream_replicas`). An existing stream's replicas
            are never changed.
        nats_timeout: seconds to wait for each JetStream request.
        connect_timeout: seconds start-up keeps trying to reach NATS before giving up.
        grace: seconds in-flight RPCs get on shutdown.
        max_in_flight: unary calls handled at once (``common.admission``).
        log_format: ``json``, ``console`` or ``auto``.
        log_level: ``debug``, ``info``, ``warning`` or ``error``.
    """

    nats_url: str = DEFAULT_NATS_URL
    nats_login: NatsCredentials = field(default_factory=NatsCredentials)
    nats_tls: NatsTls = field(default_factory=NatsTls)
    replicas: int | None = None
    nats_timeout: float = 5.0
    connect_timeout: float = 30.0
    grace: float = 5.0
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    log_format: str = "auto"
    log_level: str = "info"

    def stream_replicas(self, nc: Any) -> int:
        """Replicas for the streams this service creates (see :func:`stream_replicas`)."""
        return stream_replicas(self.replicas, nc)

    def check_common(self) -> None:
        """Validate the shared fields (each service's ``__post_init__`` calls it).

        Raises:
            ConfigError: naming the flag.
        """
        if not split_urls(self.nats_url):
            raise ConfigError("--nats: the NATS URL is empty")
        for url in split_urls(self.nats_url):
            scheme, sep, rest = url.partition("://")
            if not sep or scheme not in ("nats", "tls", "ws", "wss") or not rest:
                raise ConfigError(f"--nats: {url!r} is not a nats:// or tls:// URL")
        if self.replicas is not None and not 1 <= self.replicas <= 5:
            raise ConfigError("--replicas must be 1..5")
        for flag, seconds in (
            ("--nats-timeout", self.nats_timeout),
            ("--connect-timeout", self.connect_timeout),
            ("--grace", self.grace),
        ):
            if not seconds > 0:
                raise ConfigError(f"{flag} must be a positive number of seconds")
        if self.max_in_flight < 1:
            raise ConfigError("--max-in-flight must be at least 1")
        if self.log_format not in LOG_FORMATS:
            raise ConfigError(
                f"--log-format must be json, console or auto, not {self.log_format!r}"
            )
        if self.log_level.lower() not in LOG_LEVELS:
            raise ConfigError("--log-level must be debug, info, warning or error")
        if self.nats_tls.enabled:
            self.nats_tls.context()  # unusable files: an error at start-up, not at connect

    @property
    def nats(self) -> NatsSettings:
        """The NATS connection settings (URL list, login, TLS)."""
        return NatsSettings(
            urls=split_urls(self.nats_url), login=self.nats_login, tls=self.nats_tls
        )


def stream_replicas(configured: int | None, nc: Any) -> int:
    """``configured`` if given, else 1 on a lone server and 3 on a cluster (its size if smaller).

    A cluster is what the connected server says in its INFO (its ``cluster`` name and the
    ``connect_urls`` of every node); nats-py keeps that INFO in a private attribute, read here
    and nowhere else.
    """
    if configured is not None:
        return configured
    info = getattr(nc, "_server_info", None) or {}
    if not info.get("cluster"):
        return 1
    nodes = len(info.get("connect_urls") or ())
    return min(3, nodes) if nodes >= 1 else 3


def check_address(flag: str, address: str) -> None:
    """Raise :class:`ConfigError` unless ``address`` is ``host:port``."""
    try:
        split_address(address)
    except ValueError as exc:
        raise ConfigError(f"{flag}: {exc}") from None
