"""What ``riverboat play`` says of its own card checks (CRV1, docs/shuffle.md part II).

Every card the player is shown is checked as it comes (:class:`riverboat.proofcheck.CardChecker`);
the screen says so once a hand, in a sentence, rather than on every street: what a player needs
to know is that the check runs and that it holds. A check that fails is said every time, loudly.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import RenderableType
from rich.text import Text

from riverboat.proofcheck import CardCheck, Verdict

#: The sentence for a hand whose cards verified.
VERIFIED = (
    "Your cards are verified: they match the deck the dealer committed to before the deal. "
    "Each new card is checked too; one that fails is shown in red."
)
#: Added when the client did not watch the hand's deal from its start: it could check each
#: card against the deck, but where in the deal each one came is as the table says.
JOINED_LATE = " You came in during this hand, so the order of its deal is the table's word."


class CheckNotes:
    """The screen lines for the checks of one table followed: the verified sentence once per
    hand, a notice for a seed drawn for the player (or one it cannot check: sent by an earlier
    session), a red line for each failure."""

    def __init__(self) -> None:
        self._told: set[str] = set()

    def lines(self, checks: Iterable[CardCheck]) -> list[RenderableType]:
        """The lines for these new checks (none for cards of a hand already said)."""
        checks = list(checks)
        lines: list[RenderableType] = []
        verified = [c for c in checks if c.card and c.verdict is Verdict.VERIFIED]
        for hand in dict.fromkeys(c.hand_id for c in verified if c.hand_id not in self._told):
            self._told.add(hand)
            late = any(not c.witnessed for c in verified if c.hand_id == hand)
            lines.append(Text(VERIFIED + (JOINED_LATE if late else ""), style="dim"))
        for notice in (c for c in checks if c.verdict in (Verdict.NOTICE, Verdict.UNCHECKED)):
            lines.append(Text(notice.line(), style="bold yellow"))
        for bad in (c for c in checks if c.verdict is Verdict.FAILED):
            lines.append(Text(f"!!! {bad.line()} !!!", style="bold white on red"))
        return lines
