"""Audit one table: its hash chain, every hand's deck, replay and arithmetic.

:func:`audit_table` is self-contained and picklable (plain data in, plain data out), so tables
can be audited in parallel processes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime

from riverboat.audit import crv1, rbs1
from riverboat.audit.archive import StoredMessage
from riverboat.audit.chain import check_chain
from riverboat.audit.deck import DECK_EVENTS, DeckLog, HandDeck, replay_deck
from riverboat.audit.money import check_hand_money
from riverboat.audit.replay import Replayer
from riverboat.audit.report import Check, HandResult, HandStatus, TableResult, Violation
from riverboat.audit.seeds import Reveal
from riverboat.audit.tablelog import LoggedEvent, LoggedMessage, decode_log
from riverboat.engine.cards import card_str
from riverboat.engine.events import (
    ActionTaken,
    AntePosted,
    DealerUp,
    GameChosen,
    HandEnded,
    HandStarted,
    RakeTaken,
    UncalledBetReturned,
)
from riverboat.engine.events import Event as HandEvent
from riverboat.table.events import (
    HandCommitted,
    HandVoided,
    SeedCommitsLocked,
    SeedsLocked,
    TableEvent,
)

__all__ = ["HandRecord", "audit_table", "hand_numbers", "scan_hands"]

_TABLE_EVENTS = TableEvent.__args__


@dataclass(slots=True)
class HandRecord:
    """One hand as its log tells it, gathered before the replay."""

    hand_id: str
    commit: HandCommitted | None = None
    commit_at: LoggedEvent | None = None
    started: HandStarted | None = None
    started_at: LoggedEvent | None = None
    deck: DeckLog = field(default_factory=DeckLog)
    events: list[LoggedEvent] = field(default_factory=list)
    end: HandEnded | HandVoided | None = None
    #: CRV1: the locked commitments, the locked seeds, where the lock is, and whether a card
    #: came before it.
    commits: SeedCommitsLocked | None = None
    locked: SeedsLocked | None = None
    locked_at: LoggedEvent | None = None
    dealt_before_lock: bool = False
    end_time: str = ""
    start_version: int = 0
    first_version: int = 0
    last_version: int = 0


def scan_hands(log: list[LoggedMessage]) -> list[HandRecord]:
    """Each hand's commitment, deal, events and end, in log order."""
    hands: list[HandRecord] = []
    current: HandRecord | None = None

    def begin(hand_id: str, version: int) -> HandRecord:
        record = HandRecord(hand_id, first_version=version)
        hands.append(record)
        return record

    # This runs once per event: most are looked at only through their exact type.
    table_types = frozenset(_TABLE_EVENTS) | {DealerUp, GameChosen}
    boundaries = frozenset({HandCommitted, HandStarted, HandVoided})
    for m in log:
        for logged in m.events:
            event = logged.event
            if event is None:
                continue
            kind = type(event)
            if kind is SeedsLocked:
                assert isinstance(event, SeedsLocked)
                if current is not None and current.hand_id == event.hand_id and not current.end:
                    current.locked, current.locked_at = event, logged
                    current.dealt_before_lock = bool(current.deck.positions)
            elif kind is SeedCommitsLocked:
                assert isinstance(event, SeedCommitsLocked)
                if current is not None and current.hand_id == event.hand_id and not current.end:
                    current.commits = event
            elif kind in boundaries:
                if isinstance(event, HandCommitted):
                    current = begin(event.hand_id, m.version)
                    current.commit, current.commit_at = event, logged
                elif isinstance(event, HandStarted):
                    if current is None or current.hand_id != event.hand_id or current.end:
                        current = begin(event.hand_id, m.version)
                    current.started, current.start_version = event, m.version
                    current.started_at = logged
                elif isinstance(event, HandVoided):
                    if current is None or current.hand_id != event.hand_id:
                        current = begin(event.hand_id, m.version)
                    current.events.append(logged)
                    current.end, current.end_time = event, m.message.time
            elif current is None or current.end is not None or kind in table_types:
                continue
            else:
                if kind in DECK_EVENTS:
                    current.deck.feed(logged)
                current.events.append(logged)
                if isinstance(event, HandEnded):
                    current.end, current.end_time = event, m.message.time
            if current is not None:
                current.last_version = m.version
    return hands


