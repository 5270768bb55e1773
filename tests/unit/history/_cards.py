"""Which cards a player may see in a hand, worked out from the omniscient events on their own
(not with the engine's redaction, which the exports use), and the cards an export shows."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from typing import Any

from riverboat.engine import events as ev
from riverboat.engine.cards import card_str

_CARD = re.compile(r"[2-9TJQKA][cdhs]")
_BRACKETS = re.compile(r"\[([^\]]*)\]")


def forbidden_cards(events: Sequence[ev.Event], seat: int) -> set[str]:
    """Cards dealt face down to someone else that never became public nor reached ``seat``."""
    down_to_others: set[int] = set()
    seen: set[int] = set()
    for e in events:
        match e:
            case ev.CardDealt():
                if e.seat == seat or e.face_up:
                    seen.add(e.card)
                else:
                    down_to_others.add(e.card)
            case ev.HandShown():
                seen.update(e.cards)
            case ev.CardTurnedUp() | ev.CardPaymentPosted() | ev.TableCardTurned():
                seen.add(e.card)
            case ev.CardsEliminated():
                seen.update(e.cards)
            case ev.CardsPassed():
                if seat in (e.seat, e.to_seat):
                    seen.update(e.cards)
            case ev.CommunityCardDealt():
                seen.add(e.card)
    return {card_str(c) for c in down_to_others - seen}


def phh_cards(text: str) -> set[str]:
    """Every card written in a PHH document's actions and card-holding fields."""
    return hand_cards(tomllib.loads(text))


def hand_cards(doc: dict[str, Any]) -> set[str]:
    """Every card in one parsed PHH hand (a ``.phh`` document, or one table of a ``.phhs``)."""
    found: set[str] = set()
    for action in doc.get("actions", []):
        found.update(_CARD.findall(action))
    for item in doc.get("_passes", []):
        found.update(_CARD.findall(item["cards"]))
    return found


def text_cards(text: str) -> set[str]:
    """Every card written in PokerStars-style text (cards are always in brackets)."""
    found: set[str] = set()
    for inside in _BRACKETS.findall(text):
        found.update(_CARD.findall(inside))
    return found


def dealt_cards(events: Sequence[ev.Event]) -> set[str]:
    """Every card dealt in the hand."""
    return {card_str(e.card) for e in events if isinstance(e, ev.CardDealt | ev.CommunityCardDealt)}
