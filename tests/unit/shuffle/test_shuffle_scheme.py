"""RBS1 derivation, commitment and verification."""

from __future__ import annotations

import hashlib
import itertools
import re
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from riverboat.engine.cards import card_str, cards_str, parse_card
from riverboat.shuffle import (
    SCHEME,
    ShuffleError,
    ShuffleInputError,
    ShuffleVerificationError,
    VerificationFailure,
    commitment,
    derive_deck,
    new_seed,
    verify,
)
from riverboat.shuffle.scheme import draw, encode_hand_id, fisher_yates, word_stream
from riverboat.shuffle.vectors import (
    DEFAULT_CASES,
    load_vectors,
    make_vector,
    render_vectors,
    vectors_text,
)

HAND = "3f2b8c1e-6d4a-4b7e-9c2f-1a5d7e9b0c34"
SEED = bytes(range(32))
DOC = Path(__file__).resolve().parents[3] / "docs" / "shuffle.md"


def seed_n(n: int) -> bytes:
    return hashlib.sha256(b"scheme test seed" + n.to_bytes(4, "big")).digest()


# --- An independent RBS1, written from docs/shuffle.md with hashlib only (HMAC by hand). ---


def _hmac_sha256(key: bytes, message: bytes) -> bytes:
    block = key.ljust(64, b"\x00")  # 32-byte keys never need hashing first
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in block) + message).digest()
    return hashlib.sha256(bytes(b ^ 0x5C for b in block) + inner).digest()


def _spec_deck(hand_id: str, seed: bytes) -> list[int]:
    hid = hand_id.encode("utf-8")
    field = len(hid).to_bytes(4, "big") + hid
    words: list[int] = []
    counter = 0
    deck = list(range(52))
    for i in range(51, 0, -1):
        m = i + 1
        limit = 2**64 - 2**64 % m
        while True:
            if not words:
                block = _hmac_sha256(seed, b"RBS1/deck" + field + counter.to_bytes(4, "big"))
                words = [int.from_bytes(block[k : k + 8], "big") for k in range(0, 32, 8)]
                counter += 1
            w = words.pop(0)
            if w < limit:
                break
        j = w % m
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_independent_implementation_agrees() -> None:
    for n in range(300):
        hand_id = f"hand-{n}" if n % 3 else f"t\u00e9-{n}-\U0001f0a1"
        assert list(derive_deck(hand_id, seed_n(n))) == _spec_deck(hand_id, seed_n(n))


# --- Known-answer vectors ---


def test_vectors_reproduce() -> None:
    vectors = load_vectors()
    assert len(vectors) >= 5
    for v in vectors:
        assert commitment(v.hand_id, v.seed) == v.commitment, v.hand_id
        assert derive_deck(v.hand_id, v.seed) == v.deck, v.hand_id
        verify(v.hand_id, v.seed, v.commitment, v.deck)


def test_vectors_file_is_canonical_and_matches_cases() -> None:
    vectors = load_vectors()
    assert [(v.hand_id, v.seed, v.comment) for v in vectors] == list(DEFAULT_CASES)
    assert render_vectors(vectors) == vectors_text()
    assert vectors_text().isascii()


def test_known_first_cards() -> None:
    # Pinned independently of vectors.json: the worked example in docs/shuffle.md.
    assert cards_str(derive_deck(HAND, SEED)[:10]) == "Th 7c 4s 7h 4d 6s 4h 5h 6d Qs"
    assert commitment(HAND, SEED).hex() == (
        "aa2036ec1e9473218ac83cf47ea7d6f371e03298aa090e79fb8327ec7a3f0245"
    )


def test_doc_worked_example_matches_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    v = make_vector(HAND, SEED)
    assert v.commitment.hex() in text
    assert cards_str(v.deck[:10]) in text
    assert cards_str(v.deck) in text
    # Every row of the draw table: | i | m | `word` | j | card left at i |
    rows = re.findall(r"^\| (\d+) \| (\d+) \| `([0-9a-f]{16})` \| (\d+) \| (\w\w) \|$", text, re.M)
    assert len(rows) == 51
    words = word_stream(HAND, SEED)
    deck = list(range(52))
    for i, m, word, j, card in rows:
        w = next(words)
        assert (int(i), int(m), int(word, 16), int(j)) == (int(i), int(i) + 1, w, w % int(m))
        deck[int(i)], deck[int(j)] = deck[int(j)], deck[int(i)]
        assert card_str(deck[int(i)]) == card


# --- Deck properties ---


def test_deck_is_a_permutation() -> None:
    for n in range(500):
        deck = derive_deck(f"perm-{n}", seed_n(n))
        assert isinstance(deck, tuple)
        assert sorted(deck) == list(range(52))


