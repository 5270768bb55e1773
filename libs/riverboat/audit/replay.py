"""Replay one table's log through the rules and compare, message by message.

The log holds one message per accepted command. Each message's first event (and its actor)
says which command it was; the auditor rebuilds that command and asks the same pure rules the
table service uses what it should have caused, given the table as the log left it. The answer
must be exactly the recorded events. The rules are ``riverboat.table.aggregate`` and
``riverboat.table.choice`` for the table, and ``riverboat.engine`` for the hand:

* ``TableCreated``, ``PlayerSeated``, ``LeaveRequested``, ``PlayerLeft``: the table command;
* ``DealerUp``: the dealer's choice table calls the next dealer; ``GameChosen``: the dealer's
  choice (or, from the actor ``clock``, the table's default when their clock ran out);
* ``HandCommitted``: the commitment (button, deck size) for the next hand;
* ``HandStarted``: the deal, from the deck the log's cards spell out (:mod:`.deck`; checked
  against the committed deck card by card elsewhere);
* a player's move, rebuilt from its first event: ``ActionTaken`` (bet, call...),
  ``CardsDiscarded`` (draw or discard, by the phase), ``CardsToPass``, ``CardsOrdered``,
  ``CardTurnedUp`` (expose), ``OfferAnswered``, ``DeclarationSealed``, ``PotMatched``,
  ``MatchDeclined``; from the actor ``clock``, the clock's time-out of every seat waited for;
  ``DiscardsReshuffled``: the dealer's reshuffle of a draw's discards;
  everything that follows mechanically (streets, showdown, pots, rake, leavers) must match;
* ``HandVoided``: the void and its refunds;
* ``TableClosing``, ``TableClosed``, ``DealingPaused``, ``DealingResumed``: an operator's close
  (its completion after the hand it waited for, with every seated player leaving), pause and
  resume;
* seat events (``riverboat.table.events.SEAT_EVENTS``): ``PlayerSatOut``/``PlayerSatIn`` alone
  are the player's sit-out or sit-in; before a player's move, ``TimeBankUsed`` and
  ``TimeoutsCleared`` must be what the move closes (the seconds drawn are the measured input,
  at most what the bank granted); in a clock's message, the banks started and drawn, the
  time-outs and the sit-outs they cause must be what ``riverboat.table.clock`` decides, given
  which banks ran out and who was disconnected (read from the message itself).

After the first failure in a hand the rest of that hand is not replayed (it would only repeat
the same failure); the table picks up again at the hand's end from the recorded events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from riverboat.audit.deck import HandDeck
from riverboat.audit.report import Check, EventRef, Violation
from riverboat.audit.tablelog import LoggedEvent, LoggedMessage
from riverboat.engine import events as ev
from riverboat.engine.cards import card_str
from riverboat.engine.commands import Act, Reshuffle, StartHand
from riverboat.engine.errors import EngineError
from riverboat.engine.events import SeatEntry
from riverboat.engine.game import fold as fold_hand
from riverboat.engine.game import step as step_hand
from riverboat.engine.games import waiting_for
from riverboat.engine.state import STUD_VARIANT, HandState
from riverboat.table import aggregate, choice
from riverboat.table.aggregate import TableState
from riverboat.table.clock import clock_expiry
from riverboat.table.events import (
    OPERATOR_EVENTS,
    SEAT_EVENTS,
    AnyEvent,
    ClientSeedCommitted,
    ClientSeedSent,
    DealingPaused,
    DealingResumed,
    HandCommitted,
    HandVoided,
    LeaveRequested,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    SeedCommitsLocked,
    SeedsLocked,
    TableClosed,
    TableClosing,
    TableCreated,
    TimeBankStarted,
    TimeBankUsed,
)

__all__ = ["Replayer", "show_event"]

_WAGERS = frozenset({"bet", "raise", "complete"})
_CARD_FIELDS = frozenset({"card"})
_CARDS_FIELDS = frozenset({"cards"})
_TABLE_COMMANDS = (
    TableCreated,
    PlayerSeated,
    LeaveRequested,
    PlayerLeft,
    HandCommitted,
    ev.DealerUp,
    ev.GameChosen,
    ClientSeedCommitted,
    SeedCommitsLocked,
    ClientSeedSent,
    SeedsLocked,
    *OPERATOR_EVENTS,
)
CLOCK = "clock"


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
        elif f.name in ("options", "rules"):
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


def start_command(table: TableState, deck: tuple[int, ...]) -> StartHand | None:
    """The deal ``aggregate.deal_hand`` makes of the committed hand, as a command (None when it
    voids the deal instead). Built here so that ``step`` returns the hand's state with the
    events (a test checks it against ``deal_hand`` for both kinds of table)."""
    pending, options = table.pending, table.options
    if pending is None or options is None or len(deck) != pending.deck_size:
        return None
    ready = table.ready_players()
    if len(ready) < options.min_players:
        return None
    if table.dealers_choice and pending.button not in {s.seat for s in ready}:
        return None
    return StartHand(
        pending.hand_id,
        table.game if table.dealers_choice else table.variant,
        options,
        pending.button,
        tuple(SeatEntry(s.seat, s.player, s.stack) for s in ready),
        deck,
        game_options=(table.game_options or None) if table.game != STUD_VARIANT else None,
        carried_pot=table.carried,
    )


def move_of(event: AnyEvent, hand: HandState) -> Act | None:
    """The player's command that a message beginning with ``event`` records, or None."""
    match event:
        case ev.ActionTaken():
            amount = event.to if event.action in _WAGERS else None
            return Act(event.seat, event.action, amount)
        case ev.CardsDiscarded():
            return Act(event.seat, getattr(hand, "phase", "draw"), cards=event.cards)
        case ev.CardsToPass():
            return Act(event.seat, "pass", cards=event.cards)
        case ev.CardsOrdered():
            return Act(event.seat, "order", cards=event.cards)
        case ev.CardTurnedUp():
            return Act(event.seat, "expose", cards=(event.card,))
        case ev.OfferAnswered():
            return Act(event.seat, "take" if event.took else "stand")
        case ev.DeclarationSealed():
            return Act(event.seat, "declare", choice=event.choice)
        case ev.PotMatched():
            return Act(event.seat, "match")
        case ev.MatchDeclined():
            return Act(event.seat, "fold")
    return None


