"""Sitting out and in, the time bank, the disconnect protection and hand numbers, on the pure
table aggregate (the service's side is tests/e2e/room/test_seat_features_room.py)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from riverboat.engine.commands import Act
from riverboat.engine.errors import IllegalAction
from riverboat.engine.events import AntePosted, DealerUp, HandStarted
from riverboat.engine.game import legal_actions
from riverboat.engine.games import waiting_for
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.eventcodec import decode_batch, encode_batch
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import DEALERS_CHOICE, TableState
from riverboat.table.clock import clock_expiry
from riverboat.table.events import (
    AnyEvent,
    PlayerSatIn,
    PlayerSatOut,
    PlayerTimedOut,
    TimeBankPolicy,
    TimeBankStarted,
    TimeBankUsed,
    TimeoutsCleared,
)


class T:
    """A stud table driven by pure commands."""

    def __init__(self, players: int = 3, policy: TimeBankPolicy | None = None) -> None:
        self.state = TableState("t")
        self.log: list[AnyEvent] = []
        self.deck: tuple[int, ...] = ()
        self.do(
            table.create_table(
                self.state,
                name="T",
                variant="seven_card_stud_hi_lo",
                options=pacific_options(ante=10),
                action_seconds=30,
                time_bank=policy,
            )
        )
        for k in range(1, players + 1):
            self.do(table.seat_player(self.state, seat=k, player=f"p{k}", stack=1000))

    def do(self, events: list[AnyEvent]) -> list[AnyEvent]:
        self.log.extend(events)
        self.state = table.fold(events, self.state)
        return events

    def deal(self, seed: int = 1) -> list[AnyEvent]:
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        self.deck = tuple(deck)
        n = len(self.log)
        self.do(
            table.commit_hand(
                self.state, hand_id=f"t-{n}", scheme="RBS1", commitment=b"c" * 32, deck_size=52
            )
        )
        return self.do(table.deal_hand(self.state, self.deck))

    def waiting(self) -> int:
        hand = self.state.hand
        assert hand is not None and not hand.finished
        return waiting_for(hand)[0]

    def clock(
        self, *, due: frozenset[int] = frozenset(), gone: frozenset[str] = frozenset()
    ) -> list[AnyEvent]:
        hand = self.state.hand
        assert hand is not None
        return self.do(
            clock_expiry(
                self.state, waiting_for(hand), self.deck, hand.hand_id, due=due, disconnected=gone
            )
        )

    def act_first_legal(self, bank_used: int = 0, hand_id: str | None = None) -> list[AnyEvent]:
        hand = self.state.hand
        assert hand is not None and hand.to_act is not None
        move = legal_actions(hand)[0]
        command = Act(hand.seats[hand.to_act], move.action, move.to[0])
        return self.do(table.act(self.state, command, self.deck, hand_id, bank_used=bank_used))

    def finish(self) -> None:
        """The clock plays the hand out (no banks at this table)."""
        while self.state.hand is not None and not self.state.hand.finished:
            self.act_first_legal()


def test_a_player_sitting_out_is_dealt_out_and_posts_nothing_until_sitting_in() -> None:
    t = T()
    assert t.do(table.sit_out(t.state, player="p3")) == [PlayerSatOut(3, "p3")]
    assert table.sit_out(t.state, player="p3") == []  # already out: nothing to write
    events = t.deal()
    started = next(e for e in events if isinstance(e, HandStarted))
    assert [s.seat for s in started.seats] == [1, 2]
    assert {e.seat for e in events if isinstance(e, AntePosted)} == {1, 2}
    t.finish()
    assert t.state.seat_at(3).stack == 1000  # type: ignore[union-attr]
    assert t.do(table.sit_in(t.state, player="p3")) == [PlayerSatIn(3, "p3")]
    assert table.sit_in(t.state, player="p3") == []
    started = next(e for e in t.deal(2) if isinstance(e, HandStarted))
    assert [s.seat for s in started.seats] == [1, 2, 3]


def test_sitting_out_in_a_hand_plays_it_out_and_sits_out_from_the_next() -> None:
    t = T()
    t.deal()
    t.do(table.sit_out(t.state, player="p1"))
    hand = t.state.hand
    assert hand is not None and not hand.finished and 1 in hand.seats  # still dealt in
    t.finish()
    started = next(e for e in t.deal(3) if isinstance(e, HandStarted))
    assert 1 not in [s.seat for s in started.seats]


def test_too_few_players_sitting_in_deal_no_hand() -> None:
    t = T(players=2)
    t.do(table.sit_out(t.state, player="p2"))
    assert not t.state.can_start_hand()
    with pytest.raises(table.TableError) as refused:
        table.commit_hand(t.state, hand_id="h", scheme="RBS1", commitment=b"c" * 32, deck_size=52)
    assert refused.value.rule == "not_enough_players"


def test_only_a_seated_player_sits_out() -> None:
    t = T()
    with pytest.raises(table.TableError) as refused:
        table.sit_out(t.state, player="nobody")
    assert (refused.value.kind, refused.value.rule) == ("not_found", "not_seated")


def test_a_dealers_choice_table_skips_a_player_sitting_out_as_dealer() -> None:
    state = TableState("dc")
    events = table.create_table(
        state,
        name="DC",
        variant=DEALERS_CHOICE,
        options=dealers_choice_options(),
        action_seconds=30,
    )
    state = table.fold(events, state)
    for k in (1, 2, 3):
        state = table.fold(table.seat_player(state, seat=k, player=f"p{k}", stack=500), state)
    # Seat 1 would deal first (the first seat after the button, 0); it sits out.
    assert choice.call_dealer(state) == [DealerUp(1, False, "", {})]
    state = table.fold(table.sit_out(state, player="p1"), state)
    assert choice.call_dealer(state) == [DealerUp(2, False, "", {})]


def test_two_time_outs_in_a_row_sit_a_player_out() -> None:
    t = T(players=2)
    t.deal()
    seat = t.waiting()
    first = t.clock()
    assert first[0] == PlayerTimedOut(seat, f"p{seat}")
    assert not any(isinstance(e, PlayerSatOut) for e in first)
    while t.state.hand is not None and not t.state.hand.finished and t.waiting() != seat:
        t.act_first_legal()
    if t.state.hand is None or t.state.hand.finished:
        t.deal(5)
        while t.waiting() != seat:
            t.act_first_legal()
    second = t.clock()
    assert second[:2] == [
        PlayerTimedOut(seat, f"p{seat}"),
        PlayerSatOut(seat, f"p{seat}", "timeouts"),
    ]
    assert t.state.seat_at(seat).sitting_out  # type: ignore[union-attr]


def test_acting_between_time_outs_starts_the_count_again() -> None:
    t = T(players=2)
    t.deal()
    seat = t.waiting()
    t.clock()
    hands = 0
    while True:  # the next time it is that seat's turn, the player acts themselves
        if t.state.hand is None or t.state.hand.finished:
            hands += 1
            t.deal(10 + hands)
        if t.waiting() == seat:
            break
        t.act_first_legal()
    own = t.act_first_legal()
    assert own[0] == TimeoutsCleared(seat, f"p{seat}")
    assert t.state.seat_at(seat).timeouts == 0  # type: ignore[union-attr]


def test_the_clock_draws_on_the_time_bank_before_acting() -> None:
    t = T(players=2, policy=TimeBankPolicy(seconds=20, topup_seconds=0, topup_hands=0))
    t.deal()
    seat = t.waiting()
    assert t.clock() == [TimeBankStarted(seat, f"p{seat}", 20)]
    assert t.clock() == []  # the bank has seconds left: nothing yet
    # The player acts 7 s into the bank: 7 s are drawn, before their action.
    acted = t.act_first_legal(bank_used=7)
    assert acted[0] == TimeBankUsed(seat, f"p{seat}", 7)
    assert t.state.seat_at(seat).time_bank == 13  # type: ignore[union-attr]
    assert seat not in t.state.banking
    # Next time the bank runs out: drawn in full, then the clock acts.
    while t.state.hand is not None and not t.state.hand.finished and t.waiting() != seat:
        t.act_first_legal()
    if t.state.hand is None or t.state.hand.finished:
        t.deal(7)
        while t.waiting() != seat:
            t.act_first_legal()
    assert t.clock() == [TimeBankStarted(seat, f"p{seat}", 13)]
    ran_out = t.clock(due=frozenset({seat}))
    assert ran_out[:2] == [TimeBankUsed(seat, f"p{seat}", 13), PlayerTimedOut(seat, f"p{seat}")]
    assert t.state.seat_at(seat).time_bank == 0  # type: ignore[union-attr]


def test_banks_are_topped_up_every_n_hands_up_to_their_size() -> None:
    t = T(players=2, policy=TimeBankPolicy(seconds=30, topup_seconds=5, topup_hands=2))
    t.deal()
    seat = t.waiting()
    t.clock()
    t.act_first_legal(bank_used=12)  # 18 left
    t.finish()  # hand 1 ends: no top-up
    assert t.state.seat_at(seat).time_bank == 18  # type: ignore[union-attr]
    t.deal(2)
    t.finish()  # hand 2: +5
    assert t.state.seat_at(seat).time_bank == 23  # type: ignore[union-attr]
    other = 3 - seat
    assert t.state.seat_at(other).time_bank == 30  # type: ignore[union-attr]  # capped


def test_a_disconnected_player_is_protected_once_per_n_hands() -> None:
    t = T(players=2, policy=TimeBankPolicy(seconds=0, protect_hands=3))
    # No time bank at all (seconds 0) means no protection either: the clock acts at once.
    t.deal()
    seat = t.waiting()
    assert t.clock(gone=frozenset({f"p{seat}"}))[0] == PlayerTimedOut(seat, f"p{seat}")

    t = T(players=2, policy=TimeBankPolicy(seconds=10, protect_hands=3))
    t.deal()
    seat = t.waiting()
    gone = frozenset({f"p{seat}"})
    assert t.clock(gone=gone) == [TimeBankStarted(seat, f"p{seat}", 10)]  # own bank first
    # The own bank ran out; disconnected, they get the protection's 10 s, not from the bank.
    assert t.clock(due=frozenset({seat}), gone=gone) == [
        TimeBankUsed(seat, f"p{seat}", 10),
        TimeBankStarted(seat, f"p{seat}", 10, True),
    ]
    ran_out = t.clock(due=frozenset({seat}), gone=gone)
    assert ran_out[:2] == [TimeBankUsed(seat, f"p{seat}", 0), PlayerTimedOut(seat, f"p{seat}")]
    t.finish()
    t.deal(9)  # hand 2: within 3 hands of the protection, and the bank is empty
    while t.waiting() != seat:
        t.act_first_legal()
    assert t.clock(gone=gone)[0] == PlayerTimedOut(seat, f"p{seat}")
    # A connected player with an empty bank is not protected at all.
    assert not table.protection_due(t.state, t.state.seat_at(seat))  # type: ignore[arg-type]


def test_hand_numbers_count_hands_and_either_name_is_accepted() -> None:
    t = T(players=2)
    ids = []
    for n in (1, 2, 3):
        t.deal(n)
        assert t.state.hand_number == n
        ids.append(t.state.hand.hand_id)  # type: ignore[union-attr]
        if n < 3:
            t.finish()
    assert len(set(ids)) == 3 and ids[0] != "1"
    with pytest.raises(IllegalAction) as refused:
        t.act_first_legal(hand_id="2")
    assert refused.value.rule == "wrong_hand"
    with pytest.raises(IllegalAction):
        t.act_first_legal(hand_id=ids[1])
    t.act_first_legal(hand_id="3")  # by number
    if not t.state.hand.finished:  # type: ignore[union-attr]
        t.act_first_legal(hand_id=ids[2])  # by id
    # The fold of the log gives the same number.
    assert table.fold(t.log, TableState("t")).hand_number == 3


def test_the_new_events_survive_the_codec() -> None:
    t = T(players=2, policy=TimeBankPolicy(seconds=9, topup_seconds=2, topup_hands=4))
    events: list[AnyEvent] = [
        t.log[0],
        PlayerSatOut(1, "p1", "timeouts"),
        PlayerSatIn(1, "p1"),
        PlayerTimedOut(2, "p2"),
        TimeoutsCleared(2, "p2"),
        TimeBankStarted(2, "p2", 9, True),
        TimeBankUsed(2, "p2", 4),
    ]
    data = encode_batch(
        events,
        aggregate_id="t",
        version=1,
        request_id="r",
        actor="clock",
        occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert [e for e, _ in decode_batch(data)] == events
