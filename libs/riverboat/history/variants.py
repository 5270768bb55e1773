"""Our variants' names in the formats hands are exported to.

PHH (the Poker Hand History format) defines eleven variant codes; fixed-limit seven-card stud
hi/lo is ``F7S/8``. The dealer's choice games have no code there, so Riverboat defines its own,
all under the ``RB/`` prefix so that no future official code can clash (``docs/hand-history.md``
lists them with their rules). PokerKit cannot replay the ``RB/`` codes: they are for people and
for tools that know Riverboat's games.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["PHH_CODES", "STUD_HI_LO", "display_name", "phh_code"]

STUD_HI_LO: Final = "seven_card_stud_hi_lo"

#: Engine variant -> (PHH variant code, display name for PokerStars-style text).
PHH_CODES: Final[dict[str, tuple[str, str]]] = {
    STUD_HI_LO: ("F7S/8", "7 Card Stud Hi/Lo"),
    "draw": ("RB/5D", "5 Card Draw"),
    "anaconda": ("RB/ANA", "Anaconda"),
    "chicago": ("RB/CHI", "Chicago"),
    "deuces_jacks_axe": ("RB/DJA", "Deuces, Jacks and the Man with the Axe"),
    "elimination": ("RB/ELIM", "Elimination"),
    "fifteen_thirty_five": ("RB/15-35", "15-35"),
    "seven_twenty_seven": ("RB/7-27", "7-27"),
    "follow_the_queen": ("RB/FTQ", "Follow the Queen"),
    "woolworth": ("RB/WOOL", "Woolworth"),
}

#: Stud hi/lo dealt under the dealer's choice table's Final Bet Rule (small bet until 7th
#: street, big bet on 7th): not PHH's F7S/8, whose limits change on 5th street.
STUD_HI_LO_FINAL_BET: Final = "RB/7S8-FB"


def phh_code(variant: str, options: dict[str, Any]) -> str:
    """The PHH ``variant`` code for a hand of ``variant`` played with table ``options``.

    Raises:
        KeyError: a variant this module does not know (a new game needs its code here).
    """
    if variant == STUD_HI_LO and options.get("final_bet_rule"):
        return STUD_HI_LO_FINAL_BET
    return PHH_CODES[variant][0]


def display_name(variant: str) -> str:
    """The game's name for text histories (the variant name itself if unknown)."""
    entry = PHH_CODES.get(variant)
    return entry[1] if entry else variant.replace("_", " ").title()
