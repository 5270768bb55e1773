"""Write ``tests/vectors/crv1.json`` (the file is frozen, the tests recompute it).

    .venv/bin/python tests/vectors/make_crv1.py > tests/vectors/crv1.json

Written once, and once again when drawn seeds became derived (``drawn_seed``) and client
seeds committed before revealed (``seed_commitment``), before CRV1 was released. From now
on a change that alters any entry is a new scheme (CRV2), never a regenerated file.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

from riverboat.engine.cards import card_str
from riverboat.shuffle import crv1
from riverboat.shuffle.crv1 import ClientSeed, SeedOrigin

#: A seat whose client sent no seed: its locked seed is the derived one (``drawn_seed``).
DRAWN = None


def _seed(label: str) -> bytes:
    return hashlib.sha256(f"CRV1 known-answer {label}".encode("ascii")).digest()


CASES: list[dict[str, Any]] = [
    {
        "comment": "the worked example of docs/shuffle.md part II: seed 00..1f, two client seeds",
        "hand_id": "table-1-7",
        "seed": bytes(range(32)),
        "seeds": [(1, "ann", b"\x11" * 32), (3, "bob", DRAWN)],
        "reshuffles": [],
    },
    {
        "comment": "same hand, but ann's client sent no seed either: both drawn, another order",
        "hand_id": "table-1-7",
        "seed": bytes(range(32)),
        "seeds": [(1, "ann", DRAWN), (3, "bob", DRAWN)],
        "reshuffles": [],
    },
    {
        "comment": "same hand, ann's seed relabelled drawn but kept: another order again",
        "hand_id": "table-1-7",
        "seed": bytes(range(32)),
        "seeds": [(1, "ann", b"\x11" * 32, SeedOrigin.DRAWN), (3, "bob", DRAWN)],
        "reshuffles": [],
    },
    {
        "comment": "all-zero dealer seed, one seat",
        "hand_id": "x",
        "seed": bytes(32),
        "seeds": [(9, "p", bytes(32))],
        "reshuffles": [],
    },
    {
        "comment": "a draw hand with two reshuffles (deck positions of the discards)",
        "hand_id": "draw-table-12",
        "seed": _seed("draw"),
        "seeds": [(s, f"player-{s}", _seed(f"client {s}")) for s in (2, 4, 5, 6, 7, 8)],
        "reshuffles": [[3, 9, 17, 22, 40, 41, 50], [0, 51, 8]],
    },
    {
        "comment": "non-ASCII hand id and player ids (2-, 3- and 4-byte UTF-8)",
        "hand_id": "h\u00e4nd-\u2603-\U0001f0a1",
        "seed": b"\xff" * 32,
        "seeds": [(2, "\u00e9mile", _seed("emile")), (1, "\u2660\U0001f0a1", DRAWN)],
        "reshuffles": [],
    },
]


def _locked(hand_id: str, seed: bytes, entries: list[tuple[Any, ...]]) -> list[ClientSeed]:
    """The lock of a case: a client's seed as given (origin 0, unless the case relabels it),
    a drawn one derived from C and R."""
    commit = crv1.commit_deck(hand_id, seed)
    out = []
    for seat, player, value, *origin in entries:
        if value is DRAWN:
            value = crv1.drawn_seed(hand_id, commit.commitment, commit.root, seat)
            out.append(ClientSeed(seat, player, value, SeedOrigin.DRAWN))
        else:
            out.append(ClientSeed(seat, player, value, origin[0] if origin else SeedOrigin.CLIENT))
    return out


def render(case: dict[str, Any]) -> dict[str, Any]:
    seeds = _locked(case["hand_id"], case["seed"], case["seeds"])
    hand = crv1.derive_hand(case["hand_id"], case["seed"], seeds, case["reshuffles"])
    commit = hand.commit
    shown = sorted({0, 31, 32, 47, 48, 51, hand.order[0]})
    return {
        "comment": case["comment"],
        "hand_id": case["hand_id"],
        "seed": case["seed"].hex(),
        "client_seeds": [
            {
                "seat": s.seat,
                "player": s.player,
                "origin": int(s.origin),
                "seed": s.seed.hex(),
                # What the client sent before revealing (II.4); for a drawn seed, what
                # it would have been.
                "seed_commitment": crv1.seed_commitment(case["hand_id"], s.seat, s.seed).hex(),
                "drawn_seed": crv1.drawn_seed(
                    case["hand_id"], commit.commitment, commit.root, s.seat
                ).hex(),
            }
            for s in seeds
        ],
        "reshuffles": case["reshuffles"],
        "commitment": commit.commitment.hex(),
        "deck": [card_str(c) for c in commit.deck],
        "salts": [s.hex() for s in commit.salts],
        "leaf_0": commit.leaves[0].hex(),
        "root": commit.root.hex(),
        "mix_key": hand.key.hex(),
        "order": list(hand.order),
        "dealt": [card_str(c) for c in hand.dealt()],
        "openings": {str(j): commit.opening(j).to_bytes().hex() for j in shown},
    }


def main() -> None:
    doc = {
        "scheme": "CRV1",
        "spec": "docs/shuffle.md, part II",
        "encoding": (
            "hex strings are lowercase; cards are rank+suit (2..A, c d h s); 'order' lists deck "
            "positions in dealing order (pi, then each reshuffle round); 'openings' maps a deck "
            "position to its opening bytes; origin 0 = client, 1 = drawn; each client seed entry "
            "also gives its seed_commitment and the seat's drawn_seed (equal to seed when "
            "the origin is 1 and the seed was not relabelled)"
        ),
        "vectors": [render(case) for case in CASES],
    }
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
