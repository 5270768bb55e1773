"""Where an audit (or a history export) reads from: an archive file or live NATS."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from riverboat.audit.archive import Archive, read_archive
from riverboat.audit.natsread import FetchError, Layout, fetch_archive
from riverboat.natsauth import NatsCredentials

__all__ = ["FetchError", "Layout", "load_archive"]


#: Replies to the auditor come to its own inbox prefix, so its NATS user can be allowed to
#: subscribe to that alone (not to every client's ``_INBOX.>``): see docs/audit.md. A named
#: user's replies come to that user's own prefix (``_INBOX_<user>``, riverboat.natsauth).
INBOX_PREFIX = "_AUDIT_INBOX"


async def _fetch(
    url: str,
    options: dict[str, Any],
    layout: Layout,
    on_message: Callable[[int], None] | None,
) -> Archive:
    import nats  # imported here: reading a file needs no NATS client

    options.setdefault("inbox_prefix", INBOX_PREFIX)
    options.setdefault("servers", [url])

    async def quiet(exc: Exception) -> None:
        """A refused login is reported once, below, not also as nats-py's logged traceback."""

    try:
        nc = await nats.connect(
            connect_timeout=5,
            allow_reconnect=False,
            max_reconnect_attempts=0,
            error_cb=quiet,
            **options,
        )
    except Exception as exc:  # nats-py raises several unrelated types when it cannot connect
        raise FetchError(f"cannot connect to {url}: {exc or type(exc).__name__}") from exc
    try:
        return await fetch_archive(nc, layout, source=url, on_message=on_message)
    finally:
        await nc.close()


def load_archive(
    *,
    file: Path | None = None,
    nats_url: str | None = None,
    credentials: NatsCredentials | None = None,
    connect_options: Mapping[str, Any] | None = None,
    layout: Layout | None = None,
    on_message: Callable[[int], None] | None = None,
) -> Archive:
    """Read an archive file, or the streams of a NATS server (exactly one of the two).

    ``connect_options`` (``nats.connect`` keyword arguments: ``servers``, login, ``tls``) take
    the place of ``credentials`` when given; ``nats_url`` then only names the source.

    Raises:
        ArchiveError: the file is not a readable archive.
        FetchError: NATS could not be reached or a stream not read.
        ValueError: neither or both sources were given.
    """
    if (file is None) == (nats_url is None):
        raise ValueError("give an archive file or a NATS URL (one of them)")
    if file is not None:
        return read_archive(file)
    assert nats_url is not None
    if connect_options is not None:
        # The caller's whole nats.connect options (servers, login, TLS): the services' idiom.
        options = dict(connect_options)
    else:
        options = (credentials or NatsCredentials()).connect_options()
    return asyncio.run(_fetch(nats_url, options, layout or Layout(), on_message))