class Replayer:
    """Replays one table; :meth:`message` takes the log's messages in order.

    ``decks`` gives each hand's deck and reshuffle stubs for the replay (:mod:`.deck`).
    """

    def __init__(self, table_id: str, decks: dict[str, HandDeck]) -> None:
        self.table_id = table_id
        self.table = TableState(table_id)
        self.hand: HandState | None = None
        self.hand_id: str | None = None
        self.deck: tuple[int, ...] = ()
        self.stubs_used = 0
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

    def _compare(
        self,
        logged: Sequence[LoggedEvent],
        expected: Sequence[AnyEvent],
        recorded: list[AnyEvent] | None = None,
    ) -> bool:
        """Whether the logged events are the expected ones; if not, the first difference is a
        violation. ``recorded``: the logged events' events, if the caller has them."""
        if recorded is None:
            recorded = [e.event for e in logged]  # type: ignore[misc]
        if recorded == (expected if isinstance(expected, list) else list(expected)):
            return True
        diff = first_difference(logged, expected)
        if diff is None:
            return True
        self._fail(Check.REPLAY_MISMATCH, diff[1], diff[0])
        return False

    # --- the table's state ---------------------------------------------------------------

    def _synced(self) -> TableState:
        """The table with the live hand state in it (kept apart while a hand is replayed)."""
        if self.hand is not None and self.table.hand is not self.hand:
            self.table = aggregate.replace_table(self.table, hand=self.hand)
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
            if isinstance(first, ev.HandStarted):
                self._deal(m, first)
            elif isinstance(first, HandVoided):
                self._void(m, first)
            elif isinstance(first, _TABLE_COMMANDS):
                self._table_command(m, first, events)
            elif isinstance(first, SEAT_EVENTS) and m.events[0].envelope.actor != CLOCK:
                self._seat_command(m, events)
            else:
                self._hand_command(m, first, events)
        except EngineError as exc:
            table_level = isinstance(first, (*_TABLE_COMMANDS, ev.HandStarted, HandVoided))
            kind = Check.TABLE_RULES if table_level else Check.ILLEGAL_ACTION
            self._fail(kind, f"{exc.message} (rule {exc.rule})", m.events[0].ref)
            self._skip(m)

    def _table_command(self, m: LoggedMessage, first: AnyEvent, events: list[AnyEvent]) -> None:
        if self.hand_id in self.failed_hands and not isinstance(first, HandCommitted):
            self._skip(m)  # judged against a hand that could not be replayed: no verdict
            return
        table = self._synced()
        clock = m.events[0].envelope.actor == CLOCK
        expected: list[AnyEvent]
        match first:
            case TableCreated():
                expected = aggregate.create_table(
                    table,
                    name=first.name,
                    variant=first.variant,
                    options=first.options,
                    action_seconds=first.action_seconds,
                    rules=first.rules,
                    time_bank=first.time_bank,
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
            case ev.DealerUp():
                expected = choice.call_dealer(table)
            case ev.GameChosen() if clock:
                expected = choice.time_out_choice(table, seat=first.seat)
            case ev.GameChosen():
                expected = choice.choose_game(
                    table,
                    seat=first.seat,
                    game=first.game,
                    options=first.options,
                    small_bet=first.small_bet,
                    big_bet=first.big_bet,
                )
            case HandCommitted():
                expected = aggregate.commit_hand(
                    table,
                    hand_id=first.hand_id,
                    scheme=first.scheme,
                    commitment=first.commitment,
                    deck_size=first.deck_size,
                    root=first.root,
                )
                self.hand_id = first.hand_id
                self.hand = None
            case ClientSeedCommitted():
                pending = table.pending
                expected = aggregate.commit_seed(
                    table,
                    seat=first.seat,
                    player=first.player,
                    hand_id=pending.hand_id if pending is not None else "",
                    commitment=first.commitment,
                )
            case SeedCommitsLocked():
                expected = aggregate.lock_seed_commits(table)
            case ClientSeedSent():
                # The rules check the seed against the seat's locked commitment.
                pending = table.pending
                expected = aggregate.send_seed(
                    table,
                    seat=first.seat,
                    player=first.player,
                    hand_id=pending.hand_id if pending is not None else "",
                    seed=first.seed,
                )
            case SeedsLocked():
                # The rules decide every seed of the lock: each seed a client revealed, and
                # for every other seat its derived seed (a relabelled or chosen one differs).
                expected = aggregate.lock_seeds(table)
            case TableClosing() | TableClosed():
                # An operator's close, or its completion once the hand it waited for is over.
                expected = aggregate.close_table(table, by=first.by, reason=first.reason)
            case DealingPaused():
                expected = aggregate.pause_dealing(table, by=first.by, reason=first.reason)
            case DealingResumed():
                expected = aggregate.resume_dealing(table, by=first.by)
            case _:
                raise AssertionError(f"not a table command: {first!r}")
        self._compare(m.events, expected)
        self._fold_table(events, m)

    def _seat_command(self, m: LoggedMessage, events: list[AnyEvent]) -> None:
        """A player's sit-out or sit-in, or what their move closes before it."""
        n = next((i for i, e in enumerate(events) if not isinstance(e, SEAT_EVENTS)), len(events))
        first = events[0]
        expected: list[AnyEvent]
        if n == len(events):
            if isinstance(first, PlayerSatOut):
                expected = aggregate.sit_out(self._synced(), player=first.player)
            elif isinstance(first, PlayerSatIn):
                expected = aggregate.sit_in(self._synced(), player=first.player)
            else:
                self._fail(
                    Check.REPLAY_MISMATCH,
                    f"no command is only {type(first).__name__}",
                    m.events[0].ref,
                )
                self._skip(m)
                return
            self._compare(m.events, expected)
            self._fold_table(events, m)
            return
        seat = getattr(first, "seat", 0)
        drawn = next((e.seconds for e in events[:n] if isinstance(e, TimeBankUsed)), 0)
        expected = aggregate.own_action_bookkeeping(self._synced(), seat, drawn)
        if not self._compare(m.events[:n], expected, events[:n]):
            self._skip(m)
            return
        self._fold_table(events[:n], m)
        rest = replace(m, events=m.events[n:])
        self._hand_command(rest, events[n], events[n:])

    def _deal(self, m: LoggedMessage, started: ev.HandStarted) -> None:
        pending = self.table.pending
        self.hand_id = started.hand_id
        if pending is None or pending.hand_id != started.hand_id:
            self._fail(
                Check.COMMITMENT_ORDER,
                f"hand {started.hand_id} is dealt but its deck commitment was not logged before it",
                m.events[0].ref,
            )
            self._skip(m)
            return
        deck = self.decks.get(started.hand_id, HandDeck(()))
        table = self._synced()
        command = start_command(table, deck.main)
        expected: Sequence[AnyEvent]
        state: HandState | None = None
        if command is None:  # the table voids this deal; the message would start with that
            expected = aggregate.deal_hand(table, deck.main)
        else:
            expected, state = step_hand(None, command)
        if not self._compare(m.events, expected) or state is None:
            self._skip(m)
            return
        self.hand = state
        self.deck, self.stubs_used = deck.main, 0
        self.table = aggregate.replace_table(aggregate.apply(self.table, started), hand=state)
        if state.finished:  # over in its own deal (heads-up, one player all in on the ante)
            self._end_hand(m, [e.event for e in m.events if e.event is not None])

    def _hand_command(self, m: LoggedMessage, first: AnyEvent, events: list[AnyEvent]) -> None:
        hand = self.hand
        if self.hand_id in self.failed_hands or hand is None:
            if hand is None and self.hand_id not in self.failed_hands:
                self._fail(Check.ILLEGAL_ACTION, "a move with no hand in play", m.ref)
            self._skip(m)
            return
        deck = self.deck
        seat_events: list[AnyEvent] = []
        if m.events[0].envelope.actor == CLOCK:
            # The clock acts for every seat the hand waits for, as the table service's does.
            if isinstance(first, SEAT_EVENTS):
                # Which banks ran out and who was protected: the measured inputs, as logged.
                due = frozenset(e.seat for e in events if isinstance(e, TimeBankUsed))
                gone = frozenset(
                    e.player for e in events if isinstance(e, TimeBankStarted) and e.protection
                )
                expected = clock_expiry(
                    self._synced(),
                    waiting_for(hand),
                    deck,
                    hand.hand_id,
                    due=due,
                    disconnected=gone,
                )
            else:  # a log from before time banks
                expected = choice.time_out(self._synced(), waiting_for(hand), deck, hand.hand_id)
            seat_events = [e for e in events if isinstance(e, SEAT_EVENTS)]
            hand_events = [e for e in expected if not isinstance(e, (PlayerLeft, *SEAT_EVENTS))]
            after = fold_hand(hand_events, hand)  # type: ignore[arg-type]
        else:
            command: Act | Reshuffle | None
            if isinstance(first, ev.DiscardsReshuffled):
                stubs = self.decks[hand.hand_id].stubs if hand.hand_id in self.decks else ()
                stub = stubs[self.stubs_used] if self.stubs_used < len(stubs) else ()
                command = Reshuffle(stub)
            else:
                command = move_of(first, hand)
            if command is None:
                self._fail(
                    Check.REPLAY_MISMATCH,
                    f"no command begins with {type(first).__name__}",
                    m.events[0].ref,
                )
                self._skip(m)
                return
            try:
                stepped, after = step_hand(hand, command, deck)
            except EngineError as exc:
                self._fail(
                    Check.ILLEGAL_ACTION,
                    f"{show_event(first)} is refused by the rules: {exc.message} (rule {exc.rule})",
                    m.events[0].ref,
                )
                self._skip(m)
                return
            # What aggregate.act adds: players who asked to leave go when the hand ends.
            expected = list(stepped)
            if after.finished:
                expected.extend(aggregate.leavers(self.table, after))
            if isinstance(command, Reshuffle):
                deck = deck + command.cards
        if not self._compare(m.events, expected, events):
            self._skip(m)
            return
        if seat_events:
            self._fold_table(seat_events, m)
        self.hand, self.deck = after, deck
        if isinstance(first, ev.DiscardsReshuffled):
            self.stubs_used += 1
        if after.finished:
            self._end_hand(m, events)

    def _end_hand(self, m: LoggedMessage, events: list[AnyEvent]) -> None:
        """The hand ended in ``m``: HandEnded sets the seats' stacks (and a riding pot); the
        leavers then go."""
        ended = next(i for i, e in enumerate(events) if isinstance(e, ev.HandEnded))
        self._fold_table(events[ended:], m)
        self.hand = None
        self.table = aggregate.replace_table(self.table, hand=None)
        self._hand_over = True

    def _void(self, m: LoggedMessage, voided: HandVoided) -> None:
        self.hand_id = voided.hand_id
        if self.hand is not None or self.table.pending is not None:
            self._compare(m.events, aggregate.void_hand(self._synced(), voided.reason))
        self._skip(m)

    def _skip(self, m: LoggedMessage) -> None:
        """Fold a message without replaying it: only its effect on the table is kept.

        The table folds the recorded events itself (``aggregate.apply``); an event that does
        not fold is passed over, except that a hand's end always sets the recorded stacks, so
        the table stays right for the next hand even if this one could not be replayed.
        """
        self.hand = None
        for logged in m.events:
            event = logged.event
            if event is None:
                continue
            try:
                self.table = aggregate.apply(self.table, event)
            except (EngineError, ValueError, AssertionError, IndexError, TypeError, KeyError):
                if isinstance(event, ev.HandEnded):
                    final = dict(event.stacks)
                    seats = tuple(
                        replace(s, stack=final.get(s.seat, s.stack)) for s in self.table.seats
                    )
                    self.table = replace(self.table, hand=None, pending=None, seats=seats)
            if isinstance(event, ev.HandEnded | HandVoided):
                self._hand_over = True
            elif isinstance(event, ev.HandStarted):
                self.hand_id = event.hand_id
