"""CRV1: a deck every player can verify, card by card, without seeing anyone else's cards.

The dealer fixes the deck ``D`` (from its secret seed) and commits to it twice: ``C`` binds the
seed, the Merkle root ``R`` binds every position's card under its own 256-bit salt. After the
commitment is logged, the players' client seeds are locked; they fix the dealing order ``pi``,
which nobody knew while ``D`` was chosen and which needs no secret to compute. The ``i``-th card
dealt is ``D[pi[i]]``; its owner gets an :class:`Opening` (position, card, salt, Merkle path)
and checks it against ``R`` and ``pi`` alone. After the hand the seed is revealed to auditors,
who rebuild everything (:func:`derive_hand`).

Positions are public, cards are private: which deck position goes to which seat is public
arithmetic over the locked seeds; what card sits at a position only its opening tells. Pure: no
I/O, no clock; the only randomness is :func:`riverboat.shuffle.new_seed`. Every byte layout is
in ``docs/shuffle.md`` (part II); ``tests/vectors/crv1.json`` pins them.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from riverboat.engine.cards import DECK_SIZE, card_str
from riverboat.shuffle.scheme import (
    SEED_SIZE,
    ShuffleError,
    ShuffleInputError,
    encode_hand_id,
    fisher_yates,
)

SCHEME: Final = "CRV1"
CLIENT_SEED_SIZE: Final = 32
"""Bytes of each client seed: 256 bits, drawn by the client (or for it) per hand."""
SALT_SIZE: Final = 32
HASH_SIZE: Final = 32
MAX_PLAYER_BYTES: Final = 255

TAG_COMMIT: Final = b"CRV1/commit"
TAG_DECK: Final = b"CRV1/deck"
TAG_SALT: Final = b"CRV1/salt"
TAG_LEAF: Final = b"CRV1/leaf"
TAG_MIX: Final = b"CRV1/mix"
TAG_CUT: Final = b"CRV1/cut"
TAG_RESHUFFLE: Final = b"CRV1/reshuffle"
TAG_DRAWN: Final = b"CRV1/drawn"
TAG_CLIENT: Final = b"CRV1/client"

LEAF_PREFIX: Final = b"\x00"
NODE_PREFIX: Final = b"\x01"

_U32: Final = struct.Struct(">I")
_WORDS: Final = struct.Struct(">4Q")
_MAX_COUNTER: Final = 0xFFFF_FFFF


class SeedOrigin(enum.IntEnum):
    """Where a locked client seed came from (part of the mix key, so the log cannot relabel it)."""

    CLIENT = 0
    """The player's client sent it after the commitment and before the lock."""
    DRAWN = 1
    """The client sent none (or did not reveal the seed it committed to): the seed is
    :func:`drawn_seed`, fixed by the commitment before any client seed was known."""


class OpeningFailure(enum.StrEnum):
    """Why :func:`check_opening` rejected an opening."""

    MALFORMED = "malformed"
    """A field has the wrong size or range."""
    ROOT_MISMATCH = "root_mismatch"
    """The leaf and path do not climb to the committed root."""
    WRONG_POSITION = "wrong_position"
    """The opening's deck position is not the one the dealing order gives this card."""


class OpeningError(ShuffleError):
    """An opening failed to verify; :attr:`failure` says which check."""

    def __init__(self, failure: OpeningFailure, message: str) -> None:
        super().__init__(message)
        self.failure = failure


def tag(label: bytes) -> bytes:
    """A tag as hashed: one length byte, then the ASCII label (no tag is a prefix of another)."""
    return bytes((len(label),)) + label


def _check_seed(seed: bytes, size: int = SEED_SIZE, what: str = "seed") -> bytes:
    if not isinstance(seed, bytes | bytearray) or len(seed) != size:
        got = f"{len(seed)} bytes" if isinstance(seed, bytes | bytearray) else type(seed).__name__
        raise ShuffleInputError(f"{what} must be exactly {size} bytes, got {got}")
    return bytes(seed)


def _position(j: int, size: int = DECK_SIZE) -> bytes:
    if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < size:
        raise ShuffleInputError(f"deck position must be 0..{size - 1}, got {j!r}")
    return bytes((j,))


def words(key: bytes, label: bytes, hid: bytes, context: bytes = b"") -> Iterator[int]:
    """64-bit words: block c = HMAC-SHA256(key, tag(label) || hid || context || u32be(c))."""
    prefix = tag(label) + hid + context
    for counter in range(_MAX_COUNTER + 1):
        yield from _WORDS.unpack(hmac.digest(key, prefix + _U32.pack(counter), "sha256"))
    raise ShuffleError("CRV1 word stream exhausted (counter overflow)")  # ~2^34 rejections


# -- the dealer's side ------------------------------------------------------------------------


