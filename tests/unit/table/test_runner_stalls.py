"""The two stalls the liveness battery found (tests/unit/table/test_runner_liveness.py), each
pinned down on its own over the fakes, with time moved by hand.

1. A hand that ends inside its own deal (heads-up, one player all in on the ante) must be
   followed by the next hand when both still hold chips: the deal ran while the runner was
   "dealing", and the end of that deal re-derived nothing.
2. At a dealer's choice table a dealer who cannot be dealt in any more (sat out after the
   call, or after choosing) is passed over as docs/games.md says: the next seat is called,
   the clock never chooses for them, and a deal already committed is voided with the call
   reset; the table then deals.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from riverboat.engine.events import DealerUp, GameChosen, HandStarted
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import TableRunner
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent, HandVoided
from tests.unit.table.fakes import CountingDealer, ManualClock, settle
from tests.unit.table.test_runner_liveness import audit_log

pytestmark = pytest.mark.timeout(60)

PAUSE = 2.0
ACTION = 10
#: A table whose first hand (its deck fixed by the hand id, see CountingDealer) the short stack
#: wins: both players hold chips after it.
ANTE_TABLE = "t2"


async def _events(store: InMemoryEventStore, table_id: str) -> list[AnyEvent]:
    return [e for r in await store.read(table_id) for e, _ in decode_batch(r.payload)]


def _seat(seat: int, stack: int) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=stack)


async def _ante_table(
    store: InMemoryEventStore, clock: ManualClock, *, auto_deal: bool = True
) -> TableRunner:
    runner = await TableRunner.load(
        ANTE_TABLE,
        store,
        CountingDealer(),
        TableConfig(hand_pause=PAUSE, auto_deal=auto_deal),
        clock=clock,
    )
    if runner.state.created:
        return runner
    options = pacific_options(small_bet=500, big_bet=1000)  # a $2 ante
    await runner.submit(
        lambda s: table.create_table(
            s, name="t", variant="seven_card_stud_hi_lo", options=options, action_seconds=ACTION
        ),
        request_id="open",
        actor="op",
    )
    # Seat 1 is all in on the ante: heads-up, nobody can bet, the deal plays the hand out.
    for seat, stack in ((1, options.ante), (2, 5000)):
        await runner.submit(_seat(seat, stack), request_id=f"seat-{seat}", actor="op")
    return runner


async def test_a_hand_that_ends_in_its_own_deal_is_followed_by_the_next_hand() -> None:
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await _ante_table(store, clock)
    await clock.advance(PAUSE)
    assert runner.state.hands_played == 1
    hand = runner.state.hand
    assert hand is not None and hand.finished  # ended in the deal's own batch
    assert all(s.stack > 0 for s in runner.state.seats)  # the short stack won: both can play
    await clock.advance(PAUSE)
    assert runner.state.hands_played == 2
    await runner.close()
    # The audit settles the first hand at its deal's end too: the second one replays clean.
    assert audit_log(ANTE_TABLE, await store.read(ANTE_TABLE)) == []


async def test_a_committed_hand_dealt_on_resume_that_ends_in_its_deal_is_followed_too() -> None:
    # The instance crashed between the commitment and the deal: the next owner deals it
    # (the runner's other way of dealing, _deal_pending), and must then deal on.
    store, clock = InMemoryEventStore(), ManualClock()
    first = await _ante_table(store, clock, auto_deal=False)
    await first.submit(
        lambda s: table.commit_hand(
            s, hand_id=f"{ANTE_TABLE}-4", scheme="RBS1", commitment=b"c" * 32, deck_size=52
        ),
        request_id="commit",
        actor="service:table",
    )
    await first.close()
    runner = await _ante_table(store, clock)
    await runner.resume()
    await settle()
    assert runner.state.hands_played == 1 and all(s.stack > 0 for s in runner.state.seats)
    await clock.advance(PAUSE)
    assert runner.state.hands_played == 2
    await runner.close()


class GatedDealer(CountingDealer):
    """A dealer whose deck is handed over only once ``gate`` opens (a slow GetDeck)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        await self.gate.wait()
        return await super().get_deck(table_id, hand_id, log_sequence)


