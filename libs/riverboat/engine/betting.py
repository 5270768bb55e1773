"""Fixed-limit betting: which actions a player may take now, and for how much.

Amounts are "to" amounts: the player's total for the street after the action.
"""

from __future__ import annotations

from typing import NamedTuple

from riverboat.engine.cards import rank_of
from riverboat.engine.errors import IllegalAction
from riverboat.engine.state import HandState, spread_minimum, spread_unit


class LegalAction(NamedTuple):
    """An action the player to act may take, with the street totals it may go to."""

    action: str
    to: tuple[int, ...]

    @property
    def amount(self) -> int:
        """The default (smallest) street total for this action."""
        return self.to[0]


def legal_actions(state: HandState) -> list[LegalAction]:
    """Everything the player to act may do now in a Pacific stud hand (empty when nobody is
    to act). :func:`riverboat.engine.game.legal_actions` answers for every game."""
    i = state.to_act
    if i is None or state.finished:
        return []
    opts = state.options
    stack = state.stacks[i]
    mine = state.street_bets[i]
    most = mine + stack
    if state.bring_in_pending:
        out = [LegalAction("bring_in", (min(opts.bring_in, most),))]
        if most > opts.bring_in:
            out.append(LegalAction("complete", (min(opts.small_bet, most),)))
        return out
    to_call = state.level - mine
    out = [LegalAction("fold", (mine,))]
    if to_call <= 0:
        out.append(LegalAction("check", (mine,)))
    else:
        out.append(LegalAction("call", (min(state.level, most),)))
    if stack > to_call and _may_wager(state, i):
        if state.street == 3 and state.bets_made == 0 and not opts.no_bring_in:
            kind = "complete"
        elif state.level == 0:
            kind = "bet"
        else:
            kind = "raise"
        targets = sorted({min(state.last_full_level + inc, most) for inc in _increments(state)})
        out.append(LegalAction(kind, tuple(targets)))
    return out


def find_legal(
    state: HandState, action: str, amount: int | None, legal: list[LegalAction]
) -> LegalAction:
    """The action of ``legal`` (what the player to act may do) named ``action`` (at
    ``amount`` if given), else :class:`IllegalAction`."""
    for candidate in legal:
        if candidate.action == action:
            if amount is not None and amount not in candidate.to:
                allowed = " or ".join(str(t) for t in candidate.to)
                raise IllegalAction(
                    f"{action} must be to {allowed} on this street, not {amount}",
                    rule="wrong_amount",
                )
            return candidate
    names = ", ".join(c.action for c in legal)
    raise IllegalAction(
        f"{action} is not allowed now; you may {names}", rule=_why_not(state, action)
    )


def _why_not(state: HandState, action: str) -> str:
    """A precise rule name for a refused action, for clients and logs."""
    if action in ("raise", "bet", "complete"):
        i = state.to_act
        if i is not None and state.acted_since_full[i] and state.level > state.street_bets[i]:
            return "short_all_in_does_not_reopen"
        if _capped(state):
            return "betting_capped"
        if state.bring_in_pending:
            return "bring_in_required"
        return "wager_not_allowed"
    if action == "fold" and state.bring_in_pending:
        return "bring_in_required"
    if action == "check":
        return "cannot_check_facing_a_bet"
    if action == "call":
        return "nothing_to_call"
    return "action_not_allowed"


def _capped(state: HandState) -> bool:
    if state.bets_made < 1 + state.options.max_raises:
        return False
    heads_up = sum(1 for f in state.folded if not f) == 2
    return not (state.options.uncap_heads_up and heads_up and not state.capped)


def _may_wager(state: HandState, i: int) -> bool:
    if _capped(state):
        return False
    # Someone who acted since the last full bet may not raise a short all-in (it does not
    # reopen the betting for them).
    if state.acted_since_full[i]:
        return False
    # Betting into players who are all in (or folded) would be a bet nobody can call.
    return any(
        j != i and not state.folded[j] and state.street_bets[j] + state.stacks[j] > state.level
        for j in range(state.player_count)
    )


def _increments(state: HandState) -> tuple[int, ...] | range:
    fixed = _fixed_increments(state)
    if state.options.spread_limit:
        # Spread limit: any whole-dollar amount from the smallest raise up to the limit.
        return range(spread_minimum(state), max(fixed) + 1, spread_unit(state.bet_size))
    return fixed


def _fixed_increments(state: HandState) -> tuple[int, ...]:
    opts = state.options
    if state.big_bet_round or (state.street >= 5 and not opts.final_bet_rule):
        return (opts.big_bet,)
    if state.street == 4 and opts.open_pair_double_bet and open_pair_showing(state):
        return (opts.small_bet, opts.big_bet)
    # The round's own size: the small bet, or the big one on 7th under the Final Bet Rule.
    return (state.bet_size,)


def open_pair_showing(state: HandState) -> bool:
    """Whether any player still in shows a pair among their face-up cards (4th street rule)."""
    for i in state.in_hand():
        ranks = [rank_of(c) for c in state.up_cards(i)]
        if len(ranks) != len(set(ranks)):
            return True
    return False