def commitment(hand_id: str, seed: bytes) -> bytes:
    """``C = SHA-256(tag("CRV1/commit") || HID || seed)``."""
    return hashlib.sha256(tag(TAG_COMMIT) + encode_hand_id(hand_id) + _check_seed(seed)).digest()


def derive_deck(hand_id: str, seed: bytes) -> tuple[int, ...]:
    """The committed deck ``D``: ``D[j]`` is the card at deck position ``j`` (0..51)."""
    return fisher_yates(words(_check_seed(seed), TAG_DECK, encode_hand_id(hand_id)))


def salt(hand_id: str, seed: bytes, position: int) -> bytes:
    """``t_j = HMAC-SHA256(seed, tag("CRV1/salt") || HID || u8(j))``: position j's salt."""
    msg = tag(TAG_SALT) + encode_hand_id(hand_id) + _position(position)
    return hmac.digest(_check_seed(seed), msg, "sha256")


def leaf_hash(hand_id: str, position: int, card: int, salt_: bytes) -> bytes:
    """``L_j = SHA-256(0x00 || tag("CRV1/leaf") || HID || u8(j) || u8(card) || t_j)``."""
    return _leaf(encode_hand_id(hand_id), position, card, salt_)


def _leaf(hid: bytes, position: int, card: int, salt_: bytes) -> bytes:
    body = _position(position) + _position(card) + _check_seed(salt_, SALT_SIZE, "salt")
    return hashlib.sha256(LEAF_PREFIX + tag(TAG_LEAF) + hid + body).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def _split(n: int) -> int:
    """RFC 6962: the largest power of two smaller than n (n >= 2)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962 Merkle Tree Hash over leaf hashes already computed (``L_j``)."""
    if not leaves:
        raise ShuffleInputError("a Merkle tree needs at least one leaf")
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return _node(merkle_root(leaves[:k]), merkle_root(leaves[k:]))


def audit_path(leaves: Sequence[bytes], index: int) -> tuple[bytes, ...]:
    """RFC 6962 audit path of leaf ``index``, nearest sibling first."""
    if len(leaves) <= 1:
        return ()
    k = _split(len(leaves))
    if index < k:
        return (*audit_path(leaves[:k], index), merkle_root(leaves[k:]))
    return (*audit_path(leaves[k:], index - k), merkle_root(leaves[:k]))


def _tree(leaves: Sequence[bytes]) -> tuple[bytes, list[tuple[bytes, ...]]]:
    """The root and every leaf's audit path at once (each node hashed once)."""
    if len(leaves) == 1:
        return leaves[0], [()]
    k = _split(len(leaves))
    left, left_paths = _tree(leaves[:k])
    right, right_paths = _tree(leaves[k:])
    paths = [(*p, right) for p in left_paths] + [(*p, left) for p in right_paths]
    return _node(left, right), paths


def root_from_path(leaf: bytes, index: int, size: int, path: Sequence[bytes]) -> bytes | None:
    """Climb ``path`` from ``leaf`` at ``index`` of a ``size``-leaf tree (RFC 9162 2.1.3.2).

    Returns the root it leads to, or None if the path has the wrong length for the index.
    """
    if not 0 <= index < size:
        return None
    fn, sn = index, size - 1
    node = leaf
    for sibling in path:
        if sn == 0:
            return None  # path longer than the tree is deep
        if fn & 1 or fn == sn:
            node = _node(sibling, node)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            node = _node(node, sibling)
        fn >>= 1
        sn >>= 1
    return node if sn == 0 else None


@dataclass(frozen=True, slots=True)
class Opening:
    """What proves one card: its deck position, the card, the position's salt, the path to R."""

    position: int
    card: int
    salt: bytes
    path: tuple[bytes, ...]

    def to_bytes(self) -> bytes:
        """``u8(j) || u8(card) || salt(32) || u8(len(path)) || path hashes (32 each)``."""
        return (
            bytes((self.position, self.card))
            + self.salt
            + bytes((len(self.path),))
            + b"".join(self.path)
        )

    @classmethod
    def from_bytes(cls, raw: bytes) -> Opening:
        """Parse :meth:`to_bytes`; raises :class:`OpeningError` (MALFORMED) on a bad layout."""
        if len(raw) < 2 + SALT_SIZE + 1:
            raise OpeningError(OpeningFailure.MALFORMED, f"opening of {len(raw)} bytes is short")
        count = raw[2 + SALT_SIZE]
        body = raw[3 + SALT_SIZE :]
        if len(body) != count * HASH_SIZE:
            raise OpeningError(
                OpeningFailure.MALFORMED,
                f"opening says {count} path hashes but carries {len(body)} bytes of them",
            )
        path = tuple(body[i : i + HASH_SIZE] for i in range(0, len(body), HASH_SIZE))
        return cls(raw[0], raw[1], bytes(raw[2 : 2 + SALT_SIZE]), path)