async def _choice_table(
    store: InMemoryEventStore, clock: ManualClock, dealer: CountingDealer
) -> TableRunner:
    runner = await TableRunner.load("dc", store, dealer, TableConfig(hand_pause=PAUSE), clock=clock)
    await runner.submit(
        lambda s: table.create_table(
            s, name="dc", variant="dealers_choice", options=dealers_choice_options(),
            action_seconds=ACTION,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in (1, 2, 3):
        await runner.submit(_seat(seat, 5000), request_id=f"seat-{seat}", actor="op")
    return runner


async def _sit_out(runner: TableRunner, player: str) -> None:
    await runner.submit(lambda s: table.sit_out(s, player=player), request_id="so", actor=player)


def _calls(events: list[AnyEvent]) -> list[int]:
    return [e.seat for e in events if isinstance(e, DealerUp)]


async def test_a_dealer_who_sits_out_after_the_call_is_passed_over_and_the_table_deals() -> None:
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await _choice_table(store, clock, CountingDealer())
    await clock.advance(PAUSE)
    assert runner.state.choosing and runner.state.dealer == 1
    await _sit_out(runner, "p1")
    # The deal passes to seat 2 after the pause; nobody chooses, so the clock does for seat 2.
    await clock.advance(PAUSE + ACTION + PAUSE)
    events = await _events(store, "dc")
    assert _calls(events) == [1, 2]
    assert [e.seat for e in events if isinstance(e, GameChosen)] == [2]
    started = [e for e in events if isinstance(e, HandStarted)]
    assert len(started) == 1 and started[0].button == 2
    assert 1 not in {s.seat for s in started[0].seats}
    assert not any(isinstance(e, HandVoided) for e in events)
    await runner.close()


async def test_a_dealer_who_chose_then_sat_out_before_the_commitment_is_passed_over() -> None:
    store, clock = InMemoryEventStore(), ManualClock()
    runner = await _choice_table(store, clock, CountingDealer())
    await clock.advance(PAUSE)
    await runner.submit(
        lambda s: choice.choose_game(s, seat=1, game="draw", options=None),
        request_id="choose",
        actor="p1",
    )
    await _sit_out(runner, "p1")  # within the pause before the commitment
    await clock.advance(PAUSE + ACTION + PAUSE)
    events = await _events(store, "dc")
    assert _calls(events) == [1, 2]
    started = [e for e in events if isinstance(e, HandStarted)]
    assert len(started) == 1 and started[0].button == 2
    assert not any(isinstance(e, HandVoided) for e in events)
    await runner.close()


async def test_a_dealer_who_sits_out_after_the_commitment_voids_it_and_the_call_is_reset() -> None:
    store, clock, dealer = InMemoryEventStore(), ManualClock(), GatedDealer()
    runner = await _choice_table(store, clock, dealer)
    await clock.advance(PAUSE)
    await runner.submit(
        lambda s: choice.choose_game(s, seat=1, game="draw", options=None),
        request_id="choose",
        actor="p1",
    )
    dealer.gate.clear()
    await clock.advance(PAUSE)  # committed; the deck is on its way
    assert runner.state.pending is not None
    await _sit_out(runner, "p1")
    dealer.gate.set()
    await settle()
    events = await _events(store, "dc")
    assert [e.reason for e in events if isinstance(e, HandVoided)] == [
        "the dealer left before the deal"
    ]
    # The void ended the call: no dealer, nothing chosen; the next seat is called and deals.
    assert (runner.state.dealer, runner.state.chosen, runner.state.choosing) in {
        (0, False, False),
        (2, False, True),
    }
    await clock.advance(PAUSE + ACTION + PAUSE)
    events = await _events(store, "dc")
    assert _calls(events) == [1, 2]
    started = [e for e in events if isinstance(e, HandStarted)]
    assert len(started) == 1 and started[0].button == 2
    assert len([e for e in events if isinstance(e, HandVoided)]) == 1
    await runner.close()
