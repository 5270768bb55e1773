"""RBS1's mid-hand reshuffle (docs/shuffle.md section 5a): known answers, and an independent
implementation written from the document."""

from __future__ import annotations

import hashlib
import hmac
import random
import struct
from collections.abc import Iterator

import pytest

from riverboat.engine.cards import card_str, parse_cards
from riverboat.shuffle import ShuffleInputError, derive_reshuffle

HAND = "3f2b8c1e-6d4a-4b7e-9c2f-1a5d7e9b0c34"
SEED = bytes(range(32))
CARDS = parse_cards("2c 7d 9h Ts Jc Qd Kh As 3s 4h")

#: Frozen known answers: a change here is a new scheme, not a fix.
KNOWN = {
    1: "4h Kh 9h Jc 3s 2c Qd As Ts 7d",
    2: "Jc Kh Ts 9h 3s Qd 2c As 7d 4h",
}


def from_the_document(hand_id: str, seed: bytes, round_: int, cards: list[int]) -> list[int]:
    """Section 5a, step by step."""
    raw = hand_id.encode()
    prefix = b"RBS1/reshuffle" + struct.pack(">I", len(raw)) + raw + struct.pack(">I", round_)

    def words() -> Iterator[int]:
        counter = 0
        while True:
            block = hmac.new(seed, prefix + struct.pack(">I", counter), hashlib.sha256).digest()
            yield from struct.unpack(">4Q", block)
            counter += 1

    stream = words()
    ordered = sorted(cards)
    index = list(range(len(ordered)))
    for i in range(len(index) - 1, 0, -1):
        m = i + 1
        limit = 2**64 - 2**64 % m
        word = next(stream)
        while word >= limit:
            word = next(stream)
        j = word % m
        index[i], index[j] = index[j], index[i]
    return [ordered[k] for k in index]


@pytest.mark.parametrize("round_", sorted(KNOWN))
def test_known_answers(round_: int) -> None:
    out = derive_reshuffle(HAND, SEED, round_, CARDS)
    assert " ".join(card_str(c) for c in out) == KNOWN[round_]


def test_the_order_the_cards_are_listed_in_does_not_matter() -> None:
    listed = list(CARDS)
    random.Random(1).shuffle(listed)
    assert derive_reshuffle(HAND, SEED, 1, listed) == derive_reshuffle(HAND, SEED, 1, CARDS)


def test_an_independent_implementation_agrees() -> None:
    rng = random.Random(7)
    for _ in range(100):
        seed = rng.randbytes(32)
        cards = rng.sample(range(52), rng.randint(1, 52))
        round_ = rng.randint(1, 5)
        assert list(derive_reshuffle("h-1", seed, round_, cards)) == from_the_document(
            "h-1", seed, round_, cards
        )


@pytest.mark.parametrize(
    ("round_", "cards"), [(0, [1, 2]), (1, []), (1, [3, 3]), (1, [52]), (True, [1])]
)
def test_bad_inputs_are_refused(round_: int, cards: list[int]) -> None:
    with pytest.raises(ShuffleInputError):
        derive_reshuffle(HAND, SEED, round_, cards)