@dataclass(frozen=True, slots=True)
class Commitment:
    """What the dealer publishes before the deal, and keeps to open positions later."""

    hand_id: str
    commitment: bytes
    root: bytes
    deck: tuple[int, ...]
    salts: tuple[bytes, ...]
    leaves: tuple[bytes, ...]
    paths: tuple[tuple[bytes, ...], ...]
    """Every position's audit path (equal to :func:`audit_path` of the leaves)."""

    def opening(self, position: int) -> Opening:
        """The opening of deck position ``position``."""
        _position(position)
        return Opening(position, self.deck[position], self.salts[position], self.paths[position])


def commit_deck(hand_id: str, seed: bytes) -> Commitment:
    """Everything the dealer derives from its seed: C, D, the salts, the leaves and R."""
    hid = encode_hand_id(hand_id)
    key = _check_seed(seed)
    deck = fisher_yates(words(key, TAG_DECK, hid))
    salts = tuple(
        hmac.digest(key, tag(TAG_SALT) + hid + bytes((j,)), "sha256") for j in range(DECK_SIZE)
    )
    leaves = tuple(_leaf(hid, j, deck[j], salts[j]) for j in range(DECK_SIZE))
    root, paths = _tree(leaves)
    c = commitment(hand_id, key)
    return Commitment(hand_id, c, root, deck, salts, leaves, tuple(paths))


# -- client seeds and the dealing order -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClientSeed:
    """One seat's locked seed."""

    seat: int
    player: str
    seed: bytes
    origin: SeedOrigin = SeedOrigin.CLIENT

    def encode(self) -> bytes:
        """``u8(seat) || u8(len(P)) || P || u8(origin) || seed(32)``, P the player id in UTF-8."""
        raw = self.player.encode("utf-8")
        if not 1 <= len(raw) <= MAX_PLAYER_BYTES:
            raise ShuffleInputError(f"player id must be 1..{MAX_PLAYER_BYTES} bytes of UTF-8")
        if isinstance(self.seat, bool) or not 1 <= self.seat <= 255:
            raise ShuffleInputError(f"seat must be 1..255, got {self.seat!r}")
        seed = _check_seed(self.seed, CLIENT_SEED_SIZE, "client seed")
        return bytes((self.seat, len(raw))) + raw + bytes((int(self.origin),)) + seed


def drawn_seed(hand_id: str, commitment_: bytes, root: bytes, seat: int) -> bytes:
    """``SHA-256(tag("CRV1/drawn") || HID || C || R || u8(seat))``: the seed locked for a seat
    whose client sent none.

    Derived, not drawn at random: it is fixed once C and R are, before any client seed
    exists, so whoever runs the table cannot pick it after seeing the others' seeds (or the
    deck), and anyone holding C and R checks it.
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 255:
        raise ShuffleInputError(f"seat must be 1..255, got {seat!r}")
    c = _check_seed(commitment_, HASH_SIZE, "commitment")
    r = _check_seed(root, HASH_SIZE, "root")
    msg = tag(TAG_DRAWN) + encode_hand_id(hand_id) + c + r + bytes((seat,))
    return hashlib.sha256(msg).digest()


def seed_commitment(hand_id: str, seat: int, seed: bytes) -> bytes:
    """``SHA-256(tag("CRV1/client") || HID || u8(seat) || seed)``: a client's commitment to
    its seed, sent (and locked) before any seed is revealed."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 255:
        raise ShuffleInputError(f"seat must be 1..255, got {seat!r}")
    body = bytes((seat,)) + _check_seed(seed, CLIENT_SEED_SIZE, "client seed")
    return hashlib.sha256(tag(TAG_CLIENT) + encode_hand_id(hand_id) + body).digest()


def mix_key(hand_id: str, commitment_: bytes, root: bytes, seeds: Iterable[ClientSeed]) -> bytes:
    """``k = SHA-256(tag("CRV1/mix") || HID || C || R || u8(n) || entries by seat)``.

    C and R are inside, so the locked seeds mean something for this commitment only.
    """
    ordered = sorted(seeds, key=lambda s: s.seat)
    if len({s.seat for s in ordered}) != len(ordered):
        raise ShuffleInputError("two client seeds for one seat")
    if not 1 <= len(ordered) <= 255:
        raise ShuffleInputError("a hand locks 1..255 client seeds")
    body = b"".join(s.encode() for s in ordered)
    c = _check_seed(commitment_, HASH_SIZE, "commitment")
    r = _check_seed(root, HASH_SIZE, "root")
    msg = tag(TAG_MIX) + encode_hand_id(hand_id) + c + r + bytes((len(ordered),)) + body
    return hashlib.sha256(msg).digest()


