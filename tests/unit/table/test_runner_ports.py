"""The table runner over fake ports: dealing, the clock, a draw's reshuffle, voids and
hand-over, with time moved by hand (no real waiting, no timing), the dealer's calls counted and
the lease switched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from riverboat.engine.commands import Act
from riverboat.engine.events import HandStarted, ReshuffleRequested
from riverboat.engine.games import moves, waiting_for
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.engine.state import RESHUFFLE, HandState
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore
from riverboat.retrying import SEED_REVEAL
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import LeaseNotHeld, TableRunner
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import TableState
from riverboat.table.events import (
    AnyEvent,
    HandVoided,
    PlayerTimedOut,
    TimeBankPolicy,
    TimeBankStarted,
    TimeBankUsed,
)
from tests.unit.table.fakes import CountingDealer, ManualClock, SwitchLease, settle

pytestmark = pytest.mark.timeout(60)

PAUSE = 2.0
ACTION = 30


async def _runner(
    store: InMemoryEventStore,
    dealer: CountingDealer,
    clock: ManualClock,
    lease: SwitchLease | None = None,
) -> TableRunner:
    return await TableRunner.load(
        "t1",
        store,
        dealer,
        TableConfig(hand_pause=PAUSE),
        clock=clock,
        lease=lease or SwitchLease(),
    )


async def _open(
    runner: TableRunner, players: int = 2, time_bank: TimeBankPolicy | None = None
) -> None:
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=ACTION, time_bank=time_bank,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in range(1, players + 1):
        await runner.submit(_seat(seat), request_id=f"seat-{seat}", actor="op")


def _acting(runner: TableRunner, act: Act) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.act(s, act, runner.deck or ())


def _seat(seat: int) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=1000)


def _in_hand(runner: TableRunner) -> bool:
    hand = runner.state.hand
    return hand is not None and not hand.finished and bool(waiting_for(hand))


async def _events(store: InMemoryEventStore) -> list[object]:
    return [e for r in await store.read("t1") for e, _ in decode_batch(r.payload)]


async def test_the_next_hand_is_dealt_after_the_pause_and_committed_once() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    await _open(runner)
    await clock.advance(PAUSE - 0.5)
    assert not _in_hand(runner) and dealer.commits == []
    await clock.advance(0.5)
    assert _in_hand(runner)
    assert len(dealer.commits) == 1
    assert sum(isinstance(e, HandStarted) for e in await _events(store)) == 1
    await runner.close()


async def test_the_clock_acts_when_the_action_time_runs_out_and_not_before() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    await _open(runner)
    await clock.advance(PAUSE)
    version = runner.version
    await clock.advance(ACTION - 1)
    assert runner.version == version
    await clock.advance(1)
    assert runner.version > version
    assert (await store.read("t1"))[-1].request_id.find("clock") >= 0
    await runner.close()


async def test_a_hand_that_cannot_resume_without_the_dealer_is_voided_and_refunded() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    await _open(runner)
    await clock.advance(PAUSE)
    assert _in_hand(runner)
    await runner.close()
    # A new owner (after a crash) finds the hand in play and cannot fetch its deck.
    dealer.down = True
    again = await _runner(store, dealer, clock)
    await again.resume()
    await settle()
    voided = [e for e in await _events(store) if isinstance(e, HandVoided)]
    assert len(voided) == 1
    assert sorted(s.stack for s in again.state.seats) == [1000, 1000]
    await again.close()


async def test_a_resumed_hand_keeps_its_committed_deck() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    await _open(runner)
    await clock.advance(PAUSE)
    deck, hand_id = runner.deck, runner.state.hand.hand_id  # type: ignore[union-attr]
    await runner.close()
    again = await _runner(store, dealer, clock)
    await again.resume()
    assert again.state.hand is not None and again.state.hand.hand_id == hand_id
    assert again.deck == deck
    assert dealer.commits == [hand_id]  # no second commitment for the same hand
    await again.close()


async def test_hand_over_waits_for_the_hand_in_play_and_starts_no_new_one() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    await _open(runner)
    await clock.advance(PAUSE)
    assert _in_hand(runner)
    handing = asyncio.ensure_future(runner.hand_over(patience=10 * ACTION))
    await settle()
    assert not handing.done()  # a hand is in play
    # Nobody acts: the clock plays the hand out; then no new hand is dealt.
    for _ in range(20):
        if handing.done():
            break
        await clock.advance(ACTION)
    assert handing.done() and handing.result() is True
    commits = list(dealer.commits)
    await clock.advance(PAUSE * 5)
    assert dealer.commits == commits and not _in_hand(runner)
    await runner.close()


async def test_hand_over_gives_up_after_its_patience_with_the_hand_still_in_play() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    await _open(runner)
    await clock.advance(PAUSE)
    handing = asyncio.ensure_future(runner.hand_over(patience=5))
    await clock.advance(5)
    assert handing.done() and handing.result() is False
    await runner.close()


async def test_without_the_lease_nothing_is_written_and_no_clock_acts() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    lease = SwitchLease()
    runner = await _runner(store, dealer, clock, lease)
    await _open(runner)
    await clock.advance(PAUSE)
    version = runner.version
    lease.held = False
    await clock.advance(ACTION * 3)
    assert runner.version == version == await store.last_version("t1")
    with pytest.raises(LeaseNotHeld):
        await runner.submit(
            lambda s: table.seat_player(s, seat=3, player="p3", stack=1000),
            request_id="seat-3",
            actor="op",
        )
    assert await store.last_version("t1") == version
    await runner.close()


async def test_a_refused_reveal_is_retried_until_it_succeeds_and_the_table_deals_on() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    dealer.reveal_failures = 10**6  # the dealer refuses every reveal until told otherwise
    await _open(runner)
    await clock.advance(PAUSE)
    first = runner.state.hand.hand_id  # type: ignore[union-attr]
    # Nobody acts: the clock plays the first hand out, then the next hand is dealt.
    for _ in range(40):
        if sum(isinstance(e, HandStarted) for e in await _events(store)) >= 2:
            break
        await clock.advance(ACTION)
    assert sum(isinstance(e, HandStarted) for e in await _events(store)) >= 2, "table blocked"
    assert runner.revealing and dealer.revealed == []
    tries = dealer.calls["reveal_seed"]
    await clock.advance(SEED_REVEAL.maximum * 3)
    assert dealer.calls["reveal_seed"] > tries  # still asking, well past any patience
    dealer.reveal_failures = 0
    await clock.advance(SEED_REVEAL.maximum)
    assert first in dealer.revealed
    await runner.close()


class StackedDealer(CountingDealer):
    """Deals one fixed deck (the hands in dealing order, then the stub)."""

    def __init__(self, deck: tuple[int, ...]) -> None:
        super().__init__()
        self.deck = deck

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        self._call("get_deck")
        return self.deck


async def test_a_draw_out_of_cards_is_reshuffled_by_the_dealer_and_rebuilt_alike() -> None:
    # Eight players: 40 cards dealt, 12 in the stub; the first three drawers throw all five.
    deck = tuple(range(52))
    store, dealer, clock = InMemoryEventStore(), StackedDealer(deck), ManualClock()
    runner = await _runner(store, dealer, clock)
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="dealers_choice", options=dealers_choice_options(),
            action_seconds=ACTION,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in range(1, 9):
        await runner.submit(_seat(seat), request_id=f"seat-{seat}", actor="op")
    await clock.advance(PAUSE)
    assert runner.state.choosing
    dealer_seat = runner.state.dealer
    await runner.act(
        lambda s: choice.choose_game(s, seat=dealer_seat, game="draw", options=None),
        request_id="choose",
        actor="p",
    )
    await clock.advance(PAUSE)
    drawn = 0
    for step in range(60):
        hand = runner.state.hand
        assert isinstance(hand, HandState) and not hand.finished
        if dealer.calls["reshuffle"]:
            break
        seat = waiting_for(hand)[0]
        names = {m.action: m for m in moves(hand, seat)}
        if "draw" in names:
            held = hand.cards[hand.seats.index(seat)]
            act = Act(seat, "draw", cards=tuple(held) if drawn < 3 else ())
            drawn += 1
        else:
            act = Act(seat, "check" if "check" in names else "call")
        await runner.act(_acting(runner, act), request_id=f"a{step}", actor="p")
        await settle()
    assert dealer.calls["reshuffle"] == 1
    hand = runner.state.hand
    assert isinstance(hand, HandState) and hand.phase != RESHUFFLE
    assert any(isinstance(e, ReshuffleRequested) for e in await _events(store))
    await runner.resume()  # the deck is fetched again with the reshuffled stub appended
    deck_now = runner.deck
    reshuffled = runner.reshuffles[0]  # the discards the dealer shuffled into the new stub
    assert deck_now is not None and deck_now[52:] == tuple(sorted(reshuffled))
    await runner.close()
    # A new owner rebuilds the same deck: the committed one, then the dealer's reshuffle.
    calls = dealer.calls["reshuffle"]
    again = await _runner(store, dealer, clock)
    await again.resume()
    assert again.deck == deck_now and dealer.calls["reshuffle"] == calls + 1
    assert dealer.commits == [hand.hand_id]
    await again.close()


async def test_the_time_bank_runs_its_seconds_after_the_action_clock_and_is_drawn_as_used() -> None:
    store, dealer, clock = InMemoryEventStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    policy = TimeBankPolicy(seconds=20, topup_seconds=0, topup_hands=0, protect_hands=0)
    await _open(runner, time_bank=policy)
    await clock.advance(PAUSE)
    assert _in_hand(runner)
    hand = runner.state.hand
    assert hand is not None
    seat = waiting_for(hand)[0]
    await clock.advance(ACTION)  # the action clock runs out: the bank starts, nothing is played
    assert (await _events(store))[-1] == TimeBankStarted(seat, f"p{seat}", 20)
    assert runner.state.hand is hand
    await clock.advance(6.5)  # 6.5 s into the bank the player acts: 7 whole seconds are drawn
    move = moves(hand, seat)[0]
    command = Act(seat, move.action, move.to[0])
    await runner.act(
        # As the service's Act does: the seconds the runner measured go into the decision.
        lambda s: table.act(s, command, runner.deck or (), bank_used=runner.bank_used(seat)),
        request_id="m1",
        actor=f"p{seat}",
    )
    batch = [e for e, _ in decode_batch((await store.read("t1"))[-1].payload)]
    assert batch[0] == TimeBankUsed(seat, f"p{seat}", 7)
    assert runner.state.seat_at(seat).time_bank == 13  # type: ignore[union-attr]
    if _in_hand(runner):
        nxt = waiting_for(runner.state.hand)[0]
        await clock.advance(ACTION)
        assert (await _events(store))[-1] == TimeBankStarted(nxt, f"p{nxt}", 20)
        await clock.advance(3.2)
        assert runner.bank_used(nxt) == 4
        await clock.advance(20 - 3.2 - 0.5)
        assert not any(isinstance(e, PlayerTimedOut) for e in await _events(store))
        await clock.advance(0.5)  # the bank's 20 s are over: drawn in full, then the clock acts
        events = await _events(store)
        assert TimeBankUsed(nxt, f"p{nxt}", 20) in events
        assert PlayerTimedOut(nxt, f"p{nxt}") in events
    await runner.close()


class GatedStore(InMemoryEventStore):
    """An event store whose appends wait while ``gate`` is closed (a slow JetStream ack)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()

    async def append(self, *args: Any, **kwargs: Any) -> Any:
        await self.gate.wait()
        return await super().append(*args, **kwargs)


