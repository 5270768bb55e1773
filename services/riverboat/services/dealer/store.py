"""The dealer's JetStream streams, and read access to the table logs.

``RB_DEALER`` (dealer only)
    One message per hand on ``rb.dealer.seeds.<table_id>.<hand_id>``: a JSON
    :class:`SealedSeedRecord` (the AES-GCM sealed seed, its commitment, the sealing key's id).
    Written with ``Nats-Expected-Last-Subject-Sequence: 0``, and the stream holds at most one
    message per subject (``max_msgs_per_subject: 1`` with ``discard_new_per_subject``), so a
    hand's seed can be written once and never replaced. ``deny_delete``/``deny_purge`` keep it.

``RB_AUDIT`` (auditors)
    One message per revealed hand on ``rb.audit.seeds.<table_id>.<hand_id>``: a JSON
    :class:`SeedRevealedRecord`. Same write-once rules, plus ``Nats-Msg-Id``. Auditors read a
    table with the wildcard ``rb.audit.seeds.<table_id>.>``.

``RB_TABLES`` (the table service's, read only)
    The dealer never creates or changes it. It reads single messages by stream sequence and
    scans a table's records with :class:`~riverboat.eventstore.JetStreamEventStore`.

All reads of the dealer's own streams ask the stream leader (not direct gets), so a seed just
written is always found.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js.api import (
    DiscardPolicy,
    RawStreamMsg,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)

from riverboat.eventstore import (
    JetStreamEventStore,
    StreamCheck,
    StreamConfigError,
    StreamSettings,
    ensure_stream_config,
)
from riverboat.services.common.errors import DataLoss, FailedPrecondition, Unavailable
from riverboat.services.dealer.config import DealerConfig

__all__ = [
    "REVEAL_RECORD_TYPE",
    "SEED_RECORD_TYPE",
    "DealerStore",
    "SealedSeedRecord",
    "SeedRevealedRecord",
    "SeedStore",
    "StoreConfigError",
]

SEED_RECORD_TYPE = "riverboat.dealer.SealedSeed/1"
REVEAL_RECORD_TYPE = "riverboat.audit.SeedRevealed/1"

_ERR_NO_MESSAGE_FOUND = 10037
_ERR_STREAM_NOT_FOUND = 10059


class StoreConfigError(RuntimeError):
    """A dealer stream exists with settings that would weaken its guarantees."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class SealedSeedRecord:
    """A hand's sealed seed as stored in the dealer stream (JSON, ``SEED_RECORD_TYPE``).

    Attributes:
        table_id, hand_id: the hand (also encoded in the subject).
        scheme: the shuffle scheme (``RBS1``).
        commitment: the 32-byte public commitment to the seed.
        sealed_seed: nonce || AES-256-GCM ciphertext || tag (hidden from ``repr``).
        key_id: id of the sealing key (:func:`riverboat.services.dealer.keys.key_id`).
        sealed_at: when it was sealed (ISO 8601, UTC).
        sequence: stream sequence of the stored message (0 before it is stored).
    """

    table_id: str
    hand_id: str
    scheme: str
    commitment: bytes
    sealed_seed: bytes = field(repr=False)
    key_id: str
    sealed_at: str = field(default_factory=_now)
    sequence: int = 0

    def encode(self) -> bytes:
        """The message payload."""
        return _dump(
            {
                "type": SEED_RECORD_TYPE,
                "scheme": self.scheme,
                "table_id": self.table_id,
                "hand_id": self.hand_id,
                "commitment": self.commitment.hex(),
                "sealed_seed": base64.b64encode(self.sealed_seed).decode("ascii"),
                "key_id": self.key_id,
                "sealed_at": self.sealed_at,
            }
        )

    @classmethod
    def decode(cls, data: bytes, *, table_id: str, hand_id: str, sequence: int) -> SealedSeedRecord:
        """Parse a stored payload for the hand its subject names.

        Raises:
            DataLoss: the payload is malformed or names another hand.
        """
        where = f"the stored seed record of hand {hand_id!r} at table {table_id!r}"
        with _malformed(where, "SEED_RECORD_CORRUPT"):
            obj = _load(data, SEED_RECORD_TYPE)
            record = cls(
                table_id=_text(obj, "table_id"),
                hand_id=_text(obj, "hand_id"),
                scheme=_text(obj, "scheme"),
                commitment=bytes.fromhex(_text(obj, "commitment")),
                sealed_seed=base64.b64decode(_text(obj, "sealed_seed"), validate=True),
                key_id=_text(obj, "key_id"),
                sealed_at=_text(obj, "sealed_at"),
                sequence=sequence,
            )
        if (record.table_id, record.hand_id) != (table_id, hand_id):
            raise DataLoss(f"{where} names another hand", reason="SEED_RECORD_CORRUPT")
        return record


