"""The state of one hand, and ``apply``: the fold of one event into it.

``apply`` never judges: it records what an event says. Betting bookkeeping that follows
mechanically from an action (who must still act, the current level, the raise count) is
computed here so that the state is exactly the fold of its events.

Players are held by *index* in dealing order: index 0 is the first occupied seat left of the
button (seat numbers increase clockwise and wrap). Events speak in seat numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from riverboat.engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundStarted,
    CardDealt,
    CommunityCardDealt,
    Event,
    HandEnded,
    HandShown,
    HandStarted,
    PotAwarded,
    RakeTaken,
    UncalledBetReturned,
)
from riverboat.engine.options import TableOptions

_WAGERS = frozenset({"bet", "raise", "complete"})


# Not slotted: a __dict__ lets ``replace`` copy the state with one C-level dict merge.
@dataclass(frozen=True)
class HandState:
    """Everything about one hand. Immutable: ``apply`` returns a new state."""

    hand_id: str
    variant: str
    options: TableOptions
    button: int
    seats: tuple[int, ...]
    players: tuple[str, ...]
    starting_stacks: tuple[int, ...]
    stacks: tuple[int, ...]
    deck_size: int
    committed: tuple[int, ...]
    street_bets: tuple[int, ...]
    folded: tuple[bool, ...]
    cards: tuple[tuple[int, ...], ...]
    face_up: tuple[tuple[bool, ...], ...]
    community: tuple[int, ...] = ()
    deck_pos: int = 0
    street: int = 0
    bet_size: int = 0
    to_act: int | None = None
    needs_action: tuple[bool, ...] = ()
    acted_since_full: tuple[bool, ...] = ()
    level: int = 0
    last_full_level: int = 0
    #: The size of the round's last full bet or raise (spread limit: the smallest raise now).
    last_raise: int = 0
    bets_made: int = 0
    capped: bool = False
    big_bet_round: bool = False
    bring_in_pending: bool = False
    shown: tuple[HandShown, ...] = ()
    rake: int = 0
    awards: tuple[PotAwarded, ...] = ()
    finished: bool = False
    last_aggressor: int | None = field(default=None)

    # --- queries -------------------------------------------------------------------------
    def index_of(self, seat: int) -> int | None:
        """The dealing-order index of ``seat``, or None if that seat is not in the hand."""
        try:
            return self.seats.index(seat)
        except ValueError:
            return None

    @property
    def player_count(self) -> int:
        """Players dealt in."""
        return len(self.seats)

    def in_hand(self) -> list[int]:
        """Indices of players who have not folded."""
        return [i for i, f in enumerate(self.folded) if not f]

    def can_bet(self, i: int) -> bool:
        """Whether player ``i`` is still in and has chips behind (not all-in)."""
        return not self.folded[i] and self.stacks[i] > 0

    def up_cards(self, i: int) -> tuple[int, ...]:
        """Player ``i``'s face-up cards, in the order dealt."""
        return tuple(c for c, up in zip(self.cards[i], self.face_up[i], strict=True) if up)

    @property
    def pot_total(self) -> int:
        """Chips in the middle not yet paid out (the rake, once taken, is no longer here)."""
        return sum(self.committed) - sum(a.amount for a in self.awards) - self.rake

    @property
    def total_chips(self) -> int:
        """Stacks + pot + rake: equal to the starting stacks at every step (chips conserved)."""
        return sum(self.stacks) + self.pot_total + self.rake


_FIELDS = frozenset(f.name for f in fields(HandState))
#: The fields of each state class (a dealer's choice hand adds its own; see gamestate.py).
CLASS_FIELDS: dict[type[HandState], frozenset[str]] = {HandState: _FIELDS}
_SET = object.__setattr__


def replace(state: HandState, **changes: Any) -> HandState:
    """A copy of ``state`` with ``changes``: ``dataclasses.replace`` without re-running
    ``__init__``. The fold runs once per event, so this copy is its main cost."""
    known = _FIELDS if state.__class__ is HandState else CLASS_FIELDS[state.__class__]
    assert known.issuperset(changes), f"unknown state fields: {set(changes) - known}"
    new = object.__new__(state.__class__)  # HandState, or a dealer's choice GameHandState
    _SET(new, "__dict__", {**state.__dict__, **changes})
    return new


#: The variant played on plain :class:`HandState`; every other (dealer's choice) variant is
#: played on :class:`riverboat.engine.gamestate.GameHandState`.
STUD_VARIANT = "seven_card_stud_hi_lo"


def initial_state(event: HandStarted) -> HandState:
    """The state right after ``HandStarted``."""
    if event.variant != STUD_VARIANT:
        from riverboat.engine.gamestate import initial_game_state

        return initial_game_state(event)
    return _initial(event)


