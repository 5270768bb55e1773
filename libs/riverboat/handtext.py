"""Readable text of a hand's events, for the demo, logs and people.

This rendering is omniscient (it prints every card); it is for the operator's demo and the
auditor, never for a player.
"""

from __future__ import annotations

from collections.abc import Iterable

from riverboat.engine.cards import RANK_CHARS, card_str, cards_str
from riverboat.engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundStarted,
    CardDealt,
    CommunityCardDealt,
    HandEnded,
    HandShown,
    HandStarted,
    PotAwarded,
    RakeTaken,
    UncalledBetReturned,
)
from riverboat.engine.games import shown_hand

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


def render(
    events: Iterable[object],
    names: dict[int, str] | None = None,
    numbers: dict[str, int] | None = None,
) -> list[str]:
    """One line per notable event; dealt cards are grouped per street.

    ``names`` (seat -> player) carries over between calls when a hand arrives in pieces;
    events that are not hand events are skipped. A hidden card (-1) prints as ``??``.
    ``numbers``: hand numbers at the table by hand id (a view's ``hand_number``); a hand
    numbered there is named ``#N`` before its id.
    """
    lines: list[str] = []
    names = {} if names is None else names

    def who(seat: int) -> str:
        # A hand joined midway (a watcher arriving late) may not have named every seat yet.
        return names.get(seat, f"seat {seat}")

    dealt: dict[int, list[str]] = {}
    variant = "seven_card_stud_hi_lo"  # a hand joined midway: Pacific's texts

    def flush_deal() -> None:
        for seat, cards in dealt.items():
            lines.append(f"  seat {seat} {who(seat):<8} {' '.join(cards)}")
        dealt.clear()

    for e in events:
        if not isinstance(e, CardDealt):
            flush_deal()
        match e:
            case HandStarted():
                variant = e.variant
                names.clear()
                names.update({s.seat: s.player for s in e.seats})
                stacks = ", ".join(f"{s.player} {money(s.stack)}" for s in e.seats)
                number = (numbers or {}).get(e.hand_id)
                name = f"#{number} {e.hand_id}" if number else e.hand_id
                lines.append(f"Hand {name} ({e.variant}), button seat {e.button}: {stacks}")
            case AntePosted():
                lines.append(f"  {who(e.seat)} antes {money(e.amount)}")
            case CardDealt():
                text = card_text(e.card) if e.face_up else f"[{card_text(e.card)}]"
                dealt.setdefault(e.seat, []).append(text)
            case CommunityCardDealt():
                lines.append(f"  community card {card_text(e.card)}")
            case BettingRoundStarted():
                opener = (
                    "nobody can bet (all in)"
                    if e.first_to_act is None
                    else f"{who(e.first_to_act)} to act"
                )
                lines.append(f"*** {STREETS.get(e.street, e.street)} *** ({opener})")
            case ActionTaken():
                verb = ACTION_VERBS[e.action][1]
                amount = "" if e.action in ("check", "fold") else f" {money(e.to)}"
                tail = " and is all in" if e.all_in else ""
                lines.append(f"  {who(e.seat)} {verb}{amount}{tail}")
            case UncalledBetReturned():
                lines.append(f"  uncalled {money(e.amount)} returned to {who(e.seat)}")
            case HandShown():
                shown = shown_hand(variant, e.high_text, e.low_text)
                lines.append(f"  {who(e.seat)} shows {cards_str(e.cards)}: {shown}")
            case RakeTaken():
                if e.amount:
                    lines.append(f"  rake {money(e.amount)}")
            case PotAwarded():
                label = pot_label(e.pot)
                shares = ", ".join(f"{who(s)} {money(v)}" for s, v in e.shares)
                lines.append(f"  {label} {money(e.amount)}: {shares}")
            case HandEnded():
                stacks = ", ".join(f"{who(s)} {money(v)}" for s, v in e.stacks)
                lines.append(f"  stacks: {stacks}")
    flush_deal()
    return lines
