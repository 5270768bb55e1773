"""CRV1 proofs a table hands out: each card's opening and its dealing index (docs/shuffle.md
part II). The table holds them for the hand in play (from the dealer's GetDeck); the views
give each viewer the proofs of the cards it may see and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from riverboat.engine.events import (
    CardDealt,
    CommunityCardDealt,
    HandStarted,
    TableCardTurned,
    TableRowDealt,
)
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent


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
    #: Each reshuffle round's deck positions, ascending (public: docs/shuffle.md II.7).
    rounds: list[tuple[int, ...]] = field(default_factory=list)
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

    def add_round(self, stub: Sequence[int]) -> None:
        """A reshuffled stub dealt after the cards so far (the openings are the cards' own,
        so the round's positions are theirs)."""
        self.rounds.append(tuple(sorted(self.openings[c][0] for c in stub)))
        self.extend(stub)

    def extend(self, cards: Sequence[int]) -> None:
        """Cards dealt after the cards so far."""
        for card in cards:
            self._where.setdefault(card, []).append(len(self.cards))
            self.cards.append(card)

    def index_of(self, card: int, consumed: int) -> int | None:
        """The dealing index of ``card`` as dealt among the first ``consumed`` cards (its latest
        dealing: a reshuffled card is dealt again), or None if it was not dealt."""
        where = [i for i in self._where.get(card, ()) if i < consumed]
        return where[-1] if where else None


def deal_indices(state: TableState, events: Sequence[AnyEvent]) -> dict[int, int] | None:
    """CRV1: each ``CardDealt`` of a batch just folded into ``state``, by its index in the
    batch, with its dealing index (0-based; public in the views, docs/shuffle.md II.6).
    Counted back from the hand's deck position after the batch: every card taken moves it by
    one (a table row by its size), a reshuffle does not. None: no CRV1 card in the batch."""
    hand, locked = state.hand, state.locked
    if hand is None or locked is None or locked.hand_id != hand.hand_id:
        return None
    if not any(isinstance(e, CardDealt) for e in events):
        return None
    cursor = hand.deck_pos
    found: dict[int, int] = {}
    for k in range(len(events) - 1, -1, -1):
        event = events[k]
        if isinstance(event, HandStarted):
            break
        if isinstance(event, CardDealt | CommunityCardDealt):
            cursor -= 1
            if isinstance(event, CardDealt):
                found[k] = cursor
        elif isinstance(event, TableRowDealt):
            cursor -= event.count
        elif isinstance(event, TableCardTurned) and event.from_stock:
            cursor -= 1
    return found
