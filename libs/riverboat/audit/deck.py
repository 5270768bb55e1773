"""Where each card of a hand came from in the dealer's deck, as the hand's events tell it.

The dealer's deck for a hand is the RBS1 deck (52 cards, top first), followed by one stub per
mid-hand reshuffle (a draw that empties the stub: the requested discards, reshuffled by RBS1
section 5a). The events consume it in order:

* ``CardDealt`` and ``CommunityCardDealt`` take the next card;
* ``TableRowDealt`` (Elimination) lays the next ``count`` cards face down; each
  ``TableCardTurned`` from the row shows the next of them, one from the stock takes the next card;
* ``ReshuffleRequested`` names the discards to reshuffle; ``DiscardsReshuffled`` appends their
  reshuffled stub, and the next cards come from it.

From that the audit knows the card at every deck position the hand used. With the seed revealed
each must be the committed deck's (:func:`check`); without it, the replay still needs a deck,
which :func:`replay_deck` rebuilds from the cards seen (the unused positions hold the remaining
cards in any order: nobody ever saw them).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from riverboat.audit.tablelog import LoggedEvent
from riverboat.engine import events as ev
from riverboat.engine.cards import card_str

__all__ = ["DECK_EVENTS", "DECK_SIZE", "DeckLog", "HandDeck", "replay_deck"]

DECK_SIZE = 52
#: The events that take cards from the deck or change it (the others need not be fed).
DECK_EVENTS = frozenset(
    {
        ev.CardDealt,
        ev.CommunityCardDealt,
        ev.TableRowDealt,
        ev.TableCardTurned,
        ev.ReshuffleRequested,
        ev.DiscardsReshuffled,
    }
)


@dataclass(frozen=True, slots=True)
class HandDeck:
    """What a hand is replayed with: the deck, and each reshuffle's stub in order."""

    main: tuple[int, ...]
    stubs: tuple[tuple[int, ...], ...] = ()

    def sequence(self) -> list[int]:
        """The deck followed by its stubs: the card at every deck position."""
        out = list(self.main)
        for stub in self.stubs:
            out.extend(stub)
        return out


@dataclass(slots=True)
class DeckLog:
    """The deck positions a hand's events used (fed one event at a time, in log order)."""

    positions: dict[int, tuple[int, LoggedEvent]] = field(default_factory=dict)
    requests: list[tuple[int, ...]] = field(default_factory=list)
    stub_sizes: list[int] = field(default_factory=list)
    problems: list[tuple[str, LoggedEvent]] = field(default_factory=list)
    _next: int = 0
    _end: int = DECK_SIZE
    _row_start: int = 0
    _row_turned: int = 0

    def _take(self, position: int, card: int, logged: LoggedEvent) -> None:
        if not 0 <= card < DECK_SIZE:
            self.problems.append((f"card {card} is not a card", logged))
        elif position in self.positions:
            self.problems.append((f"deck position {position} dealt twice", logged))
        else:
            self.positions[position] = (card, logged)

    def feed(self, logged: LoggedEvent) -> None:
        """Account for one event of the hand."""
        e = logged.event
        if isinstance(e, ev.CardDealt | ev.CommunityCardDealt):
            self._take(self._next, e.card, logged)
            self._next += 1
        elif isinstance(e, ev.TableRowDealt):
            self._row_start, self._row_turned = self._next, 0
            self._next += e.count
        elif isinstance(e, ev.TableCardTurned):
            if e.from_stock:
                self._take(self._next, e.card, logged)
                self._next += 1
            else:
                self._take(self._row_start + self._row_turned, e.card, logged)
                self._row_turned += 1
        elif isinstance(e, ev.ReshuffleRequested):
            self.requests.append(e.cards)
        elif isinstance(e, ev.DiscardsReshuffled):
            # The stub ran out: the reshuffled discards follow the deck (or the last stub).
            self.stub_sizes.append(e.count)
            self._next, self._end = self._end, self._end + e.count

    def duplicates(self) -> list[tuple[str, LoggedEvent]]:
        """Cards seen twice in the deck or in one stub (a reshuffle legitimately reuses
        discards, so each stub is checked on its own)."""
        out = []
        bounds = [0, DECK_SIZE]
        for size in self.stub_sizes:
            bounds.append(bounds[-1] + size)
        for low, high in itertools.pairwise(bounds):
            seen: dict[int, LoggedEvent] = {}
            for position in range(low, high):
                found = self.positions.get(position)
                if found is None:
                    continue
                card, logged = found
                if card in seen:
                    message = f"{card_str(card)} dealt twice (first at {seen[card].ref})"
                    out.append((message, logged))
                seen.setdefault(card, logged)
        return out


def _fill(known: dict[int, int], low: int, high: int, pool: list[int]) -> tuple[int, ...]:
    """Positions ``low..high-1``: the known cards, and the pool's unused cards elsewhere."""
    used = {known[p] for p in range(low, high) if p in known}
    spare = iter(c for c in pool if c not in used)
    return tuple(known[p] if p in known else next(spare, -1) for p in range(low, high))


def replay_deck(log: DeckLog) -> HandDeck:
    """A deck that deals exactly what the log shows dealt (see the module docstring)."""
    known = {p: card for p, (card, _) in log.positions.items()}
    main = _fill(known, 0, DECK_SIZE, list(range(DECK_SIZE)))
    stubs = []
    low = DECK_SIZE
    for k, size in enumerate(log.stub_sizes):
        pool = sorted(log.requests[k]) if k < len(log.requests) else list(range(DECK_SIZE))
        stubs.append(_fill(known, low, low + size, pool))
        low += size
    return HandDeck(main, tuple(stubs))
