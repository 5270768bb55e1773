"""The exports' sentences for the steps neither format has a notation for (the dealer's choice
games' passes, rolls, declarations, payments...): the one narrator's
(:mod:`riverboat.narration`), as plain text in the third person, cards in brackets."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from riverboat.engine import events as ev
from riverboat.engine.games import half_names
from riverboat.handtext import card_text
from riverboat.narration import Voice, plain, tell

__all__ = ["cards_text", "describe", "halves_of"]


def halves_of(events: Iterable[object]) -> tuple[str, str]:
    """What the hand's two halves are called (Chicago's spade half, 15-35's 15...), from its
    ``HandStarted`` and ``GameOptionsSet``."""
    variant, options = "", {}
    for event in events:
        if isinstance(event, ev.HandStarted):
            variant = event.variant
        elif isinstance(event, ev.GameOptionsSet):
            options = event.options
            break
    return half_names(variant, options)


def cards_text(cards: tuple[int, ...], sep: str = " ") -> str:
    """Cards as text, hidden ones as ``??``."""
    return sep.join(card_text(c) for c in cards)


def describe(
    event: object,
    name: Callable[[int], str],
    money: Callable[[int], str],
    halves: tuple[str, str] = ("high", "low"),
) -> str | None:
    """A sentence for ``event`` (``name`` maps a seat to how the format names its player,
    ``money`` formats cents, ``halves`` names the pot's halves: :func:`halves_of`), or None
    for events that need none."""
    sentence = tell(event, Voice(name, money), halves)
    return None if sentence is None else plain(sentence)


def names_of(started: ev.HandStarted) -> Mapping[int, str]:
    """Seat -> player name."""
    return {s.seat: s.player for s in started.seats}
