"""The state of one hand, and ``apply``: the fold of one event into it.

One state type for every game: :class:`HandState` holds Pacific stud's hand and every field
a dealer's choice game adds (phases, passes, declarations, wild cards, the riding pot...);
a game that has no use for a field leaves its default. One table of handlers folds every
event of every game.

``apply`` never judges: it records what an event says. Betting bookkeeping that follows
mechanically from an action (who must still act, the current level, the raise count) is
computed here so that the state is exactly the fold of its events.

Players are held by *index* in dealing order: index 0 is the first occupied seat left of the
button (seat numbers increase clockwise and wrap). Events speak in seat numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from itertools import compress
from typing import Any

from riverboat.engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundStarted,
    CardDealt,
    CardPaymentPosted,
    CardsDiscarded,
    CardsEliminated,
    CardsOrdered,
    CardsPassed,
    CardsToPass,
    CardTurnedUp,
    CommunityCardDealt,
    DeclarationSealed,
    DeclarationsRevealed,
    DiscardsReshuffled,
    Event,
    GameOptionsSet,
    HandEnded,
    HandShown,
    HandStarted,
    MatchDeclined,
    MatchDue,
    OfferAnswered,
    PhaseStarted,
    PotAwarded,
    PotCarriedIn,
    PotCarriedOver,
    PotMatched,
    RakeTaken,
    RankEliminated,
    ReshuffleRequested,
    TableCardTurned,
    TableRowDealt,
    UncalledBetReturned,
    WildRankChanged,
)
from riverboat.engine.game_options import NO_OPTIONS, GameOptions
from riverboat.engine.options import TableOptions

_WAGERS = frozenset({"bet", "raise", "complete"})
#: The phase while a betting round is open.
BET = "bet"
#: The phase while the dealer reshuffles discards for a draw.
RESHUFFLE = "reshuffle"


# Not slotted: a __dict__ lets ``replace`` copy the state with one C-level dict merge.
@dataclass(frozen=True)
class HandState:
    """Everything about one hand of any game. Immutable: ``apply`` returns a new state.

    ``street`` is Pacific stud's street (3rd to 7th) or, in a dealer's choice game, the
    betting rounds begun (1 = the first). Cards a player no longer holds (discarded, passed,
    eliminated) leave ``cards``; ``face_up`` stays aligned.
    """

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

    # --- what the dealer's choice games add (Pacific stud keeps the defaults) -------------
    game_options: GameOptions = NO_OPTIONS
    #: "" before the first phase, ``"bet"`` in a betting round, a ``PhaseStarted`` phase name,
    #: or ``"reshuffle"`` while the dealer reshuffles discards.
    phase: str = ""
    #: Non-betting phases begun, in order (``"draw"``, ``"pass"``...).
    phases: tuple[str, ...] = ()
    #: The betting rounds begun (``street``) when each of ``phases`` began.
    phase_streets: tuple[int, ...] = ()
    #: Who still has to act in the current non-betting phase (by player index).
    pending: tuple[bool, ...] = ()
    simultaneous: bool = False
    card_limits: tuple[int, int] = (0, 0)
    #: Chips each player put in that are not bets: antes, card payments, matched pots.
    dead: tuple[int, ...] = ()
    carried_in: int = 0
    carried_out: int = 0
    #: Discards not (yet) reshuffled into the stub.
    discard_pile: tuple[int, ...] = ()
    #: Cards each player has put down to pass, until they are delivered.
    to_pass: tuple[tuple[int, ...], ...] = ()
    #: Delivered passes: (from seat, to seat, cards).
    passes: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    #: Each player's declaration ("" = none yet).
    declarations: tuple[str, ...] = ()
    revealed: bool = False
    #: Follow the Queen: the rank that follows the last face-up queen, and whether the next
    #: face-up card will name it.
    wild_rank: int | None = None
    wild_awaiting: bool = False
    #: Exposed-card payments: (seat, card, amount).
    payments: tuple[tuple[int, int, int], ...] = ()
    #: Match the pot: the amount each player still has to match, and what each matched.
    match_due: tuple[int, ...] = ()
    matched: tuple[int, ...] = ()
    #: The betting round in which matchers may bet more (the one after their match).
    match_round: int = 0
    #: Card offers: whether anyone took a card in the current offer round; consecutive stands.
    took_any: bool = False
    stands: tuple[int, ...] = ()
    #: Elimination: where the face-down row starts in the deck, the table cards turned (row and
    #: stock, in order), how many row cards are turned, and the ranks eliminated.
    row_start: int = 0
    row: tuple[int, ...] = ()
    row_turned: int = 0
    eliminated: tuple[int, ...] = ()
    #: A draw waiting for the dealer's reshuffle: the cards to shuffle and who is owed cards.
    reshuffle_cards: tuple[int, ...] = ()
    owed_seat: int = 0
    owed: int = 0

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
        """Player ``i``'s face-up cards, in the order dealt (``face_up`` is kept aligned)."""
        return tuple(compress(self.cards[i], self.face_up[i]))

    @property
    def pot_total(self) -> int:
        """Chips in the middle: this deal's, plus a pot carried in, less what rode out."""
        return (
            sum(self.committed)
            + self.carried_in
            - sum(a.amount for a in self.awards)
            - self.rake
            - self.carried_out
        )

    @property
    def total_chips(self) -> int:
        """Stacks + pot + rake + the pot that rode out: the starting stacks plus the pot
        carried in, at every step."""
        return sum(self.stacks) + self.pot_total + self.rake + self.carried_out

    def seat_pending(self, seat: int) -> bool:
        """Whether ``seat`` still has to act in the current non-betting phase."""
        i = self.index_of(seat)
        return i is not None and bool(self.pending) and self.pending[i]


