"""Ways to corrupt a copy of an archive, as a dishonest operator (or a damaged disk) might.

A *naive* edit changes bytes and leaves the hash chain as it was; ``rechain`` afterwards makes a
*careful* forgery: every ``previous_hash`` recomputed from the edit on, so the chain verifies
and only the audit's other checks can catch the change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from riverboat.audit.archive import Archive, StoredMessage
from riverboat.eventchain import GENESIS_HASH, event_hash
from riverboat.v1 import events_pb2 as pb


def table_messages(archive: Archive, table_id: str) -> list[int]:
    """Indices (into ``archive.messages``) of a table's log messages, in order."""
    entry = archive.manifest.stream("tables")
    subject = f"{entry.subject_prefix if entry else 'rb.tables'}.{table_id}"
    return [i for i, m in enumerate(archive.messages) if m.subject == subject]


def batch_of(message: StoredMessage) -> pb.EventBatch:
    """The message's events."""
    return pb.EventBatch.FromString(message.data)


def with_batch(message: StoredMessage, batch: pb.EventBatch) -> StoredMessage:
    """The message with ``batch`` as its payload."""
    return message._replace(data=batch.SerializeToString(deterministic=True))


def find(
    archive: Archive, table_id: str, kind: str, nth: int = 0, where: Callable[..., bool] = bool
) -> tuple[int, int]:
    """(message index, event index) of the ``nth`` event of payload ``kind`` (e.g.
    ``"card_dealt"``) at the table for which ``where(envelope_payload)`` holds."""
    seen = 0
    for i in table_messages(archive, table_id):
        for j, env in enumerate(batch_of(archive.messages[i]).events):
            if env.WhichOneof("payload") == kind and where(getattr(env, kind)):
                if seen == nth:
                    return i, j
                seen += 1
    raise LookupError(f"no {kind} #{nth} at {table_id}")


def edit_event(
    archive: Archive, position: tuple[int, int], change: Callable[[pb.EventEnvelope], None]
) -> None:
    """Change one event in place (its bytes only: the chain is left as it was)."""
    i, j = position
    batch = batch_of(archive.messages[i])
    change(batch.events[j])
    archive.messages[i] = with_batch(archive.messages[i], batch)


def rechain(archive: Archive, table_id: str, *, renumber: bool = False) -> None:
    """Recompute the table's hash chain (and, with ``renumber``, its versions and headers) so
    that it verifies again after an edit."""
    previous = GENESIS_HASH
    for version, i in enumerate(table_messages(archive, table_id), start=1):
        message = archive.messages[i]
        batch = batch_of(message)
        for index, env in enumerate(batch.events):
            if renumber:
                env.aggregate_version = version
                env.index = index
                env.event_id = f"{table_id}:{version}:{index}"
            env.previous_hash = previous
            previous = event_hash(env)
        message = with_batch(message, batch)
        if renumber:
            message = message._replace(headers={**message.headers, "Rb-Version": str(version)})
        archive.messages[i] = message


def renumber_stream(archive: Archive) -> None:
    """Give the table-log messages consecutive stream sequences again and fix the manifest, so
    that only the table's own records can betray an insertion or deletion."""
    entry = archive.manifest.stream("tables")
    tables = [i for i, m in enumerate(archive.messages) if entry and m.stream == entry.name]
    for seq, i in enumerate(tables, start=1):
        archive.messages[i] = archive.messages[i]._replace(sequence=seq)
    manifest = archive.manifest
    streams = tuple(
        replace(s, first_seq=1, last_seq=len(tables), messages=len(tables))
        if s.role == "tables"
        else s
        for s in manifest.streams
    )
    archive.manifest = replace(manifest, streams=streams)
