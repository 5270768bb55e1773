"""PokerStars-style exports read the way PokerStars writes them, so hand-history tools take them.

The oracles are of their own:

- every line must have one of the shapes of PokerStars' published stud hi/lo and 5 Card Draw
  histories (written out below from those examples);
- PokerKit's own PokerStars parser (``pokerkit.notation.PokerStarsParser``) splits the files
  into hands and reads the header, table, seats and stacks with its regular expressions (it
  replays only No Limit Hold'em, so its game parsing is not used);
- the draw lines are worked out from the omniscient events by following each player's cards;
- the files per table and day are checked against the hands' own tables and start times.

Each oracle is shown to catch a planted bug.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from pokerkit.notation import PokerStarsParser

from riverboat.audit.synthetic import play_archive
from riverboat.engine import events as ev
from riverboat.engine.cards import card_str
from riverboat.engine.commands import StartHand
from riverboat.engine.events import SeatEntry
from riverboat.engine.game import step
from riverboat.engine.options import dealers_choice_options
from riverboat.history import (
    HandLog,
    Perspective,
    hand_from_events,
    hands_from_archive,
    pokerstars_files,
    to_pokerstars,
    to_pokerstars_all,
)
from riverboat.history import pokerstars as ps_module
from tests.unit.history.test_history_dealers_choice import random_command

_MONEY = r"\$\d+\.\d\d"
_CARDS = r"\[(?:[2-9TJQKA][cdhs](?: [2-9TJQKA][cdhs])*)\]"
_NAME = r"\S+"
# The line shapes of PokerStars' stud hi/lo and 5 Card Draw hand histories, as its published
# examples have them (header, table and seat lines, antes, street and draw headers, dealing,
# actions, draws, showdown, collection and summary).
SHAPES = [
    rf"PokerStars Hand #\d+:  (7 Card Stud Hi/Lo|5 Card Draw) Limit \({_MONEY}/{_MONEY} USD\)"
    r" - \d{4}/\d\d/\d\d \d\d:\d\d:\d\d [A-Z]+",
    r"Table '[^']+' \d+-max( Seat #\d+ is the button)?",
    rf"Seat \d+: {_NAME} \({_MONEY} in chips\)",
    rf"{_NAME}: posts the ante {_MONEY}",
    r"\*\*\* (3rd STREET|4th STREET|5th STREET|6th STREET|RIVER|SHOW DOWN|SUMMARY) \*\*\*",
    r"\*\*\* (DEALING HANDS|FIRST DRAW|SECOND DRAW|THIRD DRAW) \*\*\*",
    rf"Dealt to {_NAME} {_CARDS}( {_CARDS})?",
    rf"Dealt to {_NAME} \[\] {_CARDS}",  # a player who discarded all five cards
    rf"{_NAME}: (brings in for|completes it to|bets|calls) {_MONEY}( and is all-in)?",
    rf"{_NAME}: raises {_MONEY} to {_MONEY}( and is all-in)?",
    rf"{_NAME}: (checks|folds|stands pat)",
    rf"{_NAME}: discards [1-5] cards?( {_CARDS})?",
    rf"Uncalled bet \({_MONEY}\) returned to {_NAME}",
    rf"{_NAME}: shows {_CARDS} \(HI: [^;()]+(; LO: [^()]+)?\)",
    rf"{_NAME} collected {_MONEY} from (pot|main pot|side pot-\d+)",
    rf"Total pot {_MONEY}( Main pot {_MONEY}\.)?( Side pot-\d+ {_MONEY}\.)* \| Rake {_MONEY}",
    rf"Seat \d+: {_NAME} folded (on the (3rd|4th|5th|6th) Street|on the River"
    r"|before the Draw|after the (1st |2nd |3rd )?Draw)",
    rf"Seat \d+: {_NAME} showed {_CARDS} and (won \({_MONEY}\)|lost) with HI: .+",
    rf"Seat \d+: {_NAME} collected \({_MONEY}\)",
]
_SHAPES = [re.compile(s) for s in SHAPES]


def odd_lines(text: str) -> list[str]:
    """The lines of ``text`` that have none of PokerStars' shapes (blank separators aside)."""
    return [
        line for line in text.splitlines() if line and not any(s.fullmatch(line) for s in _SHAPES)
    ]


