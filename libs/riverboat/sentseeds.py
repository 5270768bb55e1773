"""A client's memory of the CRV1 seeds it sent (docs/shuffle.md II.4), hand by hand.

What a client sent belongs to the client at one table, not to one stream: a player who leaves
the table and watches it again, or whose stream is reopened, is checked by a fresh
:class:`~riverboat.proofcheck.CardChecker` (the new stream's count starts afresh), and that
checker must still know the seed the client sent for the hand in play, or it would take the
client's own seed in the lock for one it did not send. So :class:`SentSeeds` is kept by the
sender (:class:`riverboat.client.ClientSeeds`, one per player and table) and shared by every
checker of that player at that table.

A seed sent by another process (the client restarted, or a second session of the player) is in
no memory here: the checker then says it cannot check the player's own seed for that hand, and
does not fail. A seed it does know and the lock does not hold still fails.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Sent", "SentSeeds"]

#: Hands remembered at once: the one in play, the next one seeding, a few before.
_HANDS = 8


@dataclass(slots=True)
class Sent:
    """What this client sent for one hand, and what the table answered."""

    seat: int
    seed: bytes
    """The seed committed to (drawn before the commitment was sent)."""
    committed: bool = False
    """The table accepted the commitment."""
    revealed: bool = False
    """The table accepted the seed."""
    revealing: bool = False
    """The seed is sent and its answer not yet come."""
    refused: str = ""
    """Why the table refused the commitment or the seed ("" if it did not)."""


class SentSeeds:
    """The seeds one client sent at one table, by hand id (the last few hands)."""

    def __init__(self) -> None:
        self._hands: dict[str, Sent] = {}
        self.sender = False
        """This client sends seeds: a seed locked as its own that it does not know of is
        then worth telling (it cannot check it), and one it knows otherwise a failure."""

    def get(self, hand_id: str) -> Sent | None:
        """What was sent for ``hand_id``, if this client sent anything for it."""
        return self._hands.get(hand_id)

    def committing(self, hand_id: str, seat: int, seed: bytes) -> Sent:
        """Note the seed about to be committed to for ``hand_id`` (before sending it)."""
        self.sender = True
        sent = self._hands[hand_id] = Sent(seat, seed)
        while len(self._hands) > _HANDS:
            del self._hands[next(iter(self._hands))]
        return sent
