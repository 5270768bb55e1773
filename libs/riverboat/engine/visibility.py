"""What each player may see: every event as one viewer sees it, and the cards they know.

The event log is omniscient; a viewer (a seat, or 0 for an observer) sees:

- a face-down card dealt to someone else: hidden (``-1``);
- someone else's discards, cards put down to pass, and stacking order: hidden, but how many;
- cards passed: only by the giver and the receiver;
- someone else's sealed declaration: that they declared, not what (``choice`` is ``""``)
  until ``DeclarationsRevealed`` shows them all together;
- the discards a draw asks the dealer to reshuffle: nobody.

Everything else is public, wild cards and exposed-card payments included. A viewer's fold of
their redacted events gives their view of the hand (hidden cards as ``-1``).

>>> from riverboat.engine.events import CardsPassed, DeclarationSealed
>>> redact(CardsPassed(1, 2, (5, 9, 12)), 3).cards
(-1, -1, -1)
>>> redact(CardsPassed(1, 2, (5, 9, 12)), 2).cards
(5, 9, 12)
>>> redact(DeclarationSealed(4, "both"), 1).choice
''
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Any

from riverboat.engine.events import (
    CardDealt,
    CardsDiscarded,
    CardsOrdered,
    CardsPassed,
    CardsToPass,
    DeclarationSealed,
    ReshuffleRequested,
)
from riverboat.engine.gamestate import GameHandState
from riverboat.engine.state import HandState

HIDDEN = -1


def _hide(cards: tuple[int, ...]) -> tuple[int, ...]:
    return (HIDDEN,) * len(cards)


def redact(event: Any, seat: int) -> Any:
    """``event`` as the player at ``seat`` (0: an observer) may see it."""
    if isinstance(event, CardDealt):
        if not event.face_up and event.seat != seat:
            return replace(event, card=HIDDEN)
    elif isinstance(event, CardsDiscarded | CardsToPass | CardsOrdered):
        if event.seat != seat:
            return replace(event, cards=_hide(event.cards))
    elif isinstance(event, CardsPassed):
        if seat not in (event.seat, event.to_seat):
            return replace(event, cards=_hide(event.cards))
    elif isinstance(event, DeclarationSealed):
        if event.seat != seat:
            return replace(event, choice="")
    elif isinstance(event, ReshuffleRequested):
        return replace(event, cards=_hide(event.cards))
    return event


def known_cards(
    state: HandState, seat: int, only: Collection[int] | None = None
) -> tuple[tuple[int | None, ...], ...]:
    """Each player's cards (dealing order) as ``seat`` knows them; None where hidden.

    A viewer knows their own cards, every face-up card, hands shown down, and the cards they
    passed to someone who still holds them. With ``only``, just those seats' cards are worked
    out; every other seat's entry is empty (for a caller that needs a few of them).
    """
    shown = {e.seat for e in state.shown}
    passed = _passed_by(state, seat)
    out: list[tuple[int | None, ...]] = []
    for i, owner in enumerate(state.seats):
        cards = state.cards[i]
        if only is not None and owner not in only:
            out.append(())
        elif owner == seat or owner in shown:
            out.append(cards)
        elif passed:
            ups = state.face_up[i]
            out.append(
                tuple(c if (up or c in passed) else None for c, up in zip(cards, ups, strict=True))
            )
        else:  # the usual case, and a table service works it out for every viewer
            out.append(
                tuple(c if up else None for c, up in zip(cards, state.face_up[i], strict=True))
            )
    return tuple(out)


def seats_seen_better(state: HandState, seat: int) -> frozenset[int]:
    """The seats whose cards ``seat`` may know more of than an observer does: ``seat``'s own,
    and any seat holding a card ``seat`` passed to it. Every other seat looks to ``seat``
    exactly as it looks to an observer."""
    passed = _passed_by(state, seat)
    if not passed:  # every game but those that pass cards, and most of their hands
        return frozenset((seat,))
    return frozenset(
        {seat}
        | {
            owner
            for owner, cards in zip(state.seats, state.cards, strict=True)
            if passed.intersection(cards)
        }
    )


def _passed_by(state: HandState, seat: int) -> set[int]:
    """The cards ``seat`` has passed to others in this hand (dealer's choice passes)."""
    if not isinstance(state, GameHandState):
        return set()
    return {c for giver, _, cards in state.passes if giver == seat for c in cards}
