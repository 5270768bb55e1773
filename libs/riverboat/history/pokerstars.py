"""Hands as PokerStars-style text, the de facto format of players' tracking tools.

Stud hi/lo follows PokerStars' own layout (``*** 3rd STREET ***`` ... ``*** RIVER ***``,
``Dealt to`` lines with the cards already known in the first brackets and the new ones in the
second, ``brings in``/``completes``/``raises X to Y``, ``*** SHOW DOWN ***`` with HI/LO hands,
``*** SUMMARY ***`` with the pots and the rake). The dealer's choice games, which PokerStars
does not spread, use the same layout with a betting-round header per round and a plain
sentence for each step of theirs (passes, rolls, declarations). A player's export shows what
that player saw: their own cards, up cards and hands shown down (``perspective``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from riverboat.engine import events as ev
from riverboat.handtext import money
from riverboat.history.hands import HandLog
from riverboat.history.narrate import cards_text, describe
from riverboat.history.perspective import AUDITOR, Perspective, visible_events
from riverboat.history.variants import display_name

__all__ = ["to_pokerstars", "to_pokerstars_all"]

_STUD_STREETS = {3: "3rd STREET", 4: "4th STREET", 5: "5th STREET", 6: "6th STREET", 7: "RIVER"}
_STUD_FOLDS = {3: "3rd Street", 4: "4th Street", 5: "5th Street", 6: "6th Street", 7: "River"}


class _Text:
    def __init__(self, hand: HandLog, events: list[ev.Event]) -> None:
        self.hand = hand
        self.events = events
        started = hand.started
        self.name = {s.seat: s.player for s in started.seats}
        self.stud = started.variant == "seven_card_stud_hi_lo"
        self.lines: list[str] = []
        self.known: dict[int, list[str]] = {s.seat: [] for s in started.seats}
        self.level = 0
        self.street = 0
        self.folded_on: dict[int, str] = {}

    def who(self, seat: int) -> str:
        return self.name.get(seat, f"seat {seat}")

    def header(self) -> None:
        started = self.hand.started
        opts = started.options
        stakes = f"{money(opts.get('small_bet', 0))}/{money(opts.get('big_bet', 0))} USD"
        when = self.hand.started_at or datetime(1970, 1, 1)
        self.lines.append(
            f"PokerStars Hand #{self.hand.hand_id}:  {display_name(started.variant)} Limit "
            f"({stakes}) - {when:%Y/%m/%d %H:%M:%S} UTC"
        )
        table = self.hand.table_name or self.hand.table_id
        self.lines.append(f"Table '{table}' {opts.get('max_players', len(started.seats))}-max")
        for s in sorted(started.seats, key=lambda s: s.seat):
            self.lines.append(f"Seat {s.seat}: {s.player} ({money(s.stack)} in chips)")

    def deal(self, batch: list[ev.CardDealt]) -> None:
        """One street's cards: ``Dealt to P [known before] [new]``, new cards known only."""
        by_seat: dict[int, list[int]] = {}
        for e in batch:
            by_seat.setdefault(e.seat, []).append(e.card)
        for seat, cards in by_seat.items():
            new = [cards_text((c,)) for c in cards if c >= 0]
            if not new:
                continue  # nothing this viewer can see
            before = self.known[seat]
            text = f"Dealt to {self.who(seat)} "
            text += f"[{' '.join(before)}] [{' '.join(new)}]" if before else f"[{' '.join(new)}]"
            self.lines.append(text)
            before.extend(new)

    def action(self, e: ev.ActionTaken) -> None:
        who = self.who(e.seat)
        tail = " and is all-in" if e.all_in else ""
        match e.action:
            case "bring_in":
                line = f"{who}: brings in for {money(e.amount)}"
            case "complete":
                line = f"{who}: completes it to {money(e.to)}"
            case "bet":
                line = f"{who}: bets {money(e.amount)}"
            case "raise":
                line = f"{who}: raises {money(e.to - self.level)} to {money(e.to)}"
            case "call":
                line = f"{who}: calls {money(e.amount)}"
            case "check":
                line = f"{who}: checks"
            case "fold":
                line = f"{who}: folds"
                self.folded_on[e.seat] = self.street_name()
            case other:
                line = f"{who}: {other} {money(e.amount)}"
        self.lines.append(line + tail)
        self.level = max(self.level, e.to)

    def street_name(self) -> str:
        if self.stud:
            return _STUD_FOLDS.get(self.street, f"{self.street}th Street")
        return f"betting round {self.street}"

    def body(self) -> None:
        batch: list[ev.CardDealt] = []
        shown = False
        pots = [e for e in self.events if isinstance(e, ev.PotAwarded)]
        for e in self.events:
            if isinstance(e, ev.CardDealt):
                batch.append(e)
                continue
            if isinstance(e, ev.BettingRoundStarted):
                self.street, self.level = e.street, 0
                title = _STUD_STREETS.get(e.street) if self.stud else None
                self.lines.append(f"*** {title or f'BETTING ROUND {e.street}'} ***")
            if batch:
                self.deal(batch)
                batch = []
            match e:
                case ev.AntePosted():
                    self.lines.append(f"{self.who(e.seat)}: posts the ante {money(e.amount)}")
                case ev.ActionTaken():
                    self.action(e)
                case ev.CommunityCardDealt():
                    self.lines.append(f"Board [{cards_text((e.card,))}]")
                case ev.CardsDiscarded():
                    own = all(c >= 0 for c in e.cards)
                    cards = f" [{cards_text(e.cards)}]" if own and e.cards else ""
                    count = len(e.cards)
                    verb = "stands pat" if not count else f"discards {count} card"
                    verb += "s" if count > 1 else ""
                    self.lines.append(f"{self.who(e.seat)}: {verb}{cards}")
                case ev.HandShown():
                    if not shown:
                        self.lines.append("*** SHOW DOWN ***")
                        shown = True
                    what = f"HI: {e.high_text}" + (f"; LO: {e.low_text}" if e.low_text else "")
                    self.lines.append(f"{self.who(e.seat)}: shows [{cards_text(e.cards)}] ({what})")
                    self.known[e.seat] = [cards_text((c,)) for c in e.cards]
                case ev.PotAwarded():
                    where = (
                        "pot"
                        if len(pots) == 1
                        else ("main pot" if e.pot == 0 else f"side pot-{e.pot}")
                    )
                    for seat, amount in e.shares:
                        self.lines.append(
                            f"{self.who(seat)} collected {money(amount)} from {where}"
                        )
                case _:
                    text = describe(e, self.who, money)
                    if text is not None:
                        self.lines.append(text)
        if batch:
            self.deal(batch)

    def summary(self) -> None:
        self.lines.append("*** SUMMARY ***")
        put_in = sum(
            e.amount for e in self.events if isinstance(e, ev.AntePosted | ev.ActionTaken)
        ) - sum(e.amount for e in self.events if isinstance(e, ev.UncalledBetReturned))
        rake = next((e for e in self.events if isinstance(e, ev.RakeTaken)), None)
        pots = [e for e in self.events if isinstance(e, ev.PotAwarded)]
        line = f"Total pot {money(put_in)}"
        if len(pots) > 1 and rake is not None:
            for p in pots:
                gross = money(p.amount + rake.from_pots[p.pot])
                line += f" Main pot {gross}." if p.pot == 0 else f" Side pot-{p.pot} {gross}."
        line += f" | Rake {money(rake.amount if rake else 0)}"
        self.lines.append(line)
        won: dict[int, int] = {}
        for p in pots:
            for seat, amount in p.shares:
                won[seat] = won.get(seat, 0) + amount
        shown = {e.seat: e for e in self.events if isinstance(e, ev.HandShown)}
        for s in sorted(self.hand.started.seats, key=lambda s: s.seat):
            seat = s.seat
            text = f"Seat {seat}: {s.player}"
            if seat in self.folded_on:
                text += f" folded on the {self.folded_on[seat]}"
            elif seat in shown:
                h = shown[seat]
                result = f"won ({money(won[seat])})" if seat in won else "lost"
                low = f", LO: {h.low_text}" if h.low_text else ""
                text += f" showed [{cards_text(h.cards)}] and {result} with HI: {h.high_text}{low}"
            elif seat in won:
                text += f" collected ({money(won[seat])})"
            self.lines.append(text)

    def render(self) -> str:
        self.header()
        self.body()
        if any(isinstance(e, ev.HandEnded) for e in self.events):
            self.summary()
        elif self.hand.voided:
            self.lines.append("*** HAND VOIDED: every bet refunded ***")
        return "\n".join(self.lines) + "\n"


def to_pokerstars(hand: HandLog, perspective: Perspective = AUDITOR) -> str | None:
    """One hand as PokerStars-style text, as ``perspective`` saw it (None: that player was not
    dealt in)."""
    events = visible_events(hand, perspective)
    if events is None:
        return None
    return _Text(hand, events).render()


def to_pokerstars_all(hands: Iterable[HandLog], perspective: Perspective = AUDITOR) -> str:
    """Several hands, separated by blank lines as PokerStars files are."""
    texts = [to_pokerstars(hand, perspective) for hand in hands]
    return "\n\n".join(t for t in texts if t is not None)
