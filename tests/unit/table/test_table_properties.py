"""Properties of the table aggregate over random sequences of table commands (hypothesis):
players sitting down and leaving (at once, or when their hand ends), commitments, deals,
actions, the action clock (with time banks and the disconnect protection), sitting out and in,
and voids, in any order the service could submit them. After every event, the chips bought in
equal the chips at the table (stacks, and the pot of a hand in play) plus the rake taken plus
the chips players left with; nobody sitting out is dealt in; a time bank stays within 0 and
its size."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riverboat.engine.commands import Act
from riverboat.engine.errors import EngineError
from riverboat.engine.events import HandStarted, RakeTaken
from riverboat.engine.game import legal_actions
from riverboat.engine.games import waiting_for
from riverboat.engine.options import pacific_options
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableState
from riverboat.table.clock import clock_expiry
from riverboat.table.events import AnyEvent, PlayerLeft, PlayerSeated, TimeBankPolicy

SEATS = (1, 2, 3, 4, 5, 6)
BUY_INS = (15, 40, 100, 250, 1000)
#: What the room does next; acting is the most common, so hands get played out.
OPS = st.sampled_from(
    ["seat", "leave", "leave", "start", "start", "deal", "deal", "void", "clock", "clock"]
    + ["sit_out", "sit_in", "sit_in"]
    + ["act"] * 10
)
POLICY = TimeBankPolicy(seconds=3, topup_seconds=1, topup_hands=2, protect_hands=2)


def _chips_at_table(state: TableState) -> int:
    """Stacks of the seats, with a hand in play counted from the hand (stacks and pot)."""
    hand = state.hand
    if hand is None or hand.finished:
        return sum(s.stack for s in state.seats)
    dealt = set(hand.seats)
    others = sum(s.stack for s in state.seats if s.seat not in dealt)
    return sum(hand.stacks) + hand.pot_total + others


class Room:
    """A stud table driven by pure commands; every event is folded and checked on its own."""

    def __init__(self) -> None:
        self.state = TableState("prop")
        self.log: list[AnyEvent] = []
        self.deck: tuple[int, ...] = ()
        self.hands = 0
        self.joins = 0
        self.bought = self.left = self.rake = 0
        self.do(
            table.create_table(
                self.state,
                name="Prop",
                variant="seven_card_stud_hi_lo",
                options=pacific_options(ante=5),
                action_seconds=5,
                time_bank=POLICY,
            )
        )

    def do(self, events: list[AnyEvent]) -> None:
        for event in events:
            if isinstance(event, HandStarted):
                out = {s.seat for s in self.state.seats if s.sitting_out}
                assert not out & {e.seat for e in event.seats}, "a player sitting out is dealt"
            self.state = table.apply(self.state, event)
            self.log.append(event)
            if isinstance(event, PlayerSeated):
                self.bought += event.stack
            elif isinstance(event, PlayerLeft):
                self.left += event.stack
            elif isinstance(event, RakeTaken):
                self.rake += event.amount
            assert _chips_at_table(self.state) + self.rake + self.left == self.bought, event
            assert all(s.stack >= 0 for s in self.state.seats)
            assert all(0 <= s.time_bank <= POLICY.seconds for s in self.state.seats)

    def step(self, op: str, n: int) -> None:
        state = self.state
        hand = state.hand
        in_play = hand is not None and not hand.finished
        if op == "seat":
            free = [k for k in SEATS if state.seat_at(k) is None]
            if free:
                self.joins += 1
                stack = BUY_INS[n % len(BUY_INS)]
                seat = free[n % len(free)]
                self.do(table.seat_player(state, seat=seat, player=f"p{self.joins}", stack=stack))
        elif op == "leave" and state.seats:
            self.do(table.unseat_player(state, seat=state.seats[n % len(state.seats)].seat))
        elif op == "start" and state.can_start_hand():
            self.hands += 1
            self.do(
                table.commit_hand(
                    state,
                    hand_id=f"h{self.hands}",
                    scheme="RBS1",
                    commitment=b"c" * 32,
                    deck_size=52,
                )
            )
        elif op == "deal" and state.pending is not None:
            deck = list(range(52))
            for i in range(51, 0, -1):  # a deck from n, no rng needed
                j = (n * 7919 + i * 104729) % (i + 1)
                deck[i], deck[j] = deck[j], deck[i]
            self.deck = tuple(deck)
            self.do(table.deal_hand(state, self.deck))
        elif op == "act" and in_play and hand is not None and hand.to_act is not None:
            options = legal_actions(hand)
            pick = options[n % len(options)]
            command = Act(hand.seats[hand.to_act], pick.action, pick.to[n % len(pick.to)])
            self.do(table.act(state, command, self.deck, bank_used=n % 5))
        elif op == "clock" and in_play and hand is not None and waiting_for(hand):
            # Which banks ran out and who is disconnected: whatever the runner may measure.
            due = frozenset(k for k in state.banking if (n >> k) & 1)
            gone = frozenset(s.player for s in state.seats if (n >> (s.seat + 8)) & 1)
            self.do(
                clock_expiry(
                    state, waiting_for(hand), self.deck, hand.hand_id, due=due, disconnected=gone
                )
            )
        elif op in ("sit_out", "sit_in") and state.seats:
            who = state.seats[n % len(state.seats)].player
            sit = table.sit_out if op == "sit_out" else table.sit_in
            self.do(sit(state, player=who))
        elif op == "void" and state.hand_in_progress:
            self.do(table.void_hand(state, "the dealer could not be reached"))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(BUY_INS), min_size=2, max_size=6),
    st.lists(st.tuples(OPS, st.integers(0, 10_000)), min_size=20, max_size=300),
)
def test_chips_are_conserved_through_any_sequence_of_table_commands(
    stacks: list[int], ops: list[tuple[str, int]]
) -> None:
    room = Room()
    for seat, stack in zip(SEATS, stacks, strict=False):
        room.do(table.seat_player(room.state, seat=seat, player=f"s{seat}", stack=stack))
    for op, n in ops:
        with contextlib.suppress(EngineError):  # refused: nothing written, nothing folded
            room.step(op, n)
    # Everyone leaves (now, or when the hand in play ends, the clock acting for them).
    for _ in range(500):
        if not room.state.seats:
            break
        hand = room.state.hand
        if room.state.pending is not None:
            room.step("deal", 0)
        elif hand is not None and not hand.finished:
            room.step("clock", 0xFF)  # every bank has run out; nobody is disconnected
        for seat in [s.seat for s in room.state.seats if not s.leaving]:
            room.do(table.unseat_player(room.state, seat=seat))
        if hand is None or hand.finished:
            for seat in [s.seat for s in room.state.seats]:
                room.do(table.unseat_player(room.state, seat=seat))
    assert not room.state.seats
    assert room.left + room.rake == room.bought
    # The table is exactly the fold of its log.
    assert table.fold(room.log, TableState("prop")) == room.state
