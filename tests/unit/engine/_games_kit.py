"""Helpers for the dealer's choice golden scenarios: stack a deck, write actions tersely,
run them through the scenario API, read the result."""

from __future__ import annotations

from typing import Any

from riverboat.engine.cards import card_str
from riverboat.engine.commands import CARD_ACTIONS
from riverboat.engine.scenario import run

Step = tuple[Any, ...]


def deal_deck(*hands: str, rounds: int | None = None, then: str = "") -> list[str]:
    """A deck dealing ``hands[k]`` (cards in the order the player receives them) to the k-th
    player in dealing order (index 0 = first left of the button), one card per player per
    round; a player whose string is shorter gets no more cards (folded). ``then`` follows
    (the stub: draws, offers, table rows); the rest of the deck in standard order after it."""
    parsed = [h.split() for h in hands]
    most = rounds if rounds is not None else max(len(p) for p in parsed)
    order: list[str] = []
    for position in range(most):
        order.extend(p[position] for p in parsed if len(p) > position)
    order.extend(then.split())
    assert len(set(order)) == len(order), f"a card appears twice: {order}"
    rest = [card_str(c) for c in range(52) if card_str(c) not in order]
    return order + rest


def action(step: Step) -> dict[str, Any]:
    """``(seat, "call")``, ``(seat, "raise", 700)``, ``(seat, "draw", "Ah Kd")``,
    ``(seat, "declare", "high")``, ``("reshuffle", "Ah Kd ...")``, ``(seat, "timeout")``."""
    if step[0] == "reshuffle":
        return {"action": "reshuffle", "cards": step[1].split()}
    seat, name = step[0], step[1]
    out: dict[str, Any] = {"seat": seat, "action": name}
    if len(step) > 2:
        extra = step[2]
        if name == "declare" and isinstance(extra, str):
            out["choice"] = extra
        elif name in CARD_ACTIONS and isinstance(extra, str):
            out["cards"] = extra.split()
        elif name == "choose_game":
            out["game"] = extra
            if len(step) > 3:
                out["options"] = step[3]
        else:
            out["amount"] = extra
    return out


def scenario(
    variant: str,
    deck: list[str],
    steps: list[Step],
    *,
    players: int | None = None,
    stacks: list[int] | None = None,
    rules: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    button: int | None = None,
    carried: int = 0,
) -> dict[str, Any]:
    """A one-hand scenario: players p1..pn at seats 1..n, the button on seat n by default (so
    seat 1 is first left of the dealer, and the dealer antes $1)."""
    n = players or (len(stacks) if stacks else 3)
    stacks = stacks or [10_000] * n
    out: dict[str, Any] = {
        "variant": variant,
        "seats": [
            {"seat": k + 1, "player": f"p{k + 1}", "stack": st} for k, st in enumerate(stacks)
        ],
        "button": button if button is not None else n,
        "deck": deck,
        "actions": [action(s) for s in steps],
    }
    if rules:
        out["rules"] = rules
    if options:
        out["game_options"] = options
    if carried:
        out["carried_pot"] = carried
    return out


def play(variant: str, deck: list[str], steps: list[Step], **kw: Any) -> dict[str, Any]:
    """Run a one-hand scenario; an illegal action fails the test with the engine's reason."""
    result = run(scenario(variant, deck, steps, **kw))
    assert "error" not in result, result["error"]
    return result


def refused(variant: str, deck: list[str], steps: list[Step], **kw: Any) -> dict[str, Any]:
    """Run a scenario whose last step must be refused; returns the error."""
    result = run(scenario(variant, deck, steps, **kw))
    assert "error" in result, "the last step was accepted"
    assert result["error"]["index"] == len(steps) - 1, result["error"]
    return dict(result["error"])


def events_of(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The result's events of one type."""
    return [e for e in result["events"] if e["type"] == kind]


def net(result: dict[str, Any], start: int = 10_000) -> dict[str, int]:
    """Each player's gain or loss."""
    return {p: s - start for p, s in result["final_stacks"].items()}


def checks(seats: list[int], rounds: int) -> list[Step]:
    """Everyone checks ``rounds`` betting rounds (in the order given, each round)."""
    return [(s, "check") for _ in range(rounds) for s in seats]


#: A plan marker: whoever is to act checks until the current betting round is over.
CHECKS = ("checks",)


def expand(variant: str, deck: list[str], plan: list[Step], **kw: Any) -> list[Step]:
    """``plan`` with each :data:`CHECKS` replaced by the checks that close the betting round
    then in progress (found by running the prefix through the scenario API)."""
    steps: list[Step] = []
    for item in plan:
        if item != CHECKS:
            steps.append(item)
            continue
        rounds = None
        while True:
            result = run(scenario(variant, deck, steps, **kw))
            assert "error" not in result, result["error"]
            started = len(events_of(result, "BettingRoundStarted"))
            rounds = started if rounds is None else rounds
            if (
                result["complete"]
                or started != rounds
                or result.get("phase", "bet") != "bet"
                or result["to_act"] is None
            ):
                break
            steps.append((result["to_act"], "check"))
    return steps


def play_plan(variant: str, deck: list[str], plan: list[Step], **kw: Any) -> dict[str, Any]:
    """:func:`play` with :data:`CHECKS` markers expanded."""
    return play(variant, deck, expand(variant, deck, plan, **kw), **kw)