@dataclass(frozen=True, slots=True)
class SeedRevealedRecord:
    """A revealed seed as published to the audit stream (JSON, ``REVEAL_RECORD_TYPE``).

    Attributes:
        table_id, hand_id: the hand.
        scheme: the shuffle scheme (``RBS1``).
        seed: the 32-byte seed (hidden from ``repr``).
        commitment: the commitment logged before the hand.
        revealed_at: when it was revealed (ISO 8601, UTC).
        sequence: stream sequence in the audit stream (0 before it is stored).
    """

    table_id: str
    hand_id: str
    scheme: str
    seed: bytes = field(repr=False)
    commitment: bytes
    revealed_at: str = field(default_factory=_now)
    sequence: int = 0

    def encode(self) -> bytes:
        """The message payload (seed and commitment as lowercase hex, as in docs/shuffle.md)."""
        return _dump(
            {
                "type": REVEAL_RECORD_TYPE,
                "scheme": self.scheme,
                "table_id": self.table_id,
                "hand_id": self.hand_id,
                "seed": self.seed.hex(),
                "commitment": self.commitment.hex(),
                "revealed_at": self.revealed_at,
            }
        )

    @classmethod
    def decode(
        cls, data: bytes, *, table_id: str, hand_id: str, sequence: int
    ) -> SeedRevealedRecord:
        """Parse a stored payload for the hand its subject names.

        Raises:
            DataLoss: the payload is malformed or names another hand.
        """
        where = f"the audit record of hand {hand_id!r} at table {table_id!r}"
        with _malformed(where, "AUDIT_RECORD_CORRUPT"):
            obj = _load(data, REVEAL_RECORD_TYPE)
            record = cls(
                table_id=_text(obj, "table_id"),
                hand_id=_text(obj, "hand_id"),
                scheme=_text(obj, "scheme"),
                seed=bytes.fromhex(_text(obj, "seed")),
                commitment=bytes.fromhex(_text(obj, "commitment")),
                revealed_at=_text(obj, "revealed_at"),
                sequence=sequence,
            )
        if (record.table_id, record.hand_id) != (table_id, hand_id):
            raise DataLoss(f"{where} names another hand", reason="AUDIT_RECORD_CORRUPT")
        return record


class SeedStore(ABC):
    """The dealer's write-once records: a hand's sealed seed, then its reveal (the port).

    Write-once is the whole contract: the first record stored for a hand stays, a later or
    racing one gets the stored record back (``created`` False), never replaces it. The
    JetStream backend is :class:`DealerStore`; the in-memory one
    :class:`~riverboat.services.dealer.seedstore_memory.MemorySeedStore`; both pass
    ``tests/contract/seedstore.py``.
    """

    @abstractmethod
    async def load_seed(self, table_id: str, hand_id: str) -> SealedSeedRecord | None:
        """The hand's stored record, or ``None`` if the hand was never committed."""

    @abstractmethod
    async def create_seed(self, record: SealedSeedRecord) -> tuple[SealedSeedRecord, bool]:
        """Store ``record`` unless the hand has one; the stored record and ``created``."""

    @abstractmethod
    async def load_reveal(self, table_id: str, hand_id: str) -> SeedRevealedRecord | None:
        """The hand's published reveal, or ``None``."""

    @abstractmethod
    async def publish_reveal(self, record: SeedRevealedRecord) -> tuple[SeedRevealedRecord, bool]:
        """Publish ``record`` unless the hand was revealed; the stored one and ``created``."""


