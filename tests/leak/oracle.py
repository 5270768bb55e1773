"""What each viewer may know, worked out from a table's raw log by the rules of information
flow alone, and checks of everything a viewer received against it.

This is the leak battery's oracle. It is written from the rules, not from the code under test:
it uses neither ``riverboat.engine.visibility`` nor the view builders (``riverboat.table.views``,
``services/table/viewpb.py``), only the raw events and the protobuf codec. A viewer (a seat, or
0 for an observer) may know a card when it was dealt to them, dealt face up, passed to or by
them, turned up (rolled, exposed, paid for, a table card, eliminated face up) or shown down.
Beyond single cards, nothing about where another player's hidden cards are may show:

- every event reaches a viewer as the rules redact it (:func:`expected_event`): someone else's
  face-down cards, discards, cards put down to pass, stacking order and sealed declaration
  hidden (how many cards stays visible), a pass only to its giver and receiver, the discards
  sent for a reshuffle to nobody, someone else's shown hand in canonical order (highest first),
  never the order it was held in, a client seed revealed before the lock (CRV1) only to its
  sender;
- in a view, another player's row is the public row (:class:`Facts.public`): face-up cards as
  they came up and a blank per face-down card, the same for every viewer, a passer included;
  a folded row is empty; a shown row has its blanks filled highest first. Only the viewer's
  own row has their cards, in their own order;
- every card named anywhere in a view is one the viewer knows; another player's declaration
  is empty until all are revealed;
- error messages name no card but the ones the request itself named, and read the same
  wherever the named card is; log lines name no card at all; a player's hand-history export
  names only cards they know, and a line about someone else's move only public ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from google.protobuf.message import Message

from riverboat.engine import events as ev
from riverboat.engine.cards import card_str
from riverboat.eventcodec import EventMeta, event_to_pb
from riverboat.table.events import (
    AnyEvent,
    ClientSeedSent,
    HandCommitted,
    HandVoided,
    SeedsLocked,
)
from riverboat.v1 import table_pb2

#: A card written as text, not inside a longer word (ids and hashes hold letters and digits).
CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][cdhs])(?![0-9A-Za-z])")
_IS_CARD = re.compile(r"[2-9TJQKA][cdhs]")
#: View fields naming cards that are not anyone's: every card of a wild rank (public).
_NOT_HELD_FIELDS = frozenset({"wild_cards"})

Row = tuple[tuple[int | None, bool], ...]


def canonical(cards: Iterable[int]) -> tuple[int, ...]:
    """The order that says nothing but what the cards are: highest first."""
    return tuple(sorted(cards, reverse=True))


@dataclass(frozen=True)
class Facts:
    """The current hand at one version of the log, as the oracle works it out."""

    hand_id: str = ""
    #: Dealt and not over.
    live: bool = False
    voided: bool = False
    #: Each seat's cards as held, in the holder's order (the truth).
    held: Mapping[int, Row] = field(default_factory=dict)
    #: Each seat's row as anyone but its holder may see it.
    public: Mapping[int, Row] = field(default_factory=dict)
    folded: frozenset[int] = frozenset()
    #: Cards anyone may know in this hand.
    public_cards: frozenset[int] = frozenset()
    #: Cards each seat has held in this hand (dealt to it, passed to it).
    ever_held: Mapping[int, frozenset[int]] = field(default_factory=dict)
    sealed: Mapping[int, str] = field(default_factory=dict)
    revealed: bool = False

    def knows(self, viewer: int) -> frozenset[int]:
        """Every card ``viewer`` may know at this point of the hand."""
        return self.public_cards | self.ever_held.get(viewer, frozenset())


class Truth:
    """The facts after every version of a table's raw log (``batches[k]`` is version k+1);
    :meth:`add` appends a version as it is written."""

    def __init__(self, batches: Sequence[Sequence[AnyEvent]] = ()) -> None:
        self.batches: list[tuple[AnyEvent, ...]] = []
        self.facts: list[Facts] = [Facts()]
        #: CRV1: (version, event index) -> the public dealing index a CardDealt must carry,
        #: counted forward here (every card taken is the next one of the hand).
        self.deal_index: dict[tuple[int, int], int] = {}
        self._cursor = 0
        self._crv1 = False
        #: Hand id -> the facts once it was over (for the exports).
        self.at_end: dict[str, Facts] = {}
        for batch in batches:
            self.add(batch)

    def add(self, batch: Sequence[AnyEvent]) -> None:
        """The next version's events."""
        facts = self.facts[-1]
        version = len(self.batches) + 1
        for k, event in enumerate(batch):
            facts = _apply(facts, event)
            self._count(version, k, event)
        self.batches.append(tuple(batch))
        self.facts.append(facts)
        if facts.hand_id:
            self.at_end[facts.hand_id] = facts

    def _count(self, version: int, k: int, event: AnyEvent) -> None:
        if isinstance(event, HandCommitted):
            self._crv1 = False
        elif isinstance(event, SeedsLocked):
            self._crv1 = True
        elif isinstance(event, ev.HandStarted):
            self._cursor = 0
        elif isinstance(event, ev.CardDealt | ev.CommunityCardDealt):
            if isinstance(event, ev.CardDealt) and self._crv1:
                self.deal_index[(version, k)] = self._cursor + 1
            self._cursor += 1
        elif isinstance(event, ev.TableRowDealt):
            self._cursor += event.count
        elif isinstance(event, ev.TableCardTurned) and event.from_stock:
            self._cursor += 1

    def at(self, version: int) -> Facts:
        """The facts after ``version`` (0: before anything)."""
        return self.facts[version]


