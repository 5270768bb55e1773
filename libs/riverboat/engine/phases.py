"""Player commands in a hand of any game: betting, the card phases and the dealer's reshuffle.

The phases (``PhaseStarted.phase``) and the action each expects:

=========  ==============  =========================================================
phase      action          what it does
=========  ==============  =========================================================
draw       ``draw``        throw away ``cards`` (0..max) and get as many new ones
discard    ``discard``     throw away exactly ``cards``
pass       ``pass``        put down ``cards`` for the next player still in on the left
order      ``order``       stack all your cards in the order they will be turned up
expose     ``expose``      turn up one of your face-down cards
offer      ``take``,       take the card offered (dealt to you), or stand
           ``stand``
declare    ``declare``     ``choice``: low / high / both (Chicago: spade / high / both);
                           or ``amount`` = coins (1, 2, 3)
match      ``match``,      match the pot (dead money), or fold
           ``fold``
=========  ==============  =========================================================

Simultaneous phases (pass, discard, order, declare) take each player's action in any order
and resolve when the last one is in; the others go clockwise from the dealer's left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from riverboat.engine.betting import LegalAction
from riverboat.engine.cards import DECK_SIZE, card_str, suit_of
from riverboat.engine.commands import Act, Reshuffle, TimeOut
from riverboat.engine.declare import BOTH, COINS, HIGH, LOW
from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.events import (
    CardDealt,
    CardsDiscarded,
    CardsOrdered,
    CardsPassed,
    CardsToPass,
    CardTurnedUp,
    DeclarationSealed,
    DeclarationsRevealed,
    DiscardsReshuffled,
    Event,
    MatchDeclined,
    OfferAnswered,
    PotMatched,
    ReshuffleRequested,
)
from riverboat.engine.flow import (
    Game,
    Recorder,
    awaiting,
    bet,
    betting_actions,
    run,
    stub_left,
    win_uncontested,
)
from riverboat.engine.recording import seat_index
from riverboat.engine.state import BET, RESHUFFLE, HandState

#: The action(s) each phase expects.
PHASE_ACTIONS: dict[str, tuple[str, ...]] = {
    "draw": ("draw",),
    "discard": ("discard",),
    "pass": ("pass",),
    "order": ("order",),
    "expose": ("expose",),
    "offer": ("take", "stand"),
    "declare": ("declare",),
    "match": ("match", "fold"),
}


def act(
    game: Game, state: HandState, command: Act | TimeOut | Reshuffle, deck: Sequence[int]
) -> tuple[list[Event], HandState]:
    """Validate a command in a hand of ``game`` and play out what follows."""
    if isinstance(command, Reshuffle):
        return _reshuffle(game, state, command, deck)
    i = seat_index(state, command.seat, deck)
    if isinstance(command, Act) and command.action not in game.actions:
        raise InvalidCommand(
            f"unknown action {command.action!r}; actions are {', '.join(sorted(game.actions))}",
            rule="unknown_action",
        )
    rec = Recorder(state, deck)
    if state.phase == BET:
        bet(game, rec, i, command)
    elif state.phase == RESHUFFLE:
        raise IllegalAction("the dealer is reshuffling the discards", rule="awaiting_reshuffle")
    elif any(state.pending):
        _phase_act(game, rec, i, command)
    else:  # pragma: no cover - a live hand always waits for someone
        raise IllegalAction("nobody is to act now", rule="out_of_turn")
    return rec.events, rec.state  # type: ignore[return-value]


def _phase_act(game: Game, rec: Recorder, i: int, command: Act | TimeOut) -> None:
    s = rec.s
    seat = s.seats[i]
    if not s.pending[i]:
        if s.simultaneous:
            raise IllegalAction(
                f"seat {seat} has nothing to do in this {s.phase}", rule="already_acted"
            )
        assert s.to_act is not None
        raise IllegalAction(
            f"it is seat {s.seats[s.to_act]}'s turn, not seat {seat}'s", rule="out_of_turn"
        )
    if not s.simultaneous and s.to_act != i:
        assert s.to_act is not None
        raise IllegalAction(
            f"it is seat {s.seats[s.to_act]}'s turn, not seat {seat}'s", rule="out_of_turn"
        )
    if isinstance(command, TimeOut):
        command = timeout_move(game, s, i)
    expected = PHASE_ACTIONS[s.phase]
    if command.action not in expected:
        raise IllegalAction(
            f"now is the {s.phase}: you may {' or '.join(expected)}, not {command.action}",
            rule="wrong_phase",
        )
    _check_shape(game, s, i, command)
    _HANDLERS[s.phase](game, rec, i, command)
    after = rec.s
    if not after.finished and not any(after.pending):
        _close_phase(rec)
        run(game, rec)


# --- the phases ------------------------------------------------------------------------------

_CARD_ACTIONS = frozenset({"draw", "discard", "pass", "order", "expose"})


def _check_shape(game: Game, s: HandState, i: int, command: Act) -> None:
    """Refuse fields an action does not take (cards on a take, a choice on a pass...); an
    ``amount`` must be one :func:`legal_moves` lists (the number of cards of a card action)."""
    name = command.action
    if command.cards and name not in _CARD_ACTIONS:
        raise InvalidCommand(f"{name} takes no cards", rule="invalid_command")
    if command.choice is not None and name != "declare":
        raise InvalidCommand(f"{name} takes no choice", rule="invalid_command")
    if command.amount is None or name == "declare":
        return
    if name in _CARD_ACTIONS:
        if command.amount != len(command.cards):
            raise IllegalAction(f"{name}: amount is the number of cards", rule="wrong_amount")
        return
    allowed = next((m.to for m in legal_moves(game, s, s.seats[i]) if m.action == name), ())
    if command.amount not in allowed:
        raise IllegalAction(f"{name} is for {allowed}, not {command.amount}", rule="wrong_amount")


def _cards(s: HandState, i: int, command: Act, what: str) -> tuple[int, ...]:
    """The command's cards, checked: real, distinct, held by the player, a legal count."""
    cards = tuple(command.cards)
    for card in cards:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < DECK_SIZE:
            raise InvalidCommand(f"not a card: {card!r}", rule="bad_card")
    if len(set(cards)) != len(cards):
        raise InvalidCommand("a card is named twice", rule="bad_card")
    low, high = s.card_limits
    if not low <= len(cards) <= high:
        count = str(low) if low == high else f"{low} to {high}"
        raise IllegalAction(f"{what} {count} cards, not {len(cards)}", rule="wrong_card_count")
    held = set(s.cards[i])
    for card in cards:
        if card not in held:
            raise IllegalAction(f"you do not hold {card_str(card)}", rule="not_your_card")
    return cards


