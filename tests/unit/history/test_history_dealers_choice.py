"""Exports of the dealer's choice games: their own PHH variant codes, valid TOML, passes and
declarations recorded, and no player's export shows a card that player did not see."""

from __future__ import annotations

import random
import re
import tomllib

import pytest

from riverboat.engine.commands import Act, Command, Reshuffle, StartHand, TimeOut
from riverboat.engine.events import (
    CardsPassed,
    DeclarationsRevealed,
    Event,
    PotCarriedIn,
    PotCarriedOver,
    SeatEntry,
)
from riverboat.engine.game import step
from riverboat.engine.games import GAMES, moves, waiting_for
from riverboat.engine.options import dealers_choice_options
from riverboat.engine.state import RESHUFFLE, HandState, dealing_order
from riverboat.history import PHH_CODES, Perspective, hand_from_events, to_phh, to_pokerstars
from tests.unit.history._cards import forbidden_cards, phh_cards, text_cards


def random_command(state: HandState, rng: random.Random) -> Command:
    """A random legal command of one of the seats the hand waits for."""
    if isinstance(state, HandState) and state.phase == RESHUFFLE:
        cards = list(state.reshuffle_cards)
        rng.shuffle(cards)
        return Reshuffle(tuple(cards))
    seat = rng.choice(waiting_for(state))
    if rng.random() < 0.03:
        return TimeOut(seat)
    pick = rng.choice(moves(state, seat))
    held = list(state.cards[state.seats.index(seat)])
    i = state.seats.index(seat)
    if pick.action in ("draw", "discard", "pass"):
        return Act(seat, pick.action, cards=tuple(rng.sample(held, rng.choice(pick.to))))
    if pick.action == "order":
        rng.shuffle(held)
        return Act(seat, "order", cards=tuple(held))
    if pick.action == "expose":
        down = [c for c, up in zip(state.cards[i], state.face_up[i], strict=True) if not up]
        return Act(seat, "expose", cards=(rng.choice(down),))
    if pick.action == "declare":
        return Act(seat, "declare", amount=rng.choice(pick.to))
    return Act(seat, pick.action, rng.choice(pick.to))


def play(variant: str, seed: int, players: int = 4) -> list[Event]:
    """One hand of ``variant`` played to the end by random legal commands."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    seats = tuple(SeatEntry(k, f"p{k}", 3000) for k in range(1, players + 1))
    start = StartHand(f"{variant}-{seed}", variant, dealers_choice_options(), 1, seats, tuple(deck))
    events, state = step(None, start)
    out = list(events)
    current = tuple(deck)
    while not state.finished:
        command = random_command(state, rng)
        if isinstance(command, Reshuffle):
            new, state = step(state, command, current)
            current = current + command.cards
        else:
            new, state = step(state, command, current)
        out.extend(new)
    return out


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_every_game_exports_with_its_code_and_no_leaks(variant: str) -> None:
    for seed in range(3):
        hand = hand_from_events(play(variant, seed), table_id="dc")
        full = to_phh(hand)
        assert full is not None
        doc = tomllib.loads(full)
        assert doc["variant"] == PHH_CODES[variant][0] and doc["variant"].startswith("RB/")
        assert doc["_variant"] == variant
        carried_in = sum(e.amount for e in hand.events if isinstance(e, PotCarriedIn))
        rides = sum(e.amount for e in hand.events if isinstance(e, PotCarriedOver))
        chips = sum(doc["starting_stacks"]) + carried_in - rides
        assert sum(doc["finishing_stacks"]) + doc["_rake"] == chips
        assert re.match(r"PokerStars Hand #\d+:  ", to_pokerstars(hand) or "")
        for entry in hand.started.seats:
            view = Perspective(entry.player)
            forbidden = forbidden_cards(hand.events, entry.seat)
            assert not phh_cards(to_phh(hand, view) or "") & forbidden, (seed, entry.player)
            assert not text_cards(to_pokerstars(hand, view) or "") & forbidden


def test_anaconda_records_passes_and_declarations() -> None:
    events = play("anaconda", 5, players=3)
    hand = hand_from_events(events, table_id="dc")
    doc = tomllib.loads(to_phh(hand) or "")
    assert any(isinstance(e, CardsPassed) for e in events)
    assert doc["_passes"] and all("?" not in p["cards"] for p in doc["_passes"])
    # A player sees the cards of the passes they gave or got, not the others'.
    seat = 2
    started = hand.started
    label = f"p{dealing_order(started.button, [s.seat for s in started.seats]).index(seat) + 1}"
    mine = tomllib.loads(to_phh(hand, Perspective(f"p{seat}")) or "")
    for p in mine["_passes"]:
        involved = label in (p["from"], p["to"])
        assert ("?" not in p["cards"]) if involved else (p["cards"] == "??" * 3), p
    if any(isinstance(e, DeclarationsRevealed) for e in events):
        assert set(doc["_declarations"].values()) <= {"low", "high", "both"}
    assert any(a.startswith("# ") for a in doc["actions"])  # rolls and passes as commentary


def test_a_dealers_choice_tables_log_exports_without_leaks() -> None:
    from riverboat.audit.synthetic import play_archive
    from riverboat.history import hands_from_archive

    hands = hands_from_archive(play_archive(tables=1, hands=25, seed=8, dealers_choice=True))
    codes = set()
    for hand in hands:
        doc = tomllib.loads(to_phh(hand) or "")
        codes.add(doc["variant"])
        assert doc["_hand_id"] == hand.hand_id and doc["_commitment"]
        for entry in hand.started.seats:
            view = Perspective(entry.player)
            forbidden = forbidden_cards(hand.events, entry.seat)
            assert not phh_cards(to_phh(hand, view) or "") & forbidden
            assert not text_cards(to_pokerstars(hand, view) or "") & forbidden
    assert len(codes) >= 4 and all(c.startswith("RB/") for c in codes)


def test_declarations_are_told_by_the_half_they_claim() -> None:
    from riverboat.engine import events as hev
    from riverboat.engine.games import half_names
    from riverboat.history.narrate import describe, halves_of

    revealed = hev.DeclarationsRevealed(((1, "spade"), (2, "high"), (3, "both")))
    started = hev.HandStarted("h", "chicago", 3, (), 52, {})
    low = halves_of([started, hev.GameOptionsSet({"chicago": "low"})])
    assert low == half_names("chicago", {"chicago": "low"}) == ("high hand", "low spade")
    text = describe(revealed, lambda s: f"p{s}", str, low)
    assert text == "Declarations: p1 low spade, p2 high hand, p3 both"
    sealed = describe(hev.DeclarationSealed(1, "low"), lambda s: f"p{s}", str, ("35", "15"))
    assert sealed == "p1 declares 15 (sealed until everyone has)"