def _row_append(row: Row, card: int | None, up: bool) -> Row:
    return (*row, (card, up))


def _remove_blanks(row: Row, count: int) -> Row:
    """A row less ``count`` of its blanks (the last ones: any blank is like any other)."""
    out = list(row)
    for _ in range(count):
        at = max(k for k, (c, _) in enumerate(out) if c is None)
        del out[at]
    return tuple(out)


def _apply(f: Facts, e: AnyEvent) -> Facts:
    """The facts after one event, by the rules of information flow."""
    match e:
        case ev.HandStarted():
            seats = [s.seat for s in e.seats]
            return Facts(
                hand_id=e.hand_id,
                live=True,
                held={s: () for s in seats},
                public={s: () for s in seats},
                ever_held={s: frozenset() for s in seats},
            )
        case ev.CardDealt():
            shown = e.card if e.face_up else None
            return replace(
                f,
                held={**f.held, e.seat: _row_append(f.held[e.seat], e.card, e.face_up)},
                public={**f.public, e.seat: _row_append(f.public[e.seat], shown, e.face_up)},
                ever_held={**f.ever_held, e.seat: f.ever_held[e.seat] | {e.card}},
                public_cards=(f.public_cards | {e.card}) if e.face_up else f.public_cards,
            )
        case ev.CommunityCardDealt():
            return replace(f, public_cards=f.public_cards | {e.card})
        case ev.CardTurnedUp():
            row = list(f.held[e.seat])
            k = next(k for k, (c, _) in enumerate(row) if c == e.card)
            row[k] = (e.card, True)
            prow = list(f.public[e.seat])
            # Everyone sees where a card turned up lies (Anaconda's next card of the stack,
            # the card a 15-35 player exposes): it shows there, and says nothing of the rest.
            prow[k] = (e.card, True)
            return replace(
                f,
                held={**f.held, e.seat: tuple(row)},
                public={**f.public, e.seat: tuple(prow)},
                public_cards=f.public_cards | {e.card},
            )
        case ev.CardsDiscarded() | ev.CardsToPass():
            gone = set(e.cards)
            kept: Row = tuple(x for x in f.held[e.seat] if x[0] not in gone)
            seen = _remove_blanks(f.public[e.seat], len(e.cards))
            return replace(f, held={**f.held, e.seat: kept}, public={**f.public, e.seat: seen})
        case ev.CardsEliminated():
            gone = set(e.cards)
            left: Row = tuple(x for x in f.held[e.seat] if x[0] not in gone)
            up_gone = [x for x in f.public[e.seat] if x[0] in gone]
            seen = tuple(x for x in f.public[e.seat] if x[0] not in gone)
            seen = _remove_blanks(seen, len(e.cards) - len(up_gone))
            return replace(
                f,
                held={**f.held, e.seat: left},
                public={**f.public, e.seat: seen},
                public_cards=f.public_cards | gone,
            )
        case ev.CardsPassed():
            to = e.to_seat
            got: Row = f.held[to] + tuple((c, False) for c in e.cards)
            blanks: Row = f.public[to] + ((None, False),) * len(e.cards)
            return replace(
                f,
                held={**f.held, to: got},
                public={**f.public, to: blanks},
                ever_held={**f.ever_held, to: f.ever_held[to] | set(e.cards)},
            )
        case ev.CardsOrdered():
            ups = dict(f.held[e.seat])
            stacked: Row = tuple((c, ups[c]) for c in e.cards)
            return replace(f, held={**f.held, e.seat: stacked})  # the public row: still blanks
        case ev.CardPaymentPosted() | ev.TableCardTurned():
            return replace(f, public_cards=f.public_cards | {e.card})
        case ev.HandShown():
            before = f.public[e.seat]
            down = iter(canonical(c for c in e.cards if (c, True) not in before))
            filled: Row = tuple((c, up) if c is not None else (next(down), up) for c, up in before)
            return replace(
                f,
                public={**f.public, e.seat: filled},
                public_cards=f.public_cards | set(e.cards),
            )
        case ev.ActionTaken() if e.action == "fold":
            return replace(f, folded=f.folded | {e.seat})
        case ev.MatchDeclined():
            return replace(f, folded=f.folded | {e.seat})
        case ev.DeclarationSealed():
            return replace(f, sealed={**f.sealed, e.seat: e.choice})
        case ev.DeclarationsRevealed():
            return replace(f, revealed=True)
        case ev.HandEnded():
            return replace(f, live=False)
        case HandVoided():
            if f.hand_id == e.hand_id:
                return replace(f, live=False, voided=True)
            # A committed hand never dealt: the table is left with no hand at all (the one
            # before, over, is no longer shown), so nothing of any hand may show.
            return Facts()
    return f


