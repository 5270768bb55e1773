"""Seven-card stud hi/lo (Pacific Poker's table procedure, with the house rules).

``decide`` validates a command against the state and returns the events it causes. After a
player's action it also plays out everything that follows mechanically: closing the betting
round, returning an uncalled bet, dealing the next street, the showdown and the payout.
"""

from __future__ import annotations

from collections.abc import Sequence

from riverboat.engine.betting import find_legal, legal_actions
from riverboat.engine.cards import ACE, rank_of, suit_of
from riverboat.engine.commands import ACTIONS, Act, StartHand, TimeOut
from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.evaluation import (
    board_value,
    describe_high,
    describe_low,
    high_value,
    low_value,
)
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
from riverboat.engine.pots import (
    build_pots,
    build_pots_with_dead,
    rake_amount,
    split_evenly,
    take_rake,
)
from riverboat.engine.recording import Recorder, seat_index
from riverboat.engine.seating import validate_seating
from riverboat.engine.state import HandState

VARIANT = "seven_card_stud_hi_lo"


# --- starting a hand ------------------------------------------------------------------------


def start(command: StartHand) -> list[Event]:
    """Validate ``StartHand`` and deal 3rd street (antes, two down, one up, the bring-in)."""
    return start_with_state(command)[0]


def start_with_state(command: StartHand) -> tuple[list[Event], HandState]:
    """:func:`start`, also returning the state after the events."""
    _validate_start(command)
    rec = Recorder(None, command.deck)
    rec.emit(
        HandStarted(
            hand_id=command.hand_id,
            variant=command.variant,
            button=command.button,
            seats=tuple(sorted(command.seats, key=lambda s: s.seat)),
            deck_size=len(command.deck),
            options=command.options.to_dict(),
        )
    )
    s = rec.s
    opts = s.options
    if opts.ante > 0:
        if opts.ante_mode == "per_player":
            for i, seat in enumerate(s.seats):
                rec.emit(AntePosted(seat, min(opts.ante, s.stacks[i])))
        else:
            i = s.seats.index(command.button)
            rec.emit(AntePosted(command.button, min(opts.ante, s.stacks[i])))
    for face_up in (False, False, True):
        for seat in s.seats:
            _deal(rec, seat, face_up)
    s = rec.s
    if opts.no_bring_in:
        # Dealer's choice stud (Buderick): no bring-in; the high hand showing (the door card,
        # by rank; ties first clockwise from the dealer) bets first, and may check.
        opener = _best_board(s)
    else:
        # The lowest door card by suit brings in; ace high, so the card's integer order is
        # the rule.
        opener = min(range(s.player_count), key=lambda i: s.up_cards(i)[0])
    first = _first_able(s, opener)
    rec.emit(
        BettingRoundStarted(
            street=3,
            bet_size=opts.small_bet,
            first_to_act=None if first is None else s.seats[first],
            forced_bring_in=not opts.no_bring_in,
        )
    )
    if first is None:
        _advance(rec)
    return rec.events, rec.s


def _validate_start(command: StartHand) -> None:
    if command.variant != VARIANT:
        raise InvalidCommand(f"unknown variant {command.variant!r}", rule="unknown_variant")
    if not command.hand_id:
        raise InvalidCommand("a hand needs a hand_id", rule="invalid_command")
    opts = command.options
    n = len(command.seats)
    validate_seating(command, most=opts.max_players, who_deals="this table")
    if len(command.deck) < 3 * n:
        raise InvalidCommand(
            f"the deck has {len(command.deck)} cards; 3rd street alone needs {3 * n}",
            rule="bad_deck",
        )


def _deal(rec: Recorder, seat: int, face_up: bool) -> None:
    s = rec.s
    if s.deck_pos >= len(rec.deck):
        raise InvalidCommand(f"the deck ran out after {len(rec.deck)} cards", rule="deck_exhausted")
    rec.emit(CardDealt(seat, rec.deck[s.deck_pos], face_up))


