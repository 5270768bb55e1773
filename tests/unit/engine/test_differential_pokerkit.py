"""Differential test: our seven-card stud hi/lo engine against PokerKit over random hands.

Both engines play the same hands of fixed-limit seven-card stud hi/lo, 8 or better
(``pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter``, tournament mode, everything
automated except the players' decisions and the dealing). Our options are set to the rules
PokerKit plays: no rake, no open-pair big bet on 4th street, the cap kept heads-up and odd
chips by seat. 2-7 players (with 8 the deck can run out, which PokerKit handles its own way),
random stakes, random stacks with many short ones so that all-ins and side pots are common, a
fixed seed per hand. PokerKit's player ``i`` is our index ``i`` (0 = first left of the button)
and PokerKit is dealt exactly the cards our engine dealt, card by card, in our order (see
``bench/_studgen.py``, shared with the replay bench).

At every decision both engines must agree on who acts, on every player's cards and on which
(steered) actions are legal and what they cost; a random action legal in both is applied to
both. At the end the final stacks must be identical, and our chips are conserved throughout.

Known, deliberate rule differences steered around (our rules win: the house rules of
docs/engine.md):

(a) Short all-in wagers. Ours: an all-in bet/raise of under half a bet does not reopen the
    betting, half a bet or more counts as a full one. PokerKit reopens only on a full raise
    and sizes the next raise from the largest raise so far. So no bet, raise or completion
    puts a player all in for less than a full one. All-in *calls* (and short all-in
    bring-ins) are fine and frequent, so side pots are exercised.
(b) Folding when a check is possible is legal for us (a needless fold), an error in PokerKit's
    tournament mode. Never generated.
(c) PokerKit splits every pot into a high and a low half as soon as *any* hand shown has a
    qualifying low. A side pot whose players have no low then has its low half shared evenly
    among them (or burned, with the warning "Due to non-standard folds, some chips will be
    burned") instead of going to that pot's high hand (no qualifying low: high scoops, each
    pot split separately). Such hands are excluded: counted, and must be rare.
(d) PokerKit gives all the odd chips of a tied half to its first winner; we give at most one
    odd chip to each winner in turn (Robert's Rules). Differs only when 3+ players tie a half.
(e) PokerKit builds the pots after killing the hands that cannot win, so a main pot and a side
    pot that differ only by a losing all-in player are merged and split as one; we split each
    pot separately (house rules), which can move an odd chip.
    For hands where (d) or (e) changes the payout, PokerKit's final stacks are instead checked
    against OUR pots and winners re-split PokerKit's way; they are counted apart, must be rare,
    and do not count towards the required number of exactly compared hands.
"""

from __future__ import annotations

import random
import time
import warnings
from itertools import count

import pytest
from pokerkit import Folding, HandKilling, HoleCardsShowingOrMucking, State

from bench._studgen import (
    PK_CARDS,
    ScriptWriter,
    choose,
    full_wager_to,
    new_pokerkit_hand,
    random_start,
    run_steps,
    steered_actions,
)
from riverboat.engine.commands import Act
from riverboat.engine.errors import EngineError
from riverboat.engine.events import PotAwarded
from riverboat.engine.game import decide, fold, legal_actions
from riverboat.engine.state import HandState
from tests.battery import size

#: Hands whose final stacks must match exactly: a few hundred in ``make test``, ten thousand in
#: ``make soak`` (tests/battery.py).
COMPARED_HANDS = size(300, 10_000)
#: Largest share of all hands allowed to need each steered-around payout difference.
MAX_DIFFERENCE_SHARE = 0.05
BASE_SEED = 7_000_000

BURN_WARNING = "Due to non-standard folds, some chips will be burned."


