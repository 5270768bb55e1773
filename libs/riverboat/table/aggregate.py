"""The table aggregate: state, ``apply`` and ``decide`` for table commands.

A table holds seats (player and chips), the button, and at most one hand. A hand goes:
``HandCommitted`` (the dealer's commitment, before any card) -> ``HandStarted`` and the rest of
the engine's events -> ``HandEnded`` (or ``HandVoided``), after which seat stacks take the
hand's final stacks and players who asked to leave do.

A dealer's choice table (variant ``"dealers_choice"``) adds a step before the commitment:
``DealerUp`` calls the next dealer, who chooses the game (``GameChosen``; see
:mod:`riverboat.table.choice`); a pot that rides is held by the table between deals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from riverboat.engine.commands import Act, Reshuffle, StartHand, TimeOut
from riverboat.engine.errors import EngineError, IllegalAction, InvalidCommand
from riverboat.engine.events import DealerUp, GameChosen, HandEnded, HandStarted, SeatEntry
from riverboat.engine.events import Event as HandEvent
from riverboat.engine.game import decide as decide_hand
from riverboat.engine.game import fold as fold_hand
from riverboat.engine.game import step as step_hand
from riverboat.engine.money import amount_problem
from riverboat.engine.options import TableOptions
from riverboat.engine.rotation import next_seat, pot_carried_in, riding_pot
from riverboat.engine.session import DealersChoiceRules
from riverboat.engine.state import STUD_VARIANT, HandState
from riverboat.shuffle import crv1
from riverboat.table.events import (
    NO_TIME_BANK,
    OPERATOR_EVENTS,
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
    PlayerTimedOut,
    SeedCommitsLocked,
    SeedsLocked,
    TableClosed,
    TableClosing,
    TableCreated,
    TimeBankPolicy,
    TimeBankStarted,
    TimeBankUsed,
    TimeoutsCleared,
)

MAX_PLAYER_ID = 64
#: Bytes of a CRV1 client seed, and of a commitment to one (docs/shuffle.md II.4).
CLIENT_SEED_BYTES = 32
#: The Act actions of CRV1's two seed phases: commit to a client seed, then reveal it.
COMMIT_SEED = "commit_seed"
SEED = "seed"
#: The variant of a table whose dealer chooses each deal's game.
DEALERS_CHOICE = "dealers_choice"
#: Time-outs in a row that sit a player out.
AUTO_SIT_OUT_TIMEOUTS = 2


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
    #: Dealt out of the next hands (:class:`PlayerSatOut`).
    sitting_out: bool = False
    #: Seconds left in the player's time bank.
    time_bank: int = 0
    #: Time-outs in a row (the clock acted for them; reset when they act themselves).
    timeouts: int = 0
    #: The hand number of the last disconnect protection they had (0: none yet).
    protected_hand: int = 0


# Not slotted: a __dict__ lets the fold copy the table with one C-level dict merge (_fold_run).
@dataclass(frozen=True)
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
    #: Dealer's choice only: the table's games, who deals next, whether they are choosing,
    #: whether the next deal's game is chosen, that game and its options, a riding pot.
    rules: DealersChoiceRules | None = None
    dealer: int = 0
    choosing: bool = False
    chosen: bool = False
    game: str = ""
    game_options: Mapping[str, Any] = field(default_factory=dict)
    carried: int = 0
    #: The limits the dealer declared for the next (or current) deal, (small, big); 0: the
    #: table's. A riding pot's redeal keeps them.
    limits: tuple[int, int] = (0, 0)
    time_bank: TimeBankPolicy = NO_TIME_BANK
    #: Turns running on a time bank now: seat -> (seconds granted, disconnect protection).
    banking: Mapping[int, tuple[int, bool]] = field(default_factory=dict)
    #: Operator control (docs/admin.md): a close asked for after the hand in play, the
    #: close itself (for good), and a pause of dealing.
    closing: TableClosing | None = None
    closed: bool = False
    paused: bool = False

    @property
    def hand_number(self) -> int:
        """The number of the hand in play or last played (1, 2, 3... per table; 0: none yet)."""
        return self.hands_played

    def is_hand(self, hand_id: str) -> bool:
        """``hand_id`` names the hand in play or last played: its id (the log version it was
        committed at) or its number."""
        hand = self.hand
        if hand is None or not hand_id:
            return False
        return hand_id in (hand.hand_id, str(self.hands_played))

    #: CRV1 (docs/shuffle.md II.4): the commitments to client seeds sent for the committed
    #: hand (seat -> commitment) until they are locked; the commitments locked; the seeds
    #: revealed (seat -> seed) until the lock; then the lock itself, kept until the next
    #: commitment.
    seed_commits: Mapping[int, bytes] = field(default_factory=dict)
    commits_locked: SeedCommitsLocked | None = None
    client_seeds: Mapping[int, bytes] = field(default_factory=dict)
    locked: SeedsLocked | None = None

    @property
    def needs_seeds(self) -> bool:
        """A CRV1 hand is committed and its seeds are not locked yet."""
        return (
            self.pending is not None
            and self.pending.scheme == "CRV1"
            and (self.locked is None or self.locked.hand_id != self.pending.hand_id)
        )

    @property
    def seed_phase(self) -> str:
        """CRV1: ``commit`` (clients send commitments), ``reveal`` (clients reveal the seeds
        they committed to), or ``""`` (no hand awaits seeds)."""
        if not self.needs_seeds:
            return ""
        assert self.pending is not None
        done = self.commits_locked
        return "reveal" if done is not None and done.hand_id == self.pending.hand_id else "commit"

    @property
    def dealers_choice(self) -> bool:
        """The dealer chooses each deal's game."""
        return self.rules is not None

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
        """Seated players who can be dealt in (chips, not leaving, not sitting out)."""
        return [s for s in self.seats if s.stack > 0 and not s.leaving and not s.sitting_out]

    def can_start_hand(self) -> bool:
        """Enough players and no hand in progress; dealing neither paused nor closed (while
        the table closes, only a riding pot's redeal)."""
        assert self.options is not None or not self.created
        return (
            self.created
            and not self.hand_in_progress
            and not self.closed
            and not self.paused
            and (self.closing is None or self.carried > 0)
            and len(self.ready_players()) >= (self.options.min_players if self.options else 2)
        )

    @property
    def undealable(self) -> str:
        """Why the committed hand can no longer be dealt ("" if it can, or none is committed):
        too few players left to deal in (they left, or sat out, in its seed phases), or, at a
        dealer's choice table, its dealer is gone. Such a hand is voided
        (:func:`void_undealt`), whatever step of its seeding or deal it is at."""
        pending = self.pending
        if pending is None or self.options is None:
            return ""
        ready = self.ready_players()
        if len(ready) < self.options.min_players:
            return "not enough players to deal"
        if self.dealers_choice and pending.button not in {s.seat for s in ready}:
            return "the dealer left before the deal"
        return ""

    @property
    def pot_rides(self) -> bool:
        """A pot rides into the next deal and that deal can be dealt (its game is not over)."""
        assert self.options is not None or not self.created
        minimum = self.options.min_players if self.options else 2
        return self.carried > 0 and len(self.ready_players()) >= minimum

    @property
    def close_due(self) -> bool:
        """A close was asked for and the hand it waited for (and any riding pot) is over."""
        return (
            self.closing is not None
            and not self.closed
            and not self.hand_in_progress
            and not self.pot_rides
        )

    @property
    def dealer_can_deal(self) -> bool:
        """Dealer's choice: the seat called to deal can be dealt in (seated, with chips, not
        leaving, not sitting out)."""
        return any(s.seat == self.dealer for s in self.ready_players())

    @property
    def awaits_choice(self) -> bool:
        """Dealer's choice: the dealer called is choosing the next game and can deal it."""
        return self.choosing and self.dealer_can_deal

    def needs_dealer(self) -> bool:
        """Dealer's choice: nobody is called to deal the next hand, or the one called cannot be
        dealt in any more (left, sat out, no chips): the deal passes to the next seat
        (docs/games.md, "Sitting out")."""
        if not self.dealers_choice or self.hand_in_progress:
            return False
        return not self.dealer_can_deal or not (self.chosen or self.choosing)

    def next_button(self) -> int:
        """The button for the next hand: the next ready seat clockwise after the last one."""
        return next_seat((s.seat for s in self.ready_players()), self.button)


