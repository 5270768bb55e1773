"""CRV1 proofs (docs/shuffle.md part II): their cost per hand beside the hand's own cost.

For 6-player seven-card stud hi/lo hands (the replay bench's recorded hands), per hand:

(a) the hand itself: ``decide`` + ``fold`` of every command (what a table does for it);
(b) the dealer: C, D, 52 salts and leaves, R, the lock's mix key and dealing order, and the
    opening of every position (``crv1.commit_deck`` + ``derive_hand`` + 52 openings);
(c) one player: its seed and the commitment to it, the lock's drawn seeds re-derived (three of
    the six seats are drawn here), the dealing order from the lock, and its own cards'
    openings checked (7 cards, the most a stud player holds);
(d) every player's cards and every up card checked (6 players, what all clients do together);
(e) the auditor: everything re-derived from the revealed seed with its own CRV1 code, the
    drawn seeds and the client seeds' commitments included;
(f) the table: the seed rules (each commitment, each seed checked against it, the drawn
    seeds derived).

Also the sizes: an opening, the proofs a player gets per hand, the lock.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable

from bench._studgen import record_hand
from riverboat.audit import crv1 as audit_crv1
from riverboat.engine.events import CardDealt
from riverboat.engine.game import step
from riverboat.shuffle import crv1

SEED = 20261202
PLAYERS = 6
HANDS = 200


def _per_hand(count: int, body: Callable[[], object], repeats: int = 3) -> float:
    """Microseconds per hand, best of ``repeats`` runs of ``body`` (``count`` hands)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        body()
        best = min(best, time.perf_counter() - start)
    return best / count * 1e6


def run() -> None:
    rng = random.Random(SEED)
    hands = [record_hand(rng, f"bench-{k}", PLAYERS) for k in range(HANDS)]
    seeds = [hashlib.sha256(f"dealer {k}".encode()).digest() for k in range(HANDS)]
    ids = [h.start.hand_id for h in hands]
    commits = [crv1.commit_deck(hand_id, seed) for hand_id, seed in zip(ids, seeds, strict=True)]
    drawn = range(PLAYERS // 2 + 1, PLAYERS + 1)  # the seats whose clients sent no seed

    def lock_of(k: int) -> list[crv1.ClientSeed]:
        c = commits[k]
        return [
            crv1.ClientSeed(
                s, f"p{s}", crv1.drawn_seed(ids[k], c.commitment, c.root, s), crv1.SeedOrigin.DRAWN
            )
            if s in drawn
            else crv1.ClientSeed(s, f"p{s}", hashlib.sha256(f"{k}/{s}".encode()).digest())
            for s in range(1, PLAYERS + 1)
        ]

    locks = [lock_of(k) for k in range(HANDS)]
    dealt_per_hand = [sum(isinstance(e, CardDealt) for e in h.events) for h in hands]

    def hand_cost() -> None:
        for hand in hands:
            state = step(None, hand.start)[1]
            for command in hand.commands:
                state = step(state, command, hand.start.deck)[1]

    produced: list[tuple[crv1.HandDerivation, list[bytes]]] = []

    def dealer_cost() -> None:
        produced.clear()
        for hand_id, seed, lock in zip(ids, seeds, locks, strict=True):
            derived = crv1.derive_hand(hand_id, seed, lock)
            openings = [derived.commit.opening(j).to_bytes() for j in derived.order]
            produced.append((derived, openings))

    dealer_cost()

    # Per player: 7 cards (the most a stud player sees of its own), the order from the lock.
    def player_cost(cards_each: int, players: int) -> Callable[[], None]:
        def body() -> None:
            for (derived, openings), hand_id, lock in zip(produced, ids, locks, strict=True):
                c = derived.commit
                for _ in range(players):
                    mine = lock[0]
                    crv1.seed_commitment(hand_id, mine.seat, mine.seed)
                    for entry in lock:
                        if entry.origin is crv1.SeedOrigin.DRAWN:
                            crv1.drawn_seed(hand_id, c.commitment, c.root, entry.seat)
                    key = crv1.mix_key(hand_id, c.commitment, c.root, lock)
                    order = crv1.dealing_order(hand_id, key)
                    for i in range(cards_each):
                        opening = crv1.Opening.from_bytes(openings[i])
                        crv1.check_opening(hand_id, c.root, opening, expected_position=order[i])

        return body

    def audit_cost() -> None:
        for hand_id, seed, lock in zip(ids, seeds, locks, strict=True):
            entries = [(s.seat, s.player, s.seed, int(s.origin)) for s in lock]
            derived = audit_crv1.derive(hand_id, seed, entries)
            for seat, _, client, origin in entries:
                if origin:
                    audit_crv1.drawn(hand_id, derived.commitment, derived.root, seat)
                else:
                    audit_crv1.client_commitment(hand_id, seat, client)

    def table_cost() -> None:
        for hand_id, c, lock in zip(ids, commits, locks, strict=True):
            for entry in lock:
                if entry.origin is crv1.SeedOrigin.CLIENT:
                    digest = crv1.seed_commitment(hand_id, entry.seat, entry.seed)
                    assert crv1.seed_commitment(hand_id, entry.seat, entry.seed) == digest
                else:
                    crv1.drawn_seed(hand_id, c.commitment, c.root, entry.seat)

    own = _per_hand(HANDS, hand_cost)
    dealer = _per_hand(HANDS, dealer_cost)
    one = _per_hand(HANDS, player_cost(7, 1))
    # Everyone: each of 6 players checks its own 7 and the others' up cards (4 each).
    everyone = _per_hand(HANDS, player_cost(7 + 4 * (PLAYERS - 1), PLAYERS), repeats=1)
    audit = _per_hand(HANDS, audit_cost)
    rules = _per_hand(HANDS, table_cost)
    sizes = sorted({len(o) for _, openings in produced for o in openings})
    lock_bytes = sum(len(s.encode()) for s in locks[0])
    print(
        f"CRV1, seven-card stud hi/lo, {PLAYERS} players ({HANDS} hands, seed {SEED}; "
        f"{sum(dealt_per_hand) / HANDS:.1f} cards dealt per hand):"
    )
    rows = [
        ("(a) the hand itself: decide + fold", own),
        ("(b) dealer: commit, order, 52 openings", dealer),
        ("(c) one player: its seed, the lock, 7 cards", one),
        ("(d) all 6 players check all they see", everyone),
        ("(e) auditor re-derives the hand", audit),
        ("(f) table: the seed rules", rules),
    ]
    for label, micros in rows:
        print(f"  {label:<42}{micros:>10,.0f} us/hand{micros / own:>8.1f}x the hand")
    print(
        f"  sizes: an opening {' or '.join(str(s) for s in sizes)} bytes; a player's 7 cards "
        f"{7 * max(sizes):,} bytes at most; the lock {lock_bytes} bytes of seed entries; a "
        f"client sends {crv1.CLIENT_SEED_SIZE} bytes of commitment, then {crv1.CLIENT_SEED_SIZE} "
        "of seed"
    )
