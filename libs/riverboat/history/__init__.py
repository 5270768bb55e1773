"""Hand histories: PHH (TOML) and PokerStars-style text, as the auditor or one player saw them.

:func:`hands_from_archive` reads hands from an audit archive (``riverboat.audit``);
:func:`to_phh` / :func:`to_phhs` and :func:`to_pokerstars` / :func:`to_pokerstars_all` write
them. A :class:`Perspective` chooses whose eyes: the auditor's (every card) or one player's
(what that player saw; ``??`` for the rest). Formats and variant codes: ``docs/hand-history.md``.
"""

from riverboat.history.hands import HandLog, hand_from_events, hands_from_archive
from riverboat.history.perspective import AUDITOR, Perspective, visible_events
from riverboat.history.phh import to_phh, to_phhs
from riverboat.history.pokerstars import (
    hand_number,
    pokerstars_files,
    table_hand_number,
    to_pokerstars,
    to_pokerstars_all,
)
from riverboat.history.variants import PHH_CODES, phh_code

__all__ = [
    "AUDITOR",
    "PHH_CODES",
    "HandLog",
    "Perspective",
    "hand_from_events",
    "hand_number",
    "hands_from_archive",
    "phh_code",
    "pokerstars_files",
    "table_hand_number",
    "to_phh",
    "to_phhs",
    "to_pokerstars",
    "to_pokerstars_all",
    "visible_events",
]
