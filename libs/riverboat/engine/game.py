"""The engine's front door: ``decide(state, command) -> events`` and ``apply(state, event)``.

Every variant goes through it, on one hand state machine: a game
(:mod:`riverboat.engine.games`: ``seven_card_stud_hi_lo`` and the dealer's choice games) says
only how its hand goes; :mod:`~riverboat.engine.flow` and :mod:`~riverboat.engine.phases` play
every game's hand, :mod:`~riverboat.engine.betting` judges every betting round and
:mod:`~riverboat.engine.state` folds every event into one state type.

>>> from riverboat.engine.cards import parse_cards
>>> from riverboat.engine.events import SeatEntry
>>> from riverboat.engine.options import pacific_options
>>> deck = parse_cards("2c 9h Kd Ac 7s 3h 4d 8c Qs 5h 6h Jc Td 9s 2d 3c Th 8s Ks 6d 7c")
>>> cmd = StartHand("h1", "seven_card_stud_hi_lo", pacific_options(), 1,
...                 (SeatEntry(1, "ann", 1000), SeatEntry(2, "bob", 1000)), deck)
>>> state = fold(decide(None, cmd))
>>> state.seats  # dealing order starts left of the button (seat 1): seat 2, then seat 1
(2, 1)
>>> state.seats[state.to_act]  # door cards: seat 2 shows 7s, seat 1 3h; the lower brings in
1
>>> [a.action for a in legal_actions(state)]
['bring_in', 'complete']
>>> state = fold(decide(state, Act(1, "bring_in"), deck), state)
>>> [(a.action, a.to) for a in legal_actions(state)]
[('fold', (0,)), ('call', (50,)), ('complete', (100,))]
>>> hand = Hand.start(cmd)
>>> hand.act(1, "complete").act(2, "call").state.street
4
"""

from __future__ import annotations

from collections.abc import Sequence

from riverboat.engine import flow, phases
from riverboat.engine.betting import LegalAction
from riverboat.engine.commands import Act, Command, Reshuffle, StartHand, TimeOut
from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.events import Event, HandStarted
from riverboat.engine.games import ALL_GAMES, game_for, legal_actions
from riverboat.engine.state import HandState, apply, fold_events, initial_state

#: The commands of a hand in progress.
_IN_HAND = (Act, TimeOut, Reshuffle)

#: Every variant the engine plays: Pacific stud hi/lo first, then the dealer's choice games.
VARIANTS = tuple(ALL_GAMES)

__all__ = [
    "VARIANTS",
    "Hand",
    "LegalAction",
    "apply",
    "decide",
    "fold",
    "legal_actions",
    "step",
]


def decide(
    state: HandState | None, command: Command, deck: Sequence[int] | None = None
) -> list[Event]:
    """Validate ``command`` against ``state`` and return the events it causes.

    ``deck`` is the dealer's deck for the hand in progress (``StartHand`` carries its own);
    it is an input, not part of the state, so undealt cards never enter the event log.
    Raises an :class:`~riverboat.engine.errors.EngineError` naming the broken rule when the
    command is refused; ``state`` is never modified (it is immutable).
    """
    return step(state, command, deck)[0]


def step(
    state: HandState | None, command: Command, deck: Sequence[int] | None = None
) -> tuple[list[Event], HandState]:
    """``decide`` and also return the state after its events.

    ``decide`` folds its events as it goes (later decisions depend on earlier events), so the
    resulting state comes for free; callers that keep a live state (the table service, the
    replay benchmark) use this instead of folding the same events a second time. The state is
    exactly ``fold(events, state)``.
    """
    if isinstance(command, StartHand):
        if state is not None and not state.finished:
            raise IllegalAction("a hand is already in progress", rule="hand_in_progress")
        return flow.start(game_for(command.variant), command)
    if isinstance(command, _IN_HAND):
        if state is None:
            raise IllegalAction("no hand is in progress", rule="no_hand")
        if deck is None:
            raise InvalidCommand("the dealer's deck for this hand is needed", rule="bad_deck")
        return phases.act(game_for(state.variant), state, command, deck)
    raise InvalidCommand(f"unknown command {type(command).__name__}")


class Hand:
    """Convenience for callers that hold one hand: its deck, state and events together.

    ``Hand.start(command)`` deals; ``hand.act(seat, action)`` decides and folds. Refused
    commands raise and leave the hand as it was.
    """

    __slots__ = ("deck", "events", "state")

    def __init__(self, state: HandState, deck: Sequence[int], events: list[Event]) -> None:
        self.state = state
        self.deck = tuple(deck)
        self.events = events

    @classmethod
    def start(cls, command: StartHand) -> Hand:
        """Deal a new hand."""
        events, state = step(None, command)
        return cls(state, command.deck, events)

    def apply_command(self, command: Act | TimeOut | Reshuffle) -> list[Event]:
        """Decide ``command``, fold its events in, and return them. A ``Reshuffle`` also
        appends the dealer's reshuffled discards to the hand's deck."""
        new, self.state = step(self.state, command, self.deck)
        if isinstance(command, Reshuffle):
            self.deck = (*self.deck, *command.cards)
        self.events.extend(new)
        return new

    def act(
        self,
        seat: int,
        action: str,
        amount: int | None = None,
        *,
        cards: tuple[int, ...] = (),
        choice: str | None = None,
    ) -> Hand:
        """A player's action; returns the hand, so calls can be chained."""
        self.apply_command(Act(seat, action, amount, cards, choice))
        return self

    def reshuffle(self, cards: tuple[int, ...]) -> Hand:
        """The dealer's reshuffle of the discards a draw asked for (``ReshuffleRequested``)."""
        self.apply_command(Reshuffle(cards))
        return self

    def legal(self) -> list[LegalAction]:
        """What the player to act may do."""
        return legal_actions(self.state)


def fold(events: list[Event], state: HandState | None = None) -> HandState:
    """Fold ``events`` onto ``state`` (or from scratch when they begin with HandStarted)."""
    if state is None:
        return fold_events(events)
    for event in events:
        state = initial_state(event) if isinstance(event, HandStarted) else apply(state, event)
    return state
