"""Hands as PokerStars-style text, the de facto format of players' tracking tools.

Stud hi/lo follows PokerStars' own layout (``*** 3rd STREET ***`` ... ``*** RIVER ***``,
``Dealt to`` lines with the cards already known in the first brackets and the new ones in the
second, ``brings in``/``completes``/``raises X to Y``, ``*** SHOW DOWN ***`` with HI/LO hands,
``*** SUMMARY ***`` with the pots and the rake). The dealer's choice games, which PokerStars
does not spread, use the same layout with a betting-round header per round and a plain
sentence for each step of theirs (passes, rolls, declarations). A player's export shows what
that player saw: their own cards, up cards and hands shown down (``perspective``).

Five-card draw follows PokerStars' draw layout: ``*** DEALING HANDS ***``, then ``*** FIRST
DRAW ***`` (``SECOND``...) for each draw, where ``P: discards 2 cards [..]`` names the cards only
to their owner and is followed, for the cards that reader can see, by ``Dealt to P [kept]
[new]``. Hand numbers are numbers (:func:`hand_number`: the table's, after a code for the
table), as tracking tools require, and
:func:`pokerstars_files` cuts hands into one file per table and day, as PokerStars writes them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from datetime import datetime

from riverboat.engine import events as ev
from riverboat.handtext import money
from riverboat.history.hands import HandLog
from riverboat.history.narrate import cards_text, describe, halves_of
from riverboat.history.perspective import AUDITOR, Perspective, visible_events
from riverboat.history.variants import display_name

__all__ = [
    "HAND_NUMBER_LIMIT",
    "file_name",
    "hand_number",
    "pokerstars_files",
    "table_code",
    "table_hand_number",
    "to_pokerstars",
    "to_pokerstars_all",
]

_STUD_STREETS = {3: "3rd STREET", 4: "4th STREET", 5: "5th STREET", 6: "6th STREET", 7: "RIVER"}
_STUD_FOLDS = {3: "3rd Street", 4: "4th Street", 5: "5th Street", 6: "6th Street", 7: "River"}
_DRAW_ROUNDS = {1: "FIRST", 2: "SECOND", 3: "THIRD"}
_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
#: Hand numbers stay below 10**15: within the 53 bits a JavaScript number holds exactly, and
#: within the 64-bit integers tracking tools store them in.
HAND_NUMBER_LIMIT = 10**15
#: The last seven digits of a hand number are the hand's number at its table (1, 2, 3...);
#: the eight before them, 10000000-99999999, stand for the table.
TABLE_HAND_DIGITS = 7
_TABLE_HANDS = 10_000_000  # 10**TABLE_HAND_DIGITS
_FIRST_CODE = 10_000_000
_CODES = 90_000_000  # codes 10000000..99999999: HAND_NUMBER_LIMIT // _TABLE_HANDS - _FIRST_CODE


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def table_code(table_id: str) -> int:
    """The eight digits that stand for table ``table_id`` in its hands' numbers: 10000000 plus
    the first eight bytes of the SHA-256 of the id (big-endian) modulo 90000000."""
    return _FIRST_CODE + _digest(table_id) % _CODES


def hand_number(hand: HandLog) -> int:
    """The numeric hand number a PokerStars-style history gives ``hand``, unique in the room.

    Tracking tools insist on a number, unique across the files they are given, and the table's
    own numbers (1, 2, 3...) repeat from table to table. So the number is the table's code
    (:func:`table_code`, eight digits) followed by the hand's number at its table in seven
    digits: the third hand of a table whose code is 34362671 is ``343626710000003``, and
    the last digits read as the table's hand number. It is the same in every export of the hand
    and needs no registry; ``riverboat history export --hand`` and ``GetHandHistory`` accept it
    as well as the id. A hand whose table number is unknown (one built from engine events
    alone) takes its last seven digits from the SHA-256 of its id instead.

    Two tables could share a code: the odds are about one in 18,000 for a hundred tables (the
    birthday bound), and an export refuses two hands with one number rather than write them;
    so does a table past ten million hands, whose numbers wrap.
    """
    digits = hand.number % _TABLE_HANDS if hand.number else _digest(hand.hand_id) % _TABLE_HANDS
    return table_code(hand.table_id) * _TABLE_HANDS + digits


def table_hand_number(table_id: str, number: int) -> int | None:
    """The number at ``table_id`` of the hand a PokerStars hand ``number`` names (None: the
    number is not one of that table's)."""
    code, digits = divmod(number, _TABLE_HANDS)
    return digits if code == table_code(table_id) and digits else None


class _Text:
    def __init__(self, hand: HandLog, events: list[ev.Event]) -> None:
        self.hand = hand
        self.events = events
        started = hand.started
        self.name = {s.seat: s.player for s in started.seats}
        self.stud = started.variant == "seven_card_stud_hi_lo"
        self.draw = started.variant == "draw"
        self.draws_done = 0
        self.draws_total = 1
        self.discarded = False  # cards just discarded: the next deal replaces them
        self.halves = halves_of(hand.events)
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
            f"PokerStars Hand #{hand_number(self.hand)}:  "
            f"{display_name(started.variant)} Limit ({stakes}) - {when:%Y/%m/%d %H:%M:%S} UTC"
        )
        table = self.hand.table_name or self.hand.table_id
        line = f"Table '{table}' {opts.get('max_players', len(started.seats))}-max"
        if not self.stud:  # stud has no button; the other games are dealt from one
            line += f" Seat #{started.button} is the button"
        self.lines.append(line)
        for s in sorted(started.seats, key=lambda s: s.seat):
            self.lines.append(f"Seat {s.seat}: {s.player} ({money(s.stack)} in chips)")

    def deal(self, batch: list[ev.CardDealt]) -> None:
        """One street's cards (or a draw's): ``Dealt to P [known before] [new]``, new cards
        known only. After a discard, "known before" is what the player kept."""
        by_seat: dict[int, list[int]] = {}
        for e in batch:
            by_seat.setdefault(e.seat, []).append(e.card)
        for seat, cards in by_seat.items():
            new = [cards_text((c,)) for c in cards if c >= 0]
            if not new:
                continue  # nothing this viewer can see
            before = self.known[seat]
            text = f"Dealt to {self.who(seat)} "
            # After a draw the kept cards come first even when none were kept ("[] [..]").
            two = before or self.discarded
            text += f"[{' '.join(before)}] [{' '.join(new)}]" if two else f"[{' '.join(new)}]"
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
        """When a player folded, as the summary says it (``on the 4th Street``)."""
        if self.stud:
            return "on the " + _STUD_FOLDS.get(self.street, f"{self.street}th Street")
        if self.draw:
            if self.draws_done == 0:
                return "before the Draw"
            nth = "" if self.draws_total == 1 else _ORDINALS.get(self.draws_done, "") + " "
            return f"after the {nth}Draw"
        return f"on betting round {self.street}"

    def round_header(self, e: ev.BettingRoundStarted) -> str | None:
        """The ``*** ... ***`` line a betting round opens with (None: the draw's own header
        stands for it, as in PokerStars' draw histories)."""
        if self.stud:
            return _STUD_STREETS.get(e.street, f"{e.street}th STREET")
        if self.draw:
            return "DEALING HANDS" if e.street == 1 else None
        return f"BETTING ROUND {e.street}"

    def draw_header(self) -> None:
        self.draws_done += 1
        nth = _DRAW_ROUNDS.get(self.draws_done, f"DRAW {self.draws_done}")
        self.lines.append(f"*** {nth} DRAW ***")

    def passed(self, e: ev.CardsPassed) -> None:
        """Passed cards leave the giver's known cards and join the receiver's (when seen)."""
        for card in (cards_text((c,)) for c in e.cards if c >= 0):
            if card in self.known[e.seat]:
                self.known[e.seat].remove(card)
            self.known.setdefault(e.to_seat, []).append(card)

    def discard(self, e: ev.CardsDiscarded) -> None:
        """``P: discards 2 cards [..]`` (the cards only to who can see them) or ``stands pat``."""
        seen = [cards_text((c,)) for c in e.cards if c >= 0]
        own = len(seen) == len(e.cards)
        cards = f" [{' '.join(seen)}]" if own and e.cards else ""
        count = len(e.cards)
        verb = "stands pat" if not count else f"discards {count} card" + ("s" if count > 1 else "")
        self.lines.append(f"{self.who(e.seat)}: {verb}{cards}")
        known = self.known[e.seat]
        for card in seen:
            if card in known:
                known.remove(card)
        self.discarded = True

    def body(self) -> None:
        batch: list[ev.CardDealt] = []
        shown = False
        pots = [e for e in self.events if isinstance(e, ev.PotAwarded)]
        for e in self.events:
            if isinstance(e, ev.CardDealt):
                batch.append(e)
                continue
            if batch and self.discarded:  # a draw's replacements follow the discard line
                self.deal(batch)
                batch = []
            self.discarded = False
            if isinstance(e, ev.BettingRoundStarted):
                self.street, self.level = e.street, 0
                title = self.round_header(e)
                if title is not None:
                    self.lines.append(f"*** {title} ***")
            if batch:
                self.deal(batch)
                batch = []
            match e:
                case ev.GameOptionsSet():
                    self.draws_total = int(e.options.get("draws", 1) or 1)
                case ev.PhaseStarted() if self.draw and e.phase == "draw":
                    self.draw_header()
                case ev.AntePosted():
                    self.lines.append(f"{self.who(e.seat)}: posts the ante {money(e.amount)}")
                case ev.ActionTaken():
                    self.action(e)
                case ev.CommunityCardDealt():
                    self.lines.append(f"Board [{cards_text((e.card,))}]")
                case ev.CardsDiscarded():
                    self.discard(e)
                case ev.CardsPassed():
                    self.passed(e)
                    self.lines.append(describe(e, self.who, money, self.halves) or "")
                case ev.UncalledBetReturned():
                    self.lines.append(
                        f"Uncalled bet ({money(e.amount)}) returned to {self.who(e.seat)}"
                    )
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
                    text = describe(e, self.who, money, self.halves)
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
                text += f" folded {self.folded_on[seat]}"
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


