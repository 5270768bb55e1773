"""Read the audited streams straight from NATS JetStream into an :class:`Archive`.

Each stream is read with a short-lived ephemeral pull consumer (no acknowledgements, in memory,
deleted afterwards) from its first message up to the last sequence it held when the read began,
so tables that keep playing do not make the read chase new writes. An auditor's NATS user needs
read access to the streams and the right to create consumers on them (``docs/audit.md``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC

import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from riverboat import retrying
from riverboat.audit.archive import (
    SERVER_HEADERS,
    Archive,
    Manifest,
    StoredMessage,
    StreamEntry,
    StreamRole,
)

__all__ = ["Layout", "fetch_archive"]

_BATCH = 512


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the table logs, the revealed seeds and the wallet logs live (the services'
    defaults)."""

    tables_stream: str = "RB_TABLES"
    tables_prefix: str = "rb.tables"
    seeds_stream: str = "RB_AUDIT"
    seeds_prefix: str = "rb.audit.seeds"
    wallets_stream: str = "RB_WALLETS"
    wallets_prefix: str = "rb.wallets"


class FetchError(RuntimeError):
    """A stream could not be read (missing, no permission, NATS down)."""


async def fetch_archive(
    nc: NATS,
    layout: Layout,
    *,
    source: str = "",
    timeout: float = 10.0,
    on_message: Callable[[int], None] | None = None,
) -> Archive:
    """Every message of the table-log, seed and wallet streams, with a manifest. A stream that
    does not exist is archived as empty.

    ``on_message(n)`` is called with the running count (for a progress display).
    """
    js = nc.jetstream(timeout=timeout)
    entries: list[StreamEntry] = []
    messages: list[StoredMessage] = []
    wanted: tuple[tuple[StreamRole, str, str], ...] = (
        ("tables", layout.tables_stream, layout.tables_prefix),
        ("seeds", layout.seeds_stream, layout.seeds_prefix),
        ("wallets", layout.wallets_stream, layout.wallets_prefix),
    )
    for role, name, prefix in wanted:
        try:
            info = await js.stream_info(name)
        except nats.js.errors.NotFoundError:
            # A room that never revealed a seed (or has no settlement) lacks the stream.
            entries.append(StreamEntry(role, name, prefix, 0, 0, 0))
            continue
        except nats.errors.Error as exc:
            raise FetchError(f"stream {name!r}: {exc or type(exc).__name__}") from exc
        state = info.state
        first, last = int(state.first_seq or 0), int(state.last_seq or 0)
        entries.append(StreamEntry(role, name, prefix, first, last, int(state.messages or 0)))
        if state.messages:
            await _read_stream(js, name, prefix, last, messages, timeout, on_message)
    return Archive(Manifest(streams=tuple(entries), source=source), messages)


async def _read_stream(
    js: nats.js.JetStreamContext,
    stream: str,
    prefix: str,
    last_seq: int,
    out: list[StoredMessage],
    timeout: float,
    on_message: Callable[[int], None] | None,
) -> None:
    config = ConsumerConfig(
        deliver_policy=DeliverPolicy.ALL,
        ack_policy=AckPolicy.NONE,
        mem_storage=True,
        num_replicas=1,
        inactive_threshold=60.0,
    )
    try:
        sub = await js.pull_subscribe(f"{prefix}.>", stream=stream, config=config)
    except nats.errors.Error as exc:
        raise FetchError(f"cannot read stream {stream!r}: {exc or type(exc).__name__}") from exc
    try:
        seq = 0
        while seq < last_seq:
            try:
                # A cluster whose node just went or came back answers 503 for a moment
                # (measured: the first fetch after a kill -9 on a three-node cluster).
                batch = await retrying.call(
                    lambda: sub.fetch(_BATCH, timeout=timeout),
                    retrying.AUDIT_FETCH,
                    transient=lambda exc: isinstance(exc, nats.js.errors.ServiceUnavailableError),
                )
            except nats.js.errors.ServiceUnavailableError as exc:
                raise FetchError(f"stream {stream!r} after sequence {seq}: {exc}") from exc
            except nats.errors.TimeoutError:
                raise FetchError(
                    f"stream {stream!r}: no messages after sequence {seq} within {timeout}s "
                    f"(expected up to {last_seq})"
                ) from None
            except nats.errors.Error as exc:
                # E.g. a cluster node that just restarted: "JetStream temporarily unavailable".
                raise FetchError(
                    f"stream {stream!r} after sequence {seq}: {exc or type(exc).__name__}"
                ) from exc
            for msg in batch:
                meta = msg.metadata
                seq = int(meta.sequence.stream)
                if seq > last_seq:
                    break
                stamp = meta.timestamp
                out.append(
                    StoredMessage(
                        stream=stream,
                        sequence=seq,
                        subject=msg.subject,
                        time=stamp.astimezone(UTC).isoformat() if stamp is not None else "",
                        headers={
                            k: v for k, v in (msg.headers or {}).items() if k not in SERVER_HEADERS
                        },
                        data=msg.data,
                    )
                )
                if on_message is not None:
                    on_message(len(out))
    finally:
        with contextlib.suppress(nats.errors.Error):
            await sub.unsubscribe()