def _draw(game: Game, rec: Recorder, i: int, command: Act) -> None:
    cards = _cards(rec.s, i, command, "you may draw")
    seat = rec.s.seats[i]
    rec.emit(CardsDiscarded(seat, cards))
    deal_owed(rec, seat, len(cards), mine=cards)


def deal_owed(rec: Recorder, seat: int, count: int, *, mine: Sequence[int]) -> None:
    """Deal ``count`` cards face down to ``seat``; if the stub runs out, ask the dealer to
    reshuffle the discards of the players who drew before (never ``mine``)."""
    for k in range(count):
        s = rec.s
        if s.deck_pos >= len(rec.deck):
            eligible = tuple(c for c in s.discard_pile if c not in mine)
            if not eligible:
                raise InvalidCommand("the deck and the discards ran out", rule="deck_exhausted")
            rec.emit(ReshuffleRequested(seat, eligible, count - k))
            return
        rec.emit(CardDealt(seat, rec.deck[s.deck_pos], False))


def _reshuffle(
    game: Game, state: HandState, command: Reshuffle, deck: Sequence[int]
) -> tuple[list[Event], HandState]:
    if state.phase != RESHUFFLE:
        raise IllegalAction("no reshuffle was asked for", rule="no_reshuffle")
    if len(deck) != state.deck_size:
        raise InvalidCommand(
            f"this hand's deck has {state.deck_size} cards, not {len(deck)}", rule="bad_deck"
        )
    cards = tuple(command.cards)
    if sorted(cards) != sorted(state.reshuffle_cards):
        raise InvalidCommand(
            "the reshuffle must hold exactly the discards asked for", rule="bad_reshuffle"
        )
    rec = Recorder(state, (*deck, *cards))
    seat, owed = state.owed_seat, state.owed
    mine = state.discard_pile  # whatever is left in the pile is not reshuffled
    rec.emit(DiscardsReshuffled(len(cards)))
    deal_owed(rec, seat, owed, mine=mine)
    if not awaiting(rec.s):
        run(game, rec)
    return rec.events, rec.s


