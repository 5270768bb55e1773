"""The table aggregate, the event codec and per-viewer views (pure, no I/O)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from riverboat.bots import RandomBot
from riverboat.engine.cards import parse_cards
from riverboat.engine.commands import Act, TimeOut
from riverboat.engine.events import CardDealt, HandShown, RakeTaken
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import decode_batch, encode_batch
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableError, TableState
from riverboat.table.events import AnyEvent, PlayerLeft
from riverboat.table.views import redact, table_view


def _table(players: int = 3) -> tuple[TableState, list[AnyEvent]]:
    state = TableState("t1")
    log: list[AnyEvent] = []

    def do(events: list[AnyEvent]) -> None:
        nonlocal state
        log.extend(events)
        state = table.fold(events, state)

    do(
        table.create_table(
            state,
            name="Test",
            variant="seven_card_stud_hi_lo",
            options=pacific_options(ante=10),
            action_seconds=30,
        )
    )
    for k in range(1, players + 1):
        do(table.seat_player(state, seat=k * 2, player=f"p{k}", stack=1000))
    return state, log


def _play_hand(state: TableState, log: list[AnyEvent], seed: int) -> TableState:
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    events = table.commit_hand(
        state, hand_id=f"h{seed}", scheme="RBS1", commitment=b"c" * 32, deck_size=52
    )
    state = table.fold(events, state)
    log.extend(events)
    events = table.deal_hand(state, deck)
    state = table.fold(events, state)
    log.extend(events)
    bot = RandomBot(rng)
    while state.hand is not None and not state.hand.finished:
        hand = state.hand
        assert hand.to_act is not None
        from riverboat.engine.game import legal_actions

        action, to = bot.choose(legal_actions(hand))
        events = table.act(state, Act(hand.seats[hand.to_act], action, to), deck)
        state = table.fold(events, state)
        log.extend(events)
    return state


def test_hands_update_seat_stacks_and_conserve_chips() -> None:
    state, log = _table()
    for seed in range(5):
        state = _play_hand(state, log, seed)
        assert state.hand is not None and state.hand.finished
        assert (
            sum(s.stack for s in state.seats)
            + sum(e.amount for e in log if isinstance(e, RakeTaken))
            == 3000
        )
    # Folding the whole log from scratch gives the same table.
    assert table.fold(log, TableState("t1")) == state


def test_button_moves_clockwise_between_hands() -> None:
    state, log = _table()
    buttons = []
    for seed in range(4):
        state = _play_hand(state, log, seed)
        buttons.append(state.button)
    assert buttons == [2, 4, 6, 2]


def test_codec_round_trips_every_event() -> None:
    state, log = _table()
    for seed in range(3):
        state = _play_hand(state, log, seed)
    data = encode_batch(
        log,
        aggregate_id="t1",
        version=7,
        request_id="r-1",
        actor="p1",
        occurred_at=datetime(2026, 11, 30, tzinfo=UTC),
    )
    decoded = decode_batch(data)
    assert [e for e, _ in decoded] == log
    meta = decoded[3][1]
    assert (meta.version, meta.index, meta.request_id, meta.actor) == (7, 3, "r-1", "p1")


def test_commands_refused_with_kinds() -> None:
    state, _ = _table()
    with pytest.raises(TableError) as err:
        table.create_table(
            state,
            name="x",
            variant="seven_card_stud_hi_lo",
            options=pacific_options(),
            action_seconds=30,
        )
    assert err.value.kind == "already_exists"
    with pytest.raises(TableError) as err:
        table.seat_player(state, seat=2, player="zed", stack=100)
    assert err.value.kind == "precondition" and err.value.rule == "seat_taken"
    with pytest.raises(TableError) as err:
        table.seat_player(TableState("nope"), seat=1, player="zed", stack=100)
    assert err.value.kind == "not_found"
    with pytest.raises(TableError):
        table.deal_hand(state, list(range(52)))


def test_leaving_mid_hand_waits_for_the_hand_to_end() -> None:
    state, _ = _table()
    deck = list(range(52))
    commit = table.commit_hand(state, hand_id="h", scheme="RBS1", commitment=b"c", deck_size=52)
    state = table.fold(commit, state)
    state = table.fold(table.deal_hand(state, deck), state)
    state = table.fold(table.unseat_player(state, seat=4), state)
    leaving = state.seat_at(4)
    assert leaving is not None and leaving.leaving  # still seated while the hand runs
    left: list[PlayerLeft] = []
    while state.hand is not None and not state.hand.finished:
        hand = state.hand
        assert hand.to_act is not None
        events = table.act(state, TimeOut(hand.seats[hand.to_act]), deck)
        left += [e for e in events if isinstance(e, PlayerLeft)]
        state = table.fold(events, state)
    assert [e.seat for e in left] == [4]
    assert state.seat_at(4) is None


def test_views_show_own_hole_cards_only() -> None:
    state, _ = _table()
    deck = list(parse_cards("As Ks Qs Js Ts 9s 8s 7s 6s")) + [
        c for c in range(52) if c not in parse_cards("As Ks Qs Js Ts 9s 8s 7s 6s")
    ]
    state = table.fold(
        table.commit_hand(state, hand_id="h", scheme="RBS1", commitment=b"c", deck_size=52), state
    )
    dealt = table.deal_hand(state, deck)
    state = table.fold(dealt, state)
    hidden = {c for e in dealt if isinstance(e, CardDealt) and not e.face_up for c in [e.card]}
    for viewer, seat in ((None, 0), ("p1", 2), ("p2", 4)):
        view = table_view(state, 2, viewer)
        assert view.viewer_seat == seat
        for s in view.seats:
            for card, up in s.cards:
                if not up:
                    assert (card is not None) == (s.seat == seat)
        seen = {card for s in view.seats for card, _ in s.cards if card is not None}
        mine = {e.card for e in dealt if isinstance(e, CardDealt) and e.seat == seat}
        assert seen & hidden <= mine
        for e in dealt:
            r = redact(e, seat)
            if isinstance(r, CardDealt) and r.card >= 0 and not r.face_up:
                assert r.seat == seat
    assert not any(isinstance(e, HandShown) for e in dealt)


def test_leaving_between_commitment_and_deal_voids_the_undealt_hand() -> None:
    state, _ = _table(players=2)
    commit = table.commit_hand(state, hand_id="h", scheme="RBS1", commitment=b"c", deck_size=52)
    state = table.fold(commit, state)
    left = table.unseat_player(state, seat=4)
    assert [type(e).__name__ for e in left] == ["PlayerLeft"]  # no cards yet: leaves at once
    state = table.fold(left, state)
    voided = table.deal_hand(state, list(range(52)))
    assert [type(e).__name__ for e in voided] == ["HandVoided"]
    state = table.fold(voided, state)
    assert state.pending is None and not state.hand_in_progress
    assert [s.player for s in state.seats] == ["p1"]


def test_a_void_before_the_deal_keeps_the_last_hands_results() -> None:
    # Two players leave between the next hand's commitment and its deal: the undealt hand is
    # voided, and the player still seated keeps what the hand before left them, not what it
    # started them with.
    state, log = _table()
    state = _play_hand(state, log, 1)
    after_hand = {s.seat: s.stack for s in state.seats}
    assert after_hand != {2: 1000, 4: 1000, 6: 1000}  # chips changed hands
    commit = table.commit_hand(
        state, hand_id="h2", scheme="RBS1", commitment=b"c" * 32, deck_size=52
    )
    state = table.fold(commit, state)
    log += commit
    for seat in (2, 4):
        left = table.unseat_player(state, seat=seat)
        state = table.fold(left, state)
        log += left
    voided = table.deal_hand(state, list(range(52)))
    assert [type(e).__name__ for e in voided] == ["HandVoided"]
    state = table.fold(voided, state)
    log += voided
    assert [(s.seat, s.stack) for s in state.seats] == [(6, after_hand[6])]
    last = table.unseat_player(state, seat=6)
    log += last
    paid = sum(e.stack for e in log if isinstance(e, PlayerLeft))
    assert paid + sum(e.amount for e in log if isinstance(e, RakeTaken)) == 3000


def test_voiding_a_committed_hand_refunds_nothing_of_the_hand_before() -> None:
    state, log = _table()
    state = _play_hand(state, log, 1)
    after_hand = state.seats
    commit = table.commit_hand(
        state, hand_id="h2", scheme="RBS1", commitment=b"c" * 32, deck_size=52
    )
    state = table.fold(commit, state)
    state = table.fold(table.void_hand(state, "the dealer could not be reached"), state)
    assert state.seats == after_hand and not state.hand_in_progress


def test_players_who_asked_to_leave_a_voided_hand_leave_with_their_refund() -> None:
    # Found by the crash battery: a hand voided after a crash (it could not resume in time)
    # kept the players who had asked to leave it seated as "leaving" for good: never dealt
    # in again, never cashed out.
    state, _ = _table()
    commit = table.commit_hand(state, hand_id="h", scheme="RBS1", commitment=b"c", deck_size=52)
    state = table.fold(commit, state)
    state = table.fold(table.deal_hand(state, list(range(52))), state)
    for seat in (2, 4):
        state = table.fold(table.unseat_player(state, seat=seat), state)
    voided = table.void_hand(state, "the dealer could not be reached to resume the hand")
    assert [type(e).__name__ for e in voided] == ["HandVoided", "PlayerLeft", "PlayerLeft"]
    assert [(e.seat, e.stack) for e in voided if isinstance(e, PlayerLeft)] == [
        (2, 1000),
        (4, 1000),
    ]
    state = table.fold(voided, state)
    assert [(s.seat, s.player, s.stack, s.leaving) for s in state.seats] == [(6, "p3", 1000, False)]