def test_different_seeds_give_different_decks() -> None:
    decks = {derive_deck("same-hand", seed_n(n)) for n in range(300)}
    assert len(decks) == 300


def test_different_hand_ids_give_different_decks() -> None:
    decks = {derive_deck(f"hand-{n}", SEED) for n in range(300)}
    assert len(decks) == 300
    # Look-alike ids stay distinct: no normalisation, case or whitespace folding.
    similar = ["a", "A", "a ", " a", "\u00e9", "e\u0301"]
    assert len({derive_deck(h, SEED) for h in similar}) == len(similar)


def test_one_bit_of_seed_changes_the_deck() -> None:
    base = derive_deck(HAND, SEED)
    for bit in range(256):
        flipped = bytearray(SEED)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert derive_deck(HAND, bytes(flipped)) != base


def test_new_seed() -> None:
    a, b = new_seed(), new_seed()
    assert isinstance(a, bytes) and len(a) == 32 and len(b) == 32
    assert a != b
    assert sorted(derive_deck("fresh", a)) == list(range(52))


def test_scheme_name() -> None:
    assert SCHEME == "RBS1"


# --- Commitment ---


def test_commitment_layout() -> None:
    hid = HAND.encode("utf-8")
    preimage = b"RBS1/commit" + struct.pack(">I", len(hid)) + hid + SEED
    assert commitment(HAND, SEED) == hashlib.sha256(preimage).digest()
    assert len(commitment(HAND, SEED)) == 32


def test_commitment_binds_hand_id_and_seed() -> None:
    c = commitment(HAND, SEED)
    assert commitment(HAND + "x", SEED) != c
    assert commitment(HAND, seed_n(1)) != c
    # The length prefix stops bytes sliding between the id and the seed: without it these two
    # preimages would be identical.
    s = seed_n(2)
    assert commitment("ab", s) != commitment("a", b"b" + s[:31])


def test_encode_hand_id() -> None:
    assert encode_hand_id("ab") == b"\x00\x00\x00\x02ab"
    assert encode_hand_id("\u00e4") == b"\x00\x00\x00\x02\xc3\xa4"
    assert len(encode_hand_id("H" * 256)) == 260


@pytest.mark.parametrize("hand_id", ["", "H" * 257, "\u00e4" * 129, "bad\ud800"])
def test_bad_hand_ids_rejected(hand_id: str) -> None:
    with pytest.raises(ShuffleInputError):
        derive_deck(hand_id, SEED)
    with pytest.raises(ShuffleInputError):
        commitment(hand_id, SEED)


def test_non_str_hand_id_rejected() -> None:
    with pytest.raises(ShuffleInputError, match="must be a str"):
        commitment(b"hand", SEED)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [b"", bytes(31), bytes(33), "0" * 32])
def test_bad_seeds_rejected(seed: bytes) -> None:
    with pytest.raises(ShuffleInputError, match="32 bytes"):
        derive_deck(HAND, seed)
    with pytest.raises(ShuffleInputError, match="32 bytes"):
        commitment(HAND, seed)


def test_bytearray_seed_accepted() -> None:
    assert derive_deck(HAND, bytearray(SEED)) == derive_deck(HAND, SEED)  # type: ignore[arg-type]


# --- Verification ---


def test_verify_accepts_honest_hands() -> None:
    c = commitment(HAND, SEED)
    deck = derive_deck(HAND, SEED)
    verify(HAND, SEED, c)
    verify(HAND, SEED, c, [])
    verify(HAND, SEED, c, deck[:17])
    verify(HAND, SEED, c, list(deck))


def test_verify_catches_wrong_seed() -> None:
    c = commitment(HAND, SEED)
    with pytest.raises(ShuffleVerificationError, match="seed does not match") as info:
        verify(HAND, seed_n(9), c)
    assert info.value.failure is VerificationFailure.SEED_MISMATCH


def test_verify_catches_wrong_hand_id() -> None:
    c = commitment(HAND, SEED)
    with pytest.raises(ShuffleVerificationError) as info:
        verify("another-hand", SEED, c)
    assert info.value.failure is VerificationFailure.SEED_MISMATCH


def test_verify_names_the_swapped_card() -> None:
    c = commitment(HAND, SEED)
    dealt = list(derive_deck(HAND, SEED)[:10])
    dealt[3], dealt[4] = dealt[4], dealt[3]  # Th 7c 4s [4d 7h] ...
    with pytest.raises(ShuffleVerificationError) as info:
        verify(HAND, SEED, c, dealt)
    err = info.value
    assert err.failure is VerificationFailure.CARD_MISMATCH
    assert err.position == 3
    assert err.dealt == parse_card("4d")
    assert err.expected == parse_card("7h")
    assert "dealt card #3" in str(err)
    assert "is 4d but the deck says 7h" in str(err)


