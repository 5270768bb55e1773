"""Who deals next, and the pot that rides: the one rule of a table across hands.

Both the scenario API's table (:mod:`riverboat.engine.session`) and the table service's
aggregate (:mod:`riverboat.table.choice`) call these, so the two cannot drift apart.

- The button moves one seat left each deal: to the next seat clockwise, after the last
  dealer's, whose player can be dealt in (seat numbers increase clockwise and wrap).
- When the pot rode (the declarations left nobody to pay), the same dealer redeals the same
  game with the same options, without a choice; if that dealer cannot be dealt in, the next
  ready seat does.

>>> next_seat([2, 5, 7], 5), next_seat([2, 5, 7], 7), next_seat([2, 5, 7], 3)
(7, 2, 5)
>>> dealer_up([2, 5, 7], 5, game="", game_options={}, carried=0)
DealerUp(seat=7, redeal=False, game='', options={})
>>> dealer_up([2, 5, 7], 5, game="draw", game_options={"draws": 2}, carried=300)
DealerUp(seat=5, redeal=True, game='draw', options={'draws': 2})
>>> dealer_up([2, 7], 5, game="draw", game_options={}, carried=300).seat  # 5 is broke
7
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from riverboat.engine.events import DealerUp
from riverboat.engine.state import HandState


def next_seat(ready: Iterable[int], after: int) -> int:
    """The first of the ``ready`` seats clockwise after seat ``after`` (wrapping)."""
    seats = sorted(ready)
    if not seats:
        raise ValueError("no seat can be dealt in")
    return next((s for s in seats if s > after), seats[0])


def dealer_up(
    ready: Iterable[int],
    last_dealer: int,
    *,
    game: str,
    game_options: Mapping[str, Any],
    carried: int,
) -> DealerUp:
    """The dealer of the next deal at a dealer's choice table, given the seats that can be
    dealt in, the last deal's dealer, its game and options, and the pot riding from it."""
    seats = sorted(ready)
    rode = carried > 0 and bool(game)
    if rode:
        seat = last_dealer if last_dealer in seats else next_seat(seats, last_dealer)
        return DealerUp(seat, True, game, dict(game_options))
    return DealerUp(next_seat(seats, last_dealer), False, "", {})


def riding_pot(hand: HandState) -> int:
    """The pot a finished hand leaves riding into the next deal (0 when it was paid)."""
    return hand.carried_out


def pot_carried_in(hand: HandState) -> int:
    """The riding pot a hand was dealt with (it rides on if the hand is voided)."""
    return hand.carried_in
