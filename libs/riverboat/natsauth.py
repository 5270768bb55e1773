"""NATS identities: who may publish and subscribe to what, and how a client logs in.

Every Riverboat service, the auditor and the operator's tools connect to NATS as their own user.
Each user may do exactly what its code does and nothing else (derived from the streams and
JetStream API calls each one makes; the table is in ``docs/architecture.md``):

=============  ===========================================================================
``lobby``      owns ``RB_LOBBY`` (create/update it, append, read); listens to ``rb.lobby.>`` to hear
               other lobby instances' appends; watches the table leases (``RB_TABLE_OWNERS``)
``table``      owns ``RB_TABLES``; listens to ``rb.tables.>`` to hear other instances' appends;
               owns the table leases (KV buckets ``RB_TABLE_OWNERS`` and
               ``RB_TABLE_OWNERS_INSTANCES``: create, write, read, watch)
``dealer``     owns ``RB_DEALER`` (sealed seeds: nobody else reads them) and ``RB_AUDIT``
               (revealed seeds); reads ``RB_TABLES``
``settlement`` owns ``RB_WALLETS``; reads ``RB_TABLES`` through its durable consumer (may create
               the table stream if it starts first, never reconfigure it); reads single
               messages of ``RB_LOBBY`` (the account registry)
``auditor``    reads ``RB_TABLES``, ``RB_AUDIT``, ``RB_WALLETS`` with ephemeral consumers; writes
               nothing
``operator``   the operator's tools (``riverboat audit``, ``riverboat settlement rebuild``):
               reads ``RB_TABLES``, ``RB_AUDIT``, ``RB_WALLETS``; writes nothing
=============  ===========================================================================

Nobody may delete or purge a stream, touch another user's replies (each user has its own inbox
prefix, ``_INBOX_<user>``), or read ``RB_DEALER`` but the dealer. Everything not allowed is
denied by the server.

:class:`NatsCredentials` is the one place a client's login options are built
(:meth:`NatsCredentials.connect_options`, spread into ``nats.connect``).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "IDENTITIES",
    "NatsCredentials",
    "NatsUser",
    "Permissions",
    "StreamLayout",
    "inbox_prefix",
    "room_passwords",
    "room_permissions",
    "room_users",
]

IDENTITIES = ("lobby", "table", "dealer", "settlement", "auditor", "operator")
"""The users of a Riverboat room's NATS, one per service plus the auditor and the operator."""

_API = "$JS.API"
_DEFAULT_INBOX = "_INBOX"


def inbox_prefix(user: str | None) -> str:
    """Where ``user``'s replies arrive: its own prefix, so no one needs ``_INBOX.>``."""
    return f"{_DEFAULT_INBOX}_{user}" if user else _DEFAULT_INBOX


@dataclass(frozen=True, slots=True)
class NatsCredentials:
    """How one client logs in to NATS (nothing set: no authentication).

    Attributes:
        user, password: a user of the server's ``authorization`` block (the password is hidden
            from ``repr``).
        creds_file: a ``.creds`` file (user JWT and nkey seed) for servers in operator/JWT
            mode.
        nkey_file: a file holding an nkey seed (``SU...``) for a server that lists the user's
            public nkey in its ``authorization`` block; the client signs the server's nonce.
        inbox: the reply inbox prefix; default ``_INBOX_<user>`` (see :func:`inbox_prefix`).

    One way to log in at a time: a user, a creds file or an nkey.
    """

    user: str | None = None
    password: str | None = field(default=None, repr=False)
    creds_file: Path | None = None
    nkey_file: Path | None = None
    inbox: str | None = None

    def __post_init__(self) -> None:
        if self.password is not None and not self.user:
            raise ValueError("a NATS password needs a NATS user")
        if sum(x is not None and x != "" for x in (self.user, self.creds_file, self.nkey_file)) > 1:
            raise ValueError("one NATS login at a time: a user, a creds file or an nkey")

    @property
    def inbox_prefix(self) -> str:
        """The reply inbox prefix this client uses."""
        return self.inbox or inbox_prefix(self.user)

    def connect_options(self) -> dict[str, Any]:
        """Keyword arguments for ``nats.connect`` (empty when there is nothing to log in with)."""
        options: dict[str, Any] = {}
        if self.user:
            options["user"] = self.user
            options["password"] = self.password or ""
        if self.creds_file is not None:
            options["user_credentials"] = str(self.creds_file)
        if self.nkey_file is not None:
            options["nkeys_seed"] = str(self.nkey_file)
        if self.user or self.inbox:
            options["inbox_prefix"] = self.inbox_prefix
        return options


