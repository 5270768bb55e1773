"""A player's own check of every card it receives (CRV1, docs/shuffle.md part II).

:class:`CardChecker` reads what a client gets from ``TableService.Watch`` (or ``Act``,
``GetTableView``): the hand's commitment and Merkle root, the locked seeds, and the proof of
each card the viewer may see. It needs no secret and trusts nothing but the protos: for each
card it recomputes the leaf, climbs the path to the committed root, and checks that the deck
position is the one the locked seeds' dealing order gives the card's dealing index.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from riverboat.engine.cards import card_str, parse_card
from riverboat.shuffle import crv1
from riverboat.v1 import table_pb2

__all__ = ["CardCheck", "CardChecker", "Verdict"]


class Verdict(enum.StrEnum):
    """The outcome of one card's check."""

    VERIFIED = "verified"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class CardCheck:
    """One card checked: which, where it was dealt, and how it went."""

    hand_id: str
    card: str
    deal_index: int
    """0-based dealing index (which card of the deal)."""
    position: int
    """Deck position the opening names (-1 if it could not be read)."""
    verdict: Verdict
    reason: str = ""

    def line(self) -> str:
        """One line for a screen."""
        if self.verdict is Verdict.VERIFIED:
            return (
                f"{self.card} verified: card {self.deal_index + 1} dealt, deck position "
                f"{self.position}, opens the committed root"
            )
        return f"PROOF FAILED for {self.card} (card {self.deal_index + 1} dealt): {self.reason}"


@dataclass(slots=True)
class _Hand:
    hand_id: str
    commitment: bytes = b""
    root: bytes = b""
    order: tuple[int, ...] = ()
    seeds: tuple[tuple[int, str, bytes, int], ...] = ()
    checked: set[tuple[int, str]] = field(default_factory=set)


class CardChecker:
    """Checks each CRV1 card proof a viewer receives, once per card."""

    def __init__(self) -> None:
        self._hand: _Hand | None = None
        self.checks: list[CardCheck] = []

    @property
    def failures(self) -> list[CardCheck]:
        """Every failed check so far."""
        return [c for c in self.checks if c.verdict is Verdict.FAILED]

    def view(self, view: table_pb2.TableView) -> list[CardCheck]:
        """Check the proofs in ``view`` not checked before; returns the new checks."""
        if view.scheme != crv1.SCHEME or not view.hand_id:
            return []
        hand = self._hand
        if hand is None or hand.hand_id != view.hand_id:
            hand = self._hand = _Hand(view.hand_id)
        if view.commitment and view.merkle_root and not hand.root:
            hand.commitment, hand.root = bytes(view.commitment), bytes(view.merkle_root)
        seeds = tuple((s.seat, s.player, bytes(s.seed), s.origin) for s in view.locked_seeds)
        if seeds and seeds != hand.seeds:
            self._lock(hand, seeds)
        out = []
        for proof in view.proofs:
            key = (proof.deal_index, proof.card)
            if key in hand.checked:
                continue
            hand.checked.add(key)
            out.append(self._check(hand, proof))
        mine = next((s for s in view.seats if s.seat == view.viewer_seat), None)
        proven = {p.card for p in view.proofs}
        for card in mine.cards if mine is not None else ():
            if card.card and card.card not in proven and (-1, card.card) not in hand.checked:
                hand.checked.add((-1, card.card))
                out.append(
                    CardCheck(hand.hand_id, card.card, -1, -1, Verdict.FAILED, "no proof came")
                )
        self.checks.extend(out)
        return out

    def _lock(self, hand: _Hand, seeds: tuple[tuple[int, str, bytes, int], ...]) -> None:
        hand.seeds = seeds
        try:
            key = crv1.mix_key(
                hand.hand_id,
                hand.commitment,
                hand.root,
                [crv1.ClientSeed(s, p, seed, crv1.SeedOrigin(o)) for s, p, seed, o in seeds],
            )
            hand.order = crv1.dealing_order(hand.hand_id, key)
        except ValueError:
            hand.order = ()

    def _check(self, hand: _Hand, proof: table_pb2.CardProof) -> CardCheck:
        index = proof.deal_index - 1

        def failed(reason: str, position: int = -1) -> CardCheck:
            return CardCheck(hand.hand_id, proof.card, index, position, Verdict.FAILED, reason)

        if not hand.root:
            return failed("the hand's committed root is unknown")
        if index < 0:
            return failed("the proof names no dealing index")
        try:
            opening = crv1.Opening.from_bytes(bytes(proof.opening))
            card = parse_card(proof.card)
        except (crv1.OpeningError, ValueError) as exc:
            return failed(f"unreadable proof: {exc}")
        if opening.card != card:
            return failed(
                f"the opening is for {card_str(opening.card) if opening.card < 52 else '?'}, "
                f"not {proof.card}",
                opening.position,
            )
        if index < len(hand.order):
            expected: int | None = hand.order[index]
        elif index < 52:
            return failed("the locked seeds are unknown or malformed", opening.position)
        else:
            expected = None  # a reshuffled card: its order is the auditors' to check
        try:
            crv1.check_opening(hand.hand_id, hand.root, opening, expected_position=expected)
        except crv1.OpeningError as exc:
            return failed(str(exc), opening.position)
        return CardCheck(hand.hand_id, proof.card, index, opening.position, Verdict.VERIFIED)

    def views(self, views: Iterable[table_pb2.TableView]) -> list[CardCheck]:
        """Check several views in order (a saved session)."""
        out: list[CardCheck] = []
        for view in views:
            out.extend(self.view(view))
        return out