@pytest.mark.battery
@pytest.mark.timeout(size(300, 7200))
def test_engine_matches_pokerkit_on_random_hands() -> None:
    outcomes = {"exact": 0, "odd_chips": 0, "low_half": 0}
    started = time.perf_counter()
    for seed in count(BASE_SEED):
        outcomes[play_hand(seed)] += 1
        if outcomes["exact"] >= COMPARED_HANDS:
            break
    elapsed = time.perf_counter() - started
    print(f"\ndifferential vs PokerKit: {outcomes} in {elapsed:.1f} s")
    total = sum(outcomes.values())
    # The differences steered around must stay rare, or the comparison would prove little.
    assert outcomes["low_half"] <= MAX_DIFFERENCE_SHARE * total, outcomes
    assert outcomes["odd_chips"] <= MAX_DIFFERENCE_SHARE * total, outcomes


def play_hand(seed: int) -> str:
    """Play one random hand in both engines and compare; say how it was compared.

    "exact": identical final stacks. "odd_chips": a hand where (d) or (e) moves chips, checked
    against our pots re-split PokerKit's way. "low_half": excluded by (c).
    """
    rng = random.Random(seed)
    start = random_start(rng, f"h{seed}")
    events = decide(None, start)
    state = fold(events)
    total = sum(state.starting_stacks)
    pk = new_pokerkit_hand(state.options, state.starting_stacks)
    script = ScriptWriter(state.seats)
    history: list[Act] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_steps(pk, script.steps(events))
        while not state.finished:
            where = f"seed {seed}, after {history}"
            assert_same_position(pk, state, where)
            actions = steered_actions(state)
            assert_same_choices(pk, state, actions, where)
            command = choose(rng, actions)
            history.append(command)
            try:
                new = decide(state, command, start.deck)
                state = fold(new, state)
                run_steps(pk, script.steps(new))
            except (EngineError, ValueError) as exc:  # ours or PokerKit's refusal
                raise AssertionError(f"{where}: {command} failed: {exc!r}") from exc
            assert state.total_chips == total, f"{where}: chips not conserved"
    where = f"seed {seed}, actions {history}"
    assert sum(state.stacks) == total, f"{where}: chips not conserved"
    assert not pk.status, f"{where}: PokerKit's hand is not over"
    messages = [str(w.message) for w in caught]
    if BURN_WARNING in messages or low_half_misrouted(state, pk):
        return "low_half"
    assert not messages, f"{where}: unexpected PokerKit warnings {messages}"
    ours, theirs = tuple(state.stacks), tuple(pk.stacks)
    if ours == theirs:
        return "exact"
    paid, pk_paid = payouts(state), pokerkit_style_payouts(state, pk)
    assert paid != pk_paid, f"{where}: final stacks differ: ours {ours}, PokerKit {theirs}"
    expected = tuple(s - a + b for s, a, b in zip(ours, paid, pk_paid, strict=True))
    assert expected == theirs, (
        f"{where}: final stacks differ beyond odd chips: ours {ours}, PokerKit {theirs}, "
        f"ours split PokerKit's way {expected}"
    )
    return "odd_chips"


def assert_same_position(pk: State, state: HandState, where: str) -> None:
    """Same player to act, same cards (and face up/down) for every player still in."""
    assert state.to_act == pk.actor_index, f"{where}: who acts differs"
    for i in state.in_hand():
        cards = tuple(PK_CARDS[c] for c in state.cards[i])
        assert tuple(pk.hole_cards[i]) == cards, f"{where}: player {i}'s cards differ"
        assert tuple(pk.hole_card_statuses[i]) == state.face_up[i], f"{where}: up cards differ"


