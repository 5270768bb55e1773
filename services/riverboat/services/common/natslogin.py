"""The NATS login setting every service and tool shares: flags, then environment, then none.

``--nats-user USER`` (``RIVERBOAT_NATS_USER``) with the password from ``--nats-password-file
FILE`` (``RIVERBOAT_NATS_PASSWORD_FILE``, or the password itself in ``RIVERBOAT_NATS_PASSWORD``),
or a ``.creds`` file with ``--nats-creds FILE`` (``RIVERBOAT_NATS_CREDS``: user JWT and nkey
seed, for a server in operator/JWT mode), or an nkey seed with ``--nats-nkey FILE``
(``RIVERBOAT_NATS_NKEY``: for a server whose ``authorization`` block lists the user's public
nkey). One of the three at a time. There is no password flag: a command line is visible to
every user of the machine. Nothing set: no login (a server without users, as in the tests).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nkeys

from riverboat.natsauth import NatsCredentials

__all__ = [
    "ENV_NATS_CREDS",
    "ENV_NATS_NKEY",
    "ENV_NATS_PASSWORD",
    "ENV_NATS_PASSWORD_FILE",
    "ENV_NATS_USER",
    "NatsLoginError",
    "add_nats_login_arguments",
    "nats_login",
]

ENV_NATS_USER = "RIVERBOAT_NATS_USER"
ENV_NATS_PASSWORD = "RIVERBOAT_NATS_PASSWORD"
ENV_NATS_PASSWORD_FILE = "RIVERBOAT_NATS_PASSWORD_FILE"
ENV_NATS_CREDS = "RIVERBOAT_NATS_CREDS"
ENV_NATS_NKEY = "RIVERBOAT_NATS_NKEY"


class NatsLoginError(ValueError):
    """The login setting is incomplete or its file unreadable (the message never holds a secret)."""


def add_nats_login_arguments(parser: argparse.ArgumentParser | Any) -> None:
    """Add ``--nats-user``, ``--nats-password-file``, ``--nats-creds`` and ``--nats-nkey`` (a
    parser or group)."""
    parser.add_argument(
        "--nats-user", help=f"NATS user to log in as (env {ENV_NATS_USER}; default: no login)"
    )
    parser.add_argument(
        "--nats-password-file",
        metavar="FILE",
        help=f"file holding the NATS user's password (env {ENV_NATS_PASSWORD_FILE}, or the "
        f"password itself in {ENV_NATS_PASSWORD})",
    )
    parser.add_argument(
        "--nats-creds",
        metavar="FILE",
        help=f"NATS .creds file (JWT and nkey seed) instead of a user (env {ENV_NATS_CREDS})",
    )
    parser.add_argument(
        "--nats-nkey",
        metavar="FILE",
        help=f"file holding a NATS nkey seed (SU...) instead of a user (env {ENV_NATS_NKEY})",
    )


def nats_login(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> NatsCredentials:
    """The credentials the flags (or else the environment) name.

    Raises:
        NatsLoginError: a password without a user, a user without a password, or a file that
            cannot be read.
    """
    env = os.environ if environ is None else environ

    def pick(flag: str, env_name: str) -> str | None:
        value = getattr(args, flag, None)
        return value if value is not None else (env.get(env_name) or None)

    user = pick("nats_user", ENV_NATS_USER)
    password_file = pick("nats_password_file", ENV_NATS_PASSWORD_FILE)
    creds = pick("nats_creds", ENV_NATS_CREDS)
    password = env.get(ENV_NATS_PASSWORD) or None
    if password_file is not None:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise NatsLoginError(
                f"--nats-password-file: cannot read {password_file}: {exc.strerror}"
            ) from None
    if user and not password:
        raise NatsLoginError(
            f"--nats-user {user}: give its password with --nats-password-file or "
            f"{ENV_NATS_PASSWORD}"
        )
    if password and not user:
        raise NatsLoginError(f"a NATS password needs a user: --nats-user or {ENV_NATS_USER}")
    if creds is not None and not Path(creds).is_file():
        raise NatsLoginError(f"--nats-creds: no such file {creds}")
    nkey = pick("nats_nkey", ENV_NATS_NKEY)
    if nkey is not None:
        _check_seed(nkey)
    chosen = [flag for flag, value in (("--nats-user", user), ("--nats-creds", creds),
                                       ("--nats-nkey", nkey)) if value]  # fmt: skip
    if len(chosen) > 1:
        raise NatsLoginError(f"one NATS login at a time: {' and '.join(chosen)} are both set")
    return NatsCredentials(
        user=user,
        password=password,
        creds_file=Path(creds) if creds else None,
        nkey_file=Path(nkey) if nkey else None,
    )


def _check_seed(path: str) -> None:
    """Raise :class:`NatsLoginError` unless ``path`` holds a user's nkey seed (the message
    names the file, never what it holds)."""
    try:
        seed = Path(path).read_bytes().strip()
    except OSError as exc:
        raise NatsLoginError(f"--nats-nkey: cannot read {path}: {exc.strerror}") from None
    try:
        key = nkeys.from_seed(seed)
        public = key.public_key
        key.wipe()
    except Exception:  # nkeys raises its own errors and binascii's for bad base32
        raise NatsLoginError(f"--nats-nkey: {path} does not hold an nkey seed") from None
    if not public.startswith(b"U"):
        raise NatsLoginError(f"--nats-nkey: {path} holds a seed, but not a user's (SU...)")
