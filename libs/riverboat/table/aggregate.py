"""The table aggregate: state, ``apply`` and ``decide`` for table commands.

A table holds seats (player and chips), the button, and at most one hand. A hand goes:
``HandCommitted`` (the dealer's commitment, before any card) -> ``HandStarted`` and the rest of
the engine's events -> ``HandEnded`` (or ``HandVoided``), after which seat stacks take the
hand's final stacks and players who asked to leave do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from riverboat.engine.commands import Act, StartHand, TimeOut
from riverboat.engine.errors import EngineError, IllegalAction, InvalidCommand
from riverboat.engine.events import Event as HandEvent
from riverboat.engine.events import HandEnded, HandStarted, SeatEntry
from riverboat.engine.game import decide as decide_hand
from riverboat.engine.game import fold as fold_hand
from riverboat.engine.game import step as step_hand
from riverboat.engine.options import TableOptions
from riverboat.engine.state import HandState
from riverboat.table.events import (
    AnyEvent,
    HandCommitted,
    HandVoided,
    LeaveRequested,
    PlayerLeft,
    PlayerSeated,
    TableCreated,
)

MAX_SEATS = 10
MAX_PLAYER_ID = 64


class TableError(EngineError):
    """A refused table command; ``kind`` says which gRPC status fits."""

    def __init__(self, message: str, *, kind: str, rule: str) -> None:
        super().__init__(message, rule=rule)
        self.kind = kind  # "not_found" | "already_exists" | "invalid" | "precondition"


@dataclass(frozen=True, slots=True)
class Seat:
    """A seated player."""

    seat: int
    player: str
    stack: int
    leaving: bool = False


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything about one table; the fold of its events."""

    table_id: str
    name: str = ""
    variant: str = ""
    options: TableOptions | None = None
    action_seconds: int = 30
    seats: tuple[Seat, ...] = ()
    button: int = 0
    hands_played: int = 0
    pending: HandCommitted | None = None
    hand: HandState | None = None
    created: bool = False

    @property
    def hand_in_progress(self) -> bool:
        """A hand is committed or being played."""
        return self.pending is not None or (self.hand is not None and not self.hand.finished)

    def seat_of(self, player: str) -> Seat | None:
        """The seat ``player`` sits in, if any."""
        return next((s for s in self.seats if s.player == player), None)

    def seat_at(self, seat: int) -> Seat | None:
        """Who sits at ``seat``."""
        return next((s for s in self.seats if s.seat == seat), None)

    def ready_players(self) -> list[Seat]:
        """Seated players who can be dealt in (chips, not leaving)."""
        return [s for s in self.seats if s.stack > 0 and not s.leaving]

    def can_start_hand(self) -> bool:
        """Enough players and no hand in progress."""
        assert self.options is not None or not self.created
        return (
            self.created
            and not self.hand_in_progress
            and len(self.ready_players()) >= (self.options.min_players if self.options else 2)
        )

    def next_button(self) -> int:
        """The button for the next hand: the next ready seat clockwise after the last one."""
        ready = sorted(s.seat for s in self.ready_players())
        after = [s for s in ready if s > self.button]
        return (after or ready)[0]


