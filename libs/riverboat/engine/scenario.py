"""The scenario API: hands as plain data in, their outcome as plain data out.

This is a stable contract that other tools and checks build on. Two shapes (docs/engine.md and
docs/games.md document every key):

One hand::

    run({"variant": "seven_card_stud_hi_lo", "rules": {...}, "seats": [...], "button": 3,
         "deck": ["Ah", "2c", ...], "actions": [{"seat": 3, "action": "bring_in"}, ...]})

returns ``{"final_stacks": {...}, "pots": [...], "rake": 0, "events": [...], ...}`` or, when an
action is illegal, ``{"error": {"index": 4, "action": {...}, "reason": "...", "rule": "..."}}``.
Malformed input gives ``{"error": {"index": null, "reason": "...", "rule": "invalid_scenario"}}``.
A dealer's choice game takes ``"game_options"`` and ``"carried_pot"``; its ``rules`` override
the dealer's choice template (Pacific stud's override the Pacific one). Actions may carry
``cards`` (card actions), ``choice`` (a declaration); ``{"action": "reshuffle", "cards": [...]}``
is the dealer's reshuffle of a draw's discards; ``{"seat": 3, "action": "timeout"}`` the clock.

A table of several hands (dealer's choice, the dealer's rotation, riding pots)::

    run({"rules": {...}, "dealers_choice": {...}, "seats": [...], "button": 1,
         "hands": [{"deck": [...], "actions": [
             {"seat": 1, "action": "choose_game", "game": "draw", "options": {"draws": 2}},
             {"seat": 2, "action": "call"}, ...]}, ...]})

returns ``{"hands": [<one result per hand, with dealer, game, options, carried_in and
carried_out>], "final_stacks": {...}, "carried_pot": 0, "rake": ..., "next_dealer": 2}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riverboat.engine.cards import CardError, parse_card
from riverboat.engine.commands import Act, Reshuffle, StartHand, TimeOut
from riverboat.engine.errors import EngineError
from riverboat.engine.events import (
    DealerUp,
    Event,
    GameChosen,
    PotAwarded,
    SeatEntry,
    SessionEvent,
    event_to_dict,
)
from riverboat.engine.game import VARIANTS, step
from riverboat.engine.game_options import RULE_BOOK
from riverboat.engine.games import waiting_for
from riverboat.engine.options import DEALERS_CHOICE_TEMPLATE, TableOptions
from riverboat.engine.session import (
    ChooseGame,
    DealersChoiceRules,
    DealHand,
    OpenSession,
    SessionState,
    step_session,
)
from riverboat.engine.state import STUD_VARIANT, HandState

#: Largest scenario accepted (actions); a hand of stud never needs more than a few hundred.
MAX_ACTIONS = 10_000
MAX_HANDS = 1_000


class ScenarioError(ValueError):
    """The scenario itself is malformed (not an illegal action inside it)."""


def run(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """Play ``scenario`` through the engine and describe the outcome (see module doc)."""
    if isinstance(scenario, Mapping) and "hands" in scenario:
        return run_table(scenario)
    try:
        start, actions = _parse(scenario)
    except (ScenarioError, EngineError, CardError) as exc:
        return _error(None, None, str(exc), getattr(exc, "rule", "invalid_scenario"))
    try:
        events, state = step(None, start)
    except EngineError as exc:
        return _error(None, None, exc.message, exc.rule)
    deck = start.deck
    for index, raw in enumerate(actions):
        try:
            command = _parse_action(raw)
            if isinstance(command, ChooseGame):
                raise ScenarioError("choose_game belongs to a table of hands (a 'hands' list)")
            new, state = step(state, command, deck)
        except (ScenarioError, EngineError, CardError) as exc:
            return _error(index, raw, str(exc), getattr(exc, "rule", "invalid_scenario"))
        if isinstance(command, Reshuffle):
            deck = (*deck, *command.cards)
        events.extend(new)
    return describe(state, list(events))


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
    if state.variant != STUD_VARIANT:  # the dealer's choice games' part of the contract
        out["variant"] = state.variant
        out["carried_in"] = state.carried_in
        out["carried_out"] = state.carried_out
        if state.revealed:
            out["declarations"] = {
                name[state.seats[i]]: state.declarations[i] for i in state.in_hand()
            }
        if not state.finished:
            out["waiting_for"] = list(waiting_for(state))
            out["phase"] = state.phase
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


def _options(variant: str, rules: Any) -> TableOptions:
    if not isinstance(rules, Mapping):
        raise ScenarioError("rules must be an object of table options")
    if variant == STUD_VARIANT:
        return TableOptions.from_dict(rules)
    return TableOptions.from_dict({**DEALERS_CHOICE_TEMPLATE, **rules})


def _seats(scenario: Mapping[str, Any]) -> tuple[SeatEntry, ...]:
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
    return tuple(seats)


def _button(scenario: Mapping[str, Any]) -> int:
    button = scenario.get("button")
    if not isinstance(button, int) or isinstance(button, bool):
        raise ScenarioError("button must be a seat number")
    return button


def _deck(raw: Any) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        raise ScenarioError('deck must be a list of cards like ["Ah", "2c", ...], top first')
    return tuple(parse_card(c) for c in raw)


def _actions(raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise ScenarioError("actions must be a list")
    if len(raw) > MAX_ACTIONS:
        raise ScenarioError(f"at most {MAX_ACTIONS} actions")
    return raw


def _parse(scenario: Mapping[str, Any]) -> tuple[StartHand, list[Any]]:
    if not isinstance(scenario, Mapping):
        raise ScenarioError("a scenario is a JSON object")
    known = {
        "variant",
        "rules",
        "seats",
        "button",
        "deck",
        "actions",
        "hand_id",
        "game_options",
        "carried_pot",
    }
    unknown = sorted(set(scenario) - known)
    if unknown:
        raise ScenarioError(f"unknown scenario key(s): {', '.join(unknown)}")
    variant = scenario.get("variant", VARIANTS[0])
    if variant not in VARIANTS:
        raise ScenarioError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    options = _options(variant, scenario.get("rules", {}))
    game_options = scenario.get("game_options")
    if game_options is not None and not isinstance(game_options, Mapping):
        raise ScenarioError("game_options must be an object")
    carried = scenario.get("carried_pot", 0)
    if not isinstance(carried, int) or isinstance(carried, bool):
        raise ScenarioError("carried_pot must be a whole number of cents")
    hand_id = scenario.get("hand_id", "scenario")
    if not isinstance(hand_id, str):
        raise ScenarioError("hand_id must be a string")
    start = StartHand(
        hand_id,
        variant,
        options,
        _button(scenario),
        _seats(scenario),
        _deck(scenario.get("deck")),
        game_options=game_options,
        carried_pot=carried,
    )
    return start, _actions(scenario.get("actions", []))


_ACTION_KEYS = frozenset({"seat", "action", "amount", "cards", "choice", "game", "options"})


def _parse_action(raw: Any) -> Act | TimeOut | Reshuffle | ChooseGame:
    if not isinstance(raw, Mapping) or "action" not in raw:
        raise ScenarioError('an action looks like {"seat": 3, "action": "call"}')
    extra = sorted(set(raw) - _ACTION_KEYS)
    if extra:
        raise ScenarioError(f"unknown action key(s): {', '.join(extra)}")
    action = raw["action"]
    if not isinstance(action, str):
        raise ScenarioError("an action's name must be a string")
    cards_raw = raw.get("cards", [])
    if not isinstance(cards_raw, list) or not all(isinstance(c, str) for c in cards_raw):
        raise ScenarioError('cards must be a list like ["Ah", "2c"]')
    cards = tuple(parse_card(c) for c in cards_raw)
    if action == "reshuffle":
        return Reshuffle(cards)
    if "seat" not in raw:
        raise ScenarioError('an action looks like {"seat": 3, "action": "call"}')
    seat, amount, choice = raw["seat"], raw.get("amount"), raw.get("choice")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ScenarioError("an action's seat must be a seat number")
    if amount is not None and (not isinstance(amount, int) or isinstance(amount, bool)):
        raise ScenarioError("amount must be a whole number of cents")
    if choice is not None and not isinstance(choice, str):
        raise ScenarioError("choice must be a string (low, high, both, spade)")
    if action == "choose_game":
        game, options = raw.get("game"), raw.get("options")
        if not isinstance(game, str):
            raise ScenarioError("choose_game needs a game name")
        if options is not None and not isinstance(options, Mapping):
            raise ScenarioError("options must be an object")
        limits = raw.get("small_bet", 0), raw.get("big_bet", 0)
        if any(not isinstance(x, int) or isinstance(x, bool) for x in limits):
            raise ScenarioError("small_bet and big_bet must be whole numbers of cents")
        return ChooseGame(seat, game, options, *limits)
    if action == "timeout":
        return TimeOut(seat)
    return Act(seat, action, amount, cards, choice)


# --- a table of hands ----------------------------------------------------------------------


def run_table(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """Play a dealer's choice table's hands in turn (see module doc)."""
    try:
        table, hands, events = _open_table(scenario)
    except (ScenarioError, EngineError, CardError) as exc:
        return _error(None, None, str(exc), getattr(exc, "rule", "invalid_scenario"))
    results: list[dict[str, Any]] = []
    for number, entry in enumerate(hands):
        try:
            table, result = _play_hand(table, number, entry, events)
        except _HandError as exc:
            return {"error": {"hand": number, **exc.error["error"]}, "hands": results}
        results.append(result)
        if not result["complete"]:
            break
    name = {s.seat: s.player for s in table.seats}
    return {
        "complete": all(r["complete"] for r in results) and len(results) == len(hands),
        "hands": results,
        "final_stacks": {s.player: s.stack for s in table.seats},
        "carried_pot": table.carried,
        "rake": table.rake,
        "next_dealer": name.get(table.dealer),
        "events": [event_to_dict(e) for e in events],
    }


class _HandError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error["error"]["reason"])
        self.error = error


def _open_table(
    scenario: Mapping[str, Any],
) -> tuple[SessionState, list[Any], list[Event | SessionEvent]]:
    known = {"rules", "dealers_choice", "seats", "button", "hands"}
    unknown = sorted(set(scenario) - known)
    if unknown:
        raise ScenarioError(f"unknown table scenario key(s): {', '.join(unknown)}")
    rules = scenario.get("rules", {})
    options = _options("", rules)
    choice = scenario.get("dealers_choice", {})
    if not isinstance(choice, Mapping):
        raise ScenarioError("dealers_choice must be an object")
    hands = scenario["hands"]
    if not isinstance(hands, list) or len(hands) > MAX_HANDS:
        raise ScenarioError(f"hands must be a list of at most {MAX_HANDS} hands")
    command = OpenSession(
        _seats(scenario),
        _button(scenario),
        options,
        DealersChoiceRules.from_dict(choice, edition=RULE_BOOK),
    )
    events, table = step_session(None, command)
    return table, hands, events


def _play_hand(
    table: SessionState, number: int, entry: Any, log: list[Event | SessionEvent]
) -> tuple[SessionState, dict[str, Any]]:
    if not isinstance(entry, Mapping) or set(entry) - {"hand_id", "deck", "actions"}:
        raise _HandError(
            _error(None, None, "a hand is {hand_id?, deck, actions}", "invalid_scenario")
        )
    dealer, redeal = table.dealer, not table.choosing
    hand_id = entry.get("hand_id", f"hand-{number + 1}")
    mine: list[Event | SessionEvent] = []
    by_clock = False
    try:
        deck = _deck(entry.get("deck"))
        actions = _actions(entry.get("actions", []))
    except (ScenarioError, CardError) as exc:
        raise _HandError(_error(None, None, str(exc), "invalid_scenario")) from None
    dealt = False
    for index, raw in enumerate(actions):
        try:
            command = _parse_action(raw)
            if isinstance(command, ChooseGame) or (isinstance(command, TimeOut) and table.choosing):
                new, table = step_session(table, command)
                by_clock = isinstance(command, TimeOut)
            else:
                if not dealt:
                    new, table = step_session(table, DealHand(hand_id, deck))
                    mine.extend(new)
                    dealt = True
                new, table = step_session(table, command, deck)
                if isinstance(command, Reshuffle):
                    deck = (*deck, *command.cards)
        except (ScenarioError, EngineError, CardError) as exc:
            raise _HandError(
                _error(index, raw, str(exc), getattr(exc, "rule", "invalid_scenario"))
            ) from None
        mine.extend(new)
    if not dealt and not table.choosing and not table.hand_in_progress:
        try:
            new, table = step_session(table, DealHand(hand_id, deck))
        except EngineError as exc:
            raise _HandError(_error(None, None, exc.message, exc.rule)) from None
        mine.extend(new)
        dealt = True
    log.extend(mine)
    chosen = next((e for e in mine if isinstance(e, GameChosen)), None)
    header: dict[str, Any] = {
        "dealer": dealer,
        "redeal": redeal,
        "game": table.game,
        "options": dict(table.game_options),
        "chosen_by_clock": by_clock and chosen is not None and chosen.by_clock,
    }
    if not dealt or table.hand is None or table.hand.hand_id != hand_id:
        return table, {**header, "hand_id": hand_id, "complete": False, "waiting_for": [dealer]}
    # The game dealt (the table's next game is already reset once the hand is over).
    header["game"] = table.hand.variant
    header["options"] = dict(getattr(table.hand, "game_options", {}))
    hand_events = [e for e in mine if not isinstance(e, GameChosen | DealerUp)]
    result = {**header, **describe(table.hand, hand_events)}  # type: ignore[arg-type]
    result["carried_in"] = getattr(table.hand, "carried_in", 0)
    result["carried_out"] = getattr(table.hand, "carried_out", 0)
    return table, result
