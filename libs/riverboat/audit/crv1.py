"""The auditor's own CRV1 (docs/shuffle.md part II), written from the document alone.

Deliberately not :mod:`riverboat.shuffle.crv1` (the dealer's code), for the reason
:mod:`riverboat.audit.rbs1` gives; both are pinned to ``tests/vectors/crv1.json``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "SCHEME",
    "Hand",
    "client_commitment",
    "climb",
    "dealing_order",
    "derive",
    "drawn",
    "parse_opening",
]

SCHEME: Final = "CRV1"


def _t(label: str) -> bytes:
    return bytes([len(label)]) + label.encode("ascii")


def _hid(hand_id: str) -> bytes:
    raw = hand_id.encode("utf-8")
    if not 0 < len(raw) <= 256:
        raise ValueError(f"hand id of {len(raw)} bytes; CRV1 takes 1..256")
    return len(raw).to_bytes(4, "big") + raw


def _stream(key: bytes, label: str, hid: bytes, context: bytes = b"") -> Iterator[int]:
    for ctr in range(1 << 32):
        raw = hmac.digest(key, _t(label) + hid + context + ctr.to_bytes(4, "big"), "sha256")
        for k in range(4):
            yield int.from_bytes(raw[8 * k : 8 * k + 8], "big")


def _shuffle(stream: Iterator[int], n: int) -> list[int]:
    out = list(range(n))
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = (1 << 64) - (1 << 64) % m
        w = next(stream)
        while w >= limit:
            w = next(stream)
        j = w % m
        out[i], out[j] = out[j], out[i]
    return out


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _mth(leaves: Sequence[bytes]) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return _node(_mth(leaves[:k]), _mth(leaves[k:]))


def _path(leaves: Sequence[bytes], m: int) -> list[bytes]:
    if len(leaves) == 1:
        return []
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    if m < k:
        return [*_path(leaves[:k], m), _mth(leaves[k:])]
    return [*_path(leaves[k:], m - k), _mth(leaves[:k])]


def drawn(hand_id: str, commitment: bytes, root: bytes, seat: int) -> bytes:
    """The seed a lock must hold for a seat whose client sent none (II.4)."""
    return hashlib.sha256(
        _t("CRV1/drawn") + _hid(hand_id) + commitment + root + bytes([seat])
    ).digest()


def client_commitment(hand_id: str, seat: int, seed: bytes) -> bytes:
    """What a client commits to before revealing ``seed`` (II.4)."""
    return hashlib.sha256(_t("CRV1/client") + _hid(hand_id) + bytes([seat]) + seed).digest()


def leaf(hand_id: str, position: int, card: int, salt: bytes) -> bytes:
    """L_j (II.3)."""
    body = bytes([position, card]) + salt
    return hashlib.sha256(b"\x00" + _t("CRV1/leaf") + _hid(hand_id) + body).digest()


def climb(hand_id: str, opening: bytes) -> tuple[int, int, bytes] | None:
    """(position, card, root the opening climbs to), or None if it is malformed (II.5).

    The path is climbed by the tree's shape (RFC 6962 split of 52 leaves), top-down: a path
    whose length does not fit the position is malformed.
    """
    parsed = parse_opening(opening)
    if parsed is None:
        return None
    position, card, salt, path = parsed
    node = leaf(hand_id, position, card, salt)
    # The siblings from the root down: split n at the largest power of two below it.
    lo, n, sides = 0, 52, []
    while n > 1:
        k = 1 << ((n - 1).bit_length() - 1)
        if position - lo < k:
            sides.append("left")
            n = k
        else:
            sides.append("right")
            lo, n = lo + k, n - k
    if len(sides) != len(path):
        return None
    for side, sibling in zip(reversed(sides), path, strict=True):
        node = _node(node, sibling) if side == "left" else _node(sibling, node)
    return position, card, node


def parse_opening(raw: bytes) -> tuple[int, int, bytes, list[bytes]] | None:
    """(position, card, salt, path) of an opening's bytes, None if malformed."""
    if len(raw) < 35 or raw[0] > 51 or raw[1] > 51:
        return None
    count = raw[34]
    body = raw[35:]
    if len(body) != 32 * count:
        return None
    return raw[0], raw[1], raw[2:34], [body[i : i + 32] for i in range(0, len(body), 32)]


