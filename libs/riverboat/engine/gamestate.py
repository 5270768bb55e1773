"""The state of a dealer's choice hand, and the fold of the games' own events.

:class:`GameHandState` is a :class:`~riverboat.engine.state.HandState` with the fields the
dealer's choice games add (phases, passes, declarations, wild cards, the riding pot...). Stud
hi/lo keeps the plain ``HandState``, so its per-event copy stays as small as it was.

Like :mod:`riverboat.engine.state`, the handlers here never judge: they record what an event
says, plus the bookkeeping that follows mechanically (who is next in a phase).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, cast

from riverboat.engine import state as base
from riverboat.engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundStarted,
    CardPaymentPosted,
    CardsDiscarded,
    CardsEliminated,
    CardsOrdered,
    CardsPassed,
    CardsToPass,
    CardTurnedUp,
    DeclarationSealed,
    DeclarationsRevealed,
    DiscardsReshuffled,
    GameOptionsSet,
    HandStarted,
    MatchDeclined,
    MatchDue,
    OfferAnswered,
    PhaseStarted,
    PotCarriedIn,
    PotCarriedOver,
    PotMatched,
    RankEliminated,
    ReshuffleRequested,
    TableCardTurned,
    TableRowDealt,
    WildRankChanged,
)
from riverboat.engine.game_options import NO_OPTIONS, GameOptions
from riverboat.engine.state import HandState, replace

#: The phase while a betting round is open.
BET = "bet"
#: The phase while the dealer reshuffles discards for a draw.
RESHUFFLE = "reshuffle"


# Not slotted, like HandState: ``replace`` copies it with one dict merge.
@dataclass(frozen=True)
class GameHandState(HandState):
    """A dealer's choice hand: every ``HandState`` field, plus the games' own.

    ``street`` counts the betting rounds begun (1 = the first round). Cards a player no
    longer holds (discarded, passed, eliminated) leave ``cards``; ``face_up`` stays aligned.
    """

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


base.CLASS_FIELDS[GameHandState] = frozenset(f.name for f in fields(GameHandState))


def initial_game_state(event: HandStarted) -> GameHandState:
    """The state right after a dealer's choice game's ``HandStarted``."""
    plain = base._initial(event)
    n = plain.player_count
    return GameHandState(
        **plain.__dict__,
        pending=(False,) * n,
        dead=(0,) * n,
        to_pass=((),) * n,
        declarations=("",) * n,
        match_due=(0,) * n,
        matched=(0,) * n,
        stands=(0,) * n,
    )


def _g(state: HandState) -> GameHandState:
    return cast(GameHandState, state)


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _next_pending(pending: tuple[bool, ...], after: int) -> int | None:
    n = len(pending)
    for step in range(1, n + 1):
        j = (after + step) % n
        if pending[j]:
            return j
    return None


def _done(s: GameHandState, i: int, **changes: Any) -> HandState:
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
    return replace(state, carried_in=_g(state).carried_in + event.amount)


def _ante(state: HandState, event: AntePosted) -> HandState:
    i = state.seats.index(event.seat)
    s = _g(base._ante(state, event))
    return replace(s, dead=_put(s.dead, i, s.dead[i] + event.amount))


def _round(state: HandState, event: BettingRoundStarted) -> HandState:
    s = _g(base._round(state, event))
    n = s.player_count
    changes: dict[str, Any] = {"phase": BET, "pending": (False,) * n}
    if event.street != s.match_round:
        changes["matched"] = (0,) * n
    return replace(s, **changes)


def _phase(state: HandState, event: PhaseStarted) -> HandState:
    s = _g(state)
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
    s = _g(state)
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
    s = _g(state)
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
    s = _g(state)
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
    s = _g(state)
    i = s.seats.index(event.seat)
    by_card = dict(zip(s.cards[i], s.face_up[i], strict=True))
    up = tuple(by_card.get(c, False) for c in event.cards)
    return _done(s, i, cards=_put(s.cards, i, event.cards), face_up=_put(s.face_up, i, up))


def _turned_up(state: HandState, event: CardTurnedUp) -> HandState:
    s = _g(state)
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
    s = _g(state)
    i = s.seats.index(event.seat)
    stands = _put(s.stands, i, 0 if event.took else s.stands[i] + 1)
    return _done(s, i, took_any=s.took_any or event.took, stands=stands)


def _sealed(state: HandState, event: DeclarationSealed) -> HandState:
    s = _g(state)
    i = s.seats.index(event.seat)
    return _done(s, i, declarations=_put(s.declarations, i, event.choice))


def _revealed(state: HandState, event: DeclarationsRevealed) -> HandState:
    s = _g(state)
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


def _dead_money(s: GameHandState, i: int, amount: int) -> dict[str, Any]:
    return {
        "stacks": _put(s.stacks, i, s.stacks[i] - amount),
        "committed": _put(s.committed, i, s.committed[i] + amount),
        "dead": _put(s.dead, i, s.dead[i] + amount),
    }


def _payment(state: HandState, event: CardPaymentPosted) -> HandState:
    s = _g(state)
    i = s.seats.index(event.seat)
    return replace(
        s,
        payments=(*s.payments, (event.seat, event.card, event.amount)),
        **_dead_money(s, i, event.amount),
    )


def _wild(state: HandState, event: WildRankChanged) -> HandState:
    return replace(state, wild_rank=event.rank, wild_awaiting=event.awaiting)


def _match_due(state: HandState, event: MatchDue) -> HandState:
    s = _g(state)
    i = s.seats.index(event.seat)
    return replace(s, match_due=_put(s.match_due, i, event.amount))


def _matched(state: HandState, event: PotMatched) -> HandState:
    s = _g(state)
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
    s = _g(state)
    i = s.seats.index(event.seat)
    return _done(s, i, match_due=_put(s.match_due, i, 0), folded=_put(s.folded, i, True))


def _row(state: HandState, event: TableRowDealt) -> HandState:
    return replace(state, row_start=state.deck_pos, deck_pos=state.deck_pos + event.count)


def _table_card(state: HandState, event: TableCardTurned) -> HandState:
    s = _g(state)
    if event.from_stock:
        return replace(s, row=(*s.row, event.card), deck_pos=s.deck_pos + 1)
    return replace(s, row=(*s.row, event.card), row_turned=s.row_turned + 1)


def _rank_out(state: HandState, event: RankEliminated) -> HandState:
    s = _g(state)
    return replace(s, eliminated=(*s.eliminated, event.rank))


def _eliminated(state: HandState, event: CardsEliminated) -> HandState:
    s = _g(state)
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
    s = _g(state)
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
    s = _g(state)
    return replace(s, carried_out=s.carried_out + event.amount, to_act=None)


def _action(state: HandState, event: ActionTaken) -> HandState:
    return base._action(state, event)


GAME_HANDLERS: dict[type[Any], Callable[[HandState, Any], HandState]] = {
    GameOptionsSet: _options_set,
    PotCarriedIn: _carried_in,
    AntePosted: _ante,
    BettingRoundStarted: _round,
    ActionTaken: _action,
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
"""Handlers of a dealer's choice hand, on top of (and overriding some of) the stud ones."""
