"""Known-answer vectors for RBS1, shipped as ``vectors.json`` beside this module.

The file was produced once by :func:`render_vectors` from :data:`DEFAULT_CASES` and is frozen:
tests recompute every entry, so any change to the derivation fails them. An implementation in
another language can check itself against the same file. Non-ASCII hand ids are written as
JSON ``\\u`` escapes so no editor can silently re-normalise them.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from riverboat.engine.cards import card_str, parse_cards
from riverboat.shuffle.scheme import SCHEME, commitment, derive_deck

VECTORS_FILE: Final = "vectors.json"


@dataclass(frozen=True, slots=True)
class KnownAnswer:
    """One vector: inputs (hand id, seed) and the outputs RBS1 must give for them."""

    hand_id: str
    seed: bytes
    commitment: bytes
    deck: tuple[int, ...]
    comment: str = ""


def _labelled_seed(n: int) -> bytes:
    return hashlib.sha256(f"RBS1 known-answer seed {n}".encode("ascii")).digest()


DEFAULT_CASES: Final[tuple[tuple[str, bytes, str], ...]] = (
    (
        "3f2b8c1e-6d4a-4b7e-9c2f-1a5d7e9b0c34",
        bytes(range(32)),
        "the worked example in docs/shuffle.md; seed is bytes 00..1f",
    ),
    ("hand-1", bytes(32), "all-zero seed"),
    ("f47ac10b-58cc-4372-a567-0e02b2c3d479", b"\xff" * 32, "all-ones seed"),
    ("table-7/hand-000042", _labelled_seed(3), "seed = SHA-256('RBS1 known-answer seed 3')"),
    ("table-7/hand-000043", _labelled_seed(3), "same seed as the previous vector, next hand id"),
    (
        "h\u00e4nd-\u2603-\U0001f0a1",
        _labelled_seed(5),
        "non-ASCII hand id: 2-, 3- and 4-byte UTF-8",
    ),
    ("x", _labelled_seed(6), "one-byte hand id"),
    ("H" * 256, _labelled_seed(7), "longest accepted hand id (256 bytes)"),
)
"""(hand id, seed, comment) for each vector in ``vectors.json``."""


def make_vector(hand_id: str, seed: bytes, comment: str = "") -> KnownAnswer:
    """Compute the vector for ``(hand_id, seed)`` with this implementation."""
    return KnownAnswer(
        hand_id, seed, commitment(hand_id, seed), derive_deck(hand_id, seed), comment
    )


def render_vectors(vectors: Sequence[KnownAnswer]) -> str:
    """The canonical ``vectors.json`` text for ``vectors`` (one deck per line, ASCII only)."""
    entries = []
    for v in vectors:
        fields = [
            f'      "hand_id": {json.dumps(v.hand_id)}',
            f'      "seed": "{v.seed.hex()}"',
            f'      "commitment": "{v.commitment.hex()}"',
            f'      "deck": {json.dumps([card_str(c) for c in v.deck])}',
        ]
        if v.comment:
            fields.insert(0, f'      "comment": {json.dumps(v.comment)}')
        entries.append("    {\n" + ",\n".join(fields) + "\n    }")
    header = {
        "scheme": SCHEME,
        "spec": "docs/shuffle.md",
        "encoding": "seed and commitment are lowercase hex; deck is top first (index 0 dealt "
        "first), cards as rank 23456789TJQKA + suit cdhs",
    }
    head = ",\n".join(f"  {json.dumps(k)}: {json.dumps(val)}" for k, val in header.items())
    return "{\n" + head + ',\n  "vectors": [\n' + ",\n".join(entries) + "\n  ]\n}\n"


def parse_vectors(text: str) -> tuple[KnownAnswer, ...]:
    """Parse ``vectors.json`` text (as written by :func:`render_vectors`)."""
    document = json.loads(text)
    if document.get("scheme") != SCHEME:
        raise ValueError(f"vectors are for scheme {document.get('scheme')!r}, not {SCHEME}")
    return tuple(
        KnownAnswer(
            hand_id=entry["hand_id"],
            seed=bytes.fromhex(entry["seed"]),
            commitment=bytes.fromhex(entry["commitment"]),
            deck=parse_cards(entry["deck"]),
            comment=entry.get("comment", ""),
        )
        for entry in document["vectors"]
    )


def vectors_text() -> str:
    """The raw text of the packaged ``vectors.json``."""
    return (
        importlib.resources.files("riverboat.shuffle")
        .joinpath(VECTORS_FILE)
        .read_text(encoding="utf-8")
    )


def load_vectors() -> tuple[KnownAnswer, ...]:
    """The packaged known-answer vectors."""
    return parse_vectors(vectors_text())