def hand_numbers(hands: list[HandRecord]) -> dict[str, int]:
    """Each dealt hand's number at its table (1, 2, 3... in the order dealt), as the table's
    fold counts them (every ``HandStarted``) when ``hands`` start at the table's beginning; a
    hand committed and never dealt has none."""
    dealt = [h.hand_id for h in hands if h.started is not None]
    return {hand_id: number for number, hand_id in enumerate(dealt, start=1)}


def _check_deck(
    table_id: str, hand: HandRecord, reveal: Reveal | None, out: list[Violation]
) -> None:
    """The dealt cards are distinct and, with the seed revealed, the committed deck's."""

    def fail(check: Check, message: str, at: LoggedEvent | None) -> None:
        out.append(Violation(check, message, table_id, hand.hand_id, at.ref if at else None))

    for message, logged in [*hand.deck.problems, *hand.deck.duplicates()]:
        fail(Check.CARD_MISMATCH, message, logged)
    commit = hand.commit
    if commit is not None and commit.scheme == crv1.SCHEME:
        _check_lock(table_id, hand, out)
    if reveal is None:
        if isinstance(hand.end, HandEnded):
            fail(
                Check.SEED_MISSING,
                "the hand ended but its seed is not in the audit stream: its deck cannot be "
                "checked (reveal it, then export again)",
                hand.commit_at,
            )
        return
    if commit is None:
        return  # reported by the replay: dealt without a commitment
    known = (rbs1.SCHEME, crv1.SCHEME)
    if reveal.scheme != commit.scheme or commit.scheme not in known:
        fail(
            Check.SEED_RECORD,
            f"scheme {commit.scheme!r} committed, {reveal.scheme!r} revealed; the audit "
            f"knows {', '.join(known)}",
            hand.commit_at,
        )
        return
    if commit.scheme == crv1.SCHEME:
        _check_crv1(table_id, hand, reveal, out)
        return
    try:
        recomputed = rbs1.commitment(hand.hand_id, reveal.seed)
    except ValueError as exc:
        fail(Check.SEED_MISMATCH, f"the revealed seed is malformed: {exc}", hand.commit_at)
        return
    if recomputed != commit.commitment:
        fail(
            Check.SEED_MISMATCH,
            f"the revealed seed (audit stream seq {reveal.stream_sequence}) hashes to "
            f"{recomputed.hex()}, but the log committed {commit.commitment.hex()}",
            hand.commit_at,
        )
        return
    if reveal.commitment != commit.commitment:
        fail(
            Check.SEED_RECORD,
            f"the seed record states commitment {reveal.commitment.hex()[:16]}..., the log "
            f"{commit.commitment.hex()[:16]}...",
            hand.commit_at,
        )
    try:
        committed = HandDeck(
            rbs1.deck(hand.hand_id, reveal.seed),
            tuple(
                rbs1.reshuffle(hand.hand_id, reveal.seed, k, cards)
                for k, cards in enumerate(hand.deck.requests, start=1)
            ),
        ).sequence()
    except ValueError as exc:
        fail(Check.CARD_MISMATCH, f"a reshuffle cannot be derived: {exc}", hand.commit_at)
        return
    for position, (card, logged) in sorted(hand.deck.positions.items()):
        want = committed[position] if position < len(committed) else None
        if card != want:
            expected = "no card there" if want is None else card_str(want)
            fail(
                Check.CARD_MISMATCH,
                f"deck position {position}: dealt {card_str(card) if 0 <= card < 52 else card}, "
                f"the committed deck has {expected}",
                logged,
            )
            break
    timed = hand.end is not None and hand.end_time and reveal.stored_at
    if timed and _when(reveal.stored_at) < _when(hand.end_time):
        fail(
            Check.SEED_RECORD,
            f"the seed was revealed at {reveal.stored_at}, before the hand ended ({hand.end_time})",
            hand.commit_at,
        )