#: The events :func:`apply` handles itself (one case each); every other one is folded into
#: the hand, by :func:`apply` and by :func:`fold` in runs.
_TABLE_LEVEL: frozenset[type] = frozenset(
    {
        TableCreated,
        PlayerSeated,
        LeaveRequested,
        PlayerLeft,
        DealerUp,
        GameChosen,
        HandCommitted,
        HandVoided,
        HandStarted,
        HandEnded,
        PlayerSatOut,
        PlayerSatIn,
        PlayerTimedOut,
        TimeoutsCleared,
        TimeBankStarted,
        TimeBankUsed,
        ClientSeedCommitted,
        SeedCommitsLocked,
        ClientSeedSent,
        SeedsLocked,
        TableClosing,
        TableClosed,
        DealingPaused,
        DealingResumed,
    }
)


def _with_seat(state: TableState, seat: int, **changes: Any) -> TableState:
    return replace(
        state,
        seats=tuple(replace(s, **changes) if s.seat == seat else s for s in state.seats),
    )


def apply(state: TableState, event: AnyEvent) -> TableState:
    """Fold one event (table-level or hand) into the table."""
    if type(event) not in _TABLE_LEVEL:
        return _fold_run(state, [event])  # type: ignore[list-item]  # a hand event
    match event:
        case TableCreated():
            return replace(
                state,
                name=event.name,
                variant=event.variant,
                options=event.options,
                action_seconds=event.action_seconds,
                created=True,
                rules=event.rules,
                time_bank=event.time_bank or NO_TIME_BANK,
            )
        case PlayerSeated():
            seated = Seat(event.seat, event.player, event.stack, time_bank=state.time_bank.seconds)
            seats = tuple(
                sorted(
                    (*state.seats, seated),
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
            state = replace(state, seats=tuple(s for s in state.seats if s.seat != event.seat))
            if event.seat == state.dealer and not state.hand_in_progress:
                # The dealer left before dealing: the next call picks another.
                state = replace(state, dealer=0, choosing=False, chosen=False)
            return state
        case DealerUp():
            return replace(
                state,
                dealer=event.seat,
                choosing=not event.redeal,
                chosen=event.redeal,
                game=event.game if event.redeal else state.game,
                game_options=dict(event.options) if event.redeal else state.game_options,
                limits=state.limits if event.redeal else (0, 0),
            )
        case GameChosen():
            return replace(
                state,
                choosing=False,
                chosen=True,
                game=event.game,
                game_options=event.options,
                limits=(event.small_bet, event.big_bet),
            )
        case HandCommitted():
            return replace(
                state,
                pending=event,
                seed_commits={},
                commits_locked=None,
                client_seeds={},
                locked=None,
            )
        case ClientSeedCommitted():
            commits = {**state.seed_commits, event.seat: event.commitment}
            return replace(state, seed_commits=commits)
        case SeedCommitsLocked():
            return replace(state, commits_locked=event, seed_commits={})
        case ClientSeedSent():
            return replace(state, client_seeds={**state.client_seeds, event.seat: event.seed})
        case SeedsLocked():
            return replace(state, locked=event, client_seeds={})
        case PlayerSatOut():
            return _with_seat(state, event.seat, sitting_out=True, timeouts=0)
        case PlayerSatIn():
            return _with_seat(state, event.seat, sitting_out=False, timeouts=0)
        case PlayerTimedOut():
            seat = state.seat_at(event.seat)
            banking = {k: v for k, v in state.banking.items() if k != event.seat}
            state = replace(state, banking=banking)
            if seat is None:
                return state
            return _with_seat(state, event.seat, timeouts=seat.timeouts + 1)
        case TimeoutsCleared():
            return _with_seat(state, event.seat, timeouts=0)
        case TimeBankStarted():
            banking = {**state.banking, event.seat: (event.seconds, event.protection)}
            state = replace(state, banking=banking)
            if event.protection:
                state = _with_seat(state, event.seat, protected_hand=state.hands_played)
            return state
        case TimeBankUsed():
            banking = {k: v for k, v in state.banking.items() if k != event.seat}
            seat = state.seat_at(event.seat)
            state = replace(state, banking=banking)
            if seat is None:
                return state
            return _with_seat(state, event.seat, time_bank=max(0, seat.time_bank - event.seconds))
        case TableClosing():
            return replace(state, closing=event)
        case TableClosed():
            closing = state.closing or TableClosing(event.by, event.reason)
            return replace(
                state, closing=closing, closed=True, dealer=0, choosing=False, chosen=False
            )
        case DealingPaused():
            return replace(state, paused=True)
        case DealingResumed():
            return replace(state, paused=False)
        case HandVoided():
            # The hand voided is the one in play, or a committed one never dealt. In the
            # second case ``state.hand`` is the hand before, finished and already settled
            # into the seats: its starting stacks are no refund.
            hand = state.hand if state.hand is not None and not state.hand.finished else None
            seats = state.seats
            if hand is not None:
                # Back to the stacks the hand started with: every contribution refunded.
                start = dict(zip(hand.seats, hand.starting_stacks, strict=True))
                seats = tuple(replace(s, stack=start.get(s.seat, s.stack)) for s in seats)
            carried = state.carried
            if hand is not None:
                carried += pot_carried_in(hand)  # a riding pot waits for the redeal
            state = replace(
                state, seats=seats, pending=None, hand=None, carried=carried, banking={}
            )
            if not state.dealers_choice:
                return state
            if not state.dealer_can_deal:
                # The dealer left, sat out or has no chips: the call is over, the next call
                # passes the deal on (a riding pot is redealt by the next seat, same game).
                return replace(state, dealer=0, choosing=False, chosen=False)
            # Dealt again by the same dealer, with the same game.
            return replace(state, chosen=state.chosen or bool(state.game))
        case HandStarted():
            hand = fold_hand([event])
            return replace_table(
                state,
                hand=hand,
                pending=None,
                button=event.button,
                hands_played=state.hands_played + 1,
                chosen=False,
                carried=0,
                banking={},
            )
        case HandEnded():
            assert state.hand is not None
            return _hand_ended(state, event, fold_hand([event], state.hand))
        case _:
            raise AssertionError(f"{type(event).__name__} is in _TABLE_LEVEL but has no case")


def _hand_ended(state: TableState, event: HandEnded, hand: HandState) -> TableState:
    """The table after ``event``, ``hand`` being the hand after it."""
    final = dict(event.stacks)
    seats = tuple(replace(s, stack=final.get(s.seat, s.stack)) for s in state.seats)
    policy = state.time_bank
    if policy.topup_hands and state.hands_played % policy.topup_hands == 0:
        # Every N hands each seat's bank grows by X seconds, up to its full size.
        seats = tuple(
            replace(s, time_bank=min(policy.seconds, s.time_bank + policy.topup_seconds))
            for s in seats
        )
    return replace_table(
        state, hand=hand, seats=seats, carried=riding_pot(hand), dealer=0, banking={}
    )


@dataclass(frozen=True, slots=True)
class Decided:
    """A command's events and the table they lead to: ``state`` is exactly
    ``fold(events, before)``, worked out as the engine decided them (so nobody folds them
    again)."""

    events: list[AnyEvent]
    state: TableState


def _fold_decided(
    state: TableState, events: Sequence[AnyEvent], decided: Sequence[HandEvent], hand: HandState
) -> TableState:
    """``fold(events, state)`` for a batch holding ``decided``, the hand events the engine
    decided and folded into ``hand`` as it went: those are not folded again (the table's own
    events around them are)."""
    mine = {id(e) for e in decided}
    for event in events:
        if id(event) in mine:
            if type(event) is HandEnded:
                state = _hand_ended(state, event, hand)
            elif type(event) in _TABLE_LEVEL:  # none today; were one added, fold it
                return fold(events, state)
            elif state.hand is not hand:
                state = replace_table(state, hand=hand)
        else:
            state = apply(state, event)
    return state


def fold(events: Sequence[AnyEvent], state: TableState) -> TableState:
    """Fold several events: the same as :func:`apply` one after another.

    A run of plain hand events (a street's cards, an action and what it closes) goes into
    the hand in one step, so the table's state is copied once per run, not once per event.
    """
    run: list[HandEvent] = []
    for event in events:
        if type(event) in _TABLE_LEVEL:
            if run:
                state = _fold_run(state, run)
                run = []
            state = apply(state, event)
        else:
            run.append(event)  # type: ignore[arg-type]  # not table-level: a hand event
    return _fold_run(state, run) if run else state


def _fold_run(state: TableState, run: list[HandEvent]) -> TableState:
    if state.hand is None:
        raise ValueError(f"{type(run[0]).__name__} with no hand in progress")
    return replace_table(state, hand=fold_hand(run, state.hand))


def replace_table(state: TableState, **changes: Any) -> TableState:
    """``dataclasses.replace(state, **changes)`` without re-running ``__init__`` (it checks
    nothing): the fold copies the table for every message of a hand, and a rebuild folds a
    whole log, so the copy is one dict merge."""
    table = object.__new__(TableState)
    object.__setattr__(table, "__dict__", {**state.__dict__, **changes})
    return table


# --- commands -------------------------------------------------------------------------------


def create_table(
    state: TableState,
    *,
    name: str,
    variant: str,
    options: TableOptions,
    action_seconds: int,
    rules: DealersChoiceRules | None = None,
    time_bank: TimeBankPolicy | None = None,
) -> list[AnyEvent]:
    """Open the table: Pacific stud, or dealer's choice (``rules`` default to every game).
    ``time_bank``: None for none (the table service passes its default)."""
    if state.created:
        raise TableError(
            f"table {state.table_id} already exists", kind="already_exists", rule="table_exists"
        )
    if variant not in (STUD_VARIANT, DEALERS_CHOICE):
        raise TableError(f"unknown variant {variant!r}", kind="invalid", rule="unknown_variant")
    if variant == DEALERS_CHOICE:
        rules = rules or DealersChoiceRules()
    elif rules is not None:
        raise TableError(
            "only a dealers_choice table has dealer's choice rules",
            kind="invalid",
            rule="invalid_rules",
        )
    if not 1 <= action_seconds <= 3600:
        raise TableError("action_seconds must be 1..3600", kind="invalid", rule="invalid_clock")
    if not name or len(name) > 100:
        raise TableError("a table name is 1-100 characters", kind="invalid", rule="invalid_name")
    if time_bank is not None:
        limits = {
            "seconds": time_bank.seconds,
            "topup_seconds": time_bank.topup_seconds,
            "topup_hands": time_bank.topup_hands,
            "protect_hands": time_bank.protect_hands,
        }
        for what, value in limits.items():
            if not 0 <= value <= 3600:
                raise TableError(
                    f"time bank {what} must be 0..3600", kind="invalid", rule="invalid_time_bank"
                )
    return [TableCreated(state.table_id, name, variant, options, action_seconds, rules, time_bank)]


def seat_player(
    state: TableState, *, seat: int, player: str, stack: int, buy_in_reference: str = ""
) -> list[AnyEvent]:
    """Seat ``player`` at ``seat`` with ``stack`` chips (from a settlement reservation)."""
    _exists(state)
    assert state.options is not None
    # The table's own options say how many seats it has (a Pacific table has 8).
    seats = state.options.max_players
    if not 1 <= seat <= seats:
        raise TableError(f"seats are 1..{seats} at this table", kind="invalid", rule="bad_seat")
    if not player or len(player) > MAX_PLAYER_ID:
        raise TableError("a player id is 1-64 characters", kind="invalid", rule="bad_player")
    problem = amount_problem(stack, "stack")
    if problem:
        raise TableError(problem, kind="invalid", rule="bad_stack")
    if state.closed or state.closing is not None:
        raise TableError(
            f"{state.table_id} is closed: nobody sits down there", kind="precondition",
            rule="table_closed",
        )  # fmt: skip
    if state.seat_at(seat) is not None:
        raise TableError(f"seat {seat} is taken", kind="precondition", rule="seat_taken")
    if state.seat_of(player) is not None:
        raise TableError(f"{player} is already seated", kind="precondition", rule="already_seated")
    if len(state.seats) >= state.options.max_players:
        raise TableError("the table is full", kind="precondition", rule="table_full")
    return [PlayerSeated(seat, player, stack, buy_in_reference)]


def unseat_player(
    state: TableState, *, seat: int, player: str = "", between_hands: bool = False
) -> list[AnyEvent]:
    """The player at ``seat`` leaves now, or when the hand they are in ends.

    With ``player``: it must be who sits there (a stale seat number never unseats whoever sat
    down since), and ``seat`` 0 means that player's own seat. With ``between_hands``, a player
    dealt into the hand in play is refused (rule ``in_hand``) instead of leaving after it.
    """
    _exists(state)
    if player and not seat:
        mine = state.seat_of(player)
        if mine is None:
            raise TableError(
                f"{player} does not sit at {state.table_id}", kind="not_found", rule="not_seated"
            )
        seat = mine.seat
    who = state.seat_at(seat)
    if who is None:
        raise TableError(f"nobody sits at seat {seat}", kind="not_found", rule="empty_seat")
    if player and who.player != player:
        raise TableError(
            f"seat {seat} is {who.player}'s, not {player}'s",
            kind="precondition",
            rule="other_player",
        )
    # A committed but undealt hand has no cards yet: leaving then is leaving now.
    in_hand = state.hand is not None and not state.hand.finished and seat in state.hand.seats
    if in_hand and between_hands:
        raise TableError(
            f"{who.player} is in the hand in play at {state.table_id}: try again after it",
            kind="precondition",
            rule="in_hand",
        )
    if in_hand:
        if who.leaving:
            return []
        return [LeaveRequested(seat, who.player)]
    return [PlayerLeft(seat, who.player, who.stack)]


#: Longest reason an operator may give for a close or a pause.
MAX_REASON = 200


def close_table(state: TableState, *, by: str, reason: str = "") -> list[AnyEvent]:
    """Close the table (an operator, ``by``): at once between hands (every seated player
    leaves with their chips), else once the hand in play (and any pot riding from it) is
    over. Nothing if it is closed, or closing, already."""
    _exists(state)
    _check_reason(reason)
    if state.closed:
        return []
    if state.hand_in_progress or state.pot_rides:
        return [] if state.closing is not None else [TableClosing(by, reason)]
    leaving = [PlayerLeft(s.seat, s.player, s.stack) for s in state.seats]
    return [TableClosed(by, reason), *leaving]


def pause_dealing(state: TableState, *, by: str, reason: str = "") -> list[AnyEvent]:
    """Pause dealing (an operator, ``by``): the hand in play finishes, no new one starts.
    Nothing if paused already; a closed table is refused (rule ``table_closed``)."""
    _open_table(state)
    _check_reason(reason)
    return [] if state.paused else [DealingPaused(by, reason)]


def resume_dealing(state: TableState, *, by: str) -> list[AnyEvent]:
    """Resume dealing after a pause. Nothing if not paused; a closed table is refused."""
    _open_table(state)
    return [DealingResumed(by)] if state.paused else []


def _open_table(state: TableState) -> None:
    _exists(state)
    if state.closed or state.closing is not None:
        raise TableError(f"{state.table_id} is closed", kind="precondition", rule="table_closed")


def _check_reason(reason: str) -> None:
    if len(reason) > MAX_REASON:
        raise TableError(
            f"a reason is at most {MAX_REASON} characters", kind="invalid", rule="bad_reason"
        )


def commit_hand(
    state: TableState,
    *,
    hand_id: str,
    scheme: str,
    commitment: bytes,
    deck_size: int,
    root: bytes = b"",
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
    button = state.next_button()
    if state.dealers_choice:
        if not state.chosen or not state.dealer_can_deal:
            raise TableError(
                "the dealer has not chosen the game", kind="precondition", rule="not_chosen"
            )
        button = state.dealer
    if scheme == crv1.SCHEME and (len(commitment) != 32 or len(root) != 32):
        # Its drawn seeds and every opening hang on C and R: both are 32 bytes.
        raise TableError(
            "a CRV1 commitment needs a 32-byte commitment and Merkle root",
            kind="invalid",
            rule="bad_commitment",
        )
    return [HandCommitted(hand_id, scheme, commitment, deck_size, button, root)]


def _seeding(state: TableState, *, seat: int, player: str, hand_id: str, phase: str) -> None:
    """CRV1: refuse a client's commitment or seed that does not count now (TableError)."""
    _exists(state)
    pending = state.pending
    if state.locked is not None and state.locked.hand_id == hand_id:
        raise TableError(
            f"the seeds of hand {hand_id} are locked: a seed counts only between the "
            "commitment and the lock",
            kind="precondition",
            rule="seeds_locked",
        )
    if pending is None or pending.hand_id != hand_id or pending.scheme != "CRV1":
        now = pending.hand_id if pending is not None else "none"
        raise TableError(
            f"hand {hand_id} does not take client seeds now (the committed hand is {now}); "
            "send a seed after the commitment of a CRV1 hand",
            kind="precondition",
            rule="not_seeding",
        )
    if phase == "commit" and state.seed_phase == "reveal":
        raise TableError(
            f"the seed commitments of hand {hand_id} are locked: a commitment counts only "
            "before that (reveal the seed committed to, if any)",
            kind="precondition",
            rule="seeds_locked",
        )
    if phase == "reveal" and state.seed_phase == "commit":
        raise TableError(
            f"hand {hand_id} takes seed commitments now: reveal a seed once the commitments "
            "are locked",
            kind="precondition",
            rule="not_seeding",
        )
    who = state.seat_at(seat)
    if who is None or who.player != player:
        raise TableError(
            f"{player} does not sit at seat {seat}", kind="precondition", rule="not_your_seat"
        )


def commit_seed(
    state: TableState, *, seat: int, player: str, hand_id: str, commitment: bytes
) -> list[AnyEvent]:
    """CRV1: a player's commitment to its client seed (``crv1.seed_commitment``), in the
    commit phase (docs/shuffle.md II.4)."""
    if len(commitment) != CLIENT_SEED_BYTES:
        raise TableError(
            f"a seed commitment is exactly {CLIENT_SEED_BYTES} bytes, got {len(commitment)}",
            kind="invalid",
            rule="bad_seed",
        )
    _seeding(state, seat=seat, player=player, hand_id=hand_id, phase="commit")
    return [ClientSeedCommitted(seat, player, bytes(commitment))]


def lock_seed_commits(state: TableState) -> list[AnyEvent]:
    """CRV1: end the commit phase: the commitments of the players to be dealt in."""
    _exists(state)
    pending = state.pending
    if pending is None or state.seed_phase != "commit":
        raise TableError("no hand awaits seed commitments", kind="precondition", rule="not_seeding")
    commits = tuple(
        (s.seat, s.player, state.seed_commits[s.seat])
        for s in state.ready_players()
        if s.seat in state.seed_commits
    )
    return [SeedCommitsLocked(pending.hand_id, commits)]


def send_seed(
    state: TableState, *, seat: int, player: str, hand_id: str, seed: bytes
) -> list[AnyEvent]:
    """CRV1: a player's client seed, revealed after the commitments were locked; it must be
    the seed its locked commitment names."""
    if len(seed) != CLIENT_SEED_BYTES:
        raise TableError(
            f"a client seed is exactly {CLIENT_SEED_BYTES} bytes, got {len(seed)}",
            kind="invalid",
            rule="bad_seed",
        )
    _seeding(state, seat=seat, player=player, hand_id=hand_id, phase="reveal")
    assert state.commits_locked is not None
    committed = {s: c for s, _, c in state.commits_locked.commits}
    if seat not in committed:
        raise TableError(
            f"seat {seat} has no locked seed commitment in hand {hand_id}: its seed is drawn",
            kind="precondition",
            rule="not_committed",
        )
    if crv1.seed_commitment(hand_id, seat, bytes(seed)) != committed[seat]:
        raise TableError(
            f"the seed does not match the commitment seat {seat} sent",
            kind="invalid",
            rule="seed_mismatch",
        )
    return [ClientSeedSent(seat, player, bytes(seed))]


def lock_seeds(state: TableState) -> list[AnyEvent]:
    """CRV1: lock the seeds of the committed hand: each player to be dealt in with the seed
    its client revealed (origin 0), else the seat's derived seed (origin 1,
    ``crv1.drawn_seed``: fixed by C and R, so nobody picks it)."""
    _exists(state)
    pending = state.pending
    if pending is None or state.seed_phase != "reveal":
        raise TableError(
            "no hand awaits its seeds (the commitments are locked first)",
            kind="precondition",
            rule="not_seeding",
        )
    seeds = []
    for s in state.ready_players():
        sent = state.client_seeds.get(s.seat)
        if sent is not None:
            seeds.append((s.seat, s.player, sent, int(crv1.SeedOrigin.CLIENT)))
        else:
            drawn = crv1.drawn_seed(pending.hand_id, pending.commitment, pending.root, s.seat)
            seeds.append((s.seat, s.player, drawn, int(crv1.SeedOrigin.DRAWN)))
    return [SeedsLocked(pending.hand_id, tuple(seeds))]


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
    if state.needs_seeds:
        raise TableError(
            "the client seeds are not locked yet", kind="precondition", rule="seeds_not_locked"
        )
    undealable = state.undealable
    if undealable:
        # Players (or the dealer) left between the commitment and the deal: the committed
        # deck is never used; a dealer's choice table calls a dealer again, with a fresh deck.
        return [HandVoided(pending.hand_id, undealable, ())]
    ready = state.ready_players()
    seats = tuple(SeatEntry(s.seat, s.player, s.stack) for s in ready)
    options = state.options
    if state.rules is not None and state.limits != (0, 0):
        options = state.rules.declared_options(options, *state.limits)  # the dealer's limits
    command = StartHand(
        pending.hand_id,
        state.game if state.dealers_choice else state.variant,
        options,
        pending.button,
        seats,
        tuple(deck),
        game_options=(state.game_options or None) if state.game != STUD_VARIANT else None,
        carried_pot=state.carried,
    )
    return list(decide_hand(None, command))


def act(
    state: TableState,
    command: Act | TimeOut | Reshuffle,
    deck: Sequence[int],
    hand_id: str | None = None,
    *,
    bank_used: int = 0,
) -> list[AnyEvent]:
    """A player's action (or the clock's, or the dealer's reshuffle) in the hand in progress,
    and what follows: :func:`decide_act`'s events."""
    return decide_act(state, command, deck, hand_id, bank_used=bank_used).events


def decide_act(
    state: TableState,
    command: Act | TimeOut | Reshuffle,
    deck: Sequence[int],
    hand_id: str | None = None,
    *,
    bank_used: int = 0,
) -> Decided:
    """A player's action (or the clock's, or the dealer's reshuffle) in the hand in progress,
    what follows, and the table after it (the engine folds the hand's events as it decides
    them; the table's state comes from that fold, not from a second one).

    ``hand_id``: the hand's id or its number. ``bank_used``: for a player acting on their
    time bank, the whole seconds it ran (the runner's clock measures them); the batch then
    opens with :class:`TimeBankUsed`, and with :class:`TimeoutsCleared` when the clock had
    acted for them last.
    """
    _exists(state)
    hand = state.hand
    if hand is None or hand.finished:
        raise IllegalAction("no hand is in progress", rule="no_hand")
    if hand_id and not state.is_hand(hand_id):
        raise IllegalAction(
            f"hand {hand_id} is over; the hand now is #{state.hand_number} ({hand.hand_id})",
            rule="wrong_hand",
        )
    hand_events, after = step_hand(hand, command, deck)
    events: list[AnyEvent] = []
    if isinstance(command, Act):
        events.extend(own_action_bookkeeping(state, command.seat, bank_used))
    events.extend(hand_events)
    if after.finished:
        events.extend(leavers(state, after))
    return Decided(events, _fold_decided(state, events, hand_events, after))


def void_hand(state: TableState, reason: str) -> list[AnyEvent]:
    """Void the hand in progress: refund every contribution, no rake; players who asked to
    leave during it leave now."""
    _exists(state)
    hand = state.hand
    if state.pending is not None and (hand is None or hand.finished):
        return [HandVoided(state.pending.hand_id, reason, ())]
    if hand is None or hand.finished:
        raise TableError("no hand is in progress", kind="precondition", rule="no_hand")
    refunds = tuple((seat, c) for seat, c in zip(hand.seats, hand.committed, strict=True) if c)
    # Players who asked to leave during the hand leave with it, as they would have had it
    # ended: with their refunded stacks (the ones it started them with).
    start = dict(zip(hand.seats, hand.starting_stacks, strict=True))
    left = [
        PlayerLeft(s.seat, s.player, start.get(s.seat, s.stack)) for s in state.seats if s.leaving
    ]
    return [HandVoided(hand.hand_id, reason, refunds), *left]


def void_undealt(state: TableState) -> list[AnyEvent]:
    """Void the committed hand if it can no longer be dealt (:attr:`TableState.undealable`),
    nothing refunded (nothing was bet); nothing if it can, or if none is committed. Decided
    again under the table's lock, so a player who sat down meanwhile keeps the hand."""
    _exists(state)
    reason = state.undealable
    hand = state.hand
    if not reason or (hand is not None and not hand.finished):
        return []
    return void_hand(state, reason)


def own_action_bookkeeping(state: TableState, seat: int, bank_used: int) -> list[AnyEvent]:
    """What a player's own action closes before it: a turn on the time bank (``bank_used``
    seconds drawn, at most what was granted; none from the disconnect protection's), and a
    run of time-outs."""
    who = state.seat_at(seat)
    if who is None:
        return []
    out: list[AnyEvent] = []
    if seat in state.banking:
        granted, protection = state.banking[seat]
        drawn = 0 if protection else min(max(bank_used, 0), granted)
        out.append(TimeBankUsed(seat, who.player, drawn))
    if who.timeouts:
        out.append(TimeoutsCleared(seat, who.player))
    return out


def sit_out(state: TableState, *, player: str) -> list[AnyEvent]:
    """``player`` sits out from the next hand (a hand they are in goes on: they play it or
    the clock does). Nothing if they sit out already."""
    who = _own_seat(state, player)
    return [] if who.sitting_out else [PlayerSatOut(who.seat, player)]


def sit_in(state: TableState, *, player: str) -> list[AnyEvent]:
    """``player``, sitting out, is dealt in from the next hand. Nothing if they sit in
    already."""
    who = _own_seat(state, player)
    return [PlayerSatIn(who.seat, player)] if who.sitting_out else []


def timeout_bookkeeping(state: TableState, seats: Sequence[int]) -> list[AnyEvent]:
    """The clock acts for ``seats``: a :class:`PlayerTimedOut` each, and a
    :class:`PlayerSatOut` for a player it is the second time in a row for."""
    out: list[AnyEvent] = []
    for seat in seats:
        who = state.seat_at(seat)
        if who is None:
            continue  # left the table during the hand; nothing to sit out from
        out.append(PlayerTimedOut(seat, who.player))
        if who.timeouts + 1 >= AUTO_SIT_OUT_TIMEOUTS and not who.sitting_out:
            out.append(PlayerSatOut(seat, who.player, "timeouts"))
    return out


def protection_due(state: TableState, seat: Seat) -> bool:
    """``seat`` may have the disconnect protection now (none in the last N hands)."""
    policy = state.time_bank
    if not policy.protect_hands or not policy.seconds:
        return False
    last = seat.protected_hand
    return not last or state.hands_played - last >= policy.protect_hands


def _own_seat(state: TableState, player: str) -> Seat:
    _exists(state)
    who = state.seat_of(player)
    if who is None:
        raise TableError(
            f"{player} does not sit at {state.table_id}", kind="not_found", rule="not_seated"
        )
    return who


def leavers(state: TableState, hand: HandState) -> list[AnyEvent]:
    """Players who asked to leave during ``hand``, leaving with its final stacks."""
    final = dict(zip(hand.seats, hand.stacks, strict=True))
    return [
        PlayerLeft(s.seat, s.player, final.get(s.seat, s.stack)) for s in state.seats if s.leaving
    ]


def _exists(state: TableState) -> None:
    if not state.created:
        raise TableError(f"no table {state.table_id}", kind="not_found", rule="no_table")


__all__ = [
    "Decided",
    "InvalidCommand",
    "Seat",
    "TableError",
    "TableState",
    "act",
    "apply",
    "close_table",
    "commit_hand",
    "create_table",
    "deal_hand",
    "decide_act",
    "fold",
    "leavers",
    "own_action_bookkeeping",
    "pause_dealing",
    "protection_due",
    "resume_dealing",
    "seat_player",
    "sit_in",
    "sit_out",
    "timeout_bookkeeping",
    "unseat_player",
    "void_hand",
    "void_undealt",
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
        PlayerSatOut,
        PlayerSatIn,
        PlayerTimedOut,
        TimeoutsCleared,
        TimeBankStarted,
        TimeBankUsed,
        ClientSeedCommitted,
        SeedCommitsLocked,
        ClientSeedSent,
        SeedsLocked,
        *OPERATOR_EVENTS,
    )
    return [e for e in events if not isinstance(e, table_types)]
