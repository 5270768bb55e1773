"""Secrets a service must be given: a missing one stops the start-up, it is never made up.

A key a process invents for itself is a key its replicas do not share: tokens the lobby signs
would fail at a second table instance, and seeds one dealer pod sealed could not be opened by
the next. So every service checks its secrets before it starts and, when one is missing or
malformed, prints one line naming the setting and exits with status 2 (a configuration error).
Only ``riverboat up`` (the embedded room of ``make run``) generates keys, and it passes them to
the services explicitly.
"""

from __future__ import annotations

import sys

from riverboat.auth import TokenKeyError, load_token_key

__all__ = ["CONFIG_ERROR_STATUS", "require_token_key"]

CONFIG_ERROR_STATUS = 2  # the exit status of every configuration error


def require_token_key(prog: str) -> bytes:
    """The shared token key (see :func:`riverboat.auth.load_token_key`), or exit 2.

    ``prog`` starts the one line printed on standard error (``<prog>: error: <message>``, as
    :func:`riverboat.services.common.startup.start` prints every configuration error).
    """
    try:
        return load_token_key()
    except TokenKeyError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        raise SystemExit(CONFIG_ERROR_STATUS) from None
