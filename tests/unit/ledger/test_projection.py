"""Events -> postings: one real hand, step by step (the worked example of the docs)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from riverboat.engine.commands import Act
from riverboat.engine.game import legal_actions
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import EventMeta
from riverboat.ledger import accounts as acc
from riverboat.ledger.projection import (
    HandCheck,
    HandClosed,
    HandRaked,
    PostingSpec,
    ProjectionError,
    SeatInfo,
    TableContext,
    posting,
    project_table_event,
)
from riverboat.table import aggregate as table
from riverboat.table.events import AnyEvent

AT = datetime(2026, 11, 30, 21, 15, tzinfo=UTC)


def scripted_hand(void: bool = False) -> list[AnyEvent]:
    """Ann and Bob buy in for $50 at a $2/$4 Pacific table; Bob wins on 5th street."""
    state = table.TableState("demo")
    events: list[AnyEvent] = []

    def do(new: list[AnyEvent]) -> None:
        nonlocal state
        events.extend(new)
        state = table.fold(new, state)

    options = pacific_options(small_bet=200, big_bet=400)
    do(table.create_table(state, name="Demo", variant="seven_card_stud_hi_lo", options=options,
                          action_seconds=30))  # fmt: skip
    do(table.seat_player(state, seat=1, player="ann", stack=5000, buy_in_reference="join-ann"))
    do(table.seat_player(state, seat=2, player="bob", stack=5000, buy_in_reference="join-bob"))
    do(table.commit_hand(state, hand_id="demo-4", scheme="RBS1", commitment=b"c" * 32,
                         deck_size=52))  # fmt: skip
    deck = list(range(52))
    do(table.deal_hand(state, deck))
    for step, name in enumerate(("bring_in", "call", "check", "bet", "call", "bet", "fold")):
        if void and step == 4:
            do(table.void_hand(state, "dealer unreachable"))
            break
        hand = state.hand
        assert hand is not None and hand.to_act is not None
        legal = {a.action: a for a in legal_actions(hand)}
        do(table.act(state, Act(hand.seats[hand.to_act], name, legal[name].to[0]), deck))
    if not void:
        do(table.unseat_player(state, seat=1))
    return events


def project(events: list[AnyEvent]) -> list[object]:
    ctx = TableContext("demo")
    out: list[object] = []
    for version, event in enumerate(events, start=1):
        out.extend(project_table_event(ctx, event, EventMeta("demo", version, 0, "r", "t", AT)))
    return out


def lines(effects: Sequence[object]) -> list[tuple[str, list[tuple[str, int]]]]:
    return [
        (e.kind, [(a.name, n) for a, n in e.lines]) for e in effects if isinstance(e, PostingSpec)
    ]


def test_one_hand_posts_every_chip_movement() -> None:
    effects = project(scripted_hand())
    assert lines(effects) == [
        ("buy_in", [("buyin:join-ann", -5000), ("table:demo:ann", 5000)]),
        ("buy_in", [("buyin:join-bob", -5000), ("table:demo:bob", 5000)]),
        ("ante", [("pot:demo:demo-4", 100), ("table:demo:bob", -100)]),
        ("ante", [("pot:demo:demo-4", 100), ("table:demo:ann", -100)]),
        ("bet", [("pot:demo:demo-4", 100), ("table:demo:bob", -100)]),  # bring-in
        ("bet", [("pot:demo:demo-4", 100), ("table:demo:ann", -100)]),  # call
        ("bet", [("pot:demo:demo-4", 200), ("table:demo:ann", -200)]),  # 4th street bet
        ("bet", [("pot:demo:demo-4", 200), ("table:demo:bob", -200)]),  # call
        ("bet", [("pot:demo:demo-4", 400), ("table:demo:bob", -400)]),  # 5th street bet
        ("uncalled", [("pot:demo:demo-4", -400), ("table:demo:bob", 400)]),  # Ann folds
        ("rake", [("pot:demo:demo-4", -40), ("rake", 40)]),  # 5% of $8
        ("award", [("pot:demo:demo-4", -760), ("table:demo:bob", 760)]),
        ("leave", [("cashout:demo:32:0", 4600), ("table:demo:ann", -4600)]),  # event 32
    ]
    balances: Counter[str] = Counter()
    for effect in effects:
        if isinstance(effect, PostingSpec):
            assert sum(n for _, n in effect.lines) == 0
            for account, amount in effect.lines:
                balances[account.name] += amount
    assert balances["pot:demo:demo-4"] == 0
    assert (balances["table:demo:ann"], balances["table:demo:bob"]) == (0, 5360)
    assert HandRaked("demo", "demo-4", 40) in effects
    assert HandClosed("demo", "demo-4", "ended", AT) in effects
    end = [e for e in effects if isinstance(e, HandCheck) and e.moment == "end"]
    assert end == [HandCheck("demo", "demo-4", "end", (("ann", 4600), ("bob", 5360)), True)]


def test_a_voided_hand_refunds_every_contribution() -> None:
    effects = project(scripted_hand(void=True))
    kinds = [kind for kind, _ in lines(effects)]
    assert kinds[-1] == "refund" and "rake" not in kinds
    balances: Counter[str] = Counter()
    for effect in effects:
        if isinstance(effect, PostingSpec):
            for account, amount in effect.lines:
                balances[account.name] += amount
    assert balances["pot:demo:demo-4"] == 0
    assert balances["table:demo:ann"] == balances["table:demo:bob"] == 5000
    assert HandClosed("demo", "demo-4", "voided", AT) in effects


def test_postings_net_their_moves_and_refuse_negative_ones() -> None:
    a, b = acc.wallet("ann"), acc.wallet("bob")
    spec = posting("k", "x", [(a, b, 5), (b, a, 2)], AT)
    assert spec is not None and [(x.name, n) for x, n in spec.lines] == [
        ("wallet:ann", -3),
        ("wallet:bob", 3),
    ]
    assert posting("k", "x", [(a, b, 4), (b, a, 4)], AT) is None
    with pytest.raises(ProjectionError):
        posting("k", "x", [(a, b, -1)], AT)


def test_hand_events_need_a_hand_in_progress() -> None:
    events = scripted_hand()
    ante = next(e for e in events if type(e).__name__ == "AntePosted")
    ctx = TableContext("demo")
    for version, event in enumerate(events[:3], start=1):  # the table and its two players
        project_table_event(ctx, event, EventMeta("demo", version, 0, "r", "t", AT))
    with pytest.raises(ProjectionError, match="no hand in progress"):
        project_table_event(ctx, ante, EventMeta("demo", 9, 0, "r", "t", AT))


# Stand-ins with the names and fields of the dealer's choice games' money events.
@dataclass(frozen=True)
class CardPaymentPosted:
    seat: int
    card: int
    amount: int


@dataclass(frozen=True)
class PotMatched:
    seat: int
    amount: int


@dataclass(frozen=True)
class PotCarriedOver:
    amount: int


@dataclass(frozen=True)
class PotCarriedIn:
    amount: int


def test_dead_money_and_a_pot_that_rides_to_the_next_deal() -> None:
    ctx = TableContext("dc", current_hand="dc-1", seats={1: SeatInfo("ann", 900)})
    meta = EventMeta("dc", 5, 0, "r", "t", AT)
    events: list[Any] = [
        CardPaymentPosted(1, 7, 100),
        PotMatched(1, 300),
        PotCarriedOver(400),
    ]
    effects = [e for event in events for e in project_table_event(ctx, event, meta)]
    assert lines(effects) == [
        ("card_payment", [("pot:dc:dc-1", 100), ("table:dc:ann", -100)]),
        ("match", [("pot:dc:dc-1", 300), ("table:dc:ann", -300)]),
        ("carry_over", [("pot:dc:carried", 400), ("pot:dc:dc-1", -400)]),
    ]
    ctx.current_hand = "dc-2"
    carried_in = project_table_event(ctx, PotCarriedIn(400), meta)  # type: ignore[arg-type]
    assert lines(carried_in) == [("carry_in", [("pot:dc:carried", -400), ("pot:dc:dc-2", 400)])]
