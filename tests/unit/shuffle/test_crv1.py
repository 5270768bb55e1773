"""CRV1 (docs/shuffle.md part II): known answers, an implementation written from the document
alone, and openings that fail on any one flipped bit."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riverboat.engine.cards import card_str, parse_card
from riverboat.shuffle import crv1
from riverboat.shuffle.crv1 import ClientSeed, Opening, OpeningError, OpeningFailure, SeedOrigin

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "crv1.json"


def _load() -> list[dict[str, Any]]:
    doc = json.loads(VECTORS.read_text(encoding="ascii"))
    assert doc["scheme"] == "CRV1"
    return list(doc["vectors"])


# -- an independent implementation, from docs/shuffle.md part II only ------------------------


def _t(label: str) -> bytes:
    return bytes([len(label)]) + label.encode("ascii")


def _hid(hand_id: str) -> bytes:
    raw = hand_id.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def _stream(key: bytes, label: str, hid: bytes, context: bytes = b"") -> Any:
    ctr = 0
    while True:
        block = hmac.new(key, _t(label) + hid + context + ctr.to_bytes(4, "big"), "sha256")
        raw = block.digest()
        for k in range(4):
            yield int.from_bytes(raw[8 * k : 8 * k + 8], "big")
        ctr += 1


def _shuffle(stream: Any, n: int) -> list[int]:
    out = list(range(n))
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = 2**64 - (2**64 % m)
        w = next(stream)
        while w >= limit:
            w = next(stream)
        j = w % m
        out[i], out[j] = out[j], out[i]
    return out


def _mth(leaves: list[bytes]) -> bytes:
    # Bottom-up by RFC 6962's definition, written differently from the library's recursion.
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + _mth(leaves[:k]) + _mth(leaves[k:])).digest()


def _path(leaves: list[bytes], m: int) -> list[bytes]:
    if len(leaves) == 1:
        return []
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    if m < k:
        return [*_path(leaves[:k], m), _mth(leaves[k:])]
    return [*_path(leaves[k:], m - k), _mth(leaves[:k])]


def _independent(vector: dict[str, Any]) -> dict[str, Any]:
    hid = _hid(vector["hand_id"])
    s = bytes.fromhex(vector["seed"])
    deck = _shuffle(_stream(s, "CRV1/deck", hid), 52)
    salts = [hmac.new(s, _t("CRV1/salt") + hid + bytes([j]), "sha256").digest() for j in range(52)]
    leaves = [
        hashlib.sha256(b"\x00" + _t("CRV1/leaf") + hid + bytes([j, deck[j]]) + salts[j]).digest()
        for j in range(52)
    ]
    root = _mth(leaves)
    c = hashlib.sha256(_t("CRV1/commit") + hid + s).digest()
    entries = b""
    seeds = sorted(vector["client_seeds"], key=lambda e: e["seat"])
    for e in seeds:
        p = e["player"].encode("utf-8")
        entries += bytes([e["seat"], len(p)]) + p + bytes([e["origin"]]) + bytes.fromhex(e["seed"])
    k = hashlib.sha256(_t("CRV1/mix") + hid + c + root + bytes([len(seeds)]) + entries).digest()
    order = _shuffle(_stream(k, "CRV1/cut", hid), 52)
    for r, positions in enumerate(vector["reshuffles"], start=1):
        srt = sorted(positions)
        ctx = r.to_bytes(4, "big") + k
        order += [srt[i] for i in _shuffle(_stream(s, "CRV1/reshuffle", hid, ctx), len(srt))]
    client = {
        str(e["seat"]): {
            "seed_commitment": hashlib.sha256(
                _t("CRV1/client") + hid + bytes([e["seat"]]) + bytes.fromhex(e["seed"])
            ).hexdigest(),
            "drawn_seed": hashlib.sha256(
                _t("CRV1/drawn") + hid + c + root + bytes([e["seat"]])
            ).hexdigest(),
        }
        for e in seeds
    }
    openings = {}
    for j in vector["openings"]:
        path = _path(leaves, int(j))
        raw = bytes([int(j), deck[int(j)]]) + salts[int(j)] + bytes([len(path)]) + b"".join(path)
        openings[j] = raw.hex()
    return {
        "commitment": c.hex(),
        "deck": [card_str(x) for x in deck],
        "salts": [x.hex() for x in salts],
        "leaf_0": leaves[0].hex(),
        "root": root.hex(),
        "mix_key": k.hex(),
        "order": order,
        "dealt": [card_str(deck[j]) for j in order],
        "openings": openings,
        "client": client,
    }


def _seeds(vector: dict[str, Any]) -> list[ClientSeed]:
    return [
        ClientSeed(e["seat"], e["player"], bytes.fromhex(e["seed"]), SeedOrigin(e["origin"]))
        for e in vector["client_seeds"]
    ]


@pytest.mark.parametrize("vector", _load(), ids=lambda v: v["comment"][:40])
def test_known_answers_match_the_document_and_the_library(vector: dict[str, Any]) -> None:
    independent = _independent(vector)
    client = independent.pop("client")
    for field, value in independent.items():
        assert vector[field] == value, field
    c, r = bytes.fromhex(vector["commitment"]), bytes.fromhex(vector["root"])
    for e in vector["client_seeds"]:
        assert client[str(e["seat"])]["seed_commitment"] == e["seed_commitment"]
        assert client[str(e["seat"])]["drawn_seed"] == e["drawn_seed"]
        seed = bytes.fromhex(e["seed"])
        assert (
            crv1.seed_commitment(vector["hand_id"], e["seat"], seed).hex() == e["seed_commitment"]
        )
        assert crv1.drawn_seed(vector["hand_id"], c, r, e["seat"]).hex() == e["drawn_seed"]
    hand = crv1.derive_hand(
        vector["hand_id"], bytes.fromhex(vector["seed"]), _seeds(vector), vector["reshuffles"]
    )
    assert hand.commit.commitment.hex() == vector["commitment"]
    assert hand.commit.root.hex() == vector["root"]
    assert hand.key.hex() == vector["mix_key"]
    assert list(hand.order) == vector["order"]
    assert [card_str(c) for c in hand.dealt()] == vector["dealt"]
    for j, raw in vector["openings"].items():
        assert hand.commit.opening(int(j)).to_bytes().hex() == raw
        crv1.check_opening(
            vector["hand_id"], hand.commit.root, Opening.from_bytes(bytes.fromhex(raw))
        )


def test_the_worked_example_is_vector_zero() -> None:
    vector = _load()[0]
    assert vector["hand_id"] == "table-1-7" and vector["seed"] == bytes(range(32)).hex()
    # Dealing order and deck are independent: each card dealt is D[pi[i]].
    assert vector["dealt"][0] == vector["deck"][vector["order"][0]]


@settings(max_examples=150, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), hand_id=st.text(min_size=1, max_size=20))
def test_the_library_agrees_with_the_document_everywhere(seed: bytes, hand_id: str) -> None:
    try:
        _hid(hand_id)
    except UnicodeEncodeError:
        return
    vector: dict[str, Any] = {
        "hand_id": hand_id,
        "seed": seed.hex(),
        "client_seeds": [{"seat": 4, "player": "q", "origin": 1, "seed": seed[::-1].hex()}],
        "reshuffles": [[5, 1, 30]],
        "openings": {"7": ""},
    }
    want = _independent(vector)
    hand = crv1.derive_hand(hand_id, seed, _seeds(vector), [[5, 1, 30]])
    assert hand.commit.root.hex() == want["root"]
    c, r = hand.commit.commitment, hand.commit.root
    assert crv1.drawn_seed(hand_id, c, r, 4).hex() == want["client"]["4"]["drawn_seed"]
    assert (
        crv1.seed_commitment(hand_id, 4, seed[::-1]).hex() == want["client"]["4"]["seed_commitment"]
    )
    assert list(hand.order) == want["order"]
    assert hand.commit.opening(7).to_bytes().hex() == want["openings"]["7"]


# -- tampering -------------------------------------------------------------------------------

_COMMIT = crv1.commit_deck("tamper-hand", hashlib.sha256(b"tamper").digest())


@settings(max_examples=500, deadline=None)
@given(position=st.integers(0, 51), bit=st.integers(0, 10_000))
def test_any_one_flipped_bit_of_an_opening_is_rejected(position: int, bit: int) -> None:
    raw = bytearray(_COMMIT.opening(position).to_bytes())
    bit %= len(raw) * 8
    raw[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(OpeningError):
        crv1.check_opening("tamper-hand", _COMMIT.root, Opening.from_bytes(bytes(raw)))


def test_every_single_bit_flip_of_every_opening_is_rejected() -> None:
    """Exhaustive: each of the 52 openings, every bit of its card, salt and path (and of the
    position and count bytes): 100% rejected, none accepted."""
    flips = rejected = 0
    for position in range(52):
        raw = _COMMIT.opening(position).to_bytes()
        for bit in range(len(raw) * 8):
            bad = bytearray(raw)
            bad[bit // 8] ^= 1 << (bit % 8)
            flips += 1
            try:
                crv1.check_opening(
                    "tamper-hand",
                    _COMMIT.root,
                    Opening.from_bytes(bytes(bad)),
                    expected_position=position,
                )
            except OpeningError:
                rejected += 1
    # 48 openings of 227 bytes, 4 of 163: every bit of each.
    assert flips == (48 * 227 + 4 * 163) * 8
    assert rejected == flips


@settings(max_examples=300, deadline=None)
@given(
    position=st.integers(0, 51),
    field=st.sampled_from(["card", "salt", "path"]),
    bit=st.integers(0, 10_000),
)
def test_a_flipped_bit_in_card_salt_or_path_fails_the_root(
    position: int, field: str, bit: int
) -> None:
    good = _COMMIT.opening(position)
    if field == "card":
        card = good.card ^ (1 << (bit % 6))
        bad = Opening(good.position, card, good.salt, good.path)
    elif field == "salt":
        salt = bytearray(good.salt)
        salt[(bit // 8) % 32] ^= 1 << (bit % 8)
        bad = Opening(good.position, good.card, bytes(salt), good.path)
    else:
        k = bit % len(good.path)
        node = bytearray(good.path[k])
        node[(bit // 8) % 32] ^= 1 << (bit % 8)
        bad = Opening(
            good.position, good.card, good.salt, (*good.path[:k], bytes(node), *good.path[k + 1 :])
        )
    with pytest.raises(OpeningError) as caught:
        crv1.check_opening("tamper-hand", _COMMIT.root, bad)
    assert caught.value.failure in {OpeningFailure.ROOT_MISMATCH, OpeningFailure.MALFORMED}


def test_a_dealer_that_changes_a_card_after_committing_is_caught() -> None:
    # The dealer committed; then it hands the owner of deck position 5 another card under the
    # right salt and path: the owner's own check fails.
    good = _COMMIT.opening(5)
    for other in range(52):
        if other == good.card:
            continue
        with pytest.raises(OpeningError) as caught:
            crv1.check_opening("tamper-hand", _COMMIT.root, Opening(5, other, good.salt, good.path))
        assert caught.value.failure is OpeningFailure.ROOT_MISMATCH


def test_an_opening_of_another_position_or_hand_is_rejected() -> None:
    good = _COMMIT.opening(12)
    crv1.check_opening("tamper-hand", _COMMIT.root, good, expected_position=12)
    with pytest.raises(OpeningError) as caught:
        crv1.check_opening("tamper-hand", _COMMIT.root, good, expected_position=13)
    assert caught.value.failure is OpeningFailure.WRONG_POSITION
    with pytest.raises(OpeningError):
        crv1.check_opening("tamper-hand-2", _COMMIT.root, good)
    with pytest.raises(OpeningError):  # the path of position 12 does not climb from 13
        crv1.check_opening(
            "tamper-hand", _COMMIT.root, Opening(13, good.card, good.salt, good.path)
        )
    with pytest.raises(OpeningError):  # a path one hash short
        crv1.check_opening(
            "tamper-hand", _COMMIT.root, Opening(12, good.card, good.salt, good.path[:-1])
        )


def test_client_seeds_move_the_order_and_must_be_well_formed() -> None:
    c, r = _COMMIT.commitment, _COMMIT.root
    a = crv1.mix_key("h", c, r, [ClientSeed(1, "ann", b"\x01" * 32)])
    b = crv1.mix_key("h", c, r, [ClientSeed(1, "ann", b"\x02" * 32)])
    assert crv1.dealing_order("h", a) != crv1.dealing_order("h", b)
    # Listed in any order, the seeds give one key.
    two = [ClientSeed(2, "bo", b"\x05" * 32), ClientSeed(1, "ann", b"\x01" * 32)]
    assert crv1.mix_key("h", c, r, two) == crv1.mix_key("h", c, r, two[::-1])
    with pytest.raises(ValueError):
        crv1.mix_key("h", c, r, [ClientSeed(1, "ann", b"\x01" * 16)])
    with pytest.raises(ValueError):
        crv1.mix_key(
            "h", c, r, [ClientSeed(1, "a", b"\x01" * 32), ClientSeed(1, "b", b"\x01" * 32)]
        )


def test_drawn_seeds_and_client_commitments_are_bound_to_their_hand_and_seat() -> None:
    c, r = _COMMIT.commitment, _COMMIT.root
    drawn = {crv1.drawn_seed("h", c, r, seat) for seat in range(1, 11)}
    assert len(drawn) == 10  # one per seat
    assert crv1.drawn_seed("h2", c, r, 1) != crv1.drawn_seed("h", c, r, 1)
    other = bytes(32)
    assert crv1.drawn_seed("h", other, r, 1) != crv1.drawn_seed("h", c, r, 1)
    assert crv1.drawn_seed("h", c, other, 1) != crv1.drawn_seed("h", c, r, 1)
    seed = b"\x42" * 32
    assert crv1.seed_commitment("h", 1, seed) != crv1.seed_commitment("h", 2, seed)
    assert crv1.seed_commitment("h", 1, seed) != crv1.seed_commitment("h2", 1, seed)
    with pytest.raises(ValueError):
        crv1.drawn_seed("h", c, r, 0)
    with pytest.raises(ValueError):
        crv1.seed_commitment("h", 1, b"short")


def test_positions_and_cards_are_the_engine_cards() -> None:
    assert parse_card("2c") == 0 and parse_card("As") == 51


def test_the_document_shows_vector_zero() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "shuffle.md").read_text("utf-8")
    vector = _load()[0]
    for field in ("commitment", "root", "mix_key", "leaf_0"):
        assert vector[field] in doc, field
    assert vector["salts"][0] in doc
    assert " ".join(vector["deck"][:26]) in doc and " ".join(vector["dealt"][26:]) in doc
    raw = bytes.fromhex(vector["openings"][str(vector["order"][0])])
    for k in range(6):
        assert raw[35 + 32 * k : 67 + 32 * k].hex() in doc


@pytest.mark.parametrize("vector", _load(), ids=lambda v: v["comment"][:40])
def test_the_auditors_own_crv1_gives_the_known_answers(vector: dict[str, Any]) -> None:
    from riverboat.audit import crv1 as audit_crv1

    seed = bytes.fromhex(vector["seed"])
    seeds = [
        (e["seat"], e["player"], bytes.fromhex(e["seed"]), e["origin"])
        for e in vector["client_seeds"]
    ]
    deck = [parse_card(c) for c in vector["deck"]]
    reshuffled = [[deck[j] for j in positions] for positions in vector["reshuffles"]]
    hand = audit_crv1.derive(vector["hand_id"], seed, seeds, reshuffled)
    assert (hand.commitment.hex(), hand.root.hex(), hand.key.hex()) == (
        vector["commitment"],
        vector["root"],
        vector["mix_key"],
    )
    assert list(hand.order) == vector["order"]
    for e in vector["client_seeds"]:
        assert (
            audit_crv1.drawn(vector["hand_id"], hand.commitment, hand.root, e["seat"]).hex()
            == (e["drawn_seed"])
        )
        assert (
            audit_crv1.client_commitment(
                vector["hand_id"], e["seat"], bytes.fromhex(e["seed"])
            ).hex()
            == (e["seed_commitment"])
        )
    for j, raw in vector["openings"].items():
        assert hand.opening(vector["hand_id"], seed, int(j)).hex() == raw
        climbed = audit_crv1.climb(vector["hand_id"], bytes.fromhex(raw))
        assert climbed is not None and climbed[2].hex() == vector["root"]


def test_the_precomputed_paths_are_the_audit_paths() -> None:
    assert _COMMIT.root == crv1.merkle_root(_COMMIT.leaves)
    for j in range(52):
        assert _COMMIT.paths[j] == crv1.audit_path(_COMMIT.leaves, j)
