"""Random seven-card stud hi/lo hands that Riverboat and PokerKit play by the same rules.

Shared by the differential test (``tests/unit/engine/test_differential_pokerkit.py``, whose
docstring lists the rule differences steered around) and the replay bench. Our options are set
to the rules PokerKit plays: no rake, no open-pair big bet on 4th street, the cap kept
heads-up, odd chips by seat. The actions are drawn from ours minus the two PokerKit rules
differently: an all-in bet/raise/completion for less than a full one, and a fold when a check
is possible.

PokerKit's player ``i`` is our index ``i`` (first seat left of the button = 0), and PokerKit is
dealt exactly the cards our engine dealt, in the same order, through a :class:`Step` script.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from pokerkit import (
    Automation,
    Card,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    Mode,
    State,
)

from riverboat.engine.cards import card_str
from riverboat.engine.commands import Act, StartHand
from riverboat.engine.events import ActionTaken, BettingRoundStarted, CardDealt, Event, SeatEntry
from riverboat.engine.game import decide, fold, legal_actions
from riverboat.engine.options import TableOptions, pacific_options
from riverboat.engine.state import HandState

VARIANT: Final = "seven_card_stud_hi_lo"

#: (ante, bring-in, small bet, big bet): round and odd amounts, so that odd chips happen.
STRUCTURES: Final = ((25, 50, 100, 200), (0, 50, 100, 200), (5, 15, 40, 80), (1, 2, 5, 10))

#: Share of players dealt a short stack (1 to 6 big bets): they go all in on every street,
#: some even on the ante, so side pots are common.
SHORT_SHARE: Final = 0.4

#: Relative weights of the actions drawn: calls dominate so that many hands reach showdown.
WEIGHTS: Final = {
    "fold": 1,
    "check": 4,
    "call": 4,
    "bring_in": 3,
    "complete": 3,
    "bet": 3,
    "raise": 3,
}

#: Everything but the players' decisions and the dealing (which must follow our deck).
AUTOMATIONS: Final = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

#: PokerKit's card objects, by our card int.
PK_CARDS: Final = tuple(next(iter(Card.parse(card_str(c)))) for c in range(52))

#: PokerKit burns a card before 4th-7th street. We burn an unknown card: a real one would come
#: from PokerKit's own deck and might be one our deck deals later.
UNKNOWN_CARD: Final = next(iter(Card.parse("??")))


def stud_options(ante: int, bring_in: int, small_bet: int, big_bet: int) -> TableOptions:
    """Our options set to PokerKit's rules for these stakes."""
    return pacific_options(
        rake_percent=0,
        open_pair_double_bet=False,
        uncap_heads_up=False,
        odd_chip_order="seat",
        ante=ante,
        small_bet=small_bet,
        big_bet=big_bet,
        bring_in=bring_in,
    )


def random_start(rng: random.Random, hand_id: str, players: int | None = None) -> StartHand:
    """A random deal: 2-7 players (8 can exhaust the deck, which PokerKit handles its own way)
    at random seats, a random button and stakes, stacks often short, a shuffled deck."""
    ante, bring_in, small, big = rng.choice(STRUCTURES)
    n = players if players is not None else rng.randint(2, 7)
    entries = []
    for seat in sorted(rng.sample(range(1, 11), n)):
        if rng.random() < SHORT_SHARE:
            stack = rng.randint(1, 6 * big)
        else:
            stack = rng.randint(6 * big, 30 * big)
        entries.append(SeatEntry(seat, f"p{seat}", stack))
    return StartHand(
        hand_id,
        VARIANT,
        stud_options(ante, bring_in, small, big),
        rng.randint(1, 10),
        tuple(entries),
        tuple(rng.sample(range(52), 52)),
    )


def full_wager_to(state: HandState) -> int:
    """The street total that a full bet, raise or completion goes to now."""
    opts = state.options
    return state.last_full_level + (opts.small_bet if state.street <= 4 else opts.big_bet)


