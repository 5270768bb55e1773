"""The engine's front door: ``decide(state, command) -> events`` and ``apply(state, event)``.

>>> from riverboat.engine.cards import parse_cards
>>> from riverboat.engine.events import SeatEntry
>>> from riverboat.engine.options import pacific_options
>>> deck = parse_cards("2c 9h Kd Ac 7s 3h 4d 8c Qs 5h 6h Jc Td 9s 2d 3c Th 8s Ks 6d 7c")
>>> cmd = StartHand("h1", "seven_card_stud_hi_lo", pacific_options(), 1,
...                 (SeatEntry(1, "ann", 1000), SeatEntry(2, "bob", 1000)), deck)
>>> state = fold(decide(None, cmd))
>>> state.seats[state.to_act]   # bob's door card 8c is lower than ann's Qs: bob brings in
2
>>> [a.action for a in legal_actions(state)]
['bring_in', 'complete']
"""

from __future__ import annotations

from riverboat.engine import stud
from riverboat.engine.betting import LegalAction, legal_actions
from riverboat.engine.commands import Act, Command, StartHand, TimeOut
from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.events import Event, HandStarted
from riverboat.engine.state import HandState, apply, fold_events, initial_state

VARIANTS = (stud.VARIANT,)

__all__ = [
    "VARIANTS",
    "LegalAction",
    "apply",
    "decide",
    "fold",
    "legal_actions",
]


def decide(state: HandState | None, command: Command) -> list[Event]:
    """Validate ``command`` against ``state`` and return the events it causes.

    Raises an :class:`~riverboat.engine.errors.EngineError` naming the broken rule when the
    command is refused; ``state`` is never modified (it is immutable).
    """
    if isinstance(command, StartHand):
        if state is not None and not state.finished:
            raise IllegalAction("a hand is already in progress", rule="hand_in_progress")
        return stud.start(command)
    if isinstance(command, Act | TimeOut):
        if state is None:
            raise IllegalAction("no hand is in progress", rule="no_hand")
        return stud.act(state, command)
    raise InvalidCommand(f"unknown command {type(command).__name__}")


def fold(events: list[Event], state: HandState | None = None) -> HandState:
    """Fold ``events`` onto ``state`` (or from scratch when they begin with HandStarted)."""
    if state is None:
        return fold_events(events)
    for event in events:
        state = initial_state(event) if isinstance(event, HandStarted) else apply(state, event)
    return state