def _mix(hid: bytes, c: bytes, root: bytes, seeds: Iterable[tuple[int, str, bytes, int]]) -> bytes:
    """k (II.4): raises ValueError on a malformed lock."""
    ordered = sorted(seeds)
    if not 1 <= len(ordered) <= 255 or len({s[0] for s in ordered}) != len(ordered):
        raise ValueError("a lock holds one seed per seat, for 1..255 seats")
    entries = b""
    for seat, player, client, origin in ordered:
        p = player.encode("utf-8")
        if len(client) != 32 or not 1 <= seat <= 255 or not 1 <= len(p) <= 255:
            raise ValueError(f"seat {seat}: a malformed locked seed")
        entries += bytes([seat, len(p)]) + p + bytes([origin]) + client
    return hashlib.sha256(
        _t("CRV1/mix") + hid + c + root + bytes([len(ordered)]) + entries
    ).digest()


def dealing_order(
    hand_id: str, commitment: bytes, root: bytes, seeds: Iterable[tuple[int, str, bytes, int]]
) -> tuple[int, ...]:
    """pi, the dealing order a lock gives (II.4), with no secret: what a player's client
    checks each card's deck position against. Raises ValueError on a malformed lock."""
    seeds = tuple(seeds)
    if len(commitment) != 32 or len(root) != 32:
        raise ValueError("C and R are 32 bytes each")
    if any(origin not in (0, 1) for *_, origin in seeds):
        raise ValueError("a seed's origin is 0 (its client's) or 1 (derived)")
    hid = _hid(hand_id)
    return tuple(_shuffle(_stream(_mix(hid, commitment, root, seeds), "CRV1/cut", hid), 52))


@dataclass(frozen=True, slots=True)
class Hand:
    """A hand re-derived from the revealed seed and the locked seeds."""

    commitment: bytes
    root: bytes
    deck: tuple[int, ...]
    key: bytes
    order: tuple[int, ...]

    def opening(self, hand_id: str, seed: bytes, position: int) -> bytes:
        """The opening of ``position`` (II.5)."""
        hid = _hid(hand_id)
        salts = [hmac.digest(seed, _t("CRV1/salt") + hid + bytes([j]), "sha256") for j in range(52)]
        leaves = [leaf(hand_id, j, self.deck[j], salts[j]) for j in range(52)]
        path = _path(leaves, position)
        head = bytes([position, self.deck[position]]) + salts[position] + bytes([len(path)])
        return head + b"".join(path)


def derive(
    hand_id: str,
    seed: bytes,
    seeds: Iterable[tuple[int, str, bytes, int]],
    reshuffled: Sequence[Iterable[int]] = (),
) -> Hand:
    """C, R, D, k and the dealing order (pi, then each reshuffle of the given cards); with
    no seeds, C, R and D only."""
    if len(seed) != 32:
        raise ValueError(f"a seed is 32 bytes, not {len(seed)}")
    hid = _hid(hand_id)
    deck = _shuffle(_stream(seed, "CRV1/deck", hid), 52)
    salts = [hmac.digest(seed, _t("CRV1/salt") + hid + bytes([j]), "sha256") for j in range(52)]
    root = _mth([leaf(hand_id, j, deck[j], salts[j]) for j in range(52)])
    c = hashlib.sha256(_t("CRV1/commit") + hid + seed).digest()
    ordered = sorted(seeds)
    if not ordered:  # no lock (a hand voided before it): the commitment and root only
        return Hand(c, root, tuple(deck), b"", ())
    k = _mix(hid, c, root, ordered)
    order = _shuffle(_stream(k, "CRV1/cut", hid), 52)
    where = {card: j for j, card in enumerate(deck)}
    for r, cards in enumerate(reshuffled, start=1):
        srt = sorted(where[c] for c in cards)
        ctx = r.to_bytes(4, "big") + k
        order += [srt[i] for i in _shuffle(_stream(seed, "CRV1/reshuffle", hid, ctx), len(srt))]
    return Hand(c, root, tuple(deck), k, tuple(order))