def _initial(event: HandStarted) -> HandState:
    options = _options(event.options)
    ordered = dealing_order(event.button, [s.seat for s in event.seats])
    by_seat = {s.seat: s for s in event.seats}
    entries = [by_seat[seat] for seat in ordered]
    n = len(entries)
    return HandState(
        hand_id=event.hand_id,
        variant=event.variant,
        options=options,
        button=event.button,
        seats=tuple(ordered),
        players=tuple(e.player for e in entries),
        starting_stacks=tuple(e.stack for e in entries),
        stacks=tuple(e.stack for e in entries),
        deck_size=event.deck_size,
        committed=(0,) * n,
        street_bets=(0,) * n,
        folded=(False,) * n,
        cards=((),) * n,
        face_up=((),) * n,
        needs_action=(False,) * n,
        acted_since_full=(False,) * n,
    )


_OPTIONS_CACHE: dict[str, TableOptions] = {}


def _options(data: dict[str, Any]) -> TableOptions:
    """Parse (and validate) a hand's options once per distinct set; tables reuse theirs."""
    key = repr(sorted(data.items()))
    options = _OPTIONS_CACHE.get(key)
    if options is None:
        options = TableOptions.from_dict(data)
        if len(_OPTIONS_CACHE) < 1024:
            _OPTIONS_CACHE[key] = options
    return options


def dealing_order(button: int, seats: list[int]) -> list[int]:
    """Seat numbers clockwise starting with the first seat left of (after) the button."""
    ordered = sorted(seats)
    after = [s for s in ordered if s > button]
    return after + [s for s in ordered if s <= button]


def fold_events(events: list[Event]) -> HandState:
    """The state that a whole list of events (starting with ``HandStarted``) describes."""
    first = events[0]
    if not isinstance(first, HandStarted):
        raise ValueError("a hand's events start with HandStarted")
    state = initial_state(first)
    for event in events[1:]:
        state = apply(state, event)
    return state


def apply(state: HandState, event: Event) -> HandState:
    """Fold one event into the state."""
    if state.__class__ is HandState:
        handler = _HANDLERS.get(type(event))
    else:
        handler = _game_handlers().get(type(event))
    if handler is None:
        raise TypeError(f"apply: unsupported event {type(event).__name__}")
    return handler(state, event)


_GAME_HANDLERS: dict[type[Any], Callable[[HandState, Any], HandState]] = {}


def _game_handlers() -> dict[type[Any], Callable[[HandState, Any], HandState]]:
    """The handlers of a dealer's choice hand: the stud ones, some overridden, and the games'
    own events (loaded on first use: :mod:`riverboat.engine.gamestate` imports this module)."""
    if not _GAME_HANDLERS:
        from riverboat.engine.gamestate import GAME_HANDLERS

        _GAME_HANDLERS.update(_HANDLERS)
        _GAME_HANDLERS.update(GAME_HANDLERS)
    return _GAME_HANDLERS


