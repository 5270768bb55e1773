"""The one hand state machine: what every game shares, Pacific stud included.

A game (:class:`Game`, one module per game under :mod:`riverboat.engine.games`) says only how
its hand goes: :meth:`Game.step` is called whenever nobody has anything left to do, and
begins the next stage (deal cards, open a betting round, open a phase, show down). This module
does the rest: starting a hand, betting rounds, the phases' card actions and the dealer's
reshuffle (:mod:`riverboat.engine.phases`), early wins and the payout, including
declarations and a pot that rides.

``decide`` is pure: the deck is an input, only dealt cards enter the events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from riverboat.engine.betting import LegalAction, legal_actions, timeout_action, verify
from riverboat.engine.cards import ACE, rank_of, suit_of
from riverboat.engine.commands import BETTING_ACTIONS, GAME_ACTIONS, Act, StartHand, TimeOut
from riverboat.engine.declare import BOTH, HIGH, LOW, Claim, Outcome, resolve
from riverboat.engine.errors import IllegalAction, InvalidCommand
from riverboat.engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundStarted,
    CardDealt,
    CommunityCardDealt,
    Event,
    GameOptionsSet,
    HandEnded,
    HandShown,
    HandStarted,
    PhaseStarted,
    PotAwarded,
    PotCarriedIn,
    PotCarriedOver,
    RakeTaken,
    UncalledBetReturned,
)
from riverboat.engine.game_options import (
    RULE_BOOK,
    RULE_BOOK_SPEC,
    GameOptions,
    OptionSpec,
    edition_of,
    resolve_options,
)
from riverboat.engine.pots import build_pots_with_dead, rake_amount, split_evenly, take_rake
from riverboat.engine.recording import Recorder as Recorder
from riverboat.engine.seating import validate_seating
from riverboat.engine.state import (
    BET,
    RESHUFFLE,
    HandState,
    spread_minimum,
    spread_unit,
)


class Game:
    """A game (Pacific stud or a dealer's choice game). Subclasses set the class attributes
    and implement :meth:`step`; the rest has defaults most games keep."""

    #: The registered variant name (stable: it is stored in every hand's events).
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    max_players: ClassVar[int] = 8
    #: Cards each player needs at the start (the deck must hold at least that many each).
    first_cards: ClassVar[int] = 5
    specs: ClassVar[tuple[OptionSpec, ...]] = ()
    #: The declaration words of a declare game: (low way, high way); None: no declaring.
    ways: ClassVar[tuple[str, str] | None] = None
    #: Odd chips among tied hands follow the table's ``odd_chip_order`` (stud games); other
    #: games give them clockwise from the button (house rules, button games).
    stud_odd_chips: ClassVar[bool] = False
    #: The actions the game knows, and those of them taken in a betting round.
    actions: ClassVar[frozenset[str]] = GAME_ACTIONS
    betting: ClassVar[frozenset[str]] = BETTING_ACTIONS
    #: Whether the game takes game options and a riding pot (``GameOptionsSet``,
    #: ``PotCarriedIn``); Pacific stud's rules are all table options.
    takes_options: ClassVar[bool] = True
    #: The ``street`` of the first betting round (no rake when the hand ends in it).
    first_round: ClassVar[int] = 1
    #: What the first deal is called in the message for a deck too small for it.
    first_deal: ClassVar[str] = "the deal"
    #: Whether a pot that only one player may win is theirs as the high hand alone (no low
    #: half named), as in Pacific stud; otherwise it is judged like any other.
    lone_scoops: ClassVar[bool] = False

    def who_deals(self) -> str:
        """Who deals, in the message for a wrong number of players."""
        return self.title

    def cards_needed(self, players: int) -> int:
        """Cards the deck must hold for the first deal."""
        return self.first_cards * players

    def resolve(self, *layers: Mapping[str, Any] | None, edition: int = RULE_BOOK) -> GameOptions:
        """The game's options: the defaults of rule-book ``edition``, then each layer of
        overrides."""
        return resolve_options(self.name, (*self.specs, RULE_BOOK_SPEC), *layers, edition=edition)

    def step(self, rec: Recorder) -> None:
        """Begin the next stage of the hand (called when nobody has anything to do)."""
        raise NotImplementedError

    def opener(self, s: HandState) -> int:
        """Who opens the betting round about to begin (before skipping all-in players)."""
        return rotate_opener(s)

    def declares(self, s: HandState) -> bool:
        """Whether this hand is shown down by declaration."""
        return self.ways is not None

    def declare_ways(self, s: HandState, i: int) -> tuple[str, ...]:
        """The declarations player ``i`` may make."""
        assert self.ways is not None
        return (self.ways[0], HIGH, BOTH)

    def high(self, s: HandState, i: int) -> tuple[int, str] | None:
        """Player ``i``'s high key (higher is better) and its text, or None (cannot win)."""
        raise NotImplementedError

    def low(self, s: HandState, i: int) -> tuple[int, str] | None:
        """Player ``i``'s low-way key (lower is better) and its text, or None."""
        return None

    def sweepers(self, s: HandState, live: Sequence[int]) -> list[int]:
        """Players whose hand takes the whole pot whatever was declared (a natural)."""
        return []

    def offer_face_up(self, s: HandState) -> bool:
        """Whether a card taken from an offer is dealt face up."""
        return True

    def after_face_up(self, rec: Recorder, i: int, card: int) -> None:
        """Called after each face-up card dealt to player ``i`` (payments, wild cards...)."""

    def after_community(self, rec: Recorder, card: int) -> None:
        """Called after a face-up community card."""

    def dead_money(self, s: HandState) -> tuple[int, ...]:
        """Each player's chips in the pot that are no bet (antes, card payments, a matched
        pot): they make no all-in level of their own."""
        return s.dead

    # --- betting (riverboat.engine.betting.BettingRules) ---------------------------------

    def wager_kind(self, s: HandState) -> str:
        """A bet into nobody's bet, else a raise."""
        return "bet" if s.level == 0 else "raise"

    def increments(self, s: HandState, i: int) -> range | tuple[int, ...]:
        """The round's bet size (the smallest raise up to it, spread limit); a matcher may bet
        up to their share of the pot they matched."""
        size = s.bet_size
        share = _match_share(s, i)
        if s.options.spread_limit:
            # Spread limit: any whole-dollar amount from the smallest raise up to the limit.
            return range(spread_minimum(s), max(size, share) + 1, spread_unit(size))
        if share > size:
            # Any whole number of dollars from the round's bet up to the share (whole cents
            # when the bet itself is not whole dollars).
            return range(size, share + 1, spread_unit(size))
        return (size,)


# --- starting a hand -------------------------------------------------------------------------


def start(game: Game, command: StartHand) -> tuple[list[Event], HandState]:
    """Validate ``StartHand`` for ``game``, post antes, and play on to the first decision."""
    if not game.takes_options and (command.game_options or command.carried_pot):
        raise InvalidCommand(
            f"{game.name} takes no game options and no carried pot", rule="invalid_command"
        )
    _validate_start(game, command)
    started = HandStarted(
        hand_id=command.hand_id,
        variant=command.variant,
        button=command.button,
        seats=tuple(sorted(command.seats, key=lambda s: s.seat)),
        deck_size=len(command.deck),
        options=command.options.to_dict(),
    )
    rec = Recorder(None, command.deck, started)
    if game.takes_options:
        # A table created before today's rule book hands its recorded edition-1 choice on.
        edition = edition_of(game.specs, command.game_options)
        options = game.resolve(command.game_options, edition=edition)
        rec.emit(GameOptionsSet(options.to_dict()))
    if command.carried_pot:
        rec.emit(PotCarriedIn(command.carried_pot))
    s = rec.s
    opts = s.options
    if opts.ante > 0:
        if opts.ante_mode == "per_player":
            for i, seat in enumerate(s.seats):
                rec.emit(AntePosted(seat, min(opts.ante, s.stacks[i])))
        else:
            i = s.seats.index(command.button)
            rec.emit(AntePosted(command.button, min(opts.ante, s.stacks[i])))
    run(game, rec)
    return rec.events, rec.s


def _validate_start(game: Game, command: StartHand) -> None:
    if not command.hand_id:
        raise InvalidCommand("a hand needs a hand_id", rule="invalid_command")
    opts = command.options
    n = len(command.seats)
    most = min(opts.max_players, game.max_players)
    validate_seating(command, most=most, who_deals=game.who_deals())
    carried = command.carried_pot
    if not isinstance(carried, int) or isinstance(carried, bool) or carried < 0:
        raise InvalidCommand("carried_pot must be a whole number of cents", rule="bad_carry")
    need = game.cards_needed(n)
    if len(command.deck) < need:
        raise InvalidCommand(
            f"the deck has {len(command.deck)} cards; {game.first_deal} alone needs {need}",
            rule="bad_deck",
        )


# --- the loop ------------------------------------------------------------------------------


def awaiting(s: HandState) -> bool:
    """Whether someone (a player, or the dealer's reshuffle) must act before the hand goes on."""
    if s.finished or s.phase == RESHUFFLE:
        return True
    if s.phase == BET:
        return s.to_act is not None
    return any(s.pending)


def run(game: Game, rec: Recorder) -> None:
    """Play the hand on until someone must act or it ends."""
    for _ in range(1000):
        if awaiting(rec.s):
            return
        game.step(rec)
    raise RuntimeError(f"{game.name}: the hand made no progress")  # pragma: no cover


# --- dealing and rounds ----------------------------------------------------------------------


def deal(rec: Recorder, game: Game, i: int, *, face_up: bool) -> None:
    """The top card of the stub to player ``i``, then the game's face-up hooks."""
    s = rec.s
    if s.deck_pos >= len(rec.deck):
        raise InvalidCommand(f"the deck ran out after {len(rec.deck)} cards", rule="deck_exhausted")
    card = rec.deck[s.deck_pos]
    rec.emit(CardDealt(s.seats[i], card, face_up))
    if face_up:
        game.after_face_up(rec, i, card)


def deal_round(rec: Recorder, game: Game, pattern: Sequence[bool]) -> None:
    """One card at a time clockwise from the dealer's left to every player still in, once per
    entry of ``pattern`` (True: face up)."""
    for face_up in pattern:
        for i in rec.s.in_hand():
            deal(rec, game, i, face_up=face_up)


def stub_left(rec: Recorder) -> int:
    """Cards left in the stub."""
    return len(rec.deck) - rec.s.deck_pos


def deal_street(rec: Recorder, game: Game, *, last: bool) -> None:
    """One more card to every player still in: face up, or face down on the ``last`` street.
    When the stub cannot give everyone their last card, one face-up community card is
    everyone's (Pacific's seed, step 10; every stud game dealt here follows it)."""
    live = rec.s.in_hand()
    left = stub_left(rec)
    if last and left < len(live):
        if left < 1:
            raise InvalidCommand("the deck ran out before the last card", rule="deck_exhausted")
        card = rec.deck[rec.s.deck_pos]
        rec.emit(CommunityCardDealt(card))
        game.after_community(rec, card)
        return
    for i in live:
        deal(rec, game, i, face_up=not last)


def first_able(s: HandState, start: int) -> int | None:
    """``start`` or the next player clockwise who can still bet; None if under two can."""
    # Who can still bet (HandState.can_bet): in, with chips behind.
    able = [not f and chips > 0 for f, chips in zip(s.folded, s.stacks, strict=True)]
    if able.count(True) < 2:
        return None
    n = len(able)
    for step in range(n):
        j = (start + step) % n
        if able[j]:
            return j
    return None  # pragma: no cover


def rotate_opener(s: HandState) -> int:
    """Buderick: the first round opens with the first player on the dealer's left, the 2nd
    round with the 2nd, and so on (counting players still in, clockwise, wrapping)."""
    live = s.in_hand()
    return live[s.street % len(live)]


def left_opener(s: HandState) -> int:
    """The first player still in on the dealer's left."""
    return s.in_hand()[0]


def best_showing(s: HandState, key: Callable[[int], int], *, by_suit: bool = False) -> int:
    """The player still in with the best ``key`` (their board); ties go to the first
    clockwise from the dealer, or with ``by_suit`` to the highest face-up card by suit."""
    best_i, best_k = -1, -1
    for i in s.in_hand():
        k = key(i)
        if k > best_k:
            best_i, best_k = i, k
        elif k == best_k and by_suit and _top_up(s, i) > _top_up(s, best_i):
            best_i = i
    return best_i


def _top_up(s: HandState, i: int) -> int:
    ups = s.up_cards(i)
    return max(ups) if ups else -1


def begin_round(rec: Recorder, game: Game, *, big: bool, forced_bring_in: bool = False) -> None:
    """Open the next betting round at the table's big bet if ``big``, else its small bet ($5 or
    $2 on the dealer's choice table), opened by ``game.opener`` (or the next player clockwise
    who can still bet). ``forced_bring_in``: the opener must bring in (Pacific's 3rd street)."""
    s = rec.s
    size = s.options.big_bet if big else s.options.small_bet
    first = first_able(s, game.opener(s))
    rec.emit(
        BettingRoundStarted(
            street=s.street + 1 if s.street else game.first_round,
            bet_size=size,
            first_to_act=None if first is None else s.seats[first],
            forced_bring_in=forced_bring_in,
        )
    )


def begin_phase(
    rec: Recorder,
    phase: str,
    players: Sequence[int],
    *,
    simultaneous: bool,
    cards: tuple[int, int] = (0, 0),
) -> None:
    """Open a non-betting phase for ``players`` (indices, in acting order)."""
    s = rec.s
    rec.emit(
        PhaseStarted(
            phase=phase,
            seats_to_act=tuple(s.seats[i] for i in players),
            simultaneous=simultaneous,
            min_cards=cards[0],
            max_cards=cards[1],
        )
    )


def finish(rec: Recorder, game: Game) -> None:
    """After the last betting round: declarations (and a round after them if the game's
    ``bet_after_declare`` says so), then the showdown."""
    s = rec.s
    if game.declares(s):
        if "declare" not in s.phases:
            in_turn = s.game_options.get("declaration") == "in_turn"
            begin_phase(rec, "declare", s.in_hand(), simultaneous=not in_turn)
            return
        declared_at = s.phase_streets[s.phases.index("declare")]
        if s.game_options.get("bet_after_declare") and s.street == declared_at:
            begin_round(rec, game, big=True)
            return
    showdown(rec, game)


# --- betting -----------------------------------------------------------------------------------


def betting_actions(game: Game, s: HandState) -> list[LegalAction]:
    """Fixed-limit betting for the player to act (riverboat.engine.betting, by ``game``'s
    rules): fold, check or call, bet or raise."""
    return legal_actions(s, game)


def _match_share(s: HandState, i: int) -> int:
    """What a matcher may bet in the round after their match (0 for anyone else)."""
    if s.matched[i] and s.street == s.match_round:
        return s.matched[i] * s.game_options.number("match_bet_percent") // 100
    return 0


def bet(game: Game, rec: Recorder, i: int, command: Act | TimeOut) -> None:
    """A betting action (or the clock's check-or-fold) and what follows mechanically."""
    s = rec.s
    if s.to_act is None:
        raise IllegalAction("nobody is to act now", rule="out_of_turn")
    if s.to_act != i:
        raise IllegalAction(
            f"it is seat {s.seats[s.to_act]}'s turn, not seat {s.seats[i]}'s", rule="out_of_turn"
        )
    if isinstance(command, TimeOut):
        action, amount = timeout_action(s, game), None
    else:
        action, amount = command.action, command.amount
        if action not in game.betting:
            if action in game.actions:
                raise IllegalAction(
                    f"{action} is not allowed in a betting round", rule="wrong_phase"
                )
            raise InvalidCommand(
                f"unknown action {action!r}; actions are {', '.join(sorted(game.actions))}",
                rule="unknown_action",
            )
    legal = verify(s, game, action, amount)
    to = legal.amount if amount is None else amount
    added = to - s.street_bets[i]
    rec.emit(
        ActionTaken(
            seat=s.seats[i],
            action=action,
            amount=added,
            to=to,
            all_in=added > 0 and added == s.stacks[i],
        )
    )
    after = rec.s
    if after.folded.count(False) == 1:
        return_uncalled(rec)
        win_uncontested(rec, game)
    elif after.to_act is None:
        return_uncalled(rec)
        run(game, rec)


def return_uncalled(rec: Recorder) -> None:
    """The part of the top bet of the round nobody matched goes back to its owner."""
    s = rec.s
    if s.player_count < 2:
        return
    bets = s.street_bets
    top_bet = max(bets)
    excess = top_bet - sorted(bets)[-2]
    if excess > 0:
        rec.emit(UncalledBetReturned(s.seats[bets.index(top_bet)], excess))


# --- the payout ----------------------------------------------------------------------------------

Resolver = Callable[[list[int]], Outcome]


def win_uncontested(rec: Recorder, game: Game) -> None:
    """Everyone else folded: the last player takes every pot, no showdown."""
    settle(rec, game, lambda eligible: Outcome(tuple(eligible), (), False, ()))


def settle(rec: Recorder, game: Game, resolver: Resolver) -> None:
    """Build the pots (dead money and a pot carried in join the main pot), take the rake from
    the pots that are paid, pay each pot by ``resolver``; pots nobody may win ride."""
    s = rec.s
    opts = s.options
    pots = build_pots_with_dead(s.committed, game.dead_money(s), s.folded, s.carried_in)
    outcomes = [resolver(list(p.eligible)) for p in pots]
    paid = [p.amount for p, o in zip(pots, outcomes, strict=True) if not o.rides]
    rake = 0
    if (
        opts.rake_basis_points
        and sum(paid)
        and not (opts.no_rake_on_third_street and s.street <= game.first_round)
    ):
        rake = rake_amount(sum(paid), opts.rake_basis_points, opts.rake_cap(s.player_count))
    cuts = iter(take_rake(paid, rake))
    taken = tuple(0 if o.rides else next(cuts) for o in outcomes)
    rec.emit(RakeTaken(rake, taken))
    carried = 0
    for k, (pot, outcome, cut) in enumerate(zip(pots, outcomes, taken, strict=True)):
        if outcome.rides:
            carried += pot.amount
            continue
        amount = pot.amount - cut
        high_w, low_w = list(outcome.high), list(outcome.low)
        shares: dict[int, int] = {}
        if high_w and low_w:
            low_half = amount // 2  # the odd chip between the halves goes to high
            _add(shares, split_evenly(amount - low_half, _odd_order(s, game, high_w, high=True)))
            _add(shares, split_evenly(low_half, _odd_order(s, game, low_w, high=False)))
        elif high_w:
            _add(shares, split_evenly(amount, _odd_order(s, game, high_w, high=True)))
        else:
            _add(shares, split_evenly(amount, _odd_order(s, game, low_w, high=False)))
        rec.emit(
            PotAwarded(
                pot=k,
                amount=amount,
                eligible=tuple(s.seats[i] for i in pot.eligible),
                high_winners=tuple(s.seats[i] for i in high_w),
                low_winners=tuple(s.seats[i] for i in low_w),
                shares=tuple((s.seats[i], v) for i, v in sorted(shares.items()) if v),
            )
        )
    if carried:
        rec.emit(PotCarriedOver(carried))
    s = rec.s
    rec.emit(HandEnded(tuple(sorted(zip(s.seats, s.stacks, strict=True)))))


def _add(into: dict[int, int], more: dict[int, int]) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def _odd_order(s: HandState, game: Game, winners: list[int], *, high: bool) -> list[int]:
    """Tied winners in the order odd chips go out: clockwise from the button in button
    games; in stud games by the table's ``odd_chip_order`` (highest card by suit for high,
    lowest for low, looking at all the player's cards)."""
    if len(winners) < 2 or not game.stud_odd_chips or s.options.odd_chip_order == "seat":
        return sorted(winners)
    if high:
        return sorted(winners, key=lambda i: max(s.cards[i]), reverse=True)
    return sorted(winners, key=lambda i: min(_low_card(c) for c in s.cards[i]))


def _low_card(card: int) -> tuple[int, int]:
    rank = rank_of(card)
    return (-1 if rank == ACE else rank, suit_of(card))


def showdown(rec: Recorder, game: Game) -> None:
    """Show every hand still in and pay: by declaration, or cards speak (best high, and best
    low way when the game has one), a natural sweeping first."""
    s = rec.s
    live = s.in_hand()
    highs: dict[int, int | None] = {}
    lows: dict[int, int | None] = {}
    for i in live:
        high = game.high(s, i)
        low = game.low(s, i)
        highs[i] = None if high is None else high[0]
        lows[i] = None if low is None else low[0]
        rec.emit(
            HandShown(
                seat=s.seats[i],
                cards=s.cards[i],
                high=0 if high is None else high[0],
                low=None if low is None else low[0],
                high_text="no hand" if high is None else high[1],
                low_text=None if low is None else low[1],
            )
        )
    s = rec.s
    sweep = set(game.sweepers(s, live))
    declared = game.declares(s)
    opts = s.game_options
    failure = opts.get("pig_failure", "reassign")
    ride = opts.get("pig_ride", "two_pigs")
    ways = {game.ways[0]: LOW, HIGH: HIGH, BOTH: BOTH} if game.ways else {}

    def resolver(eligible: list[int]) -> Outcome:
        if game.lone_scoops and len(eligible) == 1:
            return Outcome(tuple(eligible), (), False, ())
        naturals = [i for i in eligible if i in sweep]
        if naturals:
            return Outcome(tuple(naturals), (), False, ())
        if declared:
            claims = [Claim(i, ways[s.declarations[i]], highs[i], lows[i]) for i in eligible]
            return resolve(claims, failure=failure, ride=ride)
        return cards_speak(eligible, highs, lows)

    settle(rec, game, resolver)


def cards_speak(
    eligible: list[int], highs: Mapping[int, int | None], lows: Mapping[int, int | None]
) -> Outcome:
    """No declaration: the best high and the best low (if any hand has one) split."""
    with_high = [(v, i) for i in eligible if (v := highs[i]) is not None]
    with_low = [(v, i) for i in eligible if (v := lows[i]) is not None]
    high_w: tuple[int, ...] = ()
    low_w: tuple[int, ...] = ()
    if with_high:
        top = max(v for v, _ in with_high)
        high_w = tuple(i for v, i in with_high if v == top)
    if with_low:
        bottom = min(v for v, _ in with_low)
        low_w = tuple(i for v, i in with_low if v == bottom)
    if not high_w and not low_w:
        return Outcome((), (), True, ())
    return Outcome(high_w, low_w, False, ())
