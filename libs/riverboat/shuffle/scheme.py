"""RBS1: the committed, seed-derived deck shuffle.

Everything here is deterministic except :func:`new_seed`. Given a hand id and a 32-byte seed,
:func:`derive_deck` always yields the same deck and :func:`commitment` the same 32-byte hash, so
the dealer can publish the commitment before the hand and an auditor holding the seed can later
rebuild the deck and check every dealt card with :func:`verify`.

The byte layouts are specified in ``docs/shuffle.md``; any change here that alters an output is
a new scheme, not a fix, and the known-answer vectors in ``vectors.json`` will say so.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, Sequence
from typing import Final

from riverboat.engine.cards import DECK_SIZE, card_str

SCHEME: Final = "RBS1"
SEED_SIZE: Final = 32
"""Bytes of seed per hand: 256 bits, above the log2(52!) ~ 225.6 bits a deck needs."""
COMMITMENT_SIZE: Final = 32
MAX_HAND_ID_BYTES: Final = 256
"""Longest accepted hand id, in UTF-8 bytes. Ids are UUID-sized; the cap keeps inputs sane."""

COMMIT_TAG: Final = b"RBS1/commit"
DECK_TAG: Final = b"RBS1/deck"
RESHUFFLE_TAG: Final = b"RBS1/reshuffle"

WORD_BITS: Final = 64
_WORDS_PER_BLOCK: Final = 4
_MAX_COUNTER: Final = 0xFFFF_FFFF
_BLOCK_WORDS: Final = struct.Struct(">4Q")
_U32: Final = struct.Struct(">I")


class ShuffleError(Exception):
    """Base class of the errors raised by :mod:`riverboat.shuffle`."""


class ShuffleInputError(ShuffleError, ValueError):
    """A hand id or seed handed to the derivation is malformed."""


class VerificationFailure(enum.StrEnum):
    """Which check of :func:`verify` failed."""

    MALFORMED_INPUT = "malformed_input"
    """The hand id, seed or commitment is not of the required type or size."""
    SEED_MISMATCH = "seed_mismatch"
    """SHA-256 over (tag, hand id, seed) is not the published commitment."""
    TOO_MANY_CARDS = "too_many_cards"
    """More than 52 dealt cards were given."""
    CARD_MISMATCH = "card_mismatch"
    """A dealt card differs from the card at the same position of the derived deck."""


class ShuffleVerificationError(ShuffleError):
    """A hand failed verification; :attr:`failure` says which check, the message says how.

    For :attr:`VerificationFailure.CARD_MISMATCH`, :attr:`position` is the 0-based deck index
    (0 = first card dealt) and :attr:`dealt` / :attr:`expected` are the two cards.
    """

    def __init__(
        self,
        failure: VerificationFailure,
        message: str,
        *,
        position: int | None = None,
        dealt: object = None,
        expected: int | None = None,
    ) -> None:
        super().__init__(message)
        self.failure = failure
        self.position = position
        self.dealt = dealt
        self.expected = expected


def new_seed() -> bytes:
    """A fresh 32-byte seed from the operating system's CSPRNG. The scheme's only randomness."""
    return secrets.token_bytes(SEED_SIZE)


def encode_hand_id(hand_id: str) -> bytes:
    """The hand id as hashed everywhere: 4-byte big-endian length of its UTF-8, then the UTF-8.

    The length prefix keeps the id from running into the field after it. The text is not
    normalised: the exact code points given are what is hashed.
    """
    if not isinstance(hand_id, str):
        raise ShuffleInputError(f"hand id must be a str, got {type(hand_id).__name__}")
    try:
        raw = hand_id.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates have no UTF-8 form
        raise ShuffleInputError(f"hand id {hand_id!r} is not encodable as UTF-8") from exc
    if not 0 < len(raw) <= MAX_HAND_ID_BYTES:
        raise ShuffleInputError(
            f"hand id must be 1..{MAX_HAND_ID_BYTES} bytes of UTF-8, got {len(raw)}"
        )
    return _U32.pack(len(raw)) + raw


def _check_seed(seed: bytes) -> bytes:
    if not isinstance(seed, bytes | bytearray) or len(seed) != SEED_SIZE:
        what = f"{len(seed)} bytes" if isinstance(seed, bytes | bytearray) else type(seed).__name__
        raise ShuffleInputError(f"seed must be exactly {SEED_SIZE} bytes, got {what}")
    return bytes(seed)


def commitment(hand_id: str, seed: bytes) -> bytes:
    """``SHA-256(b"RBS1/commit" || u32be(len(id)) || id || seed)``: published before the deal."""
    return hashlib.sha256(COMMIT_TAG + encode_hand_id(hand_id) + _check_seed(seed)).digest()


def word_stream(hand_id: str, seed: bytes) -> Iterator[int]:
    """The 64-bit words that drive the shuffle, in order.

    Block ``c`` is ``HMAC-SHA256(seed, b"RBS1/deck" || u32be(len(id)) || id || u32be(c))`` for
    c = 0, 1, 2, ...; each 32-byte block is read as four big-endian unsigned 64-bit words.
    """
    return _words(_check_seed(seed), DECK_TAG + encode_hand_id(hand_id))


def _words(key: bytes, prefix: bytes) -> Iterator[int]:
    for counter in range(_MAX_COUNTER + 1):
        block = hmac.digest(key, prefix + _U32.pack(counter), "sha256")
        yield from _BLOCK_WORDS.unpack(block)
    # Unreachable in practice: a deck needs ~13 blocks; rejecting 2^34 words has odds ~ 0.
    raise ShuffleError("RBS1 word stream exhausted (counter overflow)")


def draw(m: int, words: Iterator[int], *, word_bits: int = WORD_BITS) -> int:
    """A uniform integer in ``0..m-1`` from ``words``, by rejection sampling.

    Words at or above ``limit = 2^word_bits - (2^word_bits mod m)`` are skipped, so every
    residue has exactly ``limit / m`` accepted preimages and ``w mod m`` carries no bias.
    ``word_bits`` is 64 in RBS1; smaller values exist so the rule can be tested exhaustively.
    """
    if m < 1:
        raise ValueError(f"draw bound must be positive, got {m}")
    span = 1 << word_bits
    limit = span - span % m
    for word in words:
        if word < limit:
            return word % m
    raise ShuffleError("word stream ended during a draw")


def fisher_yates(words: Iterator[int], size: int = DECK_SIZE) -> tuple[int, ...]:
    """Shuffle ``[0, 1, ..., size-1]``: for i = size-1 down to 1, swap i with draw(i + 1)."""
    deck = list(range(size))
    for i in range(size - 1, 0, -1):
        j = draw(i + 1, words)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def derive_deck(hand_id: str, seed: bytes) -> tuple[int, ...]:
    """The hand's 52-card deck, top first: index 0 is the first card dealt (burns included)."""
    return fisher_yates(word_stream(hand_id, seed))