def test_verify_catches_substituted_last_card() -> None:
    deck = list(derive_deck(HAND, SEED))
    deck[51] = deck[0]
    with pytest.raises(ShuffleVerificationError, match=r"#51 .* is Th but the deck says 8h"):
        verify(HAND, SEED, commitment(HAND, SEED), deck)


def test_verify_reports_non_cards() -> None:
    dealt = [*derive_deck(HAND, SEED)[:2], 99]
    with pytest.raises(ShuffleVerificationError, match=r"#2 .* is 99 \(not a card\)") as info:
        verify(HAND, SEED, commitment(HAND, SEED), dealt)
    assert info.value.position == 2


def test_verify_rejects_too_many_cards() -> None:
    dealt = [*derive_deck(HAND, SEED), 0]
    with pytest.raises(ShuffleVerificationError) as info:
        verify(HAND, SEED, commitment(HAND, SEED), dealt)
    assert info.value.failure is VerificationFailure.TOO_MANY_CARDS


@pytest.mark.parametrize(
    ("hand_id", "seed", "commit"),
    [
        (HAND, bytes(31), bytes(32)),
        ("", SEED, bytes(32)),
        (HAND, SEED, bytes(31)),
        (HAND, SEED, "aa" * 32),
    ],
)
def test_verify_malformed_inputs(hand_id: str, seed: bytes, commit: bytes) -> None:
    with pytest.raises(ShuffleVerificationError) as info:
        verify(hand_id, seed, commit)
    assert info.value.failure is VerificationFailure.MALFORMED_INPUT
    assert isinstance(info.value, ShuffleError)


# --- The word stream, draw() and Fisher-Yates ---


def test_word_stream_layout() -> None:
    import hmac

    hid = HAND.encode("utf-8")
    words = list(itertools.islice(word_stream(HAND, SEED), 8))
    for counter in range(2):
        message = b"RBS1/deck" + struct.pack(">I", len(hid)) + hid + struct.pack(">I", counter)
        block = hmac.new(SEED, message, "sha256").digest()
        assert words[4 * counter : 4 * counter + 4] == list(struct.unpack(">4Q", block))


class Recorder:
    """An iterator over fixed words that counts how many were taken."""

    def __init__(self, words: list[int]) -> None:
        self._words = words
        self.taken = 0

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        if self.taken >= len(self._words):
            raise StopIteration
        self.taken += 1
        return self._words[self.taken - 1]


def test_draw_rejects_words_at_or_above_limit() -> None:
    top = 2**64
    limit = top - top % 52
    assert top % 52 == 16
    words = Recorder([top - 1, limit, limit - 1, 5])
    assert draw(52, words) == (limit - 1) % 52 == 51
    assert words.taken == 3  # two rejected, the third accepted, the fourth untouched
    assert draw(52, words) == 5


def test_draw_accepts_everything_for_powers_of_two() -> None:
    for m in (1, 2, 4, 32):
        words = Recorder([2**64 - 1])
        assert draw(m, words) == (2**64 - 1) % m
        assert words.taken == 1


def test_draw_stream_exhausted() -> None:
    with pytest.raises(ShuffleError, match="ended"):
        draw(52, iter([2**64 - 1, 2**64 - 2]))
    with pytest.raises(ValueError):
        draw(0, iter([1]))


def test_draw_is_exactly_unbiased_with_12_bit_words() -> None:
    # Exhaustive over a reduced word size: every residue gets the same number of words.
    for m in range(2, 53):
        counts = [0] * m
        rejected = 0
        for w in range(4096):
            words = Recorder([w])
            try:
                counts[draw(m, words, word_bits=12)] += 1
            except ShuffleError:
                rejected += 1
        assert len(set(counts)) == 1, m
        assert rejected == 4096 % m


def test_fisher_yates_with_crafted_words() -> None:
    # size 3, words 0, 0: swap(2, 0) -> [2, 1, 0]; swap(1, 0) -> [1, 2, 0]
    assert fisher_yates(iter([0, 0]), size=3) == (1, 2, 0)
    assert fisher_yates(iter([2, 1]), size=3) == (0, 1, 2)


def test_fisher_yates_is_a_bijection_from_draws_to_orders() -> None:
    # Each draw sequence (j3 in 0..3, j2 in 0..2, j1 in 0..1) gives a distinct order of 4 cards.
    orders = {
        fisher_yates(iter(js), size=4) for js in itertools.product(range(4), range(3), range(2))
    }
    assert len(orders) == 24


def test_card_names_in_messages_use_card_strings() -> None:
    assert card_str(derive_deck(HAND, SEED)[0]) == "Th"