_FIELDS = frozenset(f.name for f in fields(HandState))
_SET = object.__setattr__
_NEW = object.__new__


def replace(state: HandState, **changes: Any) -> HandState:
    """A copy of ``state`` with ``changes``: ``dataclasses.replace`` without re-running
    ``__init__``. The fold runs once per event, so this copy is its main cost. (The events
    every hand folds many times, a card, an action, an ante, a round, do the same inline: they
    copy the old state's dict, write their fields into it and make the state of it, with no
    keyword call and no field check; their field names are fixed in the code, and the fold
    tests compare every field.)"""
    assert _FIELDS.issuperset(changes), f"unknown state fields: {set(changes) - _FIELDS}"
    new = _NEW(HandState)
    _SET(new, "__dict__", {**state.__dict__, **changes})
    return new


#: Pacific Poker's seven-card stud hi/lo (also dealt at a dealer's choice table).
STUD_VARIANT = "seven_card_stud_hi_lo"


def initial_state(event: HandStarted) -> HandState:
    """The state right after ``HandStarted``."""
    options = _options(event.options)
    ordered = dealing_order(event.button, [s.seat for s in event.seats])
    by_seat = {s.seat: s for s in event.seats}
    entries = [by_seat[seat] for seat in ordered]
    n = len(entries)
    # Only the fields that differ from their defaults go into the instance's ``__dict__``;
    # the rest are read from the class (dataclass defaults), so a game that never sets a
    # field (Pacific stud and most of the games' fields) does not copy it on every event.
    state = object.__new__(HandState)
    _SET(
        state,
        "__dict__",
        dict(
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
            pending=(False,) * n,
            dead=(0,) * n,
            to_pass=((),) * n,
            declarations=("",) * n,
            match_due=(0,) * n,
            matched=(0,) * n,
            stands=(0,) * n,
        ),
    )
    return state


_OPTIONS_CACHE: dict[str, TableOptions] = {}


def _options(data: dict[str, Any]) -> TableOptions:
    """Parse (and validate) a hand's options once per distinct set; tables reuse theirs.
    (Keyed by their text as given: the same options in another key order parse once more.)"""
    key = repr(data)
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
    handler = FOLD.get  # apply's lookup, without a call per event: a log is folded in one go
    for event in events[1:]:
        state = handler(type(event), _unsupported)(state, event)
    return state


