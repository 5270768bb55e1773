"""Sealing seeds for the dealer store."""

from __future__ import annotations

import base64
import struct

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from riverboat.shuffle import ShuffleInputError
from riverboat.shuffle.sealing import (
    SEALED_SIZE,
    SealedSeedError,
    SealingKeyError,
    SeedSealer,
    generate_key,
    key_from_text,
)

KEY = bytes(range(100, 132))
HAND = "3f2b8c1e-6d4a-4b7e-9c2f-1a5d7e9b0c34"
SEED = bytes(range(32))


def test_round_trip() -> None:
    sealer = SeedSealer(KEY)
    sealed = sealer.seal(HAND, SEED)
    assert len(sealed) == SEALED_SIZE == 60
    assert SEED not in sealed
    assert sealer.open(HAND, sealed) == SEED


def test_nonces_are_fresh() -> None:
    sealer = SeedSealer(KEY)
    a, b = sealer.seal(HAND, SEED), sealer.seal(HAND, SEED)
    assert a[:12] != b[:12] and a != b
    assert sealer.open(HAND, a) == sealer.open(HAND, b) == SEED


def test_layout_matches_the_spec() -> None:
    # nonce || AES-256-GCM(ciphertext || tag), AAD = b"RBS1/seal" || u32be(len(id)) || id
    sealed = SeedSealer(KEY).seal(HAND, SEED)
    hid = HAND.encode("utf-8")
    aad = b"RBS1/seal" + struct.pack(">I", len(hid)) + hid
    assert AESGCM(KEY).decrypt(sealed[:12], sealed[12:], aad) == SEED


def test_wrong_key() -> None:
    sealed = SeedSealer(KEY).seal(HAND, SEED)
    with pytest.raises(SealedSeedError, match="failed authentication"):
        SeedSealer(generate_key()).open(HAND, sealed)


def test_wrong_hand_id() -> None:
    sealed = SeedSealer(KEY).seal(HAND, SEED)
    with pytest.raises(SealedSeedError):
        SeedSealer(KEY).open(HAND[:-1] + "5", sealed)


def test_every_flipped_bit_is_detected() -> None:
    sealer = SeedSealer(KEY)
    sealed = sealer.seal(HAND, SEED)
    for position in range(len(sealed)):
        for bit in (0, 7):
            tampered = bytearray(sealed)
            tampered[position] ^= 1 << bit
            with pytest.raises(SealedSeedError):
                sealer.open(HAND, bytes(tampered))


@pytest.mark.parametrize("size", [0, 12, 59, 61])
def test_wrong_length(size: int) -> None:
    sealed = SeedSealer(KEY).seal(HAND, SEED)
    data = (sealed * 2)[:size]
    with pytest.raises(SealedSeedError, match="must be 60 bytes"):
        SeedSealer(KEY).open(HAND, data)


def test_bad_inputs_to_seal() -> None:
    with pytest.raises(ShuffleInputError):
        SeedSealer(KEY).seal(HAND, bytes(16))
    with pytest.raises(ShuffleInputError):
        SeedSealer(KEY).seal("", SEED)


@pytest.mark.parametrize("key", [b"", bytes(16), bytes(31), bytes(33)])
def test_bad_key_sizes(key: bytes) -> None:
    with pytest.raises(SealingKeyError):
        SeedSealer(key)


def test_repr_hides_key() -> None:
    assert KEY.hex() not in repr(SeedSealer(KEY))
    assert "hidden" in repr(SeedSealer(KEY))


def test_generate_key() -> None:
    a, b = generate_key(), generate_key()
    assert len(a) == len(b) == 32 and a != b
    SeedSealer(a).open(HAND, SeedSealer(a).seal(HAND, SEED))


@pytest.mark.parametrize(
    "text",
    [
        KEY.hex(),
        KEY.hex().upper(),
        f"  {KEY.hex()}\n",
        base64.b64encode(KEY).decode(),
        base64.b64encode(KEY).decode().rstrip("="),
        base64.urlsafe_b64encode(KEY).decode(),
        f"\t{base64.b64encode(KEY).decode()}\n",
    ],
)
def test_key_from_text_accepts(text: str) -> None:
    assert key_from_text(text) == KEY


def test_key_from_text_urlsafe_alphabet() -> None:
    key = b"\xfb\xff" * 16  # encodes with + and / in the standard alphabet
    assert "-" in base64.urlsafe_b64encode(key).decode()
    assert key_from_text(base64.urlsafe_b64encode(key).decode()) == key
    assert key_from_text(base64.b64encode(key).decode()) == key


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (bytes(16).hex(), "32 hex digits"),
        (bytes(33).hex(), "66 hex digits"),
        (base64.b64encode(bytes(range(24))).decode(), "24 bytes"),
        (base64.b64encode(bytes(range(48))).decode(), "48 bytes"),
        ("not a key at all!", "neither"),
        ("z" * 64, "48 bytes"),
        ("\u00e9" * 44, "neither"),
    ],
)
def test_key_from_text_rejects(text: str, message: str) -> None:
    with pytest.raises(SealingKeyError, match=message) as info:
        key_from_text(text)
    if text.strip():
        assert text.strip() not in str(info.value)  # never echo a secret


def test_key_from_text_rejects_non_str() -> None:
    with pytest.raises(SealingKeyError):
        key_from_text(KEY)  # type: ignore[arg-type]