def derive_reshuffle(
    hand_id: str, seed: bytes, round_: int, cards: Sequence[int]
) -> tuple[int, ...]:
    """Round ``round_`` (1, 2, ...) of a hand's mid-hand reshuffle of ``cards`` (draw's
    discards when the stub runs out), top first; docs/shuffle.md section 5a.

    The cards are sorted first, so the answer depends only on which cards are reshuffled, not
    on how they were listed. Words: block ``c`` is ``HMAC-SHA256(seed, b"RBS1/reshuffle" ||
    u32be(len(id)) || id || u32be(round) || u32be(c))``; then Fisher-Yates over the sorted
    cards' positions, exactly as for the deck.
    """
    key = _check_seed(seed)
    if isinstance(round_, bool) or not isinstance(round_, int) or not 1 <= round_ <= _MAX_COUNTER:
        raise ShuffleInputError(f"reshuffle round must be 1..{_MAX_COUNTER}, got {round_!r}")
    ordered = sorted(cards)
    if not 1 <= len(ordered) <= DECK_SIZE or len(set(ordered)) != len(ordered):
        raise ShuffleInputError("a reshuffle takes 1-52 distinct cards")
    if any(
        isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < DECK_SIZE for c in ordered
    ):
        raise ShuffleInputError("a reshuffle takes cards 0..51")
    words = _words(key, RESHUFFLE_TAG + encode_hand_id(hand_id) + _U32.pack(round_))
    return tuple(ordered[i] for i in fisher_yates(words, len(ordered)))


def verify(
    hand_id: str,
    seed: bytes,
    commitment: bytes,
    dealt: Sequence[int] | None = None,
) -> None:
    """Check a revealed seed against its commitment and, optionally, the cards dealt.

    ``dealt`` lists every card taken from the deck in the order taken, burns included; it is
    compared with the start of :func:`derive_deck`. Returns ``None`` when everything matches,
    otherwise raises :class:`ShuffleVerificationError` naming the first failed check.
    """
    try:
        expected_commitment = _commit(hand_id, seed)
    except ShuffleInputError as exc:
        raise ShuffleVerificationError(VerificationFailure.MALFORMED_INPUT, str(exc)) from exc
    if not isinstance(commitment, bytes | bytearray) or len(commitment) != COMMITMENT_SIZE:
        raise ShuffleVerificationError(
            VerificationFailure.MALFORMED_INPUT,
            f"commitment must be {COMMITMENT_SIZE} bytes of SHA-256 output",
        )
    if not hmac.compare_digest(expected_commitment, bytes(commitment)):
        raise ShuffleVerificationError(
            VerificationFailure.SEED_MISMATCH,
            f"seed does not match the commitment for hand {hand_id!r}: "
            f"SHA-256 gives {expected_commitment.hex()}, committed was {bytes(commitment).hex()}",
        )
    if dealt is None:
        return
    if len(dealt) > DECK_SIZE:
        raise ShuffleVerificationError(
            VerificationFailure.TOO_MANY_CARDS,
            f"{len(dealt)} dealt cards given but a deck holds {DECK_SIZE}",
        )
    deck = derive_deck(hand_id, seed)
    for position, (card, want) in enumerate(zip(dealt, deck, strict=False)):
        if card != want:
            raise ShuffleVerificationError(
                VerificationFailure.CARD_MISMATCH,
                f"dealt card #{position} (0-based deck position; card {position + 1} dealt) is "
                f"{_show(card)} but the deck says {card_str(want)}",
                position=position,
                dealt=card,
                expected=want,
            )


# ``verify`` takes a parameter named ``commitment``, which shadows the function inside it.
_commit = commitment


def _show(card: object) -> str:
    if isinstance(card, int) and not isinstance(card, bool) and 0 <= card < DECK_SIZE:
        return card_str(card)
    return f"{card!r} (not a card)"
