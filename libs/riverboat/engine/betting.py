"""Fixed-limit betting for every game: what the player to act may do now, and for how much.

Amounts are "to" amounts: the player's total for the street after the action.

One judgement answers both questions a client asks (PokerKit's verify / can / do): each rule
is tested once (``_judged``, under :func:`judge`, which names the refusals), and the same test
yields either the legal action or the rule that refuses it. :func:`legal_actions` lists the
first, :func:`verify` raises the second, so the list and the refusal can never disagree.
What differs between games (the size of a bet or raise, what a wager is called) comes from the
game's :class:`BettingRules`.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from riverboat.engine.cards import rank_of
from riverboat.engine.errors import IllegalAction
from riverboat.engine.state import BET, HandState

#: Every betting action a game may know; a game takes some of them (``BettingRules``).
WAGERS = ("complete", "bet", "raise")
#: The actions that are no wager: whether they are legal never depends on the wager's rules.
_NO_WAGER = frozenset({"fold", "check", "call"})


class LegalAction(NamedTuple):
    """An action the player to act may take, with the street totals it may go to."""

    action: str
    to: tuple[int, ...]

    @property
    def amount(self) -> int:
        """The default (smallest) street total for this action."""
        return self.to[0]


class BettingRules(Protocol):
    """What a game decides about its betting rounds (:class:`riverboat.engine.flow.Game`)."""

    def wager_kind(self, s: HandState) -> str:
        """What a bet or raise is called now (``bet``, ``raise``, ``complete``)."""
        ...

    def increments(self, s: HandState, i: int) -> tuple[int, ...] | range:
        """The sizes player ``i`` may bet or raise by, over the last full bet."""
        ...


class Judgement(NamedTuple):
    """The player to act's betting actions: those allowed, and the rule refusing each other."""

    legal: list[LegalAction]
    refused: dict[str, str]


def judge(s: HandState, rules: BettingRules) -> Judgement:
    """Every betting action of the player to act, allowed (with its totals) or refused (with
    the rule's name). Empty when nobody is to act in a betting round."""
    legal, no_wager = _judged(s, rules)
    if not legal or s.bring_in_pending:
        return Judgement(legal, {})
    kind = rules.wager_kind(s)
    refused = {"bring_in": "action_not_allowed"}
    i = s.to_act
    assert i is not None
    if s.level > s.street_bets[i]:
        refused["check"] = "cannot_check_facing_a_bet"
    else:
        refused["call"] = "nothing_to_call"
    for wager in WAGERS:
        if wager != kind or no_wager is not None:
            refused[wager] = no_wager or "wager_not_allowed"
    return Judgement(legal, refused)


def _judged(
    s: HandState, rules: BettingRules, wanted: str | None = None
) -> tuple[list[LegalAction], str | None]:
    """The one test of each betting rule: the legal actions, and the rule (if any) keeping the
    player to act from betting or raising. :func:`judge` names the refusals from it; callers
    that only list or check the legal actions read it directly. A caller checking one action
    that is no wager (``wanted``: fold, check or call) gets the list without the wager, whose
    tests (the cap, the sizes) are then not run: a command is judged once, for what it asks."""
    i = s.to_act
    if i is None or s.finished or s.phase != BET:
        return [], None
    stack = s.stacks[i]
    mine = s.street_bets[i]
    most = mine + stack
    if s.bring_in_pending:
        # The forced bring-in: bring in, or complete to the small bet; nothing else.
        opts = s.options
        legal = [LegalAction("bring_in", (min(opts.bring_in, most),))]
        if most > opts.bring_in:
            legal.append(LegalAction("complete", (min(opts.small_bet, most),)))
        return legal, None
    to_call = s.level - mine
    legal = [LegalAction("fold", (mine,))]
    if to_call <= 0:
        legal.append(LegalAction("check", (mine,)))
    else:
        legal.append(LegalAction("call", (min(s.level, most),)))
    if wanted in _NO_WAGER:
        return legal, None
    no_wager = _wager_refused(s, i, stack, to_call)
    if no_wager is None:
        kind = rules.wager_kind(s)
        targets = sorted({min(s.last_full_level + inc, most) for inc in rules.increments(s, i)})
        legal.append(LegalAction(kind, tuple(targets)))
    return legal, no_wager


def _wager_refused(s: HandState, i: int, stack: int, to_call: int) -> str | None:
    """The rule that keeps player ``i`` from betting or raising now, or None if they may."""
    acted = s.acted_since_full[i]
    # Someone who acted since the last full bet may not raise a short all-in: it does not
    # reopen the betting for them.
    if acted and s.level > s.street_bets[i]:
        return "short_all_in_does_not_reopen"
    if capped(s):
        return "betting_capped"
    if acted or stack <= to_call:
        return "wager_not_allowed"
    # Betting into players who are all in (or folded) would be a bet nobody can call.
    if not any(
        j != i and not s.folded[j] and s.street_bets[j] + s.stacks[j] > s.level
        for j in range(s.player_count)
    ):
        return "wager_not_allowed"
    return None


def legal_actions(s: HandState, rules: BettingRules) -> list[LegalAction]:
    """Everything the player to act may do in a betting round (empty when nobody is to act)."""
    return _judged(s, rules)[0]


def verify(s: HandState, rules: BettingRules, action: str, amount: int | None) -> LegalAction:
    """The legal action named ``action`` (at ``amount`` if given); else :class:`IllegalAction`
    naming the rule :func:`judge` found broken."""
    legal = _judged(s, rules, action)[0]
    for candidate in legal:
        if candidate.action == action:
            if amount is not None and amount not in candidate.to:
                allowed = " or ".join(str(t) for t in candidate.to)
                raise IllegalAction(
                    f"{action} must be to {allowed} on this street, not {amount}",
                    rule="wrong_amount",
                )
            return candidate
    names = ", ".join(c.action for c in legal_actions(s, rules))
    refused = judge(s, rules).refused
    # Anything not judged is refused while a forced bring-in waits.
    rule = refused.get(action, "bring_in_required" if s.bring_in_pending else "action_not_allowed")
    raise IllegalAction(f"{action} is not allowed now; you may {names}", rule=rule)


def timeout_action(s: HandState, rules: BettingRules) -> str:
    """What the clock does for the player to act: check if they may, else fold; a forced
    bring-in cannot be folded, so the clock posts it."""
    names = {a.action for a in _judged(s, rules, "check")[0]}
    if "check" in names:
        return "check"
    return "fold" if "fold" in names else "bring_in"


def capped(s: HandState) -> bool:
    """Whether the round's bets and raises have reached the cap (lifted heads-up, unless the
    round was capped before it became heads-up)."""
    if s.bets_made < 1 + s.options.max_raises:
        return False
    heads_up = sum(1 for f in s.folded if not f) == 2
    return not (s.options.uncap_heads_up and heads_up and not s.capped)


def open_pair_showing(s: HandState) -> bool:
    """Whether any player still in shows a pair among their face-up cards (4th street rule)."""
    for i in s.in_hand():
        ranks = [rank_of(c) for c in s.up_cards(i)]
        if len(ranks) != len(set(ranks)):
            return True
    return False