def dealing_order(hand_id: str, key: bytes) -> tuple[int, ...]:
    """``pi``: Fisher-Yates of 0..51 over words(k, "CRV1/cut"); card i dealt is ``D[pi[i]]``."""
    return fisher_yates(
        words(_check_seed(key, HASH_SIZE, "mix key"), TAG_CUT, encode_hand_id(hand_id))
    )


def reshuffle_order(
    hand_id: str, seed: bytes, key: bytes, round_: int, positions: Sequence[int]
) -> tuple[int, ...]:
    """A draw's reshuffle: the deck positions of the discards, in their new dealing order.

    Sort the positions; Fisher-Yates over their indices with words(seed, "CRV1/reshuffle",
    context = u32be(round) || k). Keyed by the dealer's seed: a player who threw the cards away
    must not learn where they go; bound to k like the rest of the hand.
    """
    if isinstance(round_, bool) or not isinstance(round_, int) or not 1 <= round_ <= _MAX_COUNTER:
        raise ShuffleInputError(f"reshuffle round must be 1..{_MAX_COUNTER}, got {round_!r}")
    ordered = sorted(positions)
    for j in ordered:
        _position(j)
    if not 1 <= len(ordered) <= DECK_SIZE or len(set(ordered)) != len(ordered):
        raise ShuffleInputError("a reshuffle takes 1-52 distinct deck positions")
    context = _U32.pack(round_) + _check_seed(key, HASH_SIZE, "mix key")
    stream = words(_check_seed(seed), TAG_RESHUFFLE, encode_hand_id(hand_id), context)
    return tuple(ordered[i] for i in fisher_yates(stream, len(ordered)))


# -- checking ---------------------------------------------------------------------------------


def check_opening(
    hand_id: str, root: bytes, opening: Opening, *, expected_position: int | None = None
) -> None:
    """Check one opening against the committed root (and, if given, the position the dealing
    order says this card must come from). Raises :class:`OpeningError`; returns None if good.

    Needs no secret: the player's client calls it on every card it receives.
    """
    try:
        leaf = leaf_hash(hand_id, opening.position, opening.card, opening.salt)
        if any(len(h) != HASH_SIZE for h in opening.path) or len(root) != HASH_SIZE:
            raise ShuffleInputError("hashes must be 32 bytes")
    except ShuffleInputError as exc:
        raise OpeningError(OpeningFailure.MALFORMED, str(exc)) from None
    climbed = root_from_path(leaf, opening.position, DECK_SIZE, opening.path)
    if climbed is None or not hmac.compare_digest(climbed, root):
        raise OpeningError(
            OpeningFailure.ROOT_MISMATCH,
            f"{card_str(opening.card)} at deck position {opening.position} does not open the "
            f"committed root {root.hex()[:16]}...",
        )
    if expected_position is not None and opening.position != expected_position:
        raise OpeningError(
            OpeningFailure.WRONG_POSITION,
            f"{card_str(opening.card)} comes from deck position {opening.position}, but the "
            f"locked seeds put position {expected_position} here",
        )


@dataclass(frozen=True, slots=True)
class HandDerivation:
    """A whole hand re-derived from the revealed seed and the locked client seeds."""

    commit: Commitment
    key: bytes
    order: tuple[int, ...]
    """Deck positions in dealing order: ``pi`` followed by each reshuffle's order."""

    def dealt(self) -> tuple[int, ...]:
        """The cards in the order dealt (``D[order[i]]``)."""
        return tuple(self.commit.deck[j] for j in self.order)


def derive_hand(
    hand_id: str,
    seed: bytes,
    seeds: Iterable[ClientSeed],
    reshuffles: Sequence[Sequence[int]] = (),
) -> HandDerivation:
    """Re-derive a hand: the commitment, ``k``, and the positions in dealing order.

    ``reshuffles``: for each reshuffle round (1, 2, ...), the deck positions of the discards.
    """
    commit = commit_deck(hand_id, seed)
    key = mix_key(hand_id, commit.commitment, commit.root, seeds)
    order = list(dealing_order(hand_id, key))
    for round_, positions in enumerate(reshuffles, start=1):
        order += reshuffle_order(hand_id, seed, key, round_, positions)
    return HandDerivation(commit, key, tuple(order))


__all__ = [
    "CLIENT_SEED_SIZE",
    "SCHEME",
    "ClientSeed",
    "Commitment",
    "HandDerivation",
    "Opening",
    "OpeningError",
    "OpeningFailure",
    "SeedOrigin",
    "audit_path",
    "check_opening",
    "commit_deck",
    "commitment",
    "dealing_order",
    "derive_deck",
    "derive_hand",
    "drawn_seed",
    "leaf_hash",
    "merkle_root",
    "mix_key",
    "reshuffle_order",
    "root_from_path",
    "salt",
    "seed_commitment",
    "tag",
]
