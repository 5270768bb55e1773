"""The auditor's own RBS1: commitment and deck, written from ``docs/shuffle.md`` alone.

Deliberately not :mod:`riverboat.shuffle` (the dealer's code): an audit that reused the
dealer's implementation would inherit its bugs. Both are pinned to the same known-answer
vectors (``libs/riverboat/shuffle/vectors.json``), which the tests check this module against.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterable, Iterator
from typing import Final

__all__ = ["SCHEME", "commitment", "deck", "reshuffle"]

SCHEME: Final = "RBS1"
_WORDS: Final = struct.Struct(">4Q")
_SPAN: Final = 1 << 64


def _hid(hand_id: str) -> bytes:
    raw = hand_id.encode("utf-8")
    if not 0 < len(raw) <= 256:
        raise ValueError(f"hand id of {len(raw)} bytes; RBS1 takes 1..256")
    return struct.pack(">I", len(raw)) + raw


def commitment(hand_id: str, seed: bytes) -> bytes:
    """SHA-256("RBS1/commit" ‖ u32be(len U) ‖ U ‖ seed) (spec §2)."""
    if len(seed) != 32:
        raise ValueError(f"a seed is 32 bytes, not {len(seed)}")
    return hashlib.sha256(b"RBS1/commit" + _hid(hand_id) + seed).digest()


def _words(seed: bytes, prefix: bytes) -> Iterator[int]:
    """Spec §3: HMAC-SHA256 blocks over a counter, four big-endian 64-bit words each."""
    counter = 0
    while counter < 1 << 32:
        yield from _WORDS.unpack(hmac.digest(seed, prefix + struct.pack(">I", counter), "sha256"))
        counter += 1


def _fisher_yates(words: Iterator[int], n: int) -> list[int]:
    """Spec §4-5: for i = n-1 down to 1, swap i with an unbiased draw in 0..i."""
    cards = list(range(n))
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = _SPAN - _SPAN % m
        w = next(words)
        while w >= limit:
            w = next(words)
        j = w % m
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deck(hand_id: str, seed: bytes) -> tuple[int, ...]:
    """The 52-card deck, top first."""
    if len(seed) != 32:
        raise ValueError(f"a seed is 32 bytes, not {len(seed)}")
    return tuple(_fisher_yates(_words(seed, b"RBS1/deck" + _hid(hand_id)), 52))


def reshuffle(hand_id: str, seed: bytes, round_: int, cards: Iterable[int]) -> tuple[int, ...]:
    """Spec §5a: round ``round_`` (1, 2, ...) of a hand's mid-hand reshuffle of ``cards``, top
    first: Fisher-Yates over the sorted cards, words keyed by "RBS1/reshuffle", id and round."""
    if len(seed) != 32:
        raise ValueError(f"a seed is 32 bytes, not {len(seed)}")
    ordered = sorted(cards)
    if not 1 <= len(ordered) <= 52 or len(set(ordered)) != len(ordered) or round_ < 1:
        raise ValueError("a reshuffle takes 1-52 distinct cards and a round from 1")
    prefix = b"RBS1/reshuffle" + _hid(hand_id) + struct.pack(">I", round_)
    return tuple(ordered[p] for p in _fisher_yates(_words(seed, prefix), len(ordered)))
