"""The scenario API: a whole hand as plain data in, its outcome as plain data out.

This is a stable contract that other tools and checks build on::

    run({"variant": "seven_card_stud_hi_lo", "rules": {...}, "seats": [...], "button": 3,
         "deck": ["Ah", "2c", ...], "actions": [{"seat": 3, "action": "bring_in"}, ...]})

returns ``{"final_stacks": {...}, "pots": [...], "rake": 0, "events": [...], ...}`` or, when an
action is illegal, ``{"error": {"index": 4, "action": {...}, "reason": "...", "rule": "..."}}``.
Malformed input gives ``{"error": {"index": null, "reason": "...", "rule": "invalid_scenario"}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riverboat.engine.cards import CardError, parse_card
from riverboat.engine.commands import Act, StartHand
from riverboat.engine.errors import EngineError
from riverboat.engine.events import Event, PotAwarded, SeatEntry, event_to_dict
from riverboat.engine.game import VARIANTS, decide, fold
from riverboat.engine.options import TableOptions
from riverboat.engine.state import HandState

#: Largest scenario accepted (actions); a hand of stud never needs more than a few hundred.
MAX_ACTIONS = 10_000


class ScenarioError(ValueError):
    """The scenario itself is malformed (not an illegal action inside it)."""


def run(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """Play ``scenario`` through the engine and describe the outcome (see module doc)."""
    try:
        start, actions = _parse(scenario)
    except (ScenarioError, EngineError, CardError) as exc:
        return _error(None, None, str(exc), getattr(exc, "rule", "invalid_scenario"))
    try:
        events = decide(None, start)
    except EngineError as exc:
        return _error(None, None, exc.message, exc.rule)
    state = fold(events)
    for index, raw in enumerate(actions):
        try:
            command = _parse_action(raw)
            new = decide(state, command, start.deck)
        except (ScenarioError, EngineError) as exc:
            return _error(index, raw, str(exc), getattr(exc, "rule", "invalid_scenario"))
        events.extend(new)
        state = fold(new, state)
    return describe(state, events)


def describe(state: HandState, events: list[Event]) -> dict[str, Any]:
    """The scenario result for a hand's state and its events."""
    name = dict(zip(state.seats, state.players, strict=True))
    pots = [_pot(award, name) for award in state.awards]
    out: dict[str, Any] = {
        "hand_id": state.hand_id,
        "complete": state.finished,
        "final_stacks": {p: s for p, s in zip(state.players, state.stacks, strict=True)},
        "pots": pots,
        "rake": state.rake,
        "events": [event_to_dict(e) for e in events],
    }
    if not state.finished:
        out["to_act"] = None if state.to_act is None else state.seats[state.to_act]
    return out


def _pot(award: PotAwarded, name: dict[int, str]) -> dict[str, Any]:
    return {
        "amount": award.amount,
        "eligible": [name[s] for s in award.eligible],
        "high_winners": [name[s] for s in award.high_winners],
        "low_winners": [name[s] for s in award.low_winners],
        "shares": {name[s]: v for s, v in award.shares},
    }


def _error(index: int | None, action: Any, reason: str, rule: str) -> dict[str, Any]:
    error: dict[str, Any] = {"index": index, "reason": reason, "rule": rule}
    if action is not None:
        error["action"] = action
    return {"error": error}


def _parse(scenario: Mapping[str, Any]) -> tuple[StartHand, list[Any]]:
    if not isinstance(scenario, Mapping):
        raise ScenarioError("a scenario is a JSON object")
    known = {"variant", "rules", "seats", "button", "deck", "actions", "hand_id"}
    unknown = sorted(set(scenario) - known)
    if unknown:
        raise ScenarioError(f"unknown scenario key(s): {', '.join(unknown)}")
    variant = scenario.get("variant", VARIANTS[0])
    if variant not in VARIANTS:
        raise ScenarioError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    rules = scenario.get("rules", {})
    if not isinstance(rules, Mapping):
        raise ScenarioError("rules must be an object of table options")
    options = TableOptions.from_dict(rules)
    seats_raw = scenario.get("seats")
    if not isinstance(seats_raw, list) or not seats_raw:
        raise ScenarioError('seats must be a list like [{"seat": 1, "player": "p1", "stack": 200}]')
    seats = []
    for entry in seats_raw:
        if not isinstance(entry, Mapping) or set(entry) != {"seat", "player", "stack"}:
            raise ScenarioError(f"each seat needs exactly seat, player and stack: {entry!r}")
        for key, kind in (("seat", int), ("stack", int), ("player", str)):
            if not isinstance(entry[key], kind) or isinstance(entry[key], bool):
                raise ScenarioError(f"seat entry {entry!r}: {key} must be {kind.__name__}")
        seats.append(SeatEntry(entry["seat"], entry["player"], entry["stack"]))
    button = scenario.get("button")
    if not isinstance(button, int) or isinstance(button, bool):
        raise ScenarioError("button must be a seat number")
    deck_raw = scenario.get("deck")
    if not isinstance(deck_raw, list) or not all(isinstance(c, str) for c in deck_raw):
        raise ScenarioError('deck must be a list of cards like ["Ah", "2c", ...], top first')
    deck = tuple(parse_card(c) for c in deck_raw)
    actions = scenario.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("actions must be a list")
    if len(actions) > MAX_ACTIONS:
        raise ScenarioError(f"at most {MAX_ACTIONS} actions")
    hand_id = scenario.get("hand_id", "scenario")
    if not isinstance(hand_id, str):
        raise ScenarioError("hand_id must be a string")
    return StartHand(hand_id, variant, options, button, tuple(seats), deck), actions


def _parse_action(raw: Any) -> Act:
    if not isinstance(raw, Mapping) or "seat" not in raw or "action" not in raw:
        raise ScenarioError('an action looks like {"seat": 3, "action": "call"}')
    extra = sorted(set(raw) - {"seat", "action", "amount"})
    if extra:
        raise ScenarioError(f"unknown action key(s): {', '.join(extra)}")
    seat, action, amount = raw["seat"], raw["action"], raw.get("amount")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ScenarioError("an action's seat must be a seat number")
    if not isinstance(action, str):
        raise ScenarioError("an action's name must be a string")
    if amount is not None and (not isinstance(amount, int) or isinstance(amount, bool)):
        raise ScenarioError("amount must be a whole number of cents")
    return Act(seat, action, amount)