def steered_actions(state: HandState) -> list[Act]:
    """Our legal actions for the player to act, minus those PokerKit rules differently."""
    i = state.to_act
    assert i is not None, "nobody is to act"
    legal = legal_actions(state)
    can_check = any(a.action == "check" for a in legal)
    seat = state.seats[i]
    full = full_wager_to(state)
    out = []
    for action in legal:
        if action.action == "fold":
            if not can_check:  # a needless fold is an error in PokerKit's tournament mode
                out.append(Act(seat, "fold"))
        elif action.action in ("complete", "bet", "raise"):
            for to in action.to:
                all_in = to - state.street_bets[i] == state.stacks[i]
                if not (all_in and to < full):  # PokerKit's short all-in rule is not ours
                    out.append(Act(seat, action.action, to))
        else:
            out.append(Act(seat, action.action))
    return out


def choose(rng: random.Random, actions: Sequence[Act]) -> Act:
    """One of ``actions``, drawn by :data:`WEIGHTS`."""
    return rng.choices(actions, [WEIGHTS[a.action] for a in actions])[0]


# --- PokerKit -------------------------------------------------------------------------------

BURN, DEAL, BRING_IN, CHECK_OR_CALL, FOLD, WAGER = range(6)


class Step(NamedTuple):
    """One operation on a PokerKit state: a burn, a deal or a player's action."""

    op: int
    player: int = 0
    card: Card = UNKNOWN_CARD
    face_up: bool = False
    amount: int = 0


_OPS: Final = {
    "bring_in": BRING_IN,
    "call": CHECK_OR_CALL,
    "check": CHECK_OR_CALL,
    "fold": FOLD,
    "complete": WAGER,
    "bet": WAGER,
    "raise": WAGER,
}


class ScriptWriter:
    """Turns one hand's events, batch by batch, into the PokerKit steps that replay them."""

    def __init__(self, seats: Sequence[int]) -> None:
        self._index = {seat: i for i, seat in enumerate(seats)}
        self._betting_seen = False
        self._dealing = False

    def steps(self, events: Iterable[Event]) -> list[Step]:
        out = []
        for event in events:
            if isinstance(event, CardDealt):
                # The first card of 4th-7th street follows PokerKit's burn.
                if self._betting_seen and not self._dealing:
                    out.append(Step(BURN))
                out.append(Step(DEAL, self._index[event.seat], PK_CARDS[event.card], event.face_up))
                self._dealing = True
                continue
            self._dealing = False
            if isinstance(event, BettingRoundStarted):
                self._betting_seen = True
            elif isinstance(event, ActionTaken):
                op = _OPS[event.action]
                out.append(Step(op, self._index[event.seat], amount=event.to))
        return out


def new_pokerkit_hand(options: TableOptions, stacks: Sequence[int]) -> State:
    """A new PokerKit hand at our stakes; ``stacks`` in our dealing order."""
    return FixedLimitSevenCardStudHighLowSplitEightOrBetter.create_state(
        AUTOMATIONS,
        True,  # antes count like bets for side pots, as ours do when an ante is short
        options.ante,
        options.bring_in,
        options.small_bet,
        options.big_bet,
        stacks,
        len(stacks),
        mode=Mode.TOURNAMENT,
    )


def run_steps(pk: State, steps: Iterable[Step]) -> None:
    """Apply ``steps`` to PokerKit (which raises if one is not allowed)."""
    for step in steps:
        op = step.op
        if op == DEAL:
            pk.deal_hole((step.card,), step.player)
        elif op == BURN:
            pk.burn_card(UNKNOWN_CARD)
        elif op == CHECK_OR_CALL:
            pk.check_or_call()
        elif op == WAGER:
            pk.complete_bet_or_raise_to(step.amount)
        elif op == FOLD:
            pk.fold()
        else:
            pk.post_bring_in()


# --- recorded hands -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordedHand:
    """One random hand played by our engine: its commands, its events and a PokerKit script."""

    start: StartHand
    commands: tuple[Act, ...]
    events: list[Event]
    pokerkit_steps: tuple[Step, ...]


def record_hand(rng: random.Random, hand_id: str, players: int | None = None) -> RecordedHand:
    """Play a random hand with our engine, drawing steered actions from ``rng``."""
    start = random_start(rng, hand_id, players)
    events = decide(None, start)
    state = fold(events)
    commands = []
    while not state.finished:
        command = choose(rng, steered_actions(state))
        commands.append(command)
        new = decide(state, command, start.deck)
        state = fold(new, state)
        events.extend(new)
    steps = ScriptWriter(state.seats).steps(events)
    return RecordedHand(start, tuple(commands), events, tuple(steps))