def apply(state: TableState, event: AnyEvent) -> TableState:
    """Fold one event (table-level or hand) into the table."""
    match event:
        case TableCreated():
            return replace(
                state,
                name=event.name,
                variant=event.variant,
                options=event.options,
                action_seconds=event.action_seconds,
                created=True,
            )
        case PlayerSeated():
            seats = tuple(
                sorted(
                    (*state.seats, Seat(event.seat, event.player, event.stack)),
                    key=lambda s: s.seat,
                )
            )
            return replace(state, seats=seats)
        case LeaveRequested():
            return replace(
                state,
                seats=tuple(
                    replace(s, leaving=True) if s.seat == event.seat else s for s in state.seats
                ),
            )
        case PlayerLeft():
            return replace(state, seats=tuple(s for s in state.seats if s.seat != event.seat))
        case HandCommitted():
            return replace(state, pending=event)
        case HandVoided():
            hand = state.hand
            seats = state.seats
            if hand is not None:
                # Back to the stacks the hand started with: every contribution refunded.
                start = dict(zip(hand.seats, hand.starting_stacks, strict=True))
                seats = tuple(replace(s, stack=start.get(s.seat, s.stack)) for s in seats)
            return replace(state, seats=seats, pending=None, hand=None)
        case HandStarted():
            hand = fold_hand([event])
            return replace(
                state,
                hand=hand,
                pending=None,
                button=event.button,
                hands_played=state.hands_played + 1,
            )
        case HandEnded():
            assert state.hand is not None
            hand = fold_hand([event], state.hand)
            final = dict(event.stacks)
            seats = tuple(replace(s, stack=final.get(s.seat, s.stack)) for s in state.seats)
            return replace(state, hand=hand, seats=seats)
        case _:
            if state.hand is None:
                raise ValueError(f"{type(event).__name__} with no hand in progress")
            return replace(state, hand=fold_hand([event], state.hand))


def fold(events: Sequence[AnyEvent], state: TableState) -> TableState:
    """Fold several events."""
    for event in events:
        state = apply(state, event)
    return state


# --- commands -------------------------------------------------------------------------------


def create_table(
    state: TableState, *, name: str, variant: str, options: TableOptions, action_seconds: int
) -> list[AnyEvent]:
    """Open the table."""
    if state.created:
        raise TableError(
            f"table {state.table_id} already exists", kind="already_exists", rule="table_exists"
        )
    if variant != "seven_card_stud_hi_lo":
        raise TableError(f"unknown variant {variant!r}", kind="invalid", rule="unknown_variant")
    if not 1 <= action_seconds <= 3600:
        raise TableError("action_seconds must be 1..3600", kind="invalid", rule="invalid_clock")
    if not name or len(name) > 100:
        raise TableError("a table name is 1-100 characters", kind="invalid", rule="invalid_name")
    return [TableCreated(state.table_id, name, variant, options, action_seconds)]


def seat_player(
    state: TableState, *, seat: int, player: str, stack: int, buy_in_reference: str = ""
) -> list[AnyEvent]:
    """Seat ``player`` at ``seat`` with ``stack`` chips (from a settlement reservation)."""
    _exists(state)
    assert state.options is not None
    if not 1 <= seat <= MAX_SEATS:
        raise TableError(f"seats are 1..{MAX_SEATS}", kind="invalid", rule="bad_seat")
    if not player or len(player) > MAX_PLAYER_ID:
        raise TableError("a player id is 1-64 characters", kind="invalid", rule="bad_player")
    if stack <= 0:
        raise TableError("a player sits down with chips", kind="invalid", rule="bad_stack")
    if state.seat_at(seat) is not None:
        raise TableError(f"seat {seat} is taken", kind="precondition", rule="seat_taken")
    if state.seat_of(player) is not None:
        raise TableError(f"{player} is already seated", kind="precondition", rule="already_seated")
    if len(state.seats) >= state.options.max_players:
        raise TableError("the table is full", kind="precondition", rule="table_full")
    return [PlayerSeated(seat, player, stack, buy_in_reference)]


def unseat_player(state: TableState, *, seat: int) -> list[AnyEvent]:
    """The player at ``seat`` leaves now, or when the hand they are in ends."""
    _exists(state)
    who = state.seat_at(seat)
    if who is None:
        raise TableError(f"nobody sits at seat {seat}", kind="not_found", rule="empty_seat")
    # A committed but undealt hand has no cards yet: leaving then is leaving now.
    in_hand = state.hand is not None and not state.hand.finished and seat in state.hand.seats
    if in_hand:
        if who.leaving:
            return []
        return [LeaveRequested(seat, who.player)]
    return [PlayerLeft(seat, who.player, who.stack)]