def play_draw(seed: int, draws: int, players: int = 4) -> list[ev.Event]:
    """One hand of five-card draw (``draws`` draws) played by random legal commands."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    seats = tuple(SeatEntry(k, f"p{k}", 3000) for k in range(1, players + 1))
    start = StartHand(
        f"draw-{draws}-{seed}",
        "draw",
        dealers_choice_options(),
        1,
        seats,
        tuple(deck),
        game_options={"draws": draws},
    )
    events, state = step(None, start)
    out = list(events)
    while not state.finished:
        new, state = step(state, random_command(state, rng), tuple(deck))
        out.extend(new)
    return out


@pytest.fixture(scope="module")
def room_hands() -> list[HandLog]:
    """Stud hi/lo hands of two tables played by the real table aggregate and engine."""
    return [h for h in hands_from_archive(play_archive(tables=2, hands=12, seed=34)) if h.finished]


@pytest.fixture(scope="module")
def draw_hands() -> list[HandLog]:
    """Five-card draw hands with one and with two draws."""
    return [
        hand_from_events(play_draw(seed, draws), table_id="dc", table_name="Draw table")
        for draws in (1, 2)
        for seed in range(12)
    ]


def views(hand: HandLog) -> list[Perspective]:
    return [Perspective(None)] + [Perspective(s.player) for s in hand.started.seats]


def test_every_line_has_a_pokerstars_shape(
    room_hands: list[HandLog], draw_hands: list[HandLog]
) -> None:
    checked = 0
    for hand in room_hands + draw_hands:
        for view in views(hand):
            text = to_pokerstars(hand, view) or ""
            assert not odd_lines(text), (hand.hand_id, view, odd_lines(text), text)
            checked += 1
    assert checked >= 100


def test_the_shape_oracle_catches_a_line_pokerstars_would_not_write(
    draw_hands: list[HandLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The layout before this fix: betting-round headers and a "draw phase" sentence.
    monkeypatch.setattr(
        ps_module._Text, "round_header", lambda self, e: f"BETTING ROUND {e.street}"
    )
    text = to_pokerstars(draw_hands[0]) or ""
    assert "*** BETTING ROUND 1 ***" in odd_lines(text)


def test_hand_numbers_are_numbers_the_same_in_every_export(
    room_hands: list[HandLog], draw_hands: list[HandLog]
) -> None:
    header = re.compile(r"^PokerStars Hand #(\d+):  ", re.MULTILINE)
    by_hand: dict[str, set[int]] = {}
    for hand in room_hands + draw_hands:
        for view in views(hand):
            found = header.findall(to_pokerstars(hand, view) or "")
            assert len(found) == 1
            by_hand.setdefault(hand.hand_id, set()).add(int(found[0]))
    # The same hand has the same number alone, in a set, from any seat; hands differ.
    assert all(len(numbers) == 1 for numbers in by_hand.values())
    numbers = [next(iter(n)) for n in by_hand.values()]
    assert len(set(numbers)) == len(numbers) == len(room_hands) + len(draw_hands)
    together = [int(n) for n in header.findall(to_pokerstars_all(room_hands))]
    assert together == [next(iter(by_hand[h.hand_id])) for h in room_hands]
    # ...and it fits the 64-bit integers (and JavaScript numbers) of the tools that store it.
    assert all(0 <= n < 2**53 for n in numbers)


def test_a_hand_number_ends_with_the_tables_own_number(room_hands: list[HandLog]) -> None:
    """The number people read: the last seven digits are the hand's number at its table (its
    place among the table's hands in log order, counted here), the eight before them the
    same for every hand of a table and different from table to table."""
    header = re.compile(r"^PokerStars Hand #(\d+):  ", re.MULTILINE)
    tables: dict[str, list[HandLog]] = {}
    for hand in sorted(room_hands, key=lambda h: h.first_version):
        tables.setdefault(hand.table_id, []).append(hand)
    assert len(tables) == 2
    prefixes: dict[str, set[str]] = {}
    for table_id, hands in tables.items():
        # Every hand of the archive was dealt and finished: the k-th is the table's hand k.
        for k, hand in enumerate(hands, start=1):
            [number] = header.findall(to_pokerstars(hand) or "")
            assert len(number) == 15 and number[8:] == f"{k:07d}", (table_id, k, number)
            prefixes.setdefault(table_id, set()).add(number[:8])
            assert ps_module.table_hand_number(table_id, int(number)) == k
            other = next(t for t in tables if t != table_id)
            assert ps_module.table_hand_number(other, int(number)) is None
    assert all(len(p) == 1 for p in prefixes.values())
    assert len(set.union(*prefixes.values())) == 2


def test_the_number_oracle_catches_a_number_from_the_hand_id_alone(
    room_hands: list[HandLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The numbering this replaced: digits from the SHA-256 of the hand id, nothing to read.
    monkeypatch.setattr(
        ps_module, "hand_number", lambda hand: ps_module._digest(hand.hand_id) % 10**15
    )
    with pytest.raises(AssertionError):
        test_a_hand_number_ends_with_the_tables_own_number(room_hands)


def test_two_hands_sharing_a_number_are_refused(
    room_hands: list[HandLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ps_module, "hand_number", lambda hand: 7)  # a planted collision
    with pytest.raises(ValueError, match="share hand number 7"):
        to_pokerstars_all(room_hands[:2])
    with pytest.raises(ValueError, match="share hand number 7"):
        pokerstars_files(room_hands[:2])


def pokerkit_reads(text: str, hands: list[HandLog]) -> None:
    """PokerKit's PokerStars parser, applied to ``text`` (the export of ``hands``), splits it
    into the hands and reads each one's number, table, seats and starting stacks as ours."""
    parser = PokerStarsParser()
    blocks = parser.HAND.findall(text)
    assert len(blocks) == len(hands)
    for block, hand in zip(blocks, hands, strict=True):
        pattern, convert = parser.VARIABLES["hand"]
        number = pattern.search(block)
        assert number is not None and convert is not None
        assert str(convert(number["hand"])) == block.split("#", 1)[1].split(":", 1)[0]
        table = parser.VARIABLES["table"][0].search(block)
        assert table is not None and table["table"] == (hand.table_name or hand.table_id)
        seats = {}
        stacks = {}
        for line in block.splitlines():
            if (m := parser.SEATS.search(line)) and " in chips)" in line:
                seats[m["player"]] = int(m["seat"])
            if m := parser.STARTING_STACKS.search(line):
                stacks[m["player"]] = int(Decimal(m["starting_stack"]) * 100)
        assert seats == {s.player: s.seat for s in hand.started.seats}
        assert stacks == {s.player: s.stack for s in hand.started.seats}
        if hand.started.variant == "draw":  # a button game: PokerKit finds the button
            final = parser.FINAL_SEAT.search(block)
            assert final is not None and int(final["final_seat"]) == hand.started.button
            count = parser.VARIABLES["seat_count"][0].search(block)
            assert count is not None and int(count["seat_count"]) == 8
        when = parser.DATETIME.search(block)
        started = hand.started_at or datetime(1970, 1, 1)
        assert when is not None
        assert (int(when["year"]), int(when["month"]), int(when["day"])) == (
            started.year,
            started.month,
            started.day,
        )