def assert_same_choices(pk: State, state: HandState, actions: list[Act], where: str) -> None:
    """PokerKit allows exactly our steered ``actions``, at the same amounts."""
    i = state.to_act
    assert i is not None
    mine = state.street_bets[i]
    names = {a.action for a in actions}
    for act in actions:
        if act.action == "bring_in":
            amount = legal_to(state, "bring_in")
            assert pk.effective_bring_in_amount == amount, f"{where}: bring-in differs"
        elif act.action in ("call", "check"):
            added = legal_to(state, act.action) - mine
            assert pk.checking_or_calling_amount == added, f"{where}: {act.action} differs"
        elif act.action == "fold":
            assert pk.can_fold(), f"{where}: PokerKit refuses the fold"
        else:
            assert act.amount is not None
            assert pk.can_complete_bet_or_raise_to(act.amount), f"{where}: PokerKit refuses {act}"
    # The other way round: nothing PokerKit allows is missing, bar the steered-around.
    assert pk.can_post_bring_in() == ("bring_in" in names), f"{where}: bring-in legality differs"
    assert pk.can_check_or_call() == bool(names & {"call", "check"}), f"{where}: call differs"
    if "check" not in names:
        assert pk.can_fold() == ("fold" in names), f"{where}: fold legality differs"
    pk_to = pk.min_completion_betting_or_raising_to_amount
    if pk_to is not None:
        short_all_in = pk_to - mine == state.stacks[i] and pk_to < full_wager_to(state)
        if not short_all_in:
            wagers = {a.amount for a in actions if a.action in ("complete", "bet", "raise")}
            assert wagers == {pk_to}, f"{where}: PokerKit may wager to {pk_to}, we to {wagers}"


def legal_to(state: HandState, action: str) -> int:
    """The street total of one of our legal actions (the only one, for non-wagers)."""
    return next(a.amount for a in legal_actions(state) if a.action == action)


def pokerkit_out(state: HandState, pk: State) -> set[int]:
    """Seats PokerKit no longer counts as contesting the pots: folded, mucked or killed."""
    out = set()
    for op in pk.operations:
        if isinstance(op, Folding | HandKilling) or (
            isinstance(op, HoleCardsShowingOrMucking) and not op.hole_cards
        ):
            out.add(state.seats[op.player_index])
    return out


def low_half_misrouted(state: HandState, pk: State) -> bool:
    """Whether PokerKit split a pot with no qualifying low among its players: difference (c)."""
    out = pokerkit_out(state, pk)
    if not any(h.low is not None for h in state.shown if h.seat not in out):
        return False
    return any(
        not award.low_winners and sum(s not in out for s in award.eligible) > 1
        for award in state.awards
    )


def payouts(state: HandState) -> list[int]:
    """What our engine paid each player (by index)."""
    paid = [0] * state.player_count
    for award in state.awards:
        for seat, amount in award.shares:
            paid[state.seats.index(seat)] += amount
    return paid


def pokerkit_style_payouts(state: HandState, pk: State) -> list[int]:
    """Our pots and winners, split the way PokerKit splits them: differences (d) and (e).

    Adjacent pots whose players differ only by hands PokerKit mucked or killed are merged,
    and all the odd chips of a half go to its first winner in dealing order.
    """
    out = pokerkit_out(state, pk)
    merged: list[tuple[tuple[int, ...], int, PotAwarded]] = []
    for award in state.awards:
        contesting = tuple(s for s in award.eligible if s not in out)
        if merged and merged[-1][0] == contesting:
            _, amount, first = merged.pop()
            same = (first.high_winners, first.low_winners) == (
                award.high_winners,
                award.low_winners,
            )
            assert same, f"merged pots have different winners: {first}, {award}"
            merged.append((contesting, amount + award.amount, first))
        else:
            merged.append((contesting, award.amount, award))
    paid = [0] * state.player_count
    for _, amount, award in merged:
        halves = [(amount, award.high_winners)]
        if award.low_winners:
            low = amount // 2  # the odd chip between the halves goes high in both engines
            halves = [(amount - low, award.high_winners), (low, award.low_winners)]
        for half, winners in halves:
            indices = sorted(state.seats.index(s) for s in winners)
            share, odd = divmod(half, len(indices))
            for i in indices:
                paid[i] += share
            paid[indices[0]] += odd
    return paid
