"""What each player may see: every event as one viewer sees it, and the cards they know.

The event log is omniscient; a viewer (a seat, or 0 for an observer) sees a card only when the
flow of the game tells it to them: dealt to them, dealt face up, passed to them, turned up,
thrown away face up or paid for, or shown down. So:

- a face-down card dealt to someone else: hidden (``-1``);
- someone else's discards, cards put down to pass, and stacking order: hidden, but how many;
- cards passed: only by the giver and the receiver;
- someone else's sealed declaration: that they declared, not what (``choice`` is ``""``)
  until ``DeclarationsRevealed`` shows them all together;
- the discards a draw asks the dealer to reshuffle: nobody;
- someone else's hand shown down: its cards in :func:`canonical` order, not the order the
  holder kept them in (which would tell what they drew, kept or stacked).

Order and position carry no information either: every other player's row is the same for all
viewers (:func:`known_cards`). Everything else is public, wild cards and exposed-card payments
included. A viewer's fold of their redacted events gives their view of the hand (hidden cards
as ``-1``).

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
    HandShown,
    ReshuffleRequested,
)
from riverboat.engine.state import HIDDEN, HandState

__all__ = ["HIDDEN", "canonical", "known_cards", "redact"]


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
    elif isinstance(event, HandShown):
        # The holder's order (dealing, drawing, stacking) is theirs alone.
        ordered = canonical(event.cards)
        if event.seat != seat and event.cards != ordered:
            return replace(event, cards=ordered)
    return event


def canonical(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Cards in the order that says nothing but what they are: highest first."""
    return tuple(sorted(cards, reverse=True))


def known_cards(
    state: HandState, seat: int, only: Collection[int] | None = None
) -> tuple[tuple[int | None, ...], ...]:
    """Each player's cards as ``seat`` knows them, None where hidden (0: an observer).

    The one rule for every game's rows: a viewer sees their own row as they hold it. Every
    other row looks the same to every viewer: its face-up cards where they lie and a blank
    for each face-down card, so neither the cards nor the order of a row's hidden part says
    anything (not which passed card a receiver threw away, nor how they stacked their
    cards: a passer knows what they passed from the ``CardsPassed`` they saw, not where it
    went). Once a hand is shown down its face-down cards fill its blanks highest first
    (:func:`canonical`), so even then nobody learns which card was drawn, passed or dealt
    last. With ``only``, just those seats' cards are worked out; every other seat's entry is
    empty (for a caller that needs a few of them).
    """
    shown = {e.seat for e in state.shown}
    out: list[tuple[int | None, ...]] = []
    for i, owner in enumerate(state.seats):
        cards, ups = state.cards[i], state.face_up[i]
        if only is not None and owner not in only:
            out.append(())
        elif owner == seat:
            out.append(cards)
        elif owner in shown:
            down = iter(canonical(tuple(c for c, up in zip(cards, ups, strict=True) if not up)))
            out.append(tuple(c if up else next(down) for c, up in zip(cards, ups, strict=True)))
        else:
            out.append(tuple(c if up else None for c, up in zip(cards, ups, strict=True)))
    return tuple(out)