def commit_hand(
    state: TableState, *, hand_id: str, scheme: str, commitment: bytes, deck_size: int
) -> list[AnyEvent]:
    """Record the dealer's commitment for the next hand."""
    _exists(state)
    if state.hand_in_progress:
        raise TableError(
            "a hand is already in progress", kind="precondition", rule="hand_in_progress"
        )
    if not state.can_start_hand():
        raise TableError(
            "not enough players to deal", kind="precondition", rule="not_enough_players"
        )
    return [HandCommitted(hand_id, scheme, commitment, deck_size, state.next_button())]


def deal_hand(state: TableState, deck: Sequence[int]) -> list[AnyEvent]:
    """Deal the committed hand from the dealer's deck."""
    _exists(state)
    assert state.options is not None
    pending = state.pending
    if pending is None:
        raise TableError("no hand is committed", kind="precondition", rule="not_committed")
    if len(deck) != pending.deck_size:
        raise TableError(
            "the deck does not match the commitment", kind="precondition", rule="bad_deck"
        )
    ready = state.ready_players()
    if len(ready) < state.options.min_players:
        # Players left between the commitment and the deal: the committed deck is never used.
        return [HandVoided(pending.hand_id, "not enough players to deal", ())]
    seats = tuple(SeatEntry(s.seat, s.player, s.stack) for s in ready)
    command = StartHand(
        pending.hand_id, state.variant, state.options, pending.button, seats, tuple(deck)
    )
    return list(decide_hand(None, command))


def act(
    state: TableState, command: Act | TimeOut, deck: Sequence[int], hand_id: str | None = None
) -> list[AnyEvent]:
    """A player's action (or the clock's) in the hand in progress, and what follows."""
    _exists(state)
    hand = state.hand
    if hand is None or hand.finished:
        raise IllegalAction("no hand is in progress", rule="no_hand")
    if hand_id and hand_id != hand.hand_id:
        raise IllegalAction(
            f"hand {hand_id} is over; the hand now is {hand.hand_id}", rule="wrong_hand"
        )
    hand_events, after = step_hand(hand, command, deck)
    events: list[AnyEvent] = list(hand_events)
    if after.finished:
        events.extend(_leavers(state, after))
    return events


def void_hand(state: TableState, reason: str) -> list[AnyEvent]:
    """Void the hand in progress: refund every contribution, no rake."""
    _exists(state)
    hand = state.hand
    if state.pending is not None and (hand is None or hand.finished):
        return [HandVoided(state.pending.hand_id, reason, ())]
    if hand is None or hand.finished:
        raise TableError("no hand is in progress", kind="precondition", rule="no_hand")
    refunds = tuple((seat, c) for seat, c in zip(hand.seats, hand.committed, strict=True) if c)
    return [HandVoided(hand.hand_id, reason, refunds)]


def _leavers(state: TableState, hand: HandState) -> list[AnyEvent]:
    final = dict(zip(hand.seats, hand.stacks, strict=True))
    return [
        PlayerLeft(s.seat, s.player, final.get(s.seat, s.stack)) for s in state.seats if s.leaving
    ]


def _exists(state: TableState) -> None:
    if not state.created:
        raise TableError(f"no table {state.table_id}", kind="not_found", rule="no_table")


__all__ = [
    "InvalidCommand",
    "Seat",
    "TableError",
    "TableState",
    "act",
    "apply",
    "commit_hand",
    "create_table",
    "deal_hand",
    "fold",
    "seat_player",
    "unseat_player",
    "void_hand",
]


def hand_events_only(events: Sequence[AnyEvent]) -> list[HandEvent]:
    """The engine's events among ``events``."""
    table_types = (
        TableCreated,
        PlayerSeated,
        LeaveRequested,
        PlayerLeft,
        HandCommitted,
        HandVoided,
    )
    return [e for e in events if not isinstance(e, table_types)]
