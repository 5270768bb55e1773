"""The words every text of a hand shares: streets, action verbs, ranks, pots, money, cards.

The demo's and the auditor's hand text (:mod:`riverboat.handlines`), the hand-history exports
and ``riverboat play``'s narrator take them from here (the sentences themselves from
:mod:`riverboat.narration`), so each word is written once.
"""

from __future__ import annotations

from riverboat.engine.cards import RANK_CHARS, card_str

# The words every narration of a hand shares (this text, the hand-history exports' comments
# and ``riverboat play``'s narrator), so each is written once.

#: Stud's betting rounds by the number of cards each player holds.
STREETS = {3: "3rd street", 4: "4th street", 5: "5th street", 6: "6th street", 7: "7th street"}

#: Each betting action as (second person, third person): "you raise to", "bot raises to".
ACTION_VERBS = {
    "bring_in": ("bring in for", "brings in for"),
    "complete": ("complete to", "completes to"),
    "bet": ("bet", "bets"),
    "raise": ("raise to", "raises to"),
    "call": ("call", "calls"),
    "check": ("check", "checks"),
    "fold": ("fold", "folds"),
}


#: Each rank's plural by its character: "Wild now: fives", "Sevens are eliminated".
RANK_NAMES = dict(
    zip(
        RANK_CHARS,
        ("deuces", "treys", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens")
        + ("jacks", "queens", "kings", "aces"),
        strict=True,
    )
)


def pot_label(pot: int) -> str:
    """``0`` -> ``"main pot"``, ``2`` -> ``"side pot 2"``."""
    return "main pot" if pot == 0 else f"side pot {pot}"


def money(cents: int) -> str:
    """``1234`` -> ``"$12.34"`` (no thousands separator: hand histories' own notation)."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars}.{rest:02d}"


def dollars(cents: int) -> str:
    """``543300`` -> ``"$5,433.00"``: amounts in reports people read."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{rest:02d}"


def card_text(card: int) -> str:
    """``"7h"``, or ``"??"`` for a hidden card (-1)."""
    return "??" if card < 0 else card_str(card)
