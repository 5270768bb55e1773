"""The seed-sealing key: where it comes from, and sealing/opening per-hand seeds with it.

Each stored seed records the *key id* it was sealed under: the first 16 hex digits of
SHA-256("riverboat/dealer-key-id" || key). The id names a key without revealing it (the key has
256 random bits), so a dealer restarted with another key says exactly that instead of reporting
every hand's record as corrupt.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from riverboat.services.common.errors import DataLoss, FailedPrecondition
from riverboat.services.dealer.config import ENV_KEY, ENV_KEY_FILE, ConfigError, DealerConfig
from riverboat.services.dealer.store import SealedSeedRecord
from riverboat.shuffle import SCHEME, commitment_for
from riverboat.shuffle.sealing import (
    SealedSeedError,
    SealingKeyError,
    SeedSealer,
    generate_key,
    key_from_text,
)

__all__ = ["SealingKey", "SeedVault", "key_id", "load_seal_key"]

_KEY_ID_TAG = b"riverboat/dealer-key-id"

_log = structlog.get_logger("riverboat.dealer.keys")


def key_id(key: bytes) -> str:
    """A public identifier of ``key`` (16 hex digits); it does not reveal the key."""
    return hashlib.sha256(_KEY_ID_TAG + key).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class SealingKey:
    """A loaded sealing key and where it came from.

    Attributes:
        key: the 32 key bytes (hidden from ``repr``).
        source: a description for logs, e.g. ``file /etc/riverboat/dealer.key``.
        development: ``True`` for the auto-generated development key.
    """

    key: bytes = field(repr=False)
    source: str
    development: bool = False

    @property
    def key_id(self) -> str:
        """See :func:`key_id`."""
        return key_id(self.key)


def load_seal_key(config: DealerConfig) -> SealingKey:
    """The key from ``--seal-key-file``, else ``RIVERBOAT_DEALER_KEY``, else the embedded
    room's development key, else a :class:`ConfigError`.

    The development key exists only when ``config.dev_key_file`` is set (``riverboat up`` sets
    it to ``VAR/dealer.key``): created with mode 0600 on first use and reused afterwards, so a
    restarted development dealer can still open the seeds it sealed; a warning is logged
    whenever it is used. Otherwise a dealer never makes up a key: one pod's own key would seal
    seeds that no other pod, and no restarted pod, could open.

    Raises:
        ConfigError: no key is configured, the key file cannot be read, or a key is malformed
            (the message never contains the key).
    """
    if config.seal_key_file is not None:
        path = config.seal_key_file
        text = _read_key_file(path, f"--seal-key-file / {ENV_KEY_FILE}")
        _warn_if_shared(path)
        return SealingKey(_decode(text, f"key file {path}"), source=f"file {path}")
    if config.seal_key_text is not None:
        return SealingKey(_decode(config.seal_key_text, ENV_KEY), source=f"env {ENV_KEY}")
    dev = config.dev_key_file
    if dev is None:
        raise ConfigError(
            f"no sealing key: set --seal-key-file, {ENV_KEY_FILE} or {ENV_KEY} (32 random "
            "bytes, 64 hex digits or base64)"
        )
    created = _create_dev_key(dev)
    key = _decode(_read_key_file(dev, "the development key file"), f"key file {dev}")
    _log.warning(
        "no sealing key configured: using a DEVELOPMENT key; configure --seal-key-file or "
        f"{ENV_KEY} in production",
        key_file=str(dev),
        created=created,
    )
    return SealingKey(key, source=f"development file {dev}", development=True)


def _decode(text: str, where: str) -> bytes:
    try:
        return key_from_text(text)
    except SealingKeyError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _read_key_file(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not ASCII text"
        raise ConfigError(f"cannot read {what} {path}: {reason}") from None


def _warn_if_shared(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        _log.warning(
            "the sealing key file is accessible to other users; chmod 600 it",
            key_file=str(path),
            mode=oct(stat.S_IMODE(mode)),
        )


def _create_dev_key(path: Path) -> bool:
    """Create the development key file if it does not exist; ``True`` if created now."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # O_EXCL: two dealers starting together must not overwrite each other's key.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError as exc:
        raise ConfigError(
            f"cannot create the development key file {path}: {exc.strerror}"
        ) from None
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(generate_key().hex() + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    return True


class SeedVault:
    """Seals fresh seeds into records and opens stored records, with one sealing key."""

    __slots__ = ("_key_id", "_sealer")

    def __init__(self, key: SealingKey) -> None:
        self._sealer = SeedSealer(key.key)
        self._key_id = key.key_id

    @property
    def key_id(self) -> str:
        """The id of the key this vault seals with."""
        return self._key_id

    def seal(
        self, table_id: str, hand_id: str, seed: bytes, scheme: str = SCHEME
    ) -> SealedSeedRecord:
        """A record for a new hand: the sealed seed, its commitment (of ``scheme``), the key id."""
        return SealedSeedRecord(
            table_id=table_id,
            hand_id=hand_id,
            scheme=scheme,
            commitment=commitment_for(scheme, hand_id, seed),
            sealed_seed=self._sealer.seal(hand_id, seed),
            key_id=self._key_id,
        )

    def open(self, record: SealedSeedRecord) -> bytes:
        """The seed in ``record``, checked against its commitment.

        Raises:
            FailedPrecondition: the record was sealed under another key (reason
                ``SEALING_KEY_MISMATCH``): the dealer runs with the wrong key.
            DataLoss: the record does not open under its own key, or the seed does not match
                the stored commitment (reason ``SEALED_SEED_CORRUPT``).
        """
        if not hmac.compare_digest(record.key_id, self._key_id):
            raise FailedPrecondition(
                f"the seed of hand {record.hand_id!r} was sealed under key id {record.key_id}, "
                f"but this dealer runs with key id {self._key_id}; restart the dealer with the "
                "original sealing key (no deck is served with the wrong key)",
                reason="SEALING_KEY_MISMATCH",
            )
        try:
            seed = self._sealer.open(record.hand_id, record.sealed_seed)
        except SealedSeedError:
            raise DataLoss(
                f"the sealed seed of hand {record.hand_id!r} failed authentication under its "
                "own key: the stored record was altered",
                reason="SEALED_SEED_CORRUPT",
            ) from None
        try:
            expected = commitment_for(record.scheme, record.hand_id, seed)
        except ValueError:
            expected = b""  # a scheme this dealer does not know: treated as corrupt
        if not hmac.compare_digest(expected, record.commitment):
            raise DataLoss(
                f"the seed of hand {record.hand_id!r} does not match its stored commitment",
                reason="SEALED_SEED_CORRUPT",
            )
        return seed