@dataclass(frozen=True, slots=True)
class StreamLayout:
    """The room's stream names and subject prefixes (the services' defaults)."""

    lobby_stream: str = "RB_LOBBY"
    lobby_prefix: str = "rb.lobby"
    tables_stream: str = "RB_TABLES"
    tables_prefix: str = "rb.tables"
    wallets_stream: str = "RB_WALLETS"
    wallets_prefix: str = "rb.wallets"
    seeds_stream: str = "RB_DEALER"
    seeds_prefix: str = "rb.dealer.seeds"
    audit_stream: str = "RB_AUDIT"
    audit_prefix: str = "rb.audit.seeds"
    #: The table leases' KV bucket (riverboat.leases; its stream is ``KV_<bucket>``).
    owners_bucket: str = "RB_TABLE_OWNERS"


@dataclass(frozen=True, slots=True)
class Permissions:
    """Subjects a user may publish to and subscribe to (NATS allow lists)."""

    publish: tuple[str, ...]
    subscribe: tuple[str, ...]


def _owner(stream: str, prefix: str, *, update: bool = True) -> list[str]:
    """Create (and reconfigure), append to and read one's own stream."""
    subjects = [
        f"{_API}.STREAM.INFO.{stream}",
        f"{_API}.STREAM.CREATE.{stream}",
        f"{_API}.STREAM.MSG.GET.{stream}",
        f"{prefix}.>",
    ]
    if update:
        subjects.append(f"{_API}.STREAM.UPDATE.{stream}")
    return subjects


def _reader(stream: str) -> list[str]:
    """Read single messages and pages of a stream (what JetStreamEventStore's reads do)."""
    return [
        f"{_API}.STREAM.INFO.{stream}",
        f"{_API}.STREAM.MSG.GET.{stream}",
        f"{_API}.DIRECT.GET.{stream}",
    ]


def _consumer_reader(stream: str) -> list[str]:
    """Read a stream through ephemeral, unacknowledged pull consumers (the audit's way)."""
    return [
        f"{_API}.STREAM.INFO.{stream}",
        f"{_API}.CONSUMER.CREATE.{stream}",
        f"{_API}.CONSUMER.CREATE.{stream}.>",
        f"{_API}.CONSUMER.MSG.NEXT.{stream}.>",
        f"{_API}.CONSUMER.DELETE.{stream}.>",
    ]


def _kv_watcher(bucket: str) -> list[str]:
    """Open a KV bucket someone else created and watch it (an ordered push consumer: create
    it, answer its flow control, delete it); no writes."""
    stream = f"KV_{bucket}"
    return [
        f"{_API}.STREAM.INFO.{stream}",
        f"{_API}.CONSUMER.CREATE.{stream}",
        f"{_API}.CONSUMER.CREATE.{stream}.>",
        f"{_API}.CONSUMER.INFO.{stream}.>",
        f"{_API}.CONSUMER.DELETE.{stream}.>",
        f"$JS.FC.{stream}.>",
    ]


def _kv_owner(bucket: str) -> list[str]:
    """Create a KV bucket, write its keys, read one key's last value, and watch it."""
    stream = f"KV_{bucket}"
    return [
        f"{_API}.STREAM.CREATE.{stream}",
        f"{_API}.STREAM.MSG.GET.{stream}",
        f"{_API}.DIRECT.GET.{stream}",
        f"{_API}.DIRECT.GET.{stream}.>",  # the last value of one key
        f"$KV.{bucket}.>",
        *_kv_watcher(bucket),
    ]


def _durable_reader(stream: str) -> list[str]:
    """Consume a stream with an acknowledged durable consumer (settlement's projection)."""
    return [
        f"{_API}.CONSUMER.CREATE.{stream}.>",
        f"{_API}.CONSUMER.INFO.{stream}.>",
        f"{_API}.CONSUMER.MSG.NEXT.{stream}.>",
        f"$JS.ACK.{stream}.>",
    ]