def expected_event(e: AnyEvent, viewer: int) -> AnyEvent:
    """``e`` as ``viewer`` may receive it, by the rules (see the module docstring)."""
    hidden = -1
    match e:
        case ev.CardDealt() if not e.face_up and e.seat != viewer:
            return replace(e, card=hidden)
        case ev.CardsDiscarded() | ev.CardsToPass() | ev.CardsOrdered() if e.seat != viewer:
            return replace(e, cards=(hidden,) * len(e.cards))
        case ev.CardsPassed() if viewer not in (e.seat, e.to_seat):
            return replace(e, cards=(hidden,) * len(e.cards))
        case ev.DeclarationSealed() if e.seat != viewer:
            return replace(e, choice="")
        case ev.ReshuffleRequested():
            return replace(e, cards=(hidden,) * len(e.cards))
        case ev.HandShown() if e.seat != viewer:
            return replace(e, cards=canonical(e.cards))
        case ClientSeedSent() if e.seat != viewer:
            return replace(e, seed=b"")
    return e


_META = EventMeta("", 0, 0, "", "", datetime(1970, 1, 1, tzinfo=UTC))


def _payload(envelope: Message) -> tuple[str, bytes]:
    kind = envelope.WhichOneof("payload")
    return kind, getattr(envelope, kind).SerializeToString(deterministic=True)


@dataclass
class Report:
    """What the checks found: leaks (described) and how much was checked."""

    leaks: list[str] = field(default_factory=list)
    events: int = 0
    views: int = 0
    rows: int = 0
    cards: int = 0
    errors: int = 0
    log_lines: int = 0
    exports: int = 0

    def leak(self, text: str) -> None:
        if len(self.leaks) < 200:  # enough to read; the count is what matters
            self.leaks.append(text)