async def test_a_clock_that_fires_while_the_player_s_move_is_being_written_does_nothing() -> None:
    # The player acts just before the action clock runs out; the timer fires while that move's
    # append is in flight. The clock, armed for the player's turn, must not then decide on the
    # state after the move: it would start the bank of a turn already taken (a bank's start
    # needs no engine move, so nothing else refuses it; the rolling restart's audit found one).
    store, dealer, clock = GatedStore(), CountingDealer(), ManualClock()
    runner = await _runner(store, dealer, clock)
    policy = TimeBankPolicy(seconds=20, topup_seconds=0, topup_hands=0, protect_hands=0)
    await _open(runner, time_bank=policy)
    await clock.advance(PAUSE)
    hand = runner.state.hand
    assert hand is not None and _in_hand(runner)
    seat = waiting_for(hand)[0]
    move = moves(hand, seat)[0]
    before = len(await store.read("t1"))
    await clock.advance(ACTION - 0.5)
    store.gate.clear()
    acting = asyncio.ensure_future(
        runner.act(_acting(runner, Act(seat, move.action, move.to[0])), request_id="m1", actor="p")
    )
    await settle()  # the move holds the table's lock, its append waiting for the ack
    await clock.advance(0.5)  # the clock's timer fires meanwhile
    store.gate.set()
    await acting
    await settle()
    records = (await store.read("t1"))[before:]
    assert records and "/m1" in records[0].request_id  # the move, written first
    assert not any("clock" in r.request_id for r in records), [r.request_id for r in records]
    await runner.close()