def test_pokerkits_pokerstars_parser_reads_the_exports(
    room_hands: list[HandLog], draw_hands: list[HandLog]
) -> None:
    pokerkit_reads(to_pokerstars_all(room_hands), room_hands)
    pokerkit_reads(to_pokerstars_all(draw_hands), draw_hands)
    player = room_hands[0].started.seats[0].player
    mine = [h for h in room_hands if h.seat_of(player) is not None]
    pokerkit_reads(to_pokerstars_all(mine, Perspective(player)), mine)


def test_pokerkit_oracle_catches_a_missing_separator(
    room_hands: list[HandLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = to_pokerstars_all(room_hands).replace("\n\n\nPokerStars", "\nPokerStars")
    with pytest.raises(AssertionError):
        pokerkit_reads(text, room_hands)


def expected_draw_lines(hand: HandLog, viewer: int | None) -> list[tuple[str, str | None]]:
    """For each draw of the hand: the discard line and the ``Dealt to`` line that must follow
    it (None: no line may follow for that player), as ``viewer`` (None: the auditor) sees them,
    worked out by following each player's cards through the omniscient events."""
    name = {s.seat: s.player for s in hand.started.seats}
    held: dict[int, list[int]] = {s.seat: [] for s in hand.started.seats}
    out: list[tuple[str, str | None]] = []
    pending: tuple[int, list[int]] | None = None  # (seat, kept cards) awaiting replacements
    new: list[int] = []

    def close() -> None:
        nonlocal pending, new
        if pending is not None:
            seat, kept = pending
            line = out[-1][0]
            mine = viewer is None or viewer == seat
            dealt = (
                f"Dealt to {name[seat]} [{' '.join(card_str(c) for c in kept)}] "
                f"[{' '.join(card_str(c) for c in new)}]"
            )
            out[-1] = (line, dealt if mine and new else None)
        pending, new = None, []

    for e in hand.events:
        if isinstance(e, ev.CardDealt):
            held[e.seat].append(e.card)
            if pending is not None and pending[0] == e.seat:
                new.append(e.card)
            continue
        close()
        if isinstance(e, ev.CardsDiscarded):
            for card in e.cards:
                held[e.seat].remove(card)
            count = len(e.cards)
            mine = viewer is None or viewer == e.seat
            if not count:
                out.append((f"{name[e.seat]}: stands pat", None))
                continue
            shown = " [" + " ".join(card_str(c) for c in e.cards) + "]" if mine else ""
            plural = "s" if count > 1 else ""
            out.append((f"{name[e.seat]}: discards {count} card{plural}{shown}", None))
            pending = (e.seat, list(held[e.seat]))
    close()
    return out


def check_draw_lines(hand: HandLog, text: str, viewer: int | None) -> int:
    """Every draw is written as expected; returns how many draws were checked."""
    lines = text.splitlines()
    name = {s.seat: s.player for s in hand.started.seats}
    at = 0
    for discard, dealt in expected_draw_lines(hand, viewer):
        at = lines.index(discard, at) + 1
        follows = lines[at] if at < len(lines) else ""
        if dealt is not None:
            assert follows == dealt, (hand.hand_id, discard, follows, dealt)
        else:
            player = discard.split(":", 1)[0]
            assert not follows.startswith(f"Dealt to {player} "), (hand.hand_id, follows)
    # No discarded card is ever written as held afterwards: each Dealt-to line after a draw
    # holds exactly five cards.
    for line in lines:
        if line.startswith("Dealt to ") and "] [" in line and any(n in line for n in name.values()):
            assert len(re.findall(r"[2-9TJQKA][cdhs]", line)) == 5, line
    return len(expected_draw_lines(hand, viewer))


def test_draws_read_as_pokerstars_writes_them(draw_hands: list[HandLog]) -> None:
    draws = headers = 0
    for hand in draw_hands:
        total = 2 if hand.hand_id.startswith("draw-2-") else 1
        text = to_pokerstars(hand) or ""
        draws += check_draw_lines(hand, text, None)
        assert "*** DEALING HANDS ***" in text and "phase" not in text
        assert text.count("*** SECOND DRAW ***") <= (total - 1)
        headers += text.count(" DRAW ***")
        for entry in hand.started.seats:
            mine = to_pokerstars(hand, Perspective(entry.player)) or ""
            draws += check_draw_lines(hand, mine, entry.seat)
    assert draws >= 60 and headers >= 15
    assert any("*** SECOND DRAW ***" in (to_pokerstars(h) or "") for h in draw_hands)


def test_the_draw_oracle_catches_discards_left_in_the_hand(
    draw_hands: list[HandLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bug this replaced: the discarded cards stayed in the first brackets of "Dealt to".
    original = ps_module._Text.discard

    def keeps_discards(self: ps_module._Text, e: ev.CardsDiscarded) -> None:
        before = list(self.known[e.seat])
        original(self, e)
        self.known[e.seat][:] = before

    monkeypatch.setattr(ps_module._Text, "discard", keeps_discards)
    hand = next(
        h for h in draw_hands if any(isinstance(e, ev.CardsDiscarded) and e.cards for e in h.events)
    )
    with pytest.raises(AssertionError):
        check_draw_lines(hand, to_pokerstars(hand) or "", None)


def check_files(files: dict[str, str], hands: list[HandLog]) -> None:
    """One file per table and UTC day, named for both, holding exactly that table's hands of
    that day; worked out from the hands' own tables and start times."""
    want = Counter(
        (h.table_name or h.table_id, (h.started_at or datetime(1970, 1, 1)).strftime("%Y/%m/%d"))
        for h in hands
    )
    got: Counter[tuple[str, str]] = Counter()
    for name, text in files.items():
        kinds = set()
        for block in text.split("\n\n\n"):
            table = re.search(r"^Table '([^']+)'", block, re.MULTILINE)
            day = re.search(r" - (\d{4}/\d\d/\d\d) ", block)
            assert table is not None and day is not None
            kinds.add((table[1], day[1]))
            got[(table[1], day[1])] += 1
        assert len(kinds) == 1, name
        ((table_name, day_text),) = kinds
        assert name.startswith(f"HH{day_text.replace('/', '')} {table_name} - $")
        assert name.endswith(" Limit.txt") and "/" not in name
    assert got == want


def redated(hands: list[HandLog]) -> list[HandLog]:
    """The hands spread over three days (late-night hands land on the next UTC day)."""
    start = datetime(2026, 3, 1, 22, 0, tzinfo=UTC)
    return [
        dataclasses.replace(h, started_at=start + timedelta(hours=k)) for k, h in enumerate(hands)
    ]


def test_one_file_per_table_and_day(room_hands: list[HandLog]) -> None:
    hands = redated(room_hands)
    files = pokerstars_files(hands)
    check_files(files, hands)
    assert len(files) >= 3
    player = hands[0].started.seats[0].player
    mine = [h for h in hands if h.seat_of(player) is not None]
    check_files(pokerstars_files(hands, Perspective(player)), mine)


def test_the_file_oracle_catches_days_run_together(
    room_hands: list[HandLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    hands = redated(room_hands)
    monkeypatch.setattr(
        ps_module, "file_name", lambda hand: f"HH20260301 {hand.table_name} - $1 Limit.txt"
    )
    with pytest.raises(AssertionError):
        check_files(pokerstars_files(hands), hands)
