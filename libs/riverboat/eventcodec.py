"""Engine and table events <-> protobuf (``riverboat.v1.EventEnvelope`` / ``EventBatch``).

One codec, used by the table service to write its log and by everyone who reads it: the
envelope (where and why an event happened) and the batches of the log, chained by
:mod:`riverboat.eventchain`. The events' own messages are mapped by :mod:`riverboat.eventschema`
(declared by the event dataclasses and the protos); a table's settings by
:mod:`riverboat.settingscodec`. A card is two characters (``"Ah"``); a hidden card (``-1`` in a
redacted event) is the empty string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from riverboat.eventchain import GENESIS_HASH, chain_end, event_hash, link
from riverboat.eventschema import decode_payload, encode_payload
from riverboat.settingscodec import CodecError
from riverboat.table.events import AnyEvent
from riverboat.v1 import events_pb2 as pb

__all__ = [
    "GENESIS_HASH",
    "CodecError",
    "EventMeta",
    "chain_end",
    "decode_batch",
    "decode_event",
    "encode_batch",
    "encode_chained_batch",
    "event_from_pb",
    "event_hash",
    "event_to_pb",
]


@dataclass(frozen=True, slots=True)
class EventMeta:
    """Where and why an event happened (the envelope around it)."""

    aggregate_id: str
    version: int
    index: int
    request_id: str
    actor: str
    occurred_at: datetime

    @property
    def event_id(self) -> str:
        """Unique per event: the aggregate, its version and the position in the batch."""
        return f"{self.aggregate_id}:{self.version}:{self.index}"


_UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def event_to_pb(event: AnyEvent, meta: EventMeta) -> pb.EventEnvelope:
    """One event in its envelope."""
    when = meta.occurred_at
    if when.tzinfo is None:  # naive: UTC, as Timestamp.FromDatetime takes it
        when = when.replace(tzinfo=UTC)
    # What FromDatetime computes, without its time-tuple round trip (every watcher's update
    # converts events, so this is on a busy table's hot path).
    since = when - _UNIX_EPOCH
    ts = Timestamp(seconds=since.days * 86_400 + since.seconds, nanos=since.microseconds * 1000)
    env = pb.EventEnvelope(
        event_id=meta.event_id,
        aggregate_id=meta.aggregate_id,
        aggregate_version=meta.version,
        index=meta.index,
        occurred_at=ts,
        request_id=meta.request_id,
        actor=meta.actor,
    )
    encode_payload(event, env)
    return env


#: The event in an envelope, without the envelope's metadata (for readers that need none of
#: it, or one field they read from the envelope: the audit, a rebuild's later events).
decode_event = decode_payload


def _meta(env: pb.EventEnvelope, occurred_at: datetime) -> EventMeta:
    return EventMeta(
        aggregate_id=env.aggregate_id,
        version=env.aggregate_version,
        index=env.index,
        request_id=env.request_id,
        actor=env.actor,
        occurred_at=occurred_at,
    )


def event_from_pb(env: pb.EventEnvelope) -> tuple[AnyEvent, EventMeta]:
    """The event and its envelope's metadata."""
    return decode_payload(env), _meta(env, env.occurred_at.ToDatetime(tzinfo=UTC))


def encode_batch(
    events: Sequence[AnyEvent],
    *,
    aggregate_id: str,
    version: int,
    request_id: str,
    actor: str,
    occurred_at: datetime,
    previous_hash: bytes = GENESIS_HASH,
) -> bytes:
    """The bytes of one log message: every event of one command, chained to ``previous_hash``
    (the hash of the last event before them on the subject; see :func:`chain_end`)."""
    return encode_chained_batch(
        events,
        aggregate_id=aggregate_id,
        version=version,
        request_id=request_id,
        actor=actor,
        occurred_at=occurred_at,
        previous_hash=previous_hash,
    )[0]


def encode_chained_batch(
    events: Sequence[AnyEvent],
    *,
    aggregate_id: str,
    version: int,
    request_id: str,
    actor: str,
    occurred_at: datetime,
    previous_hash: bytes = GENESIS_HASH,
) -> tuple[bytes, bytes]:
    """:func:`encode_batch` and the hash of its last event (``chain_end`` of the bytes), for a
    writer that chains the next batch to it without parsing its own bytes back."""
    envelopes = [
        event_to_pb(e, EventMeta(aggregate_id, version, i, request_id, actor, occurred_at))
        for i, e in enumerate(events)
    ]
    end = link(envelopes, previous_hash)
    return pb.EventBatch(events=envelopes).SerializeToString(deterministic=True), end


def decode_batch(data: bytes) -> list[tuple[AnyEvent, EventMeta]]:
    """Every event of one log message, with metadata."""
    batch = pb.EventBatch()
    try:
        batch.ParseFromString(data)
    except Exception as exc:  # protobuf raises DecodeError, a bare Exception subclass
        raise CodecError(f"not an EventBatch: {exc}") from None
    out = []
    # One command's events share its time (encode_batch): each distinct time is converted
    # once, the conversion being about half of an event's decoding.
    times: dict[tuple[int, int], datetime] = {}
    for env in batch.events:
        stamp = env.occurred_at
        key = (stamp.seconds, stamp.nanos)
        occurred_at = times.get(key)
        if occurred_at is None:
            occurred_at = times[key] = stamp.ToDatetime(tzinfo=UTC)
        out.append((decode_payload(env), _meta(env, occurred_at)))
    return out
