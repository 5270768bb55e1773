"""One table's stored log, decoded: every event with its envelope, hash and location."""

from __future__ import annotations

from dataclasses import dataclass
from hashlib import sha256
from typing import NamedTuple

from google.protobuf.message import DecodeError

from riverboat.audit.archive import StoredMessage
from riverboat.audit.report import Check, EventRef, Violation
from riverboat.engine.errors import EngineError
from riverboat.eventcodec import CodecError, decode_event
from riverboat.table.events import AnyEvent
from riverboat.v1 import events_pb2 as pb

__all__ = ["HEADER_VERSION", "LoggedEvent", "LoggedMessage", "decode_log"]

HEADER_VERSION = "Rb-Version"


class LoggedEvent(NamedTuple):
    """One stored event: the envelope as stored, its chain hash, and the decoded event (None if
    it does not decode). A tuple, and its :attr:`ref` made only when asked: a log has millions
    of these and almost none is ever reported."""

    envelope: pb.EventEnvelope
    hash: bytes
    event: AnyEvent | None
    table_id: str
    version: int
    sequence: int
    position: int

    @property
    def ref(self) -> EventRef:
        """Where this event is stored."""
        kind = self.envelope.WhichOneof("payload") or "?"
        return EventRef(self.table_id, self.version, self.sequence, self.position, _name(kind))


@dataclass(frozen=True, slots=True)
class LoggedMessage:
    """One stored message (one accepted command) and its events."""

    table_id: str
    message: StoredMessage
    version: int
    events: tuple[LoggedEvent, ...]

    @property
    def ref(self) -> EventRef:
        """The message's location."""
        return EventRef(self.table_id, self.version, self.message.sequence)


def _header_version(message: StoredMessage) -> int:
    try:
        return int(message.headers.get(HEADER_VERSION, "0"))
    except ValueError:
        return 0


def decode_log(
    table_id: str, messages: list[StoredMessage]
) -> tuple[list[LoggedMessage], list[Violation]]:
    """Decode a table's messages (in stream order); undecodable parts become violations."""
    out: list[LoggedMessage] = []
    problems: list[Violation] = []
    # Bound once: this loop runs once per stored message and the inner one once per event.
    new_logged = tuple.__new__  # LoggedEvent(...) without NamedTuple's Python-level __new__
    parse_batch = pb.EventBatch.FromString
    for message in messages:
        version = _header_version(message)
        try:
            batch = parse_batch(message.data)
        except DecodeError as exc:
            ref = EventRef(table_id, version, message.sequence)
            problems.append(
                Violation(Check.DECODE, f"not an EventBatch: {exc}", table_id=table_id, at=ref)
            )
            continue
        events = []
        sequence = message.sequence
        for index, env in enumerate(batch.events):
            event: AnyEvent | None = None
            try:
                event = decode_event(env)
            except (CodecError, EngineError, ValueError) as exc:
                kind = env.WhichOneof("payload") or "?"
                ref = EventRef(table_id, version, sequence, index, _name(kind))
                problems.append(
                    Violation(Check.DECODE, f"undecodable event: {exc}", table_id=table_id, at=ref)
                )
            # event_hash inlined: this loop runs once per stored event.
            digest = sha256(env.SerializeToString(deterministic=True)).digest()
            fields = (
                env,
                digest,
                event,
                table_id,
                env.aggregate_version or version,
                sequence,
                index,
            )
            events.append(new_logged(LoggedEvent, fields))
        out.append(LoggedMessage(table_id, message, version, tuple(events)))
    return out, problems


def _name(kind: str) -> str:
    """``card_dealt`` -> ``CardDealt`` (the event's type name)."""
    return "".join(part.capitalize() for part in kind.split("_"))
