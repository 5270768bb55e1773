"""Card totals for Elimination, Seven Twenty-Seven and Fifteen Thirty-Five.

Totals are counted in HALF points (integers), because a picture card may count one half:
``2 * total``. Each card counts: 2-10 their face value; an ace 1 or 11; a king, queen or
jack one half or 10 (``pictures="either"``), one half only (``"half"``, 7-27's default) or
10 only (``"ten"``). The holder picks each card's value, so a hand has a set of totals.

>>> from riverboat.engine.cards import parse_cards
>>> sorted(totals(parse_cards("Ac 5d"), "half"))   # 6 or 16
[12, 32]
>>> show(nearest(totals(parse_cards("Ac Ad 5h 8s"), "either"), 30)[1])   # A-A-5-8: 15 exactly
'15'
>>> is_natural(totals(parse_cards("Ac Ad 5h 8s"), "either"), 30, 70)   # 15 and 35
True
>>> king_nine = totals(parse_cards("Kc 9d"), "either")
>>> show(max(king_nine)), show(min(king_nine))
('19', '9½')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from riverboat.engine.cards import ACE, Card, rank_of

PICTURES: Final = ("either", "half", "ten")
NEAREST_RULES: Final = ("absolute", "under_beats_over", "over_is_bust")

_JACK: Final = 9


def card_values(card: Card, pictures: str = "either") -> tuple[int, ...]:
    """The values (half points) ``card`` may count."""
    rank = rank_of(card)
    if rank == ACE:
        return (2, 22)
    if rank >= _JACK:
        return {"either": (1, 20), "half": (1,), "ten": (20,)}[pictures]
    return ((rank + 2) * 2,)


def totals(cards: Iterable[Card], pictures: str = "either") -> frozenset[int]:
    """Every total (half points) the cards can make; an empty hand totals 0."""
    out = {0}
    for card in cards:
        out = {t + v for t in out for v in card_values(card, pictures)}
    return frozenset(out)


def nearest(options: frozenset[int], target: int, rule: str = "absolute") -> tuple[int, int] | None:
    """The best total for ``target`` (half points) and its key, LOWER key is better, or None
    when no total counts (all over the target with ``over_is_bust``).

    ``absolute``: nearest by absolute distance, over and under alike (ties split);
    ``under_beats_over``: at equal distance, under the target beats over it;
    ``over_is_bust``: only totals up to the target count.
    """
    best: tuple[int, int] | None = None
    for total in options:
        distance = abs(total - target)
        if rule == "over_is_bust":
            if total > target:
                continue
            key = distance
        elif rule == "under_beats_over":
            key = 2 * distance + (1 if total > target else 0)
        else:
            key = distance
        if best is None or key < best[0] or (key == best[0] and total < best[1]):
            best = (key, total)
    return None if best is None else (best[0], best[1])


def is_natural(options: frozenset[int], low_target: int, high_target: int) -> bool:
    """Whether one hand makes both targets exactly (15 and 35, or 7 and 27): a natural."""
    return low_target in options and high_target in options


def show(half_points: int) -> str:
    """A total in half points as text: ``'34½'``, ``'15'``."""
    whole, half = divmod(half_points, 2)
    if half and whole == 0:
        return "½"
    return f"{whole}½" if half else str(whole)