def _check_lock(table_id: str, hand: HandRecord, out: list[Violation]) -> None:
    """A CRV1 lock, with the audit's own derivations and no secret (docs/shuffle.md II.4):
    each drawn seed is its seat's derivation from C and R, each client's seed the one its
    locked commitment names."""
    commit, locked = hand.commit, hand.locked
    if commit is None or locked is None:
        return
    commits = {seat: c for seat, _, c in hand.commits.commits} if hand.commits else {}
    for seat, _, seed, origin in locked.seeds:
        if origin == 1:
            try:
                want = crv1.drawn(hand.hand_id, commit.commitment, commit.root, seat)
            except ValueError:
                want = b""
            if seed != want:
                out.append(
                    Violation(
                        Check.CLIENT_SEEDS,
                        f"seat {seat}'s seed is marked drawn, but it is not the seed C and R "
                        f"fix for the seat ({seed.hex()[:16]}..., not {want.hex()[:16]}...): "
                        "the table chose it",
                        table_id,
                        hand.hand_id,
                        hand.locked_at.ref if hand.locked_at else None,
                    )
                )
        elif commits.get(seat) != crv1.client_commitment(hand.hand_id, seat, seed):
            said = "no locked commitment" if seat not in commits else "another commitment"
            out.append(
                Violation(
                    Check.CLIENT_SEEDS,
                    f"seat {seat}'s seed is locked as its client's own, but the seat has {said}",
                    table_id,
                    hand.hand_id,
                    hand.locked_at.ref if hand.locked_at else None,
                )
            )


def _check_crv1(table_id: str, hand: HandRecord, reveal: Reveal, out: list[Violation]) -> None:
    """A CRV1 hand (docs/shuffle.md II.8): C, R, the lock's place, the dealing order and
    every card dealt. The openings a table hands out are functions of the seed and the deck
    position, so a dealt card equal to D[order[i]] is one whose opening the audit derives."""

    def fail(check: Check, message: str, at: LoggedEvent | None) -> None:
        out.append(Violation(check, message, table_id, hand.hand_id, at.ref if at else None))

    commit = hand.commit
    assert commit is not None
    if hand.dealt_before_lock:
        fail(
            Check.COMMITMENT_ORDER, "a card was dealt before the seeds were locked", hand.locked_at
        )
    locked = hand.locked
    if locked is None and hand.deck.positions:
        first = min(hand.deck.positions)
        fail(
            Check.COMMITMENT_ORDER,
            "cards were dealt but the client seeds were never locked",
            hand.deck.positions[first][1],
        )
        return
    try:
        derived = crv1.derive(
            hand.hand_id,
            reveal.seed,
            locked.seeds if locked is not None else (),
            hand.deck.requests,
        )
    except (ValueError, KeyError) as exc:
        fail(Check.SEED_MISMATCH, f"the hand cannot be derived: {exc}", hand.commit_at)
        return
    if derived.commitment != commit.commitment:
        fail(
            Check.SEED_MISMATCH,
            f"the revealed seed (audit stream seq {reveal.stream_sequence}) hashes to "
            f"{derived.commitment.hex()}, but the log committed {commit.commitment.hex()}",
            hand.commit_at,
        )
        return
    if derived.root != commit.root:
        fail(
            Check.SEED_MISMATCH,
            f"the revealed seed's deck has Merkle root {derived.root.hex()}, but the log "
            f"committed {commit.root.hex()}",
            hand.commit_at,
        )
        return
    if locked is None:
        return  # voided before the lock: nothing was dealt
    committed = [derived.deck[j] for j in derived.order]
    for index, (card, logged) in sorted(hand.deck.positions.items()):
        want = committed[index] if index < len(committed) else None
        if card != want:
            expected = "no card there" if want is None else card_str(want)
            where = f"deck position {derived.order[index]}" if want is not None else "no position"
            fail(
                Check.CARD_MISMATCH,
                f"{where} (card {index + 1} dealt in the locked seeds' order): dealt "
                f"{card_str(card) if 0 <= card < 52 else card}, the committed deck has {expected}",
                logged,
            )
            break