class DealerStore(SeedStore):
    """The dealer's streams on one NATS connection (see the module docstring).

    Args:
        nc: a connected client (the caller owns it).
        config: stream names, prefixes, replicas and the request timeout.
    """

    def __init__(self, nc: NATS, config: DealerConfig) -> None:
        self._nc = nc
        self._config = config
        self._js = nc.jetstream(timeout=config.nats_timeout)
        self.table_log = JetStreamEventStore(
            nc,
            StreamSettings(name=config.tables_stream, subject_prefix=config.tables_prefix),
            timeout=config.nats_timeout,
        )
        """Reader of the table logs. Never ``ensure_stream()`` it: the stream is not ours."""
        self._tables: set[str] = set()  # tables whose log was seen to exist

    @property
    def connected(self) -> bool:
        """Whether the NATS connection is up (requests made while it is down would only time
        out)."""
        return bool(self._nc.is_connected)

    # -- subjects -----------------------------------------------------------------------------

    def seed_subject(self, table_id: str, hand_id: str) -> str:
        """Where a hand's sealed seed lives."""
        return f"{self._config.seeds_prefix}.{table_id}.{hand_id}"

    def audit_subject(self, table_id: str, hand_id: str) -> str:
        """Where a hand's revealed seed is published."""
        return f"{self._config.audit_prefix}.{table_id}.{hand_id}"

    def table_subject(self, table_id: str) -> str:
        """The subject of a table's log."""
        return f"{self._config.tables_prefix}.{table_id}"

    # -- streams ------------------------------------------------------------------------------

    async def ensure_streams(self) -> list[StreamCheck]:
        """Create the seeds and audit streams, or check that existing ones are write-once.

        Returns what was found for each (replicas are never changed; see
        :func:`~riverboat.eventstore.ensure_stream_config`).

        Raises:
            StoreConfigError: an existing stream lacks a protection the dealer relies on.
            Unavailable: NATS did not answer.
        """
        cfg = self._config
        return [
            await self._ensure(
                self._write_once(cfg.seeds_stream, cfg.seeds_prefix, "Riverboat sealed seeds")
            ),
            await self._ensure(
                self._write_once(cfg.audit_stream, cfg.audit_prefix, "Riverboat revealed seeds")
            ),
        ]

    def _write_once(self, name: str, prefix: str, description: str) -> StreamConfig:
        return StreamConfig(
            name=name,
            description=f"{description} (one message per hand)",
            subjects=[f"{prefix}.>"],
            retention=RetentionPolicy.LIMITS,
            # With one message per subject and discard-new-per-subject, the server itself
            # refuses a second message for a hand, whatever headers a writer sends.
            discard=DiscardPolicy.NEW,
            discard_new_per_subject=True,
            max_msgs_per_subject=1,
            storage=StorageType.FILE,
            num_replicas=self._config.stream_replicas(self._nc),
            duplicate_window=120.0,
            deny_delete=True,
            deny_purge=True,
            allow_rollup_hdrs=False,
        )

    async def _ensure(self, desired: StreamConfig) -> StreamCheck:
        # The event store's one way to create and check streams; the write-once limits are
        # fixed fields (a stream without them would let a seed be replaced).
        name = str(desired.name)
        try:
            with _unavailable(f"stream {name!r} set-up"):
                return await ensure_stream_config(
                    self._js,
                    desired,
                    fixed=(
                        "subjects",
                        "storage",
                        "discard",
                        "discard_new_per_subject",
                        "max_msgs_per_subject",
                        "deny_delete",
                        "deny_purge",
                    ),
                )
        except StreamConfigError as exc:
            raise StoreConfigError(f"the dealer cannot rely on it: {exc}") from None

    # -- seeds --------------------------------------------------------------------------------

    async def load_seed(self, table_id: str, hand_id: str) -> SealedSeedRecord | None:
        """The hand's stored record, or ``None`` if the hand was never committed."""
        msg = await self._last(self._config.seeds_stream, self.seed_subject(table_id, hand_id))
        if msg is None:
            return None
        return SealedSeedRecord.decode(
            msg.data or b"", table_id=table_id, hand_id=hand_id, sequence=int(msg.seq or 0)
        )

    async def create_seed(self, record: SealedSeedRecord) -> tuple[SealedSeedRecord, bool]:
        """Store ``record`` unless the hand has one; return the stored record and ``created``.

        When two writers race, exactly one record is stored and both get it back.

        Raises:
            Unavailable: NATS failed; the record may or may not be stored (call again: a
                repeat returns whatever is stored).
        """
        subject = self.seed_subject(record.table_id, record.hand_id)
        seq = await self._write_once_publish(self._config.seeds_stream, subject, record.encode())
        if seq is not None:
            return SealedSeedRecord.decode(
                record.encode(), table_id=record.table_id, hand_id=record.hand_id, sequence=seq
            ), True
        stored = await self.load_seed(record.table_id, record.hand_id)
        if stored is None:
            raise Unavailable(
                f"storing the seed of hand {record.hand_id!r} was refused and no stored seed "
                "was found; retry",
                reason="SEED_STORE_FAILED",
            )
        return stored, False

    # -- reveals ------------------------------------------------------------------------------

    async def load_reveal(self, table_id: str, hand_id: str) -> SeedRevealedRecord | None:
        """The hand's published reveal, or ``None``."""
        msg = await self._last(self._config.audit_stream, self.audit_subject(table_id, hand_id))
        if msg is None:
            return None
        return SeedRevealedRecord.decode(
            msg.data or b"", table_id=table_id, hand_id=hand_id, sequence=int(msg.seq or 0)
        )

    async def publish_reveal(self, record: SeedRevealedRecord) -> tuple[SeedRevealedRecord, bool]:
        """Publish ``record`` unless the hand was revealed already; return the stored one."""
        subject = self.audit_subject(record.table_id, record.hand_id)
        msg_id = f"seed-revealed:{record.table_id}:{record.hand_id}"
        seq = await self._write_once_publish(
            self._config.audit_stream, subject, record.encode(), msg_id=msg_id
        )
        if seq is not None:
            return SeedRevealedRecord.decode(
                record.encode(), table_id=record.table_id, hand_id=record.hand_id, sequence=seq
            ), True
        stored = await self.load_reveal(record.table_id, record.hand_id)
        if stored is None:
            raise Unavailable(
                f"publishing the reveal of hand {record.hand_id!r} was refused and none was "
                "found; retry",
                reason="AUDIT_PUBLISH_FAILED",
            )
        return stored, False

    # -- table logs ---------------------------------------------------------------------------

    async def table_exists(self, table_id: str) -> bool:
        """Whether the table's log has a record: a table exists once it is opened (cached once
        true, as tables are never removed).

        Raises:
            FailedPrecondition: the tables stream does not exist.
            Unavailable: NATS failed.
        """
        if table_id in self._tables:
            return True
        stream = self._config.tables_stream
        with _unavailable(f"read of stream {stream!r}"):
            try:
                await self._js.get_msg(stream, subject=self.table_subject(table_id))
            except nats.js.errors.NotFoundError as exc:
                if exc.err_code == _ERR_STREAM_NOT_FOUND:
                    raise FailedPrecondition(
                        f"the table-log stream {stream!r} does not exist",
                        reason="TABLE_LOG_MISSING",
                    ) from None
                return False
        if len(self._tables) >= 100_000:
            self._tables.clear()
        self._tables.add(table_id)
        return True

    async def table_message(self, sequence: int) -> RawStreamMsg | None:
        """The message at ``sequence`` of the tables stream, or ``None`` if there is none.

        Raises:
            FailedPrecondition: the tables stream does not exist.
            Unavailable: NATS failed.
        """
        stream = self._config.tables_stream
        with _unavailable(f"read of stream {stream!r}"):
            try:
                return await self._js.get_msg(stream, seq=sequence)
            except nats.js.errors.NotFoundError as exc:
                if exc.err_code == _ERR_STREAM_NOT_FOUND:
                    raise FailedPrecondition(
                        f"the table-log stream {stream!r} does not exist",
                        reason="TABLE_LOG_MISSING",
                    ) from None
                return None

    # -- internals ----------------------------------------------------------------------------

    async def _last(self, stream: str, subject: str) -> RawStreamMsg | None:
        with _unavailable(f"read of {subject!r}"):
            try:
                return await self._js.get_msg(stream, subject=subject)
            except nats.js.errors.NotFoundError as exc:
                if exc.err_code == _ERR_NO_MESSAGE_FOUND:
                    return None
                raise Unavailable(
                    f"stream {stream!r} is not available ({exc.description})",
                    reason="STREAM_MISSING",
                ) from None

    async def _write_once_publish(
        self, stream: str, subject: str, payload: bytes, *, msg_id: str | None = None
    ) -> int | None:
        """Publish as the subject's first message; its sequence, or ``None`` if one exists."""
        headers = {"Nats-Expected-Last-Subject-Sequence": "0"}
        if msg_id is not None:
            headers["Nats-Msg-Id"] = msg_id
        with _unavailable(f"write to {subject!r}"):
            try:
                ack = await self._js.publish(subject, payload, stream=stream, headers=headers)
            except nats.js.errors.APIError as exc:
                # Wrong last sequence (10071) or the per-subject limit: the subject has its
                # message already. Anything else is a failure the caller sees.
                if exc.err_code in (10071, 10164, 10077):
                    return None
                raise
        if ack.duplicate:
            return None
        return int(ack.seq)


# -- helpers ----------------------------------------------------------------------------------


def _dump(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _load(data: bytes, record_type: str) -> dict[str, Any]:
    obj = json.loads(data)
    if not isinstance(obj, dict) or obj.get("type") != record_type:
        raise ValueError(f"not a {record_type} record")
    return obj


def _text(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} missing or not a string")
    return value


@contextlib.contextmanager
def _malformed(where: str, reason: str) -> Iterator[None]:
    try:
        yield
    except (ValueError, binascii.Error, UnicodeDecodeError):
        # ValueError covers JSON and hex errors; the payload itself is not echoed.
        raise DataLoss(f"{where} is malformed", reason=reason) from None


@contextlib.contextmanager
def _unavailable(what: str) -> Iterator[None]:
    try:
        yield
    except nats.errors.Error as exc:
        detail = str(exc) or type(exc).__name__
        raise Unavailable(f"NATS {what} failed: {detail}", reason="NATS_UNAVAILABLE") from None
