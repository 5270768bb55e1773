"""Helpers for hand-written engine tests: stack a deck, play actions, read results."""

from __future__ import annotations

from typing import Any

from riverboat.engine.cards import card_str, parse_card
from riverboat.engine.commands import Act, StartHand
from riverboat.engine.events import Event, SeatEntry
from riverboat.engine.game import decide, fold
from riverboat.engine.options import pacific_options
from riverboat.engine.state import HandState

_DECKS: dict[str, tuple[int, ...]] = {}


def deck_of(state: HandState) -> tuple[int, ...]:
    """The deck a hand started by :func:`start` was dealt from."""
    return _DECKS[state.hand_id]


def stacked_deck(*hands: str, community: str = "") -> list[str]:
    """A deck that deals ``hands[k]`` (up to 7 cards, in dealing order) to the k-th player
    in dealing order (index 0 = first left of the button).

    Cards go out as stud deals them: card 1 to everyone, then card 2, ... A player whose
    string is shorter is assumed to have folded and gets no further cards. ``community`` is
    placed where the 7th-street community card would come. The rest of the deck follows in
    standard order.
    """
    parsed = [h.split() for h in hands]
    order: list[str] = []
    for position in range(7):
        if position == 6 and community:
            order.append(community)
            break
        order.extend(cards[position] for cards in parsed if len(cards) > position)
    rest = [card_str(c) for c in range(52) if card_str(c) not in order]
    assert len(set(order)) == len(order), "a card appears twice"
    return order + rest


def scenario(
    hands: list[str],
    actions: list[tuple[int, str] | tuple[int, str, int]],
    *,
    stacks: list[int] | None = None,
    rules: dict[str, Any] | None = None,
    seats: list[int] | None = None,
    button: int | None = None,
    community: str = "",
) -> dict[str, Any]:
    """A scenario dict: players p1..pn at seats 1..n (button on the last seat by default),
    so dealing order is seat 1, 2, ..., n."""
    n = len(hands)
    seat_numbers = seats or list(range(1, n + 1))
    stack_values = stacks or [1000] * n
    return {
        "variant": "seven_card_stud_hi_lo",
        "rules": rules or {},
        "seats": [
            {"seat": s, "player": f"p{s}", "stack": st}
            for s, st in zip(seat_numbers, stack_values, strict=True)
        ],
        "button": button if button is not None else seat_numbers[-1],
        "deck": stacked_deck(*hands, community=community),
        "actions": [
            {"seat": a[0], "action": a[1], **({"amount": a[2]} if len(a) > 2 else {})}
            for a in actions
        ],
    }


def start(
    hands: list[str],
    *,
    stacks: list[int] | None = None,
    button: int | None = None,
    **rules: Any,
) -> tuple[HandState, list[Event]]:
    """Start a hand directly through the engine (players at seats 1..n).

    The deck is remembered under the hand id so that :func:`play` and :func:`auto` can
    pass it to ``decide`` (every test hand gets a fresh id).
    """
    n = len(hands)
    deck = tuple(parse_card(c) for c in stacked_deck(*hands))
    hand_id = f"t{len(_DECKS)}"
    _DECKS[hand_id] = deck
    command = StartHand(
        hand_id,
        "seven_card_stud_hi_lo",
        pacific_options(**rules),
        button if button is not None else n,
        tuple(
            SeatEntry(s, f"p{s}", st)
            for s, st in zip(range(1, n + 1), stacks or [1000] * n, strict=True)
        ),
        deck,
    )
    events = decide(None, command)
    return fold(events), events


def play(state: HandState, *actions: tuple[int, str] | tuple[int, str, int]) -> HandState:
    """Apply actions in order (each must be legal)."""
    for a in actions:
        amount = a[2] if len(a) > 2 else None
        state = fold(decide(state, Act(a[0], a[1], amount), deck_of(state)), state)
    return state


def actor(state: HandState) -> int | None:
    """The seat to act, or None."""
    return None if state.to_act is None else state.seats[state.to_act]


def auto(state: HandState, *moves: str | tuple[str, int]) -> HandState:
    """Apply moves to whoever is to act, in turn: ``"call"`` or ``("bet", 200)``."""
    for move in moves:
        name, amount = (move, None) if isinstance(move, str) else move
        seat = actor(state)
        assert seat is not None, f"nobody to act for {move!r}"
        state = fold(decide(state, Act(seat, name, amount), deck_of(state)), state)
    return state


def check_down(state: HandState) -> HandState:
    """Everyone checks (or calls) until the hand ends."""
    from riverboat.engine.game import legal_actions

    while not state.finished:
        names = {a.action for a in legal_actions(state)}
        move = next(m for m in ("check", "bring_in", "call") if m in names)
        state = auto(state, move)
    return state