def _first_able(s: HandState, start: int) -> int | None:
    """``start`` or the next player clockwise who can still bet; None if under two can."""
    if sum(1 for i in range(s.player_count) if s.can_bet(i)) < 2:
        return None
    n = s.player_count
    for step in range(n):
        j = (start + step) % n
        if s.can_bet(j):
            return j
    return None


# --- player actions -------------------------------------------------------------------------


def act(state: HandState, command: Act | TimeOut, deck: Sequence[int]) -> list[Event]:
    """Validate a player's action (or a clock expiry) and play out what follows."""
    return act_with_state(state, command, deck)[0]


def act_with_state(
    state: HandState, command: Act | TimeOut, deck: Sequence[int]
) -> tuple[list[Event], HandState]:
    """:func:`act`, also returning the state after the events.

    ``deck`` is the dealer's deck for this hand (the same one ``StartHand`` had); cards for
    later streets are taken from it at the state's ``deck_pos``.
    """
    i = seat_index(state, command.seat, deck)
    if state.to_act is None:
        raise IllegalAction("nobody is to act now", rule="out_of_turn")
    if state.to_act != i:
        raise IllegalAction(
            f"it is seat {state.seats[state.to_act]}'s turn, not seat {command.seat}'s",
            rule="out_of_turn",
        )
    if isinstance(command, TimeOut):
        names = {a.action for a in legal_actions(state)}
        if "check" in names:
            action, amount = "check", None
        elif "fold" in names:
            action, amount = "fold", None
        else:  # a forced bring-in cannot be folded: the clock posts it
            action, amount = "bring_in", None
    else:
        if command.action not in ACTIONS:
            raise InvalidCommand(
                f"unknown action {command.action!r}; actions are {', '.join(sorted(ACTIONS))}",
                rule="unknown_action",
            )
        action, amount = command.action, command.amount
    legal = find_legal(state, action, amount, legal_actions(state))
    to = legal.amount if amount is None else amount
    added = to - state.street_bets[i]
    rec = Recorder(state, deck)
    rec.emit(
        ActionTaken(
            seat=command.seat,
            action=action,
            amount=added,
            to=to,
            all_in=added > 0 and added == state.stacks[i],
        )
    )
    s = rec.s
    if len(s.in_hand()) == 1:
        _return_uncalled(rec)
        _pay(rec, showdown=False)
    elif s.to_act is None:
        _advance(rec)
    return rec.events, rec.s


def _return_uncalled(rec: Recorder) -> None:
    s = rec.s
    if s.player_count < 2:
        return
    order = sorted(range(s.player_count), key=lambda i: s.street_bets[i], reverse=True)
    top, second = order[0], order[1]
    excess = s.street_bets[top] - s.street_bets[second]
    if excess > 0:
        rec.emit(UncalledBetReturned(s.seats[top], excess))


def _advance(rec: Recorder) -> None:
    """Close the betting round and deal on until someone must act or the hand is shown down."""
    _return_uncalled(rec)
    while True:
        s = rec.s
        if s.street >= 7:
            _pay(rec, showdown=True)
            return
        street = s.street + 1
        live = [s.seats[i] for i in s.in_hand()]
        remaining = s.deck_size - s.deck_pos
        if street == 7 and remaining < len(live):
            # Not enough cards for everyone's 7th: one face-up community card for all.
            if remaining < 1:
                raise InvalidCommand("the deck ran out before 7th street", rule="deck_exhausted")
            rec.emit(CommunityCardDealt(rec.deck[s.deck_pos]))
        else:
            for seat in live:
                _deal(rec, seat, face_up=street != 7)
        s = rec.s
        opener = _best_board(s)
        first = _first_able(s, opener)
        if s.options.final_bet_rule:  # dealer's choice: the big bet on the last street only
            bet_size = s.options.big_bet if street == 7 else s.options.small_bet
        else:
            bet_size = s.options.small_bet if street == 4 else s.options.big_bet
        rec.emit(
            BettingRoundStarted(
                street=street,
                bet_size=bet_size,
                first_to_act=None if first is None else s.seats[first],
                forced_bring_in=False,
            )
        )
        if first is not None:
            return


