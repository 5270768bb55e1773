"""Hand-history exports of a recorded room: PokerKit replays our PHH, players' exports never
show a card they did not see, the auditor's shows every card, and both formats read right."""

from __future__ import annotations

import random
import re
import tomllib
import warnings

import pytest
from pokerkit import HandHistory

from bench._studgen import record_hand
from riverboat.audit.synthetic import play_archive
from riverboat.engine.events import HandEnded, PotAwarded
from riverboat.engine.state import dealing_order
from riverboat.history import (
    AUDITOR,
    HandLog,
    Perspective,
    hand_from_events,
    hands_from_archive,
    to_phh,
    to_phhs,
    to_pokerstars,
)
from tests.unit.history._cards import dealt_cards, forbidden_cards, phh_cards, text_cards


@pytest.fixture(scope="module")
def room_hands() -> list[HandLog]:
    """Hands of a room played by the real table aggregate and engine, as stored."""
    return hands_from_archive(play_archive(tables=2, hands=15, seed=21))


def final_stacks(hand_record_events: list, order: list[int]) -> list[int]:  # type: ignore[type-arg]
    ended = next(e for e in hand_record_events if isinstance(e, HandEnded))
    stacks = dict(ended.stacks)
    return [stacks[s] for s in order]


def pokerkit_final_stacks(text: str) -> list[int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about our _fields' siblings
        return list(list(HandHistory.loads(text))[-1].stacks)


def comparable(events: list) -> bool:  # type: ignore[type-arg]
    """Hands free of the rule differences listed in test_differential_pokerkit.py: one pot (no
    side pots to split differently) and at most two winners per half (odd chips)."""
    awards = [e for e in events if isinstance(e, PotAwarded)]
    return len(awards) == 1 and len(awards[0].high_winners) <= 2 and len(awards[0].low_winners) <= 2


def test_pokerkit_replays_our_stud_hi_lo_exports_to_the_same_stacks() -> None:
    rng = random.Random(2026)
    compared = players_compared = 0
    for k in range(160):
        recorded = record_hand(rng, f"pk-{k}")
        if not comparable(recorded.events):
            continue
        hand = hand_from_events(recorded.events, table_id="t")
        started = hand.started
        order = dealing_order(started.button, [s.seat for s in started.seats])
        ours = final_stacks(recorded.events, order)
        text = to_phh(hand)
        assert text is not None and tomllib.loads(text)["variant"] == "F7S/8"
        assert pokerkit_final_stacks(text) == ours, text
        compared += 1
        if k % 4 == 0:  # a player's export (?? for the cards they did not see) replays too
            player = started.seats[k % len(started.seats)].player
            mine = to_phh(hand, Perspective(player))
            assert mine is not None and pokerkit_final_stacks(mine) == ours, mine
            players_compared += 1
    assert compared >= 60 and players_compared >= 10


def test_player_exports_never_show_a_card_they_did_not_see(room_hands: list[HandLog]) -> None:
    checked = 0
    for hand in room_hands:
        for entry in hand.started.seats:
            forbidden = forbidden_cards(hand.events, entry.seat)
            view = Perspective(entry.player)
            phh = to_phh(hand, view)
            text = to_pokerstars(hand, view)
            assert phh is not None and text is not None
            assert not phh_cards(phh) & forbidden, (hand.hand_id, entry.player)
            assert not text_cards(text) & forbidden, (hand.hand_id, entry.player)
            checked += 1
        # The auditor's export is complete: every card dealt is in it.
        full = to_phh(hand, AUDITOR)
        assert full is not None and dealt_cards(hand.events) <= phh_cards(full)
        assert dealt_cards(hand.events) <= text_cards(to_pokerstars(hand) or "")
    assert checked >= 150


def test_a_player_gets_only_their_own_hands(room_hands: list[HandLog]) -> None:
    hand = room_hands[0]
    assert to_phh(hand, Perspective("nobody-here")) is None
    assert to_pokerstars(hand, Perspective("nobody-here")) is None
    player = hand.started.seats[0].player
    many = to_phhs(room_hands, Perspective(player))
    doc = tomllib.loads(many)
    assert doc and all(player in h["players"] for h in doc.values())
    assert all(h["_perspective"] == f"player:{player}" for h in doc.values())


def test_phh_fields_carry_ids_commitment_rake_and_pots(room_hands: list[HandLog]) -> None:
    raked = next(h for h in room_hands if any(getattr(e, "amount", 0) for e in h.events[-4:]))
    doc = tomllib.loads(to_phh(raked) or "")
    # PHH's hand is the table's hand number; the id is kept as _hand_id.
    assert doc["hand"] == raked.number >= 1 and doc["_hand_id"] == raked.hand_id
    assert doc["_table_id"] == raked.table_id and doc["table"] == "Table 1"
    assert doc["_commitment"] == raked.commitment.hex() and doc["_scheme"] == "RBS1"
    assert doc["_amounts"] == "cents" and doc["currency"] == "USD"
    rake = doc["_rake"]
    pots = doc["_pots"]
    assert sum(p["amount"] + p["rake"] for p in pots) == sum(doc["starting_stacks"]) - sum(
        doc["finishing_stacks"]
    ) + sum(doc["winnings"])
    assert sum(p["rake"] for p in pots) == rake
    assert sum(doc["finishing_stacks"]) + rake == sum(doc["starting_stacks"])
    assert doc["players"][0] == next(
        s.player for s in raked.started.seats if s.seat == doc["seats"][0]
    )


def test_pokerstars_text_reads_like_a_pokerstars_history(room_hands: list[HandLog]) -> None:
    shown = next(h for h in room_hands if any(type(e).__name__ == "HandShown" for e in h.events))
    text = to_pokerstars(shown) or ""
    lines = text.splitlines()
    assert re.match(r"PokerStars Hand #\d+:  7 Card Stud Hi/Lo Limit \(\$", lines[0])
    assert lines[1].startswith("Table 'Table 1' ")
    for marker in ("*** 3rd STREET ***", "*** SHOW DOWN ***", "*** SUMMARY ***"):
        assert marker in lines
    assert any(" | Rake $" in line for line in lines)
    assert any(": brings in for $" in line or ": completes it to $" in line for line in lines)
    assert any(line.startswith("Seat ") and " showed [" in line for line in lines)
