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
from typing import NamedTuple

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
    return rec.events, rec.s


def _phase_act(game: Game, rec: Recorder, i: int, command: Act | TimeOut) -> None:
    s = rec.s
    judgement = judge_moves(game, s, i, reasons=False)
    if judgement.turn is not None:
        raise IllegalAction(judgement.turn[1], rule=judgement.turn[0])
    if isinstance(command, TimeOut):
        command = timeout_move(game, s, i)
    move = next((m for m in judgement.legal if m.action == command.action), None)
    if move is None:
        rule, message = judge_moves(game, s, i).refused[command.action]
        raise IllegalAction(message, rule=rule)
    _verify(game, s, command, move)
    _HANDLERS[s.phase](game, rec, i, command)
    after = rec.s
    if not after.finished and not any(after.pending):
        _close_phase(rec)
        run(game, rec)


# --- verify / can / do: the phases' rules, each tested once -----------------------------------

_CARD_ACTIONS = frozenset({"draw", "discard", "pass", "order", "expose"})


class MoveJudgement(NamedTuple):
    """A seat's moves in a card phase: the actions allowed with what each may take (cards,
    coins, an amount), the rule refusing each other action of the game, or ``turn``: the rule
    (and its message) keeping the seat from acting at all now."""

    legal: list[LegalAction]
    refused: dict[str, tuple[str, str]]
    turn: tuple[str, str] | None = None


def judge_moves(game: Game, s: HandState, i: int, *, reasons: bool = True) -> MoveJudgement:
    """Player ``i``'s moves in the current card phase (PokerKit's verify / can / do, as
    :func:`riverboat.engine.betting.judge` for betting): each rule is tested here once, and
    the test yields either a legal move or the rule refusing it; :func:`legal_moves` lists the
    first, the command's check raises the second, so they cannot disagree. ``reasons=False``
    skips naming the refusals (for callers that only list the legal moves)."""
    seat = s.seats[i]
    if s.phase == RESHUFFLE:
        return MoveJudgement(
            [], {}, ("awaiting_reshuffle", "the dealer is reshuffling the discards")
        )
    if not s.pending or not s.pending[i] or (not s.simultaneous and s.to_act != i):
        if s.simultaneous:
            return MoveJudgement(
                [], {}, ("already_acted", f"seat {seat} has nothing to do in this {s.phase}")
            )
        if s.to_act is None:
            return MoveJudgement([], {}, ("out_of_turn", "nobody is to act now"))
        turn = f"it is seat {s.seats[s.to_act]}'s turn, not seat {seat}'s"
        return MoveJudgement([], {}, ("out_of_turn", turn))
    phase = s.phase
    low, high = s.card_limits
    refused: dict[str, tuple[str, str]] = {}
    legal: list[LegalAction] = []
    if phase in ("draw", "discard", "pass", "expose"):
        legal.append(LegalAction(phase, tuple(range(low, high + 1))))
    elif phase == "order":
        legal.append(LegalAction("order", (len(s.cards[i]),)))
    elif phase == "offer":
        if s.deck_pos < s.deck_size:
            legal.append(LegalAction("take", (1,)))
        elif reasons:
            refused["take"] = ("deck_exhausted", "no cards are left to take")
        legal.append(LegalAction("stand", (0,)))
    elif phase == "declare":
        assert game.ways is not None
        coins = {game.ways[0]: 1, HIGH: 2, BOTH: 3}
        legal.append(LegalAction("declare", tuple(coins[w] for w in game.declare_ways(s, i))))
    elif phase == "match":
        due, stack = s.match_due[i], s.stacks[i]
        if stack >= due or s.game_options.text("match_short_stack") == "all_in":
            legal.append(LegalAction("match", (min(due, stack),)))
        elif reasons:
            message = f"you cannot match {due} with {stack}: you must fold"
            refused["match"] = ("cannot_match", message)
        legal.append(LegalAction("fold", (0,)))
    if reasons:
        expected = " or ".join(PHASE_ACTIONS[phase])
        listed = {m.action for m in legal}
        for name in game.actions:
            if name not in listed and name not in refused:
                message = f"now is the {phase}: you may {expected}, not {name}"
                refused[name] = ("wrong_phase", message)
    return MoveJudgement(legal, refused)


