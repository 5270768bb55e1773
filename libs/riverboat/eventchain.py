"""The hash chain of a table's log (docs/audit.md).

Every stored event carries, in ``previous_hash``, the SHA-256 of the event before it on its
aggregate's subject (its deterministic protobuf serialization, that field included); the first
carries :data:`GENESIS_HASH`. An auditor recomputes the chain to find a removed, altered or
reordered event.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from riverboat.v1 import events_pb2 as pb

__all__ = ["GENESIS_HASH", "chain_end", "event_hash", "link"]

#: What the first event of a subject chains to.
GENESIS_HASH = bytes(32)


def event_hash(envelope: pb.EventEnvelope) -> bytes:
    """The chain hash of one stored event: SHA-256 of its deterministic serialization."""
    return hashlib.sha256(envelope.SerializeToString(deterministic=True)).digest()


def link(envelopes: Iterable[pb.EventEnvelope], previous_hash: bytes = GENESIS_HASH) -> bytes:
    """Chain ``envelopes``, in order, to ``previous_hash`` (setting each one's
    ``previous_hash``); the hash of the last, what the next event chains to."""
    for envelope in envelopes:
        envelope.previous_hash = previous_hash
        previous_hash = event_hash(envelope)
    return previous_hash


def chain_end(data: bytes, previous_hash: bytes = GENESIS_HASH) -> bytes:
    """The hash of the last event of a stored batch (what the next batch chains to), or
    ``previous_hash`` for an empty batch."""
    batch = pb.EventBatch()
    batch.ParseFromString(data)
    events = batch.events
    return event_hash(events[-1]) if events else previous_hash
