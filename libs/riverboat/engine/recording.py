"""What every game's ``decide`` shares: folding events as they are decided, and the first
checks of a command in a hand in progress."""

from __future__ import annotations

from collections.abc import Sequence

from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.events import Event, HandStarted
from riverboat.engine.state import FOLD, HandState, initial_state


class Recorder:
    """Collects events while folding them, so later decisions see their effect.

    ``s`` is the state so far: the one given, or from the first event (``HandStarted``) on.
    It is a plain attribute, not a property: decisions read it at every step.
    """

    s: HandState

    def __init__(
        self, state: HandState | None, deck: Sequence[int], start: HandStarted | None = None
    ) -> None:
        """A recorder for a hand in ``state``, or for a new hand whose ``start`` is its first
        event (then ``state`` is None)."""
        self.deck = deck
        self.events: list[Event] = []
        if start is not None:
            self.events.append(start)
            self.s = initial_state(start)
        elif state is not None:
            self.s = state

    def emit(self, event: Event) -> None:
        """Record ``event`` and fold it in (never ``HandStarted``: a new hand's recorder is
        given it, see ``start``)."""
        self.events.append(event)
        # An event this engine just made: its handler is known (apply, without a call).
        self.s = FOLD[type(event)](self.s, event)


def seat_index(state: HandState, seat: int, deck: Sequence[int]) -> int:
    """The dealing index of ``seat`` in a hand still running with this ``deck``, else the
    command is refused (wrong deck, hand over, seat not in the hand)."""
    if len(deck) != state.deck_size:
        raise InvalidCommand(
            f"this hand's deck has {state.deck_size} cards, not {len(deck)}", rule="bad_deck"
        )
    if state.finished:
        raise IllegalAction("the hand is over", rule="hand_over")
    i = state.index_of(seat)
    if i is None:
        raise InvalidCommand(f"seat {seat} is not in this hand", rule="unknown_seat")
    return i
