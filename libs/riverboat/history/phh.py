"""Hands as PHH, the Poker Hand History format (TOML): https://github.com/uoftcprg/phh-std.

Players are ``p1``..``pN`` in dealing order (p1 is the first seat left of the button, as PHH
wants for stud). Amounts are integer cents. Standard fields carry what PHH defines (variant,
antes, bring-in, limits, starting and finishing stacks, winnings after rake, seats, players,
time); ``_``-prefixed fields carry Riverboat's additions (hand and table ids, the deck
commitment, rake and pots, declarations, passes, game options, whose perspective). Actions
with no PHH notation (passes, rolls, declarations, payments) are commentary-only actions
(``"# p1 passes ...")``, which PHH parsers read as no-ops. ``docs/hand-history.md`` has the
details and an example.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from riverboat.engine import events as ev
from riverboat.engine.state import dealing_order
from riverboat.handtext import STREETS, money
from riverboat.history.hands import HandLog
from riverboat.history.narrate import cards_text, describe, halves_of
from riverboat.history.perspective import AUDITOR, Perspective, visible_events
from riverboat.history.pokerstars import hand_number
from riverboat.history.toml import Comment, key, value
from riverboat.history.variants import phh_code

__all__ = ["to_phh", "to_phhs"]

_WAGER = {"complete", "bet", "raise"}
_CHECK_CALL = {"check", "call"}


class _Writer:
    def __init__(self, hand: HandLog, events: list[ev.Event], perspective: Perspective) -> None:
        self.hand = hand
        self.events = events
        self.perspective = perspective
        started = hand.started
        self.order = dealing_order(started.button, [s.seat for s in started.seats])
        self.label = {seat: f"p{i + 1}" for i, seat in enumerate(self.order)}
        self.stud = started.variant == "seven_card_stud_hi_lo"
        self.halves = halves_of(hand.events)

    def who(self, seat: int) -> str:
        return self.label.get(seat, f"seat{seat}")

    def actions(self) -> list[str]:
        out: list[str] = []
        dealt: dict[int, list[int]] = {}

        def flush() -> None:
            for seat in sorted(dealt, key=self.order.index):
                out.append(f"d dh {self.who(seat)} {cards_text(tuple(dealt[seat]), '')}")
            dealt.clear()

        for e in self.events:
            if isinstance(e, ev.CardDealt):
                dealt.setdefault(e.seat, []).append(e.card)
                continue
            line = self.action(e)
            if isinstance(line, Comment):
                out.append(line)  # a street's name goes before its cards
                line = None
            flush()
            if line is not None:
                out.append(line)
        flush()
        return out

    def action(self, e: ev.Event) -> str | None:
        match e:
            case ev.ActionTaken():
                if e.action == "bring_in":
                    return f"{self.who(e.seat)} pb"
                if e.action in _WAGER:
                    return f"{self.who(e.seat)} cbr {e.to}"
                if e.action in _CHECK_CALL:
                    return f"{self.who(e.seat)} cc"
                if e.action == "fold":
                    return f"{self.who(e.seat)} f"
                return f"# {self.who(e.seat)} {e.action} {e.to}"
            case ev.CommunityCardDealt():
                return f"d db {cards_text((e.card,))}"
            case ev.HandShown():
                return f"{self.who(e.seat)} sm {cards_text(e.cards, '')}"
            case ev.CardsDiscarded():
                cards = cards_text(e.cards, "")
                return f"{self.who(e.seat)} sd" + (f" {cards}" if cards else "")
            case ev.BettingRoundStarted():
                name = STREETS.get(e.street) if self.stud else None
                return Comment(name or ("7th street" if self.stud else f"betting round {e.street}"))
        text = describe(e, self.who, money, self.halves)
        return None if text is None else f"# {text}"

    def fields(self) -> dict[str, Any]:
        hand, started = self.hand, self.hand.started
        options = started.options
        n = len(self.order)
        by_seat = {s.seat: s for s in started.seats}
        ante = int(options.get("ante", 0))
        if options.get("ante_mode") == "dealer":
            antes = [ante if seat == started.button else 0 for seat in self.order]
        else:
            antes = [ante] * n
        out: dict[str, Any] = {
            "variant": phh_code(started.variant, options),
            "ante_trimming_status": True,  # a short stack antes what it has, and wins by that
            "antes": antes,
            "bring_in": int(options.get("bring_in", 0)),
            "small_bet": int(options.get("small_bet", 0)),
            "big_bet": int(options.get("big_bet", 0)),
            "starting_stacks": [by_seat[s].stack for s in self.order],
            "actions": self.actions(),
            "author": "Riverboat",
            # PHH's hand is a number: the table's (1, 2, 3...); the id is _hand_id.
            "hand": hand.number or hand.hand_id,
            "table": hand.table_name or hand.table_id,
            "seats": list(self.order),
            "seat_count": int(options.get("max_players", n)),
            "players": [by_seat[s].player for s in self.order],
        }
        ended = next((e for e in self.events if isinstance(e, ev.HandEnded)), None)
        if ended is not None:
            final = dict(ended.stacks)
            out["finishing_stacks"] = [final.get(s, 0) for s in self.order]
            won: dict[int, int] = {}
            for e in self.events:
                if isinstance(e, ev.PotAwarded):
                    for seat, amount in e.shares:
                        won[seat] = won.get(seat, 0) + amount
            out["winnings"] = [won.get(s, 0) for s in self.order]
        out["currency"] = "USD"
        if hand.started_at is not None:
            at = hand.started_at
            out.update(
                time=at.time().replace(microsecond=0),
                time_zone="UTC",
                day=at.day,
                month=at.month,
                year=at.year,
            )
        out.update(self.extra_fields())
        return out

    def extra_fields(self) -> dict[str, Any]:
        hand = self.hand
        out: dict[str, Any] = {
            "_hand_id": hand.hand_id,
            "_table_id": hand.table_id,
            # The PokerStars-style export's number of the hand (its last digits: `hand`).
            "_pokerstars_hand": hand_number(hand),
            "_variant": hand.started.variant,
            "_amounts": "cents",
            "_perspective": self.perspective.label,
        }
        if hand.commitment:
            out["_scheme"] = hand.scheme
            out["_commitment"] = hand.commitment.hex()
        if hand.first_version:
            out["_log_versions"] = [hand.first_version, hand.last_version]
        if hand.voided:
            out["_voided"] = True
        pots: list[dict[str, Any]] = []
        rake: ev.RakeTaken | None = None
        declarations: dict[str, str] = {}
        passes: list[dict[str, str]] = []
        for e in self.events:
            match e:
                case ev.RakeTaken():
                    rake = e
                case ev.PotAwarded():
                    cut = rake.from_pots[e.pot] if rake and e.pot < len(rake.from_pots) else 0
                    pots.append(
                        {
                            "amount": e.amount,
                            "rake": cut,
                            "eligible": [self.who(s) for s in e.eligible],
                            "high": [self.who(s) for s in e.high_winners],
                            "low": [self.who(s) for s in e.low_winners],
                        }
                    )
                case ev.DeclarationsRevealed():
                    declarations = {self.who(s): c for s, c in e.declarations}
                case ev.CardsPassed():
                    passes.append(
                        {
                            "from": self.who(e.seat),
                            "to": self.who(e.to_seat),
                            "cards": cards_text(e.cards, ""),
                        }
                    )
                case ev.GameOptionsSet():
                    out["_game_options"] = {
                        k: v for k, v in e.options.items() if isinstance(v, str | int | bool)
                    }
        if rake is not None:
            out["_rake"] = rake.amount
            out["_pots"] = pots
        if declarations:
            out["_declarations"] = declarations
        if passes:
            out["_passes"] = passes
        return out


def _render(fields: dict[str, Any]) -> str:
    return (
        "\n".join(f"{key(k)} = {value(v, multiline=k == 'actions')}" for k, v in fields.items())
        + "\n"
    )


def to_phh(hand: HandLog, perspective: Perspective = AUDITOR) -> str | None:
    """One hand as a PHH document, as ``perspective`` saw it (None: that player was not dealt
    in)."""
    events = visible_events(hand, perspective)
    if events is None:
        return None
    return _render(_Writer(hand, events, perspective).fields())


def to_phhs(hands: Iterable[HandLog], perspective: Perspective = AUDITOR) -> str:
    """Several hands as one ``.phhs`` document: one TOML table per hand, keyed by hand id."""
    parts = []
    for hand in hands:
        text = to_phh(hand, perspective)
        if text is not None:
            parts.append(f"[{key(hand.hand_id)}]\n{text}")
    return "\n".join(parts)
