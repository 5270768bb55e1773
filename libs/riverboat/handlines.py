"""Readable text of a hand's events, for the demo, logs and people: one line per notable
event, in the words of :mod:`riverboat.handtext` and the sentences of :mod:`riverboat.narration`.

This rendering is omniscient (it prints every card); it is for the operator's demo and the
auditor, never for a player.
"""

from __future__ import annotations

from collections.abc import Iterable

from riverboat.engine.cards import cards_str
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
from riverboat.handtext import STREETS, card_text, money, pot_label
from riverboat.narration import Voice, plain, tell

__all__ = ["render"]


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

    voice = Voice(who, money)  # omniscient: nobody is "you"
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
                lines.append(f"  {plain(tell(e, voice))}")
            case UncalledBetReturned():
                lines.append(f"  {plain(tell(e, voice))}")
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