def _verify(game: Game, s: HandState, command: Act, move: LegalAction) -> None:
    """Refuse what a legal move's command gets wrong: a field its action does not take (cards
    on a take, a choice on a pass...), a number of cards, coins or an amount the move does not
    list. Which cards a card action names is each phase's own check (held, face down...)."""
    name = command.action
    if command.cards and name not in _CARD_ACTIONS:
        raise InvalidCommand(f"{name} takes no cards", rule="invalid_command")
    if command.choice is not None and name != "declare":
        raise InvalidCommand(f"{name} takes no choice", rule="invalid_command")
    if name in _CARD_ACTIONS:
        cards = command.cards
        for card in cards:
            if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < DECK_SIZE:
                raise InvalidCommand(f"not a card: {card!r}", rule="bad_card")
        if len(set(cards)) != len(cards):
            raise InvalidCommand("a card is named twice", rule="bad_card")
        count = len(cards)
        if command.amount is not None and command.amount != count:
            raise IllegalAction(f"{name}: amount is the number of cards", rule="wrong_amount")
        if name != "order" and count not in move.to:
            low, high = move.to[0], move.to[-1]
            what = "you may draw" if name == "draw" else name
            allowed = str(low) if low == high else f"{low} to {high}"
            raise IllegalAction(f"{what} {allowed} cards, not {count}", rule="wrong_card_count")
    elif name == "declare":
        coins = declared_coins(game, command)
        if coins not in move.to:
            words = ", ".join(_way_of(game, c) for c in move.to)
            said = command.choice if command.choice is not None else _way_of(game, coins)
            raise IllegalAction(f"you may declare {words}; not {said!r}", rule="bad_declaration")
    elif command.amount is not None and command.amount not in move.to:
        raise IllegalAction(f"{name} is for {move.to}, not {command.amount}", rule="wrong_amount")


def declared_coins(game: Game, command: Act) -> int:
    """The coins a ``declare`` command puts up, by word or by ``amount`` (0 for a word that is
    none of the game's); an amount that is no number of coins is refused."""
    assert game.ways is not None
    if command.choice is None:
        if command.amount is None or command.amount not in COINS:
            raise IllegalAction("declare with 1, 2 or 3 coins", rule="bad_declaration")
        return command.amount
    return {game.ways[0]: 1, HIGH: 2, BOTH: 3}.get(command.choice, 0)


def _way_of(game: Game, coins: int) -> str:
    """The declaration ``coins`` make in ``game`` (1: its low way, 2: high, 3: both)."""
    assert game.ways is not None
    way = COINS[coins]
    return game.ways[0] if way == LOW else way


def _cards(s: HandState, i: int, command: Act) -> tuple[int, ...]:
    """The command's cards, held by the player (real, distinct and how many: _verify)."""
    cards = tuple(command.cards)
    held = set(s.cards[i])
    for card in cards:
        if card not in held:
            raise IllegalAction(f"you do not hold {card_str(card)}", rule="not_your_card")
    return cards


def _draw(game: Game, rec: Recorder, i: int, command: Act) -> None:
    cards = _cards(rec.s, i, command)
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
    cards = _cards(rec.s, i, command)
    rec.emit(CardsDiscarded(rec.s.seats[i], cards))


def _pass(game: Game, rec: Recorder, i: int, command: Act) -> None:
    cards = _cards(rec.s, i, command)
    rec.emit(CardsToPass(rec.s.seats[i], cards))


def _order(game: Game, rec: Recorder, i: int, command: Act) -> None:
    s = rec.s
    cards = tuple(command.cards)
    if sorted(cards) != sorted(s.cards[i]):
        raise IllegalAction("order all of your cards, each once", rule="bad_order")
    rec.emit(CardsOrdered(s.seats[i], cards))


def _expose(game: Game, rec: Recorder, i: int, command: Act) -> None:
    s = rec.s
    card = _cards(s, i, command)[0]
    if s.face_up[i][s.cards[i].index(card)]:
        raise IllegalAction(f"{card_str(card)} is already face up", rule="already_face_up")
    rec.emit(CardTurnedUp(s.seats[i], card))


def _offer(game: Game, rec: Recorder, i: int, command: Act) -> None:
    s = rec.s
    seat = s.seats[i]
    if command.action == "take":
        rec.emit(OfferAnswered(seat, True))
        face_up = game.offer_face_up(rec.s)
        rec.emit(CardDealt(seat, rec.deck[rec.s.deck_pos], face_up))
        if face_up:
            game.after_face_up(rec, i, rec.s.cards[i][-1])
    else:
        rec.emit(OfferAnswered(seat, False))


def _declare(game: Game, rec: Recorder, i: int, command: Act) -> None:
    choice = _way_of(game, declared_coins(game, command))
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
    # The whole pot, or all a short stack has where the game allows it (judge_moves).
    rec.emit(PotMatched(seat, min(s.match_due[i], s.stacks[i])))


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
    judgement = judge_moves(game, s, i, reasons=False)
    return [] if judgement.turn is not None else judgement.legal


def hole_spades(s: HandState, i: int) -> list[int]:
    """Player ``i``'s face-down spades."""
    return [c for c, up in zip(s.cards[i], s.face_up[i], strict=True) if not up and suit_of(c) == 3]
