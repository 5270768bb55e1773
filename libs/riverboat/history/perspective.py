"""Whose eyes an export sees the hand through: the auditor's (everything) or one player's.

Both exports (PHH and PokerStars text) take the hand's events through :func:`visible_events`
and render only what comes out, so a player's export cannot contain a card that player did not
see: the redaction is the engine's own (``riverboat.engine.visibility.redact``, the same rules
the table service applies to what it sends each player). Hidden cards come out as ``-1`` and
are written ``??``.
"""

from __future__ import annotations

from dataclasses import dataclass

from riverboat.engine.events import Event
from riverboat.engine.visibility import redact
from riverboat.history.hands import HandLog

__all__ = ["AUDITOR", "Perspective", "visible_events"]


@dataclass(frozen=True, slots=True)
class Perspective:
    """``player`` None: the auditor, who sees every card; else that player."""

    player: str | None = None

    @property
    def label(self) -> str:
        """``auditor`` or ``player:<name>`` (written into exports)."""
        return "auditor" if self.player is None else f"player:{self.player}"


AUDITOR = Perspective()


def visible_events(hand: HandLog, perspective: Perspective) -> list[Event] | None:
    """The hand's events as ``perspective`` saw them; None if that player was not dealt in
    (a player's export holds only their own hands)."""
    if perspective.player is None:
        return list(hand.events)
    seat = hand.seat_of(perspective.player)
    if seat is None:
        return None
    return [redact(e, seat) for e in hand.events]
