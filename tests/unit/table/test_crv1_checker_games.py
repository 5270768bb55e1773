"""A player's own CRV1 check (``riverboat.proofcheck.CardChecker``) over the games whose cards
move in ways a plain deal does not: a draw's reshuffle (cards dealt a second time, from deck
positions the views publish), Anaconda's passes (a card dealt out of the receiver's sight),
community cards (stud's 7th street with eight players, Chicago) and a hand voided part-way.

Hands are played in process through the table aggregate, every viewer's messages built by the
table service's own view builder and committed under CRV1 as the service commits them
(``tests/leak/inprocess.py``); each viewer's checker gets exactly its own Watch messages. The
oracle: the rules of the games (which cards a viewer holds or sees) and the checker's verdicts;
each scenario also shows the checker failing when the table bends what it is about.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from riverboat.engine import events as ev
from riverboat.engine.cards import card_str
from riverboat.proofcheck import CardCheck, CardChecker, Verdict
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.events import HandVoided
from riverboat.v1 import table_pb2
from tests.leak.inprocess import InProcessTable
from tests.leak.oracle import Report

pytestmark = pytest.mark.timeout(120)


def _table(variant: str, players: int) -> InProcessTable:
    report = Report()
    t = InProcessTable(f"{variant}-t", variant, players, report, check_proofs=True)
    t.report = report  # type: ignore[attr-defined]
    return t


def _choose(t: InProcessTable, game: str, options: dict[str, Any] | None = None) -> None:
    events = choice.call_dealer(t.state)
    t.do(events)
    up = next(e for e in events if isinstance(e, ev.DealerUp))
    if not up.redeal:
        t.do(choice.choose_game(t.state, seat=up.seat, game=game, options=options))


def _checks(t: InProcessTable) -> Iterator[tuple[int, CardCheck]]:
    assert t.checkers is not None
    for seat, checker in t.checkers.items():
        for check in checker.checks:
            yield seat, check


def _no_failure(t: InProcessTable) -> None:
    failed = [(seat, c.line()) for seat, c in _checks(t) if c.verdict is Verdict.FAILED]
    assert failed == []
    # The leak oracle's verdict too: a proof opens only a card the viewer may know.
    assert t.report.leaks == []  # type: ignore[attr-defined]


def _replayed(t: InProcessTable, seat: int, bend: Any = None) -> CardChecker:
    """A fresh checker fed ``seat``'s messages again, each first passed through ``bend``."""
    checker = CardChecker()
    for message in t.messages[seat]:
        copy = table_pb2.WatchResponse()
        copy.CopyFrom(message)
        if bend is not None:
            bend(copy)
        checker.update(copy)
    return checker


def test_reshuffled_cards_verify_against_their_rounds_positions() -> None:
    rng = random.Random(7)
    t = _table("dealers_choice", 7)
    for n in range(40):
        _choose(t, "draw", {"draws": 2})
        t.deal(f"draw-{n}", rng)
        t.play_out(rng, calling=True)
        if any(c.deal_index >= 52 for _, c in _checks(t)):
            break
    again = [(s, c) for s, c in _checks(t) if c.deal_index >= 52 and c.card]
    assert again, "no reshuffled card was dealt"
    assert all(c.verdict is Verdict.VERIFIED and c.witnessed for _, c in again)
    _no_failure(t)
    seat, check = again[-1]

    def without_its_position(message: table_pb2.WatchResponse) -> None:
        for r in message.view.reshuffles:
            if check.position in r.positions:
                r.positions.remove(check.position)

    failed = _replayed(t, seat, without_its_position).failures
    assert any(f.card == check.card and "reshuffle round" in f.reason for f in failed), failed
    assert _replayed(t, seat).failures == []  # the same messages, unbent, still verify


def test_a_passed_card_verifies_for_its_receiver() -> None:
    rng = random.Random(3)
    t = _table("dealers_choice", 5)
    for n in range(6):
        _choose(t, "anaconda")
        t.deal(f"ana-{n}", rng)
        t.play_out(rng, calling=True)
    passed = [
        (e.to_seat, card_str(c))
        for batch in t.truth.batches
        for e in batch
        if isinstance(e, ev.CardsPassed)
        for c in e.cards
    ]
    assert passed
    verified = {(s, c.card) for s, c in _checks(t) if c.verdict is Verdict.VERIFIED}
    assert set(passed) <= verified
    _no_failure(t)
    # A passed card is proved with a place in the deal the receiver did not see in the clear;
    # naming a place it did see (its own first card) fails.
    receiver, card = passed[0]
    own = next(c for s, c in _checks(t) if s == receiver and c.card != card and c.card)

    def at_its_own_place(message: table_pb2.WatchResponse) -> None:
        for p in message.view.proofs:
            if p.card == card:
                p.deal_index = own.deal_index + 1

    failed = _replayed(t, receiver, at_its_own_place).failures
    assert any(f.card == card for f in failed), failed


@pytest.mark.parametrize(
    ("variant", "game"), [("seven_card_stud_hi_lo", ""), ("dealers_choice", "chicago")]
)
def test_a_community_card_verifies_for_everyone(variant: str, game: str) -> None:
    rng = random.Random(11)
    t = _table(variant, 8)
    community: list[str] = []
    for n in range(12):
        if game:
            _choose(t, game)
        t.deal(f"{game or 'stud'}-{n}", rng)
        t.play_out(rng, calling=True)
        community = [
            card_str(e.card)
            for batch in t.truth.batches
            for e in batch
            if isinstance(e, ev.CommunityCardDealt)
        ]
        if community:
            break
    assert community, "no community card was dealt"
    card = community[-1]
    assert t.checkers is not None
    for seat, checker in t.checkers.items():
        mine = [c for c in checker.checks if c.card == card and c.verdict is Verdict.VERIFIED]
        assert mine, f"seat {seat} did not verify the community card {card}"
    _no_failure(t)


def test_the_cards_of_a_voided_hand_verify() -> None:
    rng = random.Random(5)
    t = _table("seven_card_stud_hi_lo", 4)
    t.deal("void-1", rng)
    t.play_out(rng, calling=True, moves_left=6)
    t.do(table.void_hand(t.state, "the dealer could not be reached"))
    assert isinstance(t.truth.batches[-1][0], HandVoided)
    cards = [(s, c) for s, c in _checks(t) if c.card]
    assert len(cards) >= 4 * 3 and all(c.verdict is Verdict.VERIFIED for _, c in cards)
    _no_failure(t)
    # The next hand, dealt after the void, checks on its own commitment.
    t.deal("void-2", rng)
    t.play_out(rng, calling=True)
    _no_failure(t)
    assert {c.hand_id for _, c in _checks(t) if c.card} == {"void-1", "void-2"}