def _discard(game: Game, rec: Recorder, i: int, command: Act) -> None:
    cards = _cards(rec.s, i, command, "discard")
    rec.emit(CardsDiscarded(rec.s.seats[i], cards))


def _pass(game: Game, rec: Recorder, i: int, command: Act) -> None:
    cards = _cards(rec.s, i, command, "pass")
    rec.emit(CardsToPass(rec.s.seats[i], cards))


def _order(game: Game, rec: Recorder, i: int, command: Act) -> None:
    s = rec.s
    cards = tuple(command.cards)
    if sorted(cards) != sorted(s.cards[i]):
        raise IllegalAction("order all of your cards, each once", rule="bad_order")
    rec.emit(CardsOrdered(s.seats[i], cards))


def _expose(game: Game, rec: Recorder, i: int, command: Act) -> None:
    s = rec.s
    card = _cards(s, i, command, "expose")[0]
    if s.face_up[i][s.cards[i].index(card)]:
        raise IllegalAction(f"{card_str(card)} is already face up", rule="already_face_up")
    rec.emit(CardTurnedUp(s.seats[i], card))


def _offer(game: Game, rec: Recorder, i: int, command: Act) -> None:
    s = rec.s
    seat = s.seats[i]
    if command.action == "take":
        if stub_left(rec) < 1:
            raise IllegalAction("no cards are left to take", rule="deck_exhausted")
        rec.emit(OfferAnswered(seat, True))
        face_up = game.offer_face_up(rec.s)
        rec.emit(CardDealt(seat, rec.deck[rec.s.deck_pos], face_up))
        if face_up:
            game.after_face_up(rec, i, rec.s.cards[i][-1])
    else:
        rec.emit(OfferAnswered(seat, False))


def declaration(game: Game, s: HandState, i: int, command: Act) -> str:
    """The declaration a command makes (by word, or by coins), checked for player ``i``."""
    assert game.ways is not None
    choice = command.choice
    if choice is None and command.amount is not None:
        way = COINS.get(command.amount)
        if way is None:
            raise IllegalAction("declare with 1, 2 or 3 coins", rule="bad_declaration")
        choice = game.ways[0] if way == LOW else way
    allowed = game.declare_ways(s, i)
    if choice not in allowed:
        raise IllegalAction(
            f"you may declare {', '.join(allowed)}; not {choice!r}", rule="bad_declaration"
        )
    return choice


def _declare(game: Game, rec: Recorder, i: int, command: Act) -> None:
    choice = declaration(game, rec.s, i, command)
    rec.emit(DeclarationSealed(rec.s.seats[i], choice))
    if not rec.s.simultaneous:
        # Declaring in turn (A-7, ``declaration: in_turn``): shown to everyone at once.
        rec.emit(DeclarationsRevealed(((rec.s.seats[i], choice),)))


def _match(game: Game, rec: Recorder, i: int, command: Act) -> None:
    s = rec.s
    seat = s.seats[i]
    if command.action == "fold":
        rec.emit(MatchDeclined(seat))
        if len(rec.s.in_hand()) == 1:
            win_uncontested(rec, game)
        return
    amount = s.match_due[i]
    if s.stacks[i] < amount:
        if s.game_options.text("match_short_stack") != "all_in":
            raise IllegalAction(
                f"you cannot match {amount} with {s.stacks[i]}: you must fold",
                rule="cannot_match",
            )
        amount = s.stacks[i]
    rec.emit(PotMatched(seat, amount))