def _best_board(s: HandState) -> int:
    """Who opens 4th-7th street: the best board showing; ties go to the first clockwise."""
    best_i, best_v = -1, -1
    for i in s.in_hand():  # in dealing order, so the first of equals is first clockwise
        value = board_value(s.up_cards(i) + s.community)
        if value > best_v:
            best_i, best_v = i, value
    return best_i


# --- showdown and payout --------------------------------------------------------------------


def _pay(rec: Recorder, *, showdown: bool) -> None:
    s = rec.s
    live = s.in_hand()
    highs: dict[int, int] = {}
    lows: dict[int, int | None] = {}
    if showdown:
        for i in live:
            cards = s.cards[i] + s.community
            high = high_value(cards)
            low = low_value(cards, s.options.low_qualifier)
            highs[i], lows[i] = high, low
            rec.emit(
                HandShown(
                    seat=s.seats[i],
                    cards=s.cards[i],
                    high=high,
                    low=low,
                    high_text=describe_high(high),
                    low_text=None if low is None else describe_low(low),
                )
            )
    opts = s.options
    if opts.ante_mode == "dealer":
        # The dealer's lone ante is dead money, not a level that would make a side pot.
        dead = [0] * s.player_count
        dealer = s.seats.index(s.button)
        dead[dealer] = min(opts.ante, s.starting_stacks[dealer])
        pots = build_pots_with_dead(s.committed, dead, s.folded)
    else:
        pots = build_pots(s.committed, s.folded)
    rake = 0
    if opts.rake_basis_points and not (opts.no_rake_on_third_street and s.street <= 3):
        rake = rake_amount(
            sum(p.amount for p in pots), opts.rake_basis_points, opts.rake_cap(s.player_count)
        )
    taken = take_rake([p.amount for p in pots], rake)
    rec.emit(RakeTaken(rake, tuple(taken)))
    for k, (pot, cut) in enumerate(zip(pots, taken, strict=True)):
        amount = pot.amount - cut
        eligible = list(pot.eligible)
        if not showdown or len(eligible) == 1:
            high_w, low_w = eligible, list[int]()
        else:
            top = max(highs[i] for i in eligible)
            high_w = [i for i in eligible if highs[i] == top]
            with_low = [(v, i) for i in eligible if (v := lows[i]) is not None]
            low_w = []
            if with_low:
                best = min(v for v, _ in with_low)
                low_w = [i for v, i in with_low if v == best]
        shares: dict[int, int] = {}
        if low_w:
            low_half = amount // 2  # the odd chip between the halves goes to high
            _add(shares, split_evenly(amount - low_half, _odd_chip_order(s, high_w, high=True)))
            _add(shares, split_evenly(low_half, _odd_chip_order(s, low_w, high=False)))
        else:
            _add(shares, split_evenly(amount, _odd_chip_order(s, high_w, high=True)))
        rec.emit(
            PotAwarded(
                pot=k,
                amount=amount,
                eligible=tuple(s.seats[i] for i in eligible),
                high_winners=tuple(s.seats[i] for i in high_w),
                low_winners=tuple(s.seats[i] for i in low_w),
                shares=tuple((s.seats[i], v) for i, v in sorted(shares.items()) if v),
            )
        )
    s = rec.s
    rec.emit(HandEnded(tuple(sorted(zip(s.seats, s.stacks, strict=True)))))


def _add(into: dict[int, int], more: dict[int, int]) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def _odd_chip_order(s: HandState, winners: list[int], *, high: bool) -> list[int]:
    """Tied winners in the order odd chips are handed out.

    House rule for stud: in the high half, highest card by suit first; in the low half,
    lowest card by suit first (ace low); all of the player's own cards count. The ``seat``
    option instead goes clockwise from the button.
    """
    if len(winners) < 2 or s.options.odd_chip_order == "seat":
        return sorted(winners)
    if high:
        return sorted(winners, key=lambda i: max(s.cards[i]), reverse=True)
    return sorted(winners, key=lambda i: min(_low_card_key(c) for c in s.cards[i]))


def _low_card_key(card: int) -> tuple[int, int]:
    rank = rank_of(card)
    return (-1 if rank == ACE else rank, suit_of(card))