def _set(values: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _set_flag(values: tuple[bool, ...], i: int, value: bool) -> tuple[bool, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _ante(state: HandState, event: AntePosted) -> HandState:
    i = state.seats.index(event.seat)
    return replace(
        state,
        stacks=_set(state.stacks, i, state.stacks[i] - event.amount),
        committed=_set(state.committed, i, state.committed[i] + event.amount),
    )


def _card(state: HandState, event: CardDealt) -> HandState:
    i = state.seats.index(event.seat)
    return replace(
        state,
        cards=state.cards[:i] + (state.cards[i] + (event.card,),) + state.cards[i + 1 :],
        face_up=state.face_up[:i] + (state.face_up[i] + (event.face_up,),) + state.face_up[i + 1 :],
        deck_pos=state.deck_pos + 1,
    )


def _community(state: HandState, event: CommunityCardDealt) -> HandState:
    return replace(state, community=(*state.community, event.card), deck_pos=state.deck_pos + 1)


def _round(state: HandState, event: BettingRoundStarted) -> HandState:
    n = state.player_count
    first = None if event.first_to_act is None else state.seats.index(event.first_to_act)
    needs = tuple(first is not None and state.can_bet(i) for i in range(n))
    return replace(
        state,
        street=event.street,
        bet_size=event.bet_size,
        street_bets=(0,) * n,
        to_act=first,
        needs_action=needs,
        acted_since_full=(False,) * n,
        level=0,
        last_full_level=0,
        last_raise=0,
        bets_made=0,
        capped=False,
        big_bet_round=False,
        bring_in_pending=event.forced_bring_in and first is not None,
        last_aggressor=None,
    )


def _action(state: HandState, event: ActionTaken) -> HandState:
    i = state.seats.index(event.seat)
    n = state.player_count
    stacks = _set(state.stacks, i, state.stacks[i] - event.amount)
    street_bets_before = state.street_bets
    street_bets = _set(state.street_bets, i, event.to)
    committed = _set(state.committed, i, state.committed[i] + event.amount)
    folded = _set_flag(state.folded, i, True) if event.action == "fold" else state.folded
    needs = list(state.needs_action)
    needs[i] = False
    acted = list(state.acted_since_full)
    level = state.level
    last_full = state.last_full_level
    last_raise = state.last_raise
    bets_made = state.bets_made
    capped = state.capped
    big_round = state.big_bet_round
    aggressor = state.last_aggressor
    if event.to > level:
        if event.action == "bring_in":
            full = False
        elif state.__class__ is not HandState:
            # Dealer's choice games: the round's own bet size is the full bet (spread limit:
            # the smallest raise allowed now).
            increment = spread_minimum(state) if state.options.spread_limit else state.bet_size
            full = 2 * (event.to - last_full) >= increment
        else:
            if (
                state.street == 4
                and event.action in _WAGERS
                and event.to - last_full == state.options.big_bet
                and not event.all_in
            ):
                big_round = True
            opts = state.options
            if big_round or (state.street >= 5 and not opts.final_bet_rule):
                increment = opts.big_bet
            else:
                increment = state.bet_size
            if opts.spread_limit:
                increment = spread_minimum(state)
            # A bet or raise of half a bet or more counts as a full one (short all-in rule).
            full = 2 * (event.to - last_full) >= increment
        level = event.to
        if full:
            if state.options.all_in_reopen == "faced" and bets_made > 0:
                # House rules: the betting reopens for a player who has acted when what they
                # face now (the bets since their own action, several short all-ins together)
                # is half a bet or more; a player who called a short all-in may face less.
                # (The round's first full bet, a completion over a bring-in, reopens for all.)
                acted = [
                    acted[j] and 2 * (event.to - street_bets_before[j]) < increment
                    for j in range(n)
                ]
            else:
                acted = [False] * n
            last_raise = event.to - last_full
            last_full = event.to
            bets_made += 1
            aggressor = i
            live = sum(1 for f in folded if not f)
            if bets_made >= 1 + state.options.max_raises and live > 2:
                capped = True
        for j in range(n):
            if j != i and not folded[j] and stacks[j] > 0:
                needs[j] = True
    acted[i] = True
    to_act = _next_to_act(needs, i)
    return replace(
        state,
        stacks=stacks,
        street_bets=street_bets,
        committed=committed,
        folded=folded,
        needs_action=tuple(needs),
        acted_since_full=tuple(acted),
        level=level,
        last_full_level=last_full,
        last_raise=last_raise,
        bets_made=bets_made,
        capped=capped,
        big_bet_round=big_round,
        bring_in_pending=False,
        to_act=to_act,
        last_aggressor=aggressor,
    )


def _next_to_act(needs: list[bool], after: int) -> int | None:
    n = len(needs)
    for step in range(1, n + 1):
        j = (after + step) % n
        if needs[j]:
            return j
    return None


def _uncalled(state: HandState, event: UncalledBetReturned) -> HandState:
    i = state.seats.index(event.seat)
    return replace(
        state,
        stacks=_set(state.stacks, i, state.stacks[i] + event.amount),
        committed=_set(state.committed, i, state.committed[i] - event.amount),
        street_bets=_set(state.street_bets, i, state.street_bets[i] - event.amount),
        level=max(state.level - event.amount, 0),
    )


def _shown(state: HandState, event: HandShown) -> HandState:
    return replace(state, shown=(*state.shown, event), to_act=None)


def _rake(state: HandState, event: RakeTaken) -> HandState:
    return replace(state, rake=event.amount, to_act=None)


def _award(state: HandState, event: PotAwarded) -> HandState:
    stacks = list(state.stacks)
    for seat, amount in event.shares:
        i = state.seats.index(seat)
        stacks[i] += amount
    return replace(state, stacks=tuple(stacks), awards=(*state.awards, event), to_act=None)


def _ended(state: HandState, event: HandEnded) -> HandState:
    return replace(state, finished=True, to_act=None, needs_action=(False,) * state.player_count)


def _started(state: HandState, event: HandStarted) -> HandState:
    raise ValueError("HandStarted begins a hand; fold it with initial_state")


_HANDLERS: dict[type[Any], Callable[[HandState, Any], HandState]] = {
    HandStarted: _started,
    AntePosted: _ante,
    CardDealt: _card,
    CommunityCardDealt: _community,
    BettingRoundStarted: _round,
    ActionTaken: _action,
    UncalledBetReturned: _uncalled,
    HandShown: _shown,
    RakeTaken: _rake,
    PotAwarded: _award,
    HandEnded: _ended,
}


def spread_unit(size: int) -> int:
    """Spread-limit amounts go in whole dollars, or whole cents when the round's size is not a
    whole number of dollars."""
    return 100 if size % 100 == 0 else 1


def spread_minimum(state: HandState) -> int:
    """Spread limit: the smallest bet or raise now, $1 (one unit) or the round's previous bet or
    raise, whichever is more (spec A-2)."""
    return max(spread_unit(state.bet_size), state.last_raise)