_HANDLERS: dict[str, Callable[[Game, Recorder, int, Act], None]] = {
    "draw": _draw,
    "discard": _discard,
    "pass": _pass,
    "order": _order,
    "expose": _expose,
    "offer": _offer,
    "declare": _declare,
    "match": _match,
}


def _close_phase(rec: Recorder) -> None:
    """What happens when the last player of a simultaneous phase has acted."""
    s = rec.s
    if s.phase == "pass":
        givers = [i for i in s.in_hand() if s.to_pass[i]]
        for k, i in enumerate(givers):
            taker = givers[(k + 1) % len(givers)]
            rec.emit(CardsPassed(s.seats[i], s.seats[taker], s.to_pass[i]))
    elif s.phase == "declare" and not s.revealed:
        rec.emit(DeclarationsRevealed(tuple((s.seats[i], s.declarations[i]) for i in s.in_hand())))


# --- the clock and the legal moves ---------------------------------------------------------


def timeout_move(game: Game, s: HandState, i: int) -> Act:
    """What the clock does for player ``i`` in the current phase: draw nothing (stand pat),
    discard or pass the lowest cards, keep the order held, expose the first face-down card,
    stand, declare high, decline a match (fold)."""
    seat = s.seats[i]
    low = s.card_limits[0]
    phase = s.phase
    if phase == "draw":
        return Act(seat, "draw", cards=())
    if phase in ("discard", "pass"):
        return Act(seat, phase, cards=tuple(sorted(s.cards[i])[:low]))
    if phase == "order":
        return Act(seat, "order", cards=s.cards[i])
    if phase == "expose":
        down = [c for c, up in zip(s.cards[i], s.face_up[i], strict=True) if not up]
        return Act(seat, "expose", cards=(down[0],))
    if phase == "offer":
        return Act(seat, "stand")
    if phase == "declare":
        return Act(seat, "declare", choice=HIGH)
    return Act(seat, "fold")


def legal_moves(game: Game, s: HandState, seat: int) -> list[LegalAction]:
    """What ``seat`` may do now. Betting actions list the street totals they may go to; card
    actions list how many cards they take; ``declare`` lists the coins allowed (1 low or
    spade, 2 high, 3 both); ``match`` the amount to match."""
    i = s.index_of(seat)
    if i is None or s.finished:
        return []
    if s.phase == BET:
        return betting_actions(game, s) if s.to_act == i else []
    if s.phase == RESHUFFLE or not s.pending or not s.pending[i]:
        return []
    if not s.simultaneous and s.to_act != i:
        return []
    low, high = s.card_limits
    phase = s.phase
    if phase in ("draw", "discard", "pass", "expose"):
        return [LegalAction(phase, tuple(range(low, high + 1)))]
    if phase == "order":
        return [LegalAction("order", (len(s.cards[i]),))]
    if phase == "offer":
        out = [LegalAction("take", (1,))] if s.deck_pos < s.deck_size else []
        return [*out, LegalAction("stand", (0,))]
    if phase == "declare":
        assert game.ways is not None
        coins = {game.ways[0]: 1, HIGH: 2, BOTH: 3}
        return [LegalAction("declare", tuple(coins[w] for w in game.declare_ways(s, i)))]
    if phase == "match":
        due = s.match_due[i]
        out = [LegalAction("fold", (0,))]
        if s.stacks[i] >= due or s.game_options.text("match_short_stack") == "all_in":
            out.insert(0, LegalAction("match", (min(due, s.stacks[i]),)))
        return out
    return []  # pragma: no cover


def hole_spades(s: HandState, i: int) -> list[int]:
    """Player ``i``'s face-down spades."""
    return [c for c, up in zip(s.cards[i], s.face_up[i], strict=True) if not up and suit_of(c) == 3]