def _hand_at(hands: list[HandRecord], version: int) -> str | None:
    for hand in hands:
        if hand.first_version <= version <= hand.last_version:
            return hand.hand_id
    return None


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _summarise(table_id: str, hand: HandRecord, failed: set[str], number: int) -> HandResult:
    pot = rake = 0
    for logged in hand.events:
        event = logged.event
        if isinstance(event, AntePosted | ActionTaken):
            pot += event.amount
        elif isinstance(event, UncalledBetReturned):
            pot -= event.amount
        elif isinstance(event, RakeTaken):
            rake = event.amount
    if hand.hand_id in failed:
        status = HandStatus.FAILED
    elif isinstance(hand.end, HandVoided):
        status = HandStatus.VOIDED
    elif isinstance(hand.end, HandEnded):
        status = HandStatus.VERIFIED
    else:
        status = HandStatus.IN_PROGRESS
    return HandResult(
        table_id=table_id,
        hand_id=hand.hand_id,
        status=status,
        variant=hand.started.variant if hand.started else "",
        players=len(hand.started.seats) if hand.started else 0,
        events=len(hand.events) + (1 if hand.started else 0),
        pot=pot,
        rake=rake,
        first_version=hand.first_version,
        last_version=hand.last_version,
        number=number,
    )


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: a log decodes into hundreds of thousands of small
    acyclic objects, and the collections they trigger re-scan all of them (a third of the run
    time); reference counting still frees everything."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def audit_table(
    table_id: str, messages: list[StoredMessage], reveals: dict[str, Reveal]
) -> TableResult:
    """Every check of one table's log; ``reveals`` are its hands' seeds by hand id."""
    with no_gc():
        return _audit_table(table_id, messages, reveals)


def _audit_table(
    table_id: str, messages: list[StoredMessage], reveals: dict[str, Reveal]
) -> TableResult:
    result = TableResult(table_id, messages=len(messages))
    log, problems = decode_log(table_id, messages)
    result.events = sum(len(m.events) for m in log)
    chain_problems, head = check_chain(table_id, log)
    result.chain_head = head.hex()

    hands = scan_hands(log)
    decks = {h.hand_id: replay_deck(h.deck) for h in hands}
    replayer = Replayer(table_id, decks)
    for m in log:
        replayer.message(m)
    result.violations.extend(replayer.violations)

    hand_problems: list[Violation] = []
    for hand in hands:
        _check_deck(table_id, hand, reveals.get(hand.hand_id), hand_problems)
        if hand.started is not None:
            for p in check_hand_money(hand.started, hand.events):
                hand_problems.append(
                    Violation(
                        p.check, p.message, table_id, hand.hand_id, p.at.ref if p.at else None
                    )
                )
    result.violations.extend(hand_problems)
    failed = set(replayer.failed_hands) | {v.hand_id for v in hand_problems if v.hand_id}
    # Chain and decoding problems inside a hand's versions belong to (and fail) that hand.
    located = []
    for v in [*problems, *chain_problems]:
        hand_id = _hand_at(hands, v.at.version) if v.at is not None else None
        if hand_id is not None:
            failed.add(hand_id)
            v = Violation(v.check, v.message, v.table_id, hand_id, v.at)
        located.append(v)
    # In log order, so a reader meets the first thing that went wrong first.
    result.violations = sorted(
        [*located, *result.violations],
        key=lambda v: (
            (v.at.stream_sequence, -1 if v.at.index is None else v.at.index) if v.at else (0, -1)
        ),
    )
    # Hands are named by their number at the table (and their id) wherever the report names them.
    numbers = hand_numbers(hands)
    result.violations = [
        replace(v, hand_number=numbers.get(v.hand_id, 0)) if v.hand_id else v
        for v in result.violations
    ]
    result.hands = [_summarise(table_id, h, failed, numbers.get(h.hand_id, 0)) for h in hands]
    return result


def hand_events_of(record: HandRecord) -> list[HandEvent]:
    """The engine events of a hand (HandStarted first), for exports."""
    out: list[HandEvent] = [record.started] if record.started else []
    out.extend(e.event for e in record.events if not isinstance(e.event, HandVoided | None))  # type: ignore[misc]
    return out