class _Numbers:
    """Hand numbers given so far: refuses a second hand with a number already given."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}

    def check(self, hand: HandLog) -> None:
        number = hand_number(hand)
        other = self.seen.setdefault(number, hand.hand_id)
        if other != hand.hand_id:
            raise ValueError(f"hands {other} and {hand.hand_id} share hand number {number}")


def to_pokerstars_all(hands: Iterable[HandLog], perspective: Perspective = AUDITOR) -> str:
    """Several hands, separated by two blank lines as PokerStars files are (the hands are
    read one at a time, as they are rendered).

    Raises:
        ValueError: two of the hands would share a hand number.
    """
    numbers = _Numbers()
    texts: list[str] = []
    for hand in hands:
        numbers.check(hand)
        text = to_pokerstars(hand, perspective)
        if text is not None:
            texts.append(text)
    return "\n\n".join(texts)


_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f]')


def file_name(hand: HandLog) -> str:
    """The name PokerStars gives the file of ``hand``'s table and day:
    ``HH20260101 Table 1 - $1.00-$2.00 - USD 7 Card Stud Hi-Lo Limit.txt`` (UTC day; characters
    that no file system takes become ``-``)."""
    started = hand.started
    opts = started.options
    when = hand.started_at or datetime(1970, 1, 1)
    stakes = f"{money(opts.get('small_bet', 0))}-{money(opts.get('big_bet', 0))}"
    table = hand.table_name or hand.table_id
    name = f"HH{when:%Y%m%d} {table} - {stakes} - USD {display_name(started.variant)} Limit"
    return _UNSAFE.sub("-", name) + ".txt"


def pokerstars_files(
    hands: Iterable[HandLog], perspective: Perspective = AUDITOR
) -> dict[str, str]:
    """The hands as PokerStars writes them to disk: one file per table and (UTC) day, named by
    :func:`file_name`, its hands in the given order (read one at a time, as they are
    rendered). A file that would hold no hand the perspective was dealt into is left out.

    Raises:
        ValueError: two of the hands would share a hand number, or two tables a file name.
    """
    numbers = _Numbers()
    groups: dict[str, list[str]] = {}
    tables: dict[str, str] = {}
    for hand in hands:
        numbers.check(hand)
        name = file_name(hand)
        if tables.setdefault(name, hand.table_id) != hand.table_id:
            raise ValueError(f"tables {tables[name]} and {hand.table_id} share file {name!r}")
        text = to_pokerstars(hand, perspective)
        if text is not None:
            groups.setdefault(name, []).append(text)
    return {name: "\n\n".join(texts) for name, texts in groups.items()}
