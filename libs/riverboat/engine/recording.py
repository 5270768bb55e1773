"""What every game's ``decide`` shares: folding events as they are decided, and the first
checks of a command in a hand in progress."""

from __future__ import annotations

from collections.abc import Sequence

from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.events import Event, HandStarted
from riverboat.engine.state import HandState, apply, initial_state


class Recorder:
    """Collects events while folding them, so later decisions see their effect."""

    def __init__(self, state: HandState | None, deck: Sequence[int]) -> None:
        self.state = state
        self.deck = deck
        self.events: list[Event] = []

    @property
    def s(self) -> HandState:
        """The state so far."""
        assert self.state is not None
        return self.state

    def emit(self, event: Event) -> None:
        """Record ``event`` and fold it in."""
        self.events.append(event)
        if isinstance(event, HandStarted):
            self.state = initial_state(event)
        else:
            state = self.state
            assert state is not None
            self.state = apply(state, event)


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