class Checker:
    """Checks what viewers of one table received against the :class:`Truth` of its log."""

    def __init__(self, truth: Truth, report: Report | None = None) -> None:
        self.truth = truth
        self.report = report or Report()
        self._expected: dict[tuple[int, int], list[tuple[str, bytes]]] = {}
        self._views_seen = 0
        self._rows: dict[tuple[int, int, bool], tuple[tuple[str | None, bool], ...]] = {}

    # --- events ---------------------------------------------------------------------------

    def _expected_payloads(self, version: int, viewer: int) -> list[tuple[str, bytes]]:
        key = (version, viewer)
        got = self._expected.get(key)
        if got is None:
            batch = self.truth.batches[version - 1]
            plain = self._expected.get((version, -1))
            if plain is None:
                plain = self._expected[(version, -1)] = [
                    self._pb(e, version, k) for k, e in enumerate(batch)
                ]
            got = []
            for k, (e, whole) in enumerate(zip(batch, plain, strict=True)):
                shown = expected_event(e, viewer)
                got.append(whole if shown is e else self._pb(shown, version, k))
            self._expected[key] = got
        return got

    def _pb(self, event: AnyEvent, version: int, k: int) -> tuple[str, bytes]:
        env = event_to_pb(event, _META)
        index = self.truth.deal_index.get((version, k))
        if index is not None:
            env.card_dealt.deal_index = index
        return _payload(env)

    def _indexed(self, env: Message, version: int, k: int) -> tuple[str, bytes]:
        """A received event's payload; a CardDealt without its (public) dealing index, as
        replays of hands before the table's current one come, is given the true one."""
        index = self.truth.deal_index.get((version, k))
        dealt = index is not None and env.WhichOneof("payload") == "card_dealt"
        if dealt and not env.card_dealt.deal_index:  # type: ignore[attr-defined]
            copy = type(env)()
            copy.CopyFrom(env)
            copy.card_dealt.deal_index = index  # type: ignore[attr-defined]
            return _payload(copy)
        return _payload(env)

    def update(self, viewer: int, update: table_pb2.WatchResponse, where: str) -> None:
        """One Watch message: its events as the rules redact them, and its view."""
        version = int(update.version)
        if update.events:
            if not 1 <= version <= len(self.truth.batches):
                self.report.leak(f"{where}: events of v{version}, not in the log")
            else:
                expected = self._expected_payloads(version, viewer)
                got = [self._indexed(env, version, k) for k, env in enumerate(update.events)]
                self.report.events += len(got)
                if got != expected:
                    for k, (a, b) in enumerate(zip(got, expected, strict=False)):
                        if a != b:
                            self.report.leak(
                                f"{where}: seat {viewer} got event {k} of v{version} ({a[0]}) "
                                "other than the rules allow"
                            )
                    if len(got) != len(expected):
                        self.report.leak(
                            f"{where}: v{version} has {len(got)} events, not {len(expected)}"
                        )
        if update.HasField("view"):
            self.view(viewer, update.view, where)

    # --- views ----------------------------------------------------------------------------

    def view(self, viewer: int, view: table_pb2.TableView, where: str) -> None:
        """One view (in a Watch message, an Act reply or GetTableView)."""
        version = int(view.version)
        if not 0 <= version <= len(self.truth.batches):
            self.report.leak(f"{where}: a view at v{version}, not in the log")
            return
        facts = self.truth.at(version)
        self.report.views += 1
        # Every field naming cards: the rows are compared whole below (a row as the rules
        # allow holds only cards the viewer knows); one view in ten is walked whole, so a
        # card in a field added later is caught too.
        self._views_seen += 1
        named = [*view.community, *view.table_cards]
        if self._views_seen % 10 == 1:
            named = _card_strings(view)
        if named:
            knows = {card_str(c) for c in facts.knows(viewer)}
            for text in named:
                self.report.cards += 1
                if text not in knows:
                    self.report.leak(f"{where}: seat {viewer} saw {text} at v{version}")
        # CRV1: a proof opens its own card only, one the viewer may know.
        if view.proofs:
            knows = {card_str(c) for c in facts.knows(viewer)}
            for proof in view.proofs:
                self.report.cards += 1
                opened = proof.opening[1] if len(proof.opening) > 1 else -1
                if proof.card not in knows or not 0 <= opened < 52:
                    self.report.leak(f"{where}: seat {viewer} got a proof of {proof.card}")
                elif card_str(opened) != proof.card:
                    self.report.leak(
                        f"{where}: seat {viewer}'s proof of {proof.card} opens {card_str(opened)}"
                    )
        # (A voided hand is gone from the table: its views may name no hand.)
        gone = facts.voided and not view.hand_id
        if view.hand_id != facts.hand_id and facts.hand_id and not gone:
            self.report.leak(f"{where}: v{version} names hand {view.hand_id}, not {facts.hand_id}")
        if view.hand_in_progress != facts.live:
            self.report.leak(
                f"{where}: v{version} says hand_in_progress={view.hand_in_progress} for "
                f"{facts.hand_id} (live: {facts.live})"
            )
        for seat in view.seats:
            self._seat(viewer, seat, facts, f"{where} v{version}")

    def _seat(self, viewer: int, seat: table_pb2.SeatView, facts: Facts, where: str) -> None:
        s = seat.seat
        got = tuple((c.card or None, c.face_up) for c in seat.cards)
        expected = self._row(facts, s, s == viewer)
        self.report.rows += 1
        self.report.cards += len(got)
        if got != expected and not facts.voided:
            self.report.leak(
                f"{where}: seat {viewer} sees seat {s}'s row as {_draw(got)}, "
                f"the rules allow {_draw(expected)}"
            )
        if s != viewer and seat.declaration and not facts.revealed:
            self.report.leak(f"{where}: seat {viewer} saw seat {s}'s sealed declaration")

    def _row(self, facts: Facts, seat: int, own: bool) -> tuple[tuple[str | None, bool], ...]:
        """The row of ``seat`` as the rules show it: to its holder (``own``), or to anyone."""
        key = (id(facts), seat, own)
        row = self._rows.get(key)
        if row is None:
            if seat not in facts.held:
                row = ()
            elif own:
                row = tuple((card_str(c), up) for c, up in facts.held[seat] if c is not None)
            elif seat in facts.folded:
                row = ()
            else:
                row = tuple(
                    (None if c is None else card_str(c), up) for c, up in facts.public[seat]
                )
            if len(self._rows) > 10_000:
                self._rows.clear()
            self._rows[key] = row
        return row

    # --- errors, log lines, exports -------------------------------------------------------

    def error(self, viewer: int, named: Sequence[str], details: str, where: str) -> str:
        """An error's text: no card but the request's own; returns the text with those masked
        (to compare errors about cards in different places)."""
        self.report.errors += 1
        masked = details
        for card in named:
            masked = re.sub(rf"(?<![0-9A-Za-z]){re.escape(card)}(?![0-9A-Za-z])", "XX", masked)
        for text in CARD_TOKEN.findall(masked):
            self.report.leak(f"{where}: seat {viewer}'s error names {text}: {details!r}")
        return masked

    def log_text(self, name: str, text: str) -> None:
        """A service's log: no card value on any line."""
        for number, line in enumerate(text.splitlines(), start=1):
            self.report.log_lines += 1
            found = CARD_TOKEN.findall(line)
            if found:
                self.report.leak(f"{name}:{number} names {found}: {line[:200]}")

    def export_text(
        self, hand_id: str, viewer: int, text: str, others: Mapping[str, int], where: str
    ) -> None:
        """One hand of ``viewer``'s hand-history export: only cards they know; a line naming
        only other players (``others``: name -> seat) only public cards."""
        facts = self.truth.at_end.get(hand_id)
        if facts is None:
            self.report.leak(f"{where}: exports {hand_id}, not in the log")
            return
        self.report.exports += 1
        knows = {card_str(c) for c in facts.knows(viewer)}
        public = {card_str(c) for c in facts.public_cards}
        mine = {name for name, seat in others.items() if seat == viewer}
        for line in text.splitlines():
            cards = set(CARD_TOKEN.findall(line))
            if not cards:
                continue
            self.report.cards += len(cards)
            if cards - knows:
                self.report.leak(f"{where}: {hand_id} shows {sorted(cards - knows)}: {line!r}")
            names = {n for n in others if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", line)}
            if names and not names & mine and cards - public:
                self.report.leak(
                    f"{where}: {hand_id}, a line about {sorted(names)} shows "
                    f"{sorted(cards - public)}: {line!r}"
                )


def _draw(row: Iterable[tuple[str | None, bool]]) -> str:
    return " ".join("░░" if c is None else (c if up else f"[{c}]") for c, up in row)


def _card_strings(message: Message) -> list[str]:
    """Every string of ``message`` (recursively) that is a card, but the wild-card list."""
    out: list[str] = []
    for fd, value in message.ListFields():
        if fd.name in _NOT_HELD_FIELDS:
            continue
        if fd.type == fd.TYPE_MESSAGE:
            if fd.message_type is not None and fd.message_type.full_name.endswith(".Struct"):
                continue  # game options: numbers, words and ranks
            items = value if fd.is_repeated else [value]
            for item in items:
                out.extend(_card_strings(item))
        elif fd.type == fd.TYPE_STRING:
            items = value if fd.is_repeated else [value]
            out.extend(v for v in items if _IS_CARD.fullmatch(v))
    return out


def any_of(values: Iterable[Any]) -> bool:
    """True if any value is truthy (for readable asserts)."""
    return any(values)
