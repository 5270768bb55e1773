"""CRV1 proofs a table hands out: each card's opening and its dealing index (docs/shuffle.md
part II). The table holds them for the hand in play (from the dealer's GetDeck); the views
give each viewer the proofs of the cards it may see and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(slots=True)
class HandProofs:
    """One CRV1 hand's cards in dealing order and the opening of each card.

    ``cards[i]`` is the i-th card dealt (reshuffled stubs appended); a card's opening is that
    of its deck position, the same however often it is dealt.
    """

    hand_id: str
    root: bytes = b""
    commitment: bytes = b""
    cards: list[int] = field(default_factory=list)
    openings: dict[int, bytes] = field(default_factory=dict)
    _where: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        hand_id: str,
        commit: tuple[bytes, bytes],
        cards: Sequence[int],
        openings: Sequence[bytes],
    ) -> HandProofs:
        """The proofs of a deal under ``commit`` (C, R): ``openings[i]`` opens ``cards[i]``."""
        proofs = cls(hand_id, commit[1], commit[0])
        proofs.extend(cards)
        proofs.openings = dict(zip(cards, openings, strict=True))
        return proofs

    def extend(self, cards: Sequence[int]) -> None:
        """A reshuffled stub dealt after the cards so far (the openings are the cards' own)."""
        for card in cards:
            self._where.setdefault(card, []).append(len(self.cards))
            self.cards.append(card)

    def index_of(self, card: int, consumed: int) -> int | None:
        """The dealing index of ``card`` as dealt among the first ``consumed`` cards (its latest
        dealing: a reshuffled card is dealt again), or None if it was not dealt."""
        where = [i for i in self._where.get(card, ()) if i < consumed]
        return where[-1] if where else None
