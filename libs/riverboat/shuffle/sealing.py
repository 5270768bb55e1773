"""Sealing seeds at rest for the dealer's private store (AES-256-GCM).

A sealed seed is ``nonce (12 bytes) || AES-GCM ciphertext of the seed (32) || tag (16)``, 60
bytes in all. The associated data binds it to its hand (``b"RBS1/seal" || u32be(len(id)) ||
id``), so a sealed seed copied under another hand's key in the store does not open.

Nonces are random, so one key should seal fewer than 2^32 seeds (NIST SP 800-38D's bound for
random 96-bit nonces); rotate keys well before that.
"""

from __future__ import annotations

import base64
import binascii
import secrets
import string
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from riverboat.shuffle.scheme import SEED_SIZE, ShuffleError, ShuffleInputError, encode_hand_id

KEY_SIZE: Final = 32
NONCE_SIZE: Final = 12
TAG_SIZE: Final = 16
SEALED_SIZE: Final = NONCE_SIZE + SEED_SIZE + TAG_SIZE
SEAL_TAG: Final = b"RBS1/seal"

_HEX_DIGITS: Final = frozenset(string.hexdigits)


class SealingKeyError(ShuffleError, ValueError):
    """A sealing key is missing, malformed or of the wrong size."""


class SealedSeedError(ShuffleError):
    """A sealed seed cannot be opened: wrong key, wrong hand id, or altered or truncated data."""


def generate_key() -> bytes:
    """A fresh random 32-byte AES-256 key."""
    return secrets.token_bytes(KEY_SIZE)


def key_from_text(text: str) -> bytes:
    """Decode a configured key: 64 hex digits, or standard/URL-safe base64 of 32 bytes.

    Surrounding whitespace is ignored. Errors describe the problem but never echo the text,
    since it is a secret.
    """
    if not isinstance(text, str):
        raise SealingKeyError(f"sealing key text must be a str, got {type(text).__name__}")
    cleaned = text.strip()
    if not cleaned:
        raise SealingKeyError("sealing key is empty; expected 32 bytes as hex or base64")
    # Hex first: 64 hex digits would also parse as (48-byte) base64.
    if len(cleaned) == 2 * KEY_SIZE and all(c in _HEX_DIGITS for c in cleaned):
        return bytes.fromhex(cleaned)
    altchars = b"-_" if ("-" in cleaned or "_" in cleaned) else None
    padded = cleaned + "=" * (-len(cleaned) % 4)
    try:
        key: bytes | None = base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        key = None
    if key is not None and len(key) == KEY_SIZE:
        return key
    if all(c in _HEX_DIGITS for c in cleaned):
        raise SealingKeyError(
            f"sealing key is {len(cleaned)} hex digits; it must be {2 * KEY_SIZE} hex digits "
            f"({KEY_SIZE} bytes) or base64 of {KEY_SIZE} bytes"
        )
    if key is None:
        raise SealingKeyError(f"sealing key ({len(cleaned)} characters) is neither hex nor base64")
    raise SealingKeyError(
        f"sealing key decodes (as base64) to {len(key)} bytes; it must be {KEY_SIZE}"
    )


def _associated_data(hand_id: str) -> bytes:
    return SEAL_TAG + encode_hand_id(hand_id)


class SeedSealer:
    """Seals and opens per-hand seeds with one AES-256-GCM key."""

    __slots__ = ("_aead",)

    def __init__(self, key: bytes) -> None:
        if not isinstance(key, bytes | bytearray) or len(key) != KEY_SIZE:
            raise SealingKeyError(f"sealing key must be {KEY_SIZE} bytes")
        self._aead = AESGCM(bytes(key))

    def __repr__(self) -> str:
        return "SeedSealer(key=<hidden>)"

    def seal(self, hand_id: str, seed: bytes) -> bytes:
        """Encrypt ``seed`` for ``hand_id``: a fresh random nonce, then ciphertext and tag."""
        if not isinstance(seed, bytes | bytearray) or len(seed) != SEED_SIZE:
            raise ShuffleInputError(f"seed must be exactly {SEED_SIZE} bytes")
        nonce = secrets.token_bytes(NONCE_SIZE)
        return nonce + self._aead.encrypt(nonce, bytes(seed), _associated_data(hand_id))

    def open(self, hand_id: str, sealed: bytes) -> bytes:
        """Decrypt and authenticate a sealed seed; raise :class:`SealedSeedError` if it fails."""
        aad = _associated_data(hand_id)
        if not isinstance(sealed, bytes | bytearray) or len(sealed) != SEALED_SIZE:
            size = len(sealed) if isinstance(sealed, bytes | bytearray) else type(sealed).__name__
            raise SealedSeedError(
                f"sealed seed for hand {hand_id!r} must be {SEALED_SIZE} bytes, got {size}"
            )
        data = bytes(sealed)
        try:
            seed = self._aead.decrypt(data[:NONCE_SIZE], data[NONCE_SIZE:], aad)
        except InvalidTag:
            # GCM cannot tell these apart, by design.
            raise SealedSeedError(
                f"sealed seed for hand {hand_id!r} failed authentication: wrong key, "
                "sealed under another hand id, or altered"
            ) from None
        return seed