def apply(state: HandState, event: Event) -> HandState:
    """Fold one event into the state."""
    return FOLD.get(type(event), _unsupported)(state, event)


def _unsupported(state: HandState, event: Event) -> HandState:
    raise TypeError(f"apply: unsupported event {type(event).__name__}")


def _set(values: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _ante(state: HandState, event: AntePosted) -> HandState:
    i = state.seats.index(event.seat)
    j = i + 1
    amount = event.amount
    stacks, committed, dead = state.stacks, state.committed, state.dead
    # An ante is dead money (not a bet); whether it also counts towards a player's all-in
    # level is the game's payout rule (Pacific: a per-player ante does).
    new = state.__dict__.copy()  # the new state's fields (see replace)
    new["stacks"] = stacks[:i] + (stacks[i] - amount,) + stacks[j:]
    new["committed"] = committed[:i] + (committed[i] + amount,) + committed[j:]
    new["dead"] = dead[:i] + (dead[i] + amount,) + dead[j:]
    after = _NEW(HandState)
    _SET(after, "__dict__", new)
    return after


def _card(state: HandState, event: CardDealt) -> HandState:
    i = state.seats.index(event.seat)
    j = i + 1
    cards, face_up = state.cards, state.face_up
    new = state.__dict__.copy()  # the new state's fields (see replace)
    new["cards"] = cards[:i] + (cards[i] + (event.card,),) + cards[j:]
    new["face_up"] = face_up[:i] + (face_up[i] + (event.face_up,),) + face_up[j:]
    new["deck_pos"] = state.deck_pos + 1
    after = _NEW(HandState)
    _SET(after, "__dict__", new)
    return after


def _community(state: HandState, event: CommunityCardDealt) -> HandState:
    return replace(state, community=(*state.community, event.card), deck_pos=state.deck_pos + 1)


def _round(state: HandState, event: BettingRoundStarted) -> HandState:
    n = len(state.seats)
    first = None if event.first_to_act is None else state.seats.index(event.first_to_act)
    if first is None:
        needs: tuple[bool, ...] = (False,) * n
    else:  # who can still bet: in, with chips behind (HandState.can_bet)
        pairs = zip(state.folded, state.stacks, strict=True)
        needs = tuple(not f and chips > 0 for f, chips in pairs)
    new = state.__dict__.copy()  # the new state's fields (see replace)
    new.update(
        {
            "street": event.street,
            "bet_size": event.bet_size,
            "street_bets": (0,) * n,
            "to_act": first,
            "needs_action": needs,
            "acted_since_full": (False,) * n,
            "level": 0,
            "last_full_level": 0,
            "last_raise": 0,
            "bets_made": 0,
            "capped": False,
            "big_bet_round": False,
            "bring_in_pending": event.forced_bring_in and first is not None,
            "last_aggressor": None,
            "phase": BET,
            "pending": (False,) * n,
            # A matcher's larger bets are for the round after their match only.
            "matched": state.matched if event.street == state.match_round else (0,) * n,
        }
    )
    after = _NEW(HandState)
    _SET(after, "__dict__", new)
    return after


def _action(state: HandState, event: ActionTaken) -> HandState:
    i = state.seats.index(event.seat)
    j = i + 1
    to = event.to
    amount = event.amount
    new = state.__dict__.copy()  # the new state's fields (see replace)
    stacks = state.stacks
    if amount:
        stacks = new["stacks"] = stacks[:i] + (stacks[i] - amount,) + stacks[j:]
        committed = state.committed
        new["committed"] = committed[:i] + (committed[i] + amount,) + committed[j:]
    street_bets_before = state.street_bets
    new["street_bets"] = street_bets_before[:i] + (to,) + street_bets_before[j:]
    folded = state.folded
    if event.action == "fold":
        folded = new["folded"] = folded[:i] + (True,) + folded[j:]
    new["bring_in_pending"] = False
    needs = list(state.needs_action)
    needs[i] = False
    acted = state.acted_since_full
    if to > state.level:
        n = len(needs)
        last_full = state.last_full_level
        big_round = state.big_bet_round
        opts = state.options
        if (
            event.action in _WAGERS
            and not event.all_in
            and to - last_full == opts.big_bet > state.bet_size
            and not state.matched[i]
        ):
            # The table's big bet wagered in a round at a smaller bet makes the rest of the
            # round big: stud's open pair on 4th street, the one place a game offers it to
            # everyone (PacificStud.increments). A matcher's larger bet is their own allowance;
            # the others keep the round's bet (house rules, match the pot).
            big_round = new["big_bet_round"] = True
        if event.action == "bring_in":
            full = False
        else:
            # The round's bet (BettingRoundStarted.bet_size: each game's limits), or the big
            # bet once the round went big; spread limit: the smallest raise allowed now. A bet
            # or raise of half that or more counts as a full one (short all-in rule).
            if opts.spread_limit:
                increment = spread_minimum(state)
            else:
                increment = opts.big_bet if big_round else state.bet_size
            full = 2 * (to - last_full) >= increment
        new["level"] = to
        if full:
            bets_made = state.bets_made
            if opts.all_in_reopen == "faced" and bets_made > 0:
                # House rules: the betting reopens for a player who has acted when what they
                # face now (the bets since their own action, several short all-ins together)
                # is half a bet or more; a player who called a short all-in may face less.
                # (The round's first full bet, a completion over a bring-in, reopens for all.)
                acted = tuple(
                    a and 2 * (to - before) < increment
                    for a, before in zip(acted, street_bets_before, strict=True)
                )
            else:
                acted = (False,) * n
            bets_made += 1
            new["last_raise"] = to - last_full
            new["last_full_level"] = to
            new["bets_made"] = bets_made
            new["last_aggressor"] = i
            if bets_made >= 1 + opts.max_raises and folded.count(False) > 2:
                new["capped"] = True
        for k in range(n):
            if k != i and not folded[k] and stacks[k] > 0:
                needs[k] = True
    new["acted_since_full"] = acted[:i] + (True,) + acted[j:]
    new["needs_action"] = tuple(needs)
    # The next player clockwise who still has to act (needs[i] is False: none, or a wrap).
    if True in needs:
        new["to_act"] = needs.index(True, j) if True in needs[j:] else needs.index(True)
    else:
        new["to_act"] = None
    after = _NEW(HandState)
    _SET(after, "__dict__", new)
    return after


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


# --- the dealer's choice games' own events ------------------------------------------------------


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _next_pending(pending: tuple[bool, ...], after: int) -> int | None:
    n = len(pending)
    for step in range(1, n + 1):
        j = (after + step) % n
        if pending[j]:
            return j
    return None


def _done(s: HandState, i: int, **changes: Any) -> HandState:
    """Player ``i`` has acted in the current phase: clear them and move the turn on."""
    pending = _put(s.pending, i, False)
    to_act = None if s.simultaneous else _next_pending(pending, i)
    return replace(s, pending=pending, to_act=to_act, **changes)


#: A card hidden from the viewer whose events are folded (see riverboat.engine.visibility).
HIDDEN = -1


def _without(
    cards: tuple[int, ...], up: tuple[bool, ...], gone: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """``cards`` less ``gone``, one card each. In a viewer's fold a card they never saw is
    ``HIDDEN``: a card named but not held there takes a hidden one with it."""
    kept = list(zip(cards, up, strict=True))
    for card in gone:
        at = next((k for k, (c, _) in enumerate(kept) if c == card), None)
        if at is None:
            at = next((k for k, (c, _) in enumerate(kept) if c == HIDDEN), None)
        if at is not None:
            del kept[at]
    return tuple(c for c, _ in kept), tuple(u for _, u in kept)


def _options_set(state: HandState, event: GameOptionsSet) -> HandState:
    return replace(state, game_options=GameOptions(event.options))


def _carried_in(state: HandState, event: PotCarriedIn) -> HandState:
    return replace(state, carried_in=state.carried_in + event.amount)


def _phase(state: HandState, event: PhaseStarted) -> HandState:
    s = state
    pending = tuple(seat in event.seats_to_act for seat in s.seats)
    first = None
    if not event.simultaneous and event.seats_to_act:
        first = s.seats.index(event.seats_to_act[0])
    changes: dict[str, Any] = {}
    if event.phase == "offer":
        changes["took_any"] = False
    return replace(
        s,
        phase=event.phase,
        phases=(*s.phases, event.phase),
        phase_streets=(*s.phase_streets, s.street),
        pending=pending,
        simultaneous=event.simultaneous,
        card_limits=(event.min_cards, event.max_cards),
        to_act=first,
        **changes,
    )


def _discarded(state: HandState, event: CardsDiscarded) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    cards, up = _without(s.cards[i], s.face_up[i], event.cards)
    return _done(
        s,
        i,
        cards=_put(s.cards, i, cards),
        face_up=_put(s.face_up, i, up),
        discard_pile=s.discard_pile + event.cards,
    )


def _to_pass(state: HandState, event: CardsToPass) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    cards, up = _without(s.cards[i], s.face_up[i], event.cards)
    return _done(
        s,
        i,
        cards=_put(s.cards, i, cards),
        face_up=_put(s.face_up, i, up),
        to_pass=_put(s.to_pass, i, event.cards),
    )


def _passed(state: HandState, event: CardsPassed) -> HandState:
    s = state
    giver = s.seats.index(event.seat)
    taker = s.seats.index(event.to_seat)
    return replace(
        s,
        cards=_put(s.cards, taker, s.cards[taker] + event.cards),
        face_up=_put(s.face_up, taker, s.face_up[taker] + (False,) * len(event.cards)),
        to_pass=_put(s.to_pass, giver, ()),
        passes=(*s.passes, (event.seat, event.to_seat, event.cards)),
    )


def _ordered(state: HandState, event: CardsOrdered) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    by_card = dict(zip(s.cards[i], s.face_up[i], strict=True))
    up = tuple(by_card.get(c, False) for c in event.cards)
    return _done(s, i, cards=_put(s.cards, i, event.cards), face_up=_put(s.face_up, i, up))


def _turned_up(state: HandState, event: CardTurnedUp) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    held = s.cards[i]
    if event.card in held:
        k = held.index(event.card)
    else:  # a viewer's fold: the first card they could not see is the one turned up
        pairs = enumerate(zip(held, s.face_up[i], strict=True))
        k = next(j for j, (c, up) in pairs if c == HIDDEN and not up)
    cards = _put(s.cards, i, _put(held, k, event.card))
    face_up = _put(s.face_up, i, _put(s.face_up[i], k, True))
    if s.pending and s.pending[i]:
        return _done(s, i, cards=cards, face_up=face_up)
    return replace(s, cards=cards, face_up=face_up)


def _offer(state: HandState, event: OfferAnswered) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    stands = _put(s.stands, i, 0 if event.took else s.stands[i] + 1)
    return _done(s, i, took_any=s.took_any or event.took, stands=stands)


def _sealed(state: HandState, event: DeclarationSealed) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    return _done(s, i, declarations=_put(s.declarations, i, event.choice))


def _revealed(state: HandState, event: DeclarationsRevealed) -> HandState:
    s = state
    declarations = list(s.declarations)
    for seat, choice in event.declarations:
        declarations[s.seats.index(seat)] = choice
    # Declaring in turn reveals each declaration as it is made: the phase goes on until the
    # last player still in has declared (a simultaneous phase reveals them all at once).
    revealed = all(declarations[i] for i in s.in_hand())
    return replace(
        s,
        declarations=tuple(declarations),
        revealed=revealed,
        to_act=None if revealed else s.to_act,
    )


def _dead_money(s: HandState, i: int, amount: int) -> dict[str, Any]:
    return {
        "stacks": _put(s.stacks, i, s.stacks[i] - amount),
        "committed": _put(s.committed, i, s.committed[i] + amount),
        "dead": _put(s.dead, i, s.dead[i] + amount),
    }


def _payment(state: HandState, event: CardPaymentPosted) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    return replace(
        s,
        payments=(*s.payments, (event.seat, event.card, event.amount)),
        **_dead_money(s, i, event.amount),
    )


def _wild(state: HandState, event: WildRankChanged) -> HandState:
    return replace(state, wild_rank=event.rank, wild_awaiting=event.awaiting)


def _match_due(state: HandState, event: MatchDue) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    return replace(s, match_due=_put(s.match_due, i, event.amount))


def _matched(state: HandState, event: PotMatched) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    return _done(
        s,
        i,
        match_due=_put(s.match_due, i, 0),
        matched=_put(s.matched, i, event.amount),
        match_round=s.street + 1,
        **_dead_money(s, i, event.amount),
    )


def _declined(state: HandState, event: MatchDeclined) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    return _done(s, i, match_due=_put(s.match_due, i, 0), folded=_put(s.folded, i, True))


def _row(state: HandState, event: TableRowDealt) -> HandState:
    return replace(state, row_start=state.deck_pos, deck_pos=state.deck_pos + event.count)


def _table_card(state: HandState, event: TableCardTurned) -> HandState:
    s = state
    if event.from_stock:
        return replace(s, row=(*s.row, event.card), deck_pos=s.deck_pos + 1)
    return replace(s, row=(*s.row, event.card), row_turned=s.row_turned + 1)


def _rank_out(state: HandState, event: RankEliminated) -> HandState:
    s = state
    return replace(s, eliminated=(*s.eliminated, event.rank))


def _eliminated(state: HandState, event: CardsEliminated) -> HandState:
    s = state
    i = s.seats.index(event.seat)
    cards, up = _without(s.cards[i], s.face_up[i], event.cards)
    return replace(s, cards=_put(s.cards, i, cards), face_up=_put(s.face_up, i, up))


def _reshuffle_requested(state: HandState, event: ReshuffleRequested) -> HandState:
    return replace(
        state,
        phase=RESHUFFLE,
        reshuffle_cards=event.cards,
        owed_seat=event.seat,
        owed=event.owed,
        to_act=None,
    )


def _reshuffled(state: HandState, event: DiscardsReshuffled) -> HandState:
    s = state
    gone = set(s.reshuffle_cards)
    owed = s.seats.index(s.owed_seat)
    return replace(
        s,
        phase="draw",
        deck_size=s.deck_size + event.count,
        discard_pile=tuple(c for c in s.discard_pile if c not in gone),
        reshuffle_cards=(),
        owed=0,
        to_act=_next_pending(s.pending, owed),
    )


def _carried_out(state: HandState, event: PotCarriedOver) -> HandState:
    s = state
    return replace(s, carried_out=s.carried_out + event.amount, to_act=None)


#: The fold of every event of every game, one handler per event type (:func:`apply` looks the
#: handler up; the decide path, which knows its events' types, calls it directly).
FOLD: dict[type[Any], Callable[[HandState, Any], HandState]] = {
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
    GameOptionsSet: _options_set,
    PotCarriedIn: _carried_in,
    PhaseStarted: _phase,
    CardsDiscarded: _discarded,
    CardsToPass: _to_pass,
    CardsPassed: _passed,
    CardsOrdered: _ordered,
    CardTurnedUp: _turned_up,
    OfferAnswered: _offer,
    DeclarationSealed: _sealed,
    DeclarationsRevealed: _revealed,
    CardPaymentPosted: _payment,
    WildRankChanged: _wild,
    MatchDue: _match_due,
    PotMatched: _matched,
    MatchDeclined: _declined,
    TableRowDealt: _row,
    TableCardTurned: _table_card,
    RankEliminated: _rank_out,
    CardsEliminated: _eliminated,
    ReshuffleRequested: _reshuffle_requested,
    DiscardsReshuffled: _reshuffled,
    PotCarriedOver: _carried_out,
}


def spread_unit(size: int) -> int:
    """Spread-limit amounts go in whole dollars, or whole cents when the round's size is not a
    whole number of dollars."""
    return 100 if size % 100 == 0 else 1


def spread_minimum(state: HandState) -> int:
    """Spread limit: the smallest bet or raise now, $1 (one unit) or the round's previous bet or
    raise, whichever is more (spec A-2)."""
    return max(spread_unit(state.bet_size), state.last_raise)
