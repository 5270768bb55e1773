"""Replay one table's log through the rules and compare, message by message.

The log holds one message per accepted command. Each message's first event says which command
it was; the auditor rebuilds that command and asks the same pure rules the table service uses
(``riverboat.table.aggregate`` for seating, commitments and voids; ``riverboat.engine`` for the
hand) what it should have caused, given the table as the log left it. The answer must be exactly
the recorded events:

* ``TableCreated`` / ``PlayerSeated`` / ``LeaveRequested`` / ``PlayerLeft``: the table command;
* ``HandCommitted``: the commitment (button, deck size) for the next hand;
* ``HandStarted``: the deal, from the deck the dealt cards spell out (checked against the
  committed deck separately, card by card: :mod:`riverboat.audit.hands`);
* ``ActionTaken``: the player's action, or the clock's (``actor == "clock"``: a time-out);
  everything that follows mechanically (streets, showdown, pots, rake, leavers) must match;
* ``HandVoided``: the void and its refunds.

After the first failure in a hand the rest of that hand is not replayed (it would only repeat
the same failure); the table picks up again at the hand's end from the recorded stacks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from riverboat.audit.report import Check, EventRef, Violation
from riverboat.audit.tablelog import LoggedEvent, LoggedMessage
from riverboat.engine.cards import card_str
from riverboat.engine.commands import Act, StartHand, TimeOut
from riverboat.engine.errors import EngineError
from riverboat.engine.events import ActionTaken, HandEnded, HandStarted, SeatEntry
from riverboat.engine.game import step as step_hand
from riverboat.engine.state import HandState
from riverboat.table import aggregate
from riverboat.table.aggregate import TableError, TableState
from riverboat.table.events import (
    AnyEvent,
    HandCommitted,
    HandVoided,
    LeaveRequested,
    PlayerLeft,
    PlayerSeated,
    TableCreated,
)

__all__ = ["Replayer", "show_event"]

_WAGERS = frozenset({"bet", "raise", "complete"})
_CARD_FIELDS = frozenset({"card"})
_CARDS_FIELDS = frozenset({"cards"})


def show_event(event: AnyEvent) -> str:
    """A short, readable form of an event (cards as text)."""
    parts = []
    for f in fields(event):
        value: Any = getattr(event, f.name)
        if f.name in _CARD_FIELDS and isinstance(value, int):
            value = card_str(value) if value >= 0 else "??"
        elif f.name in _CARDS_FIELDS:
            value = " ".join(card_str(c) if c >= 0 else "??" for c in value)
        elif isinstance(value, bytes):
            value = value.hex()[:16] + "..."
        elif f.name == "options":
            value = "{...}"
        parts.append(f"{f.name}={value}")
    return f"{type(event).__name__}({', '.join(parts)})"


def first_difference(
    recorded: Sequence[LoggedEvent], expected: Sequence[AnyEvent]
) -> tuple[EventRef | None, str] | None:
    """Where the recorded events first differ from the expected ones, and how; None if equal."""
    for rec, exp in zip(recorded, expected, strict=False):
        if rec.event != exp:
            assert rec.event is not None
            return rec.ref, f"recorded {show_event(rec.event)}, the rules give {show_event(exp)}"
    if len(recorded) > len(expected):
        extra = recorded[len(expected)]
        assert extra.event is not None
        return (
            extra.ref,
            f"extra event {show_event(extra.event)}: the rules end the message before it",
        )
    if len(expected) > len(recorded):
        missing = expected[len(recorded)]
        where = recorded[-1].ref if recorded else None
        return where, f"missing event {show_event(missing)} after this one"
    return None


class Replayer:
    """Replays one table; :meth:`message` takes the log's messages in order.

    ``decks`` gives each hand's deck for the replay (from :mod:`riverboat.audit.hands`);
    ``on_hand_end(hand_id, message)`` is called when a hand ends or is voided.
    """

    def __init__(self, table_id: str, decks: dict[str, tuple[int, ...]]) -> None:
        self.table_id = table_id
        self.table = TableState(table_id)
        self.hand: HandState | None = None
        self.hand_id: str | None = None
        self.decks = decks
        self.violations: list[Violation] = []
        self.failed_hands: set[str] = set()
        self.aborted = False
        self._hand_over = False

    # --- reporting -----------------------------------------------------------------------

    def _fail(self, check: Check, message: str, at: EventRef | None) -> None:
        hand = self.hand_id
        self.violations.append(Violation(check, message, self.table_id, hand, at))
        if hand is not None:
            self.failed_hands.add(hand)

    def _compare(self, logged: Sequence[LoggedEvent], expected: Sequence[AnyEvent]) -> bool:
        if len(logged) == len(expected) and all(
            a.event == b for a, b in zip(logged, expected, strict=True)
        ):
            return True
        diff = first_difference(logged, expected)
        if diff is None:
            return True
        self._fail(Check.REPLAY_MISMATCH, diff[1], diff[0])
        return False

    # --- the table's state ---------------------------------------------------------------

    def _synced(self) -> TableState:
        """The table with the live hand state in it (kept apart while a hand is replayed)."""
        if self.table.hand is not self.hand:
            self.table = replace(self.table, hand=self.hand)
        return self.table

    def _fold_table(self, events: Sequence[AnyEvent], at: LoggedMessage) -> None:
        try:
            self.table = aggregate.fold(events, self._synced())
        except (EngineError, ValueError, AssertionError, IndexError) as exc:
            self._fail(Check.REPLAY_MISMATCH, f"the recorded events do not fold: {exc}", at.ref)
            self.aborted = True

    # --- messages ------------------------------------------------------------------------

    def message(self, m: LoggedMessage) -> None:
        """Check one stored message against the rules and fold it in."""
        if self._hand_over:  # what follows a hand's end belongs to no hand
            self.hand_id = None
            self._hand_over = False
        if self.aborted or not m.events:
            return
        if any(e.event is None for e in m.events):
            # Already reported as undecodable; the hand cannot be replayed past it.
            if self.hand_id is not None:
                self.failed_hands.add(self.hand_id)
            self._skip(m)
            return
        first = m.events[0].event
        assert first is not None
        events = [e.event for e in m.events if e.event is not None]
        try:
            match first:
                case HandStarted():
                    self._deal(m, first, events)
                case ActionTaken():
                    self._act(m, first, events)
                case HandVoided():
                    self._void(m, first, events)
                case _:
                    self._table_command(m, first, events)
        except EngineError as exc:
            kind = Check.ILLEGAL_ACTION if isinstance(first, ActionTaken) else Check.TABLE_RULES
            self._fail(kind, f"{exc.message} (rule {exc.rule})", m.events[0].ref)
            self._skip(m)

    def _table_command(self, m: LoggedMessage, first: AnyEvent, events: list[AnyEvent]) -> None:
        if self.hand_id in self.failed_hands and not isinstance(first, HandCommitted):
            self._skip(m)  # judged against a hand that could not be replayed: no verdict
            return
        table = self._synced()
        expected: list[AnyEvent]
        match first:
            case TableCreated():
                expected = aggregate.create_table(
                    table,
                    name=first.name,
                    variant=first.variant,
                    options=first.options,
                    action_seconds=first.action_seconds,
                )
            case PlayerSeated():
                expected = aggregate.seat_player(
                    table,
                    seat=first.seat,
                    player=first.player,
                    stack=first.stack,
                    buy_in_reference=first.buy_in_reference,
                )
            case LeaveRequested() | PlayerLeft():
                expected = aggregate.unseat_player(table, seat=first.seat)
            case HandCommitted():
                expected = aggregate.commit_hand(
                    table,
                    hand_id=first.hand_id,
                    scheme=first.scheme,
                    commitment=first.commitment,
                    deck_size=first.deck_size,
                )
                self.hand_id = first.hand_id
                self.hand = None
            case _:
                self._fail(
                    Check.REPLAY_MISMATCH,
                    f"no command begins with {type(first).__name__}",
                    m.events[0].ref,
                )
                self._skip(m)
                return
        self._compare(m.events, expected)
        self._fold_table(events, m)

    def _deal(self, m: LoggedMessage, started: HandStarted, events: list[AnyEvent]) -> None:
        pending = self.table.pending
        if pending is None or pending.hand_id != started.hand_id:
            self.hand_id = started.hand_id
            self._fail(
                Check.COMMITMENT_ORDER,
                f"hand {started.hand_id} is dealt but its deck commitment was not logged before it",
                m.events[0].ref,
            )
            self._skip(m)
            return
        self.hand_id = started.hand_id
        deck = self.decks.get(started.hand_id, ())
        table = self._synced()
        if table.options is None or len(deck) != pending.deck_size:
            raise TableError(
                "the deck does not match the commitment", kind="precondition", rule="bad_deck"
            )
        # The deal as ``aggregate.deal_hand`` makes it (every ready player, the committed
        # button), through ``step`` so the hand's state comes with the events.
        seats = tuple(SeatEntry(s.seat, s.player, s.stack) for s in table.ready_players())
        command = StartHand(
            pending.hand_id, table.variant, table.options, pending.button, seats, deck
        )
        expected, state = step_hand(None, command)
        if self._compare(m.events, expected):
            self.hand = state
            self.table = replace(aggregate.apply(self.table, started), hand=state)
        else:
            self._skip(m)

    def _act(self, m: LoggedMessage, action: ActionTaken, events: list[AnyEvent]) -> None:
        hand = self.hand
        if self.hand_id in self.failed_hands or hand is None:
            if hand is None and self.hand_id not in self.failed_hands:
                self._fail(Check.ILLEGAL_ACTION, "an action with no hand in play", m.ref)
            self._skip(m)
            return
        command: Act | TimeOut
        if m.events[0].envelope.actor == "clock":  # the action clock's time-out
            command = TimeOut(action.seat)
        else:
            amount = action.to if action.action in _WAGERS else None
            command = Act(action.seat, action.action, amount)
        try:
            hand_events, after = step_hand(hand, command, self.decks.get(hand.hand_id, ()))
        except EngineError as exc:
            self._fail(
                Check.ILLEGAL_ACTION,
                f"{show_event(action)} is refused by the rules: {exc.message} (rule {exc.rule})",
                m.events[0].ref,
            )
            self._skip(m)
            return
        expected: list[AnyEvent] = list(hand_events)
        if after.finished:
            # Players who asked to leave go when the hand ends, with their final stacks.
            final = dict(zip(after.seats, after.stacks, strict=True))
            expected.extend(
                PlayerLeft(s.seat, s.player, final.get(s.seat, s.stack))
                for s in self.table.seats
                if s.leaving
            )
        if not self._compare(m.events, expected):
            self._skip(m)
            return
        self.hand = after
        if after.finished:
            # HandEnded sets the seats' stacks; the leavers after it take their seats away.
            self._fold_table([hand_events[-1], *events[len(hand_events) :]], m)
            self.hand = None
            self.table = replace(self.table, hand=None)
            self._hand_over = True

    def _void(self, m: LoggedMessage, voided: HandVoided, events: list[AnyEvent]) -> None:
        self.hand_id = voided.hand_id
        if self.hand is not None or self.table.pending is not None:
            self._compare(m.events, aggregate.void_hand(self._synced(), voided.reason))
        self._skip(m)

    def _skip(self, m: LoggedMessage) -> None:
        """Fold a message without replaying it: only its effect on the table is kept.

        Seat stacks change only when a hand ends (to the recorded final stacks) or is voided,
        so the table stays right for the next hand even if this one could not be replayed.
        """
        for logged in m.events:
            event = logged.event
            if event is None:
                continue
            if isinstance(event, HandEnded):
                final = dict(event.stacks)
                self.table = replace(
                    self.table,
                    hand=None,
                    pending=None,
                    seats=tuple(
                        replace(s, stack=final.get(s.seat, s.stack)) for s in self.table.seats
                    ),
                )
                self.hand = None
                self._hand_over = True
            elif isinstance(event, HandVoided):
                self.table = replace(self.table, hand=None, pending=None)
                self.hand = None
                self._hand_over = True
            elif isinstance(event, HandStarted):
                self.table = replace(
                    self.table,
                    pending=None,
                    button=event.button,
                    hands_played=self.table.hands_played + 1,
                )
                self.hand = None
                self.hand_id = event.hand_id
            elif isinstance(
                event, TableCreated | PlayerSeated | LeaveRequested | PlayerLeft | HandCommitted
            ):
                self._fold_table([event], m)
