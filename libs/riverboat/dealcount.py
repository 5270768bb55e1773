"""A player's own count of a hand's deal (CRV1, docs/shuffle.md II.5), and where a proved card
must sit in it: the part of :class:`riverboat.proofcheck.CardChecker` that checks each proof's
dealing index against the deal the client watched, and a reshuffled card against its round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from riverboat.engine.cards import DECK_SIZE
from riverboat.v1 import table_pb2

__all__ = ["Deal", "index_problem", "reshuffle_problem"]


@dataclass(slots=True)
class Deal:
    """This client's own count of one hand's deal, from the public events."""

    cursor: int = 0
    row_start: int = -1
    row_turned: int = 0
    #: Card text -> the dealing indices it was dealt at in the client's sight (twice: it was
    #: discarded, reshuffled and dealt again).
    seen: dict[str, set[int]] = field(default_factory=dict)
    #: Dealing indices of cards dealt out of the client's sight (another's down card).
    hidden: set[int] = field(default_factory=set)
    #: Dealing index -> the card a proof opened there.
    claimed: dict[int, str] = field(default_factory=dict)

    def take(self, card: str) -> int:
        """Count the next card taken from the deck ('' for one dealt out of sight)."""
        index = self.cursor
        self.cursor += 1
        if card:
            self.seen.setdefault(card, set()).add(index)
        else:
            self.hidden.add(index)
        return index


def index_problem(deal: Deal | None, card: str, index: int) -> str:
    """What is wrong with the dealing index a proof names, by this client's own count
    ("" if nothing, or if the client did not watch the deal from its start)."""
    if deal is None:
        return ""
    counted = deal.seen.get(card, set())
    # Out of sight: dealt hidden, and (if the viewer saw it dealt before) dealt again
    # after a reshuffle, so later and past the first 52.
    again = not counted or (index >= DECK_SIZE and index > max(counted))
    if index not in counted and not (index in deal.hidden and again):
        if counted:
            dealt = " or ".join(str(i + 1) for i in sorted(counted))
            return f"it was dealt as card {dealt} of the deal, but its proof names card {index + 1}"
        return (
            f"its proof names card {index + 1} of the deal, which was no card dealt out "
            "of your sight"
        )
    other = deal.claimed.setdefault(index, card)
    if other != card:
        return f"card {index + 1} of the deal was already proved to be {other}"
    return ""


def reshuffle_problem(
    rounds: tuple[tuple[int, ...], ...], position: int, index: int, view: table_pb2.TableView
) -> str:
    """A card dealt from a reshuffled stub: its position must be one of its round's
    public positions, which hold no card the viewer still keeps."""
    start = DECK_SIZE
    for number, positions in enumerate(rounds, start=1):
        if index < start + len(positions):
            if position not in positions:
                return (
                    f"it comes from deck position {position}, which reshuffle round "
                    f"{number} does not hold ({len(positions)} positions published)"
                )
            if len(set(positions)) != len(positions):
                return f"reshuffle round {number} lists a deck position twice"
            kept = {
                bytes(p.opening)[0]  # an opening's first byte is its deck position
                for p in view.proofs
                if 0 < p.deal_index <= start and len(p.opening) > 1 and p.card in _own_cards(view)
            }
            if kept & set(positions):
                return f"reshuffle round {number} reshuffles a card you still hold"
            return ""
        start += len(positions)
    return f"card {index + 1} of the deal is past every reshuffle round published"


def _own_cards(view: table_pb2.TableView) -> set[str]:
    mine = next((s for s in view.seats if s.seat == view.viewer_seat), None)
    return {c.card for c in mine.cards if c.card} if mine is not None else set()