def room_permissions(layout: StreamLayout | None = None) -> dict[str, Permissions]:
    """The allow lists of every identity of :data:`IDENTITIES` for ``layout``."""
    lay = layout or StreamLayout()
    info = [f"{_API}.INFO"]  # account info: limits and counts only, and the start-up probe
    publish: dict[str, list[str]] = {
        # Every lobby instance follows the log: direct gets of its subjects' last records.
        "lobby": (
            _owner(lay.lobby_stream, lay.lobby_prefix)
            + _reader(lay.lobby_stream)
            # Who owns each table: the table leases, read (watched), never written.
            + _kv_watcher(lay.owners_bucket)
        ),
        "table": (
            _owner(lay.tables_stream, lay.tables_prefix)
            + _reader(lay.tables_stream)
            # Its table leases, and its presence among the instances.
            + _kv_owner(lay.owners_bucket)
            + _kv_owner(f"{lay.owners_bucket}_INSTANCES")
        ),
        "dealer": (
            _owner(lay.seeds_stream, lay.seeds_prefix, update=False)
            + _owner(lay.audit_stream, lay.audit_prefix, update=False)
            + _reader(lay.tables_stream)
        ),
        "settlement": (
            _owner(lay.wallets_stream, lay.wallets_prefix)
            + _reader(lay.wallets_stream)
            + _durable_reader(lay.wallets_stream)
            # It may create the table log with the table service's settings if it starts first.
            + [f"{_API}.STREAM.CREATE.{lay.tables_stream}"]
            + _reader(lay.tables_stream)
            + _durable_reader(lay.tables_stream)
            # The lobby's log is the account registry: deposits are for registered players.
            + _reader(lay.lobby_stream)
        ),
        "auditor": [
            *_consumer_reader(lay.tables_stream),
            *_consumer_reader(lay.audit_stream),
            *_consumer_reader(lay.wallets_stream),
        ],
        "operator": [
            *_consumer_reader(lay.tables_stream),
            *_consumer_reader(lay.audit_stream),
            *_consumer_reader(lay.wallets_stream),
            *_reader(lay.tables_stream),
            *_reader(lay.wallets_stream),
        ],
    }
    subscribe: dict[str, list[str]] = {
        "table": [f"{lay.tables_prefix}.>"],  # other instances' appends, as a nudge to re-read
        "lobby": [f"{lay.lobby_prefix}.>"],  # likewise: other lobby instances' appends
    }
    return {
        name: Permissions(
            publish=tuple(dict.fromkeys(info + publish[name])),
            subscribe=tuple(dict.fromkeys([f"{inbox_prefix(name)}.>", *subscribe.get(name, [])])),
        )
        for name in IDENTITIES
    }


@dataclass(frozen=True, slots=True)
class NatsUser:
    """One user of the server's ``authorization`` block."""

    name: str
    password: str = field(repr=False)
    permissions: Permissions

    def config_text(self) -> str:
        """This user as an entry of the nats-server configuration's ``users`` list."""

        def quoted(values: tuple[str, ...]) -> str:
            # Quoted strings: an unquoted ``$JS`` would read as a variable reference.
            return "[" + ", ".join(json.dumps(v) for v in values) + "]"

        perms = self.permissions
        return (
            f"{{ user: {json.dumps(self.name)}, password: {json.dumps(self.password)}, "
            f"permissions: {{ publish: {{ allow: {quoted(perms.publish)} }}, "
            f"subscribe: {{ allow: {quoted(perms.subscribe)} }} }} }}"
        )


def room_passwords(directory: Path | str) -> dict[str, str]:
    """Each identity's password, generated once and kept in ``directory/<user>.password`` (0600).

    The directory is created 0700 if missing; existing files are kept, so every run of the room
    (and every tool) uses the same passwords.
    """
    folder = Path(directory)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    passwords: dict[str, str] = {}
    for name in IDENTITIES:
        path = folder / f"{name}.password"
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(18) + "\n")
        passwords[name] = path.read_text(encoding="utf-8").strip()
    return passwords


def room_users(passwords: Mapping[str, str], layout: StreamLayout | None = None) -> list[NatsUser]:
    """The server's users: every identity with its password and :func:`room_permissions`."""
    permissions = room_permissions(layout)
    return [NatsUser(name, passwords[name], permissions[name]) for name in IDENTITIES]
