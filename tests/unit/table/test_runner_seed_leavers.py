"""A CRV1 hand whose players all leave in its seed phases is voided, and a step that keeps
failing backs off and is reported once (issue "Every edge", item 1), over the fakes with time
moved by hand.

The dealer here refuses a CRV1 deck without seeds, as the real one does
(``seeds are required for a CRV1 hand``): before the fix the table locked no seeds, asked for
that deck four times a second forever, and the hand stayed in progress.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import pytest
from structlog.testing import capture_logs

from riverboat.engine.options import pacific_options
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import TableRunner
from riverboat.table import aggregate as table
from riverboat.table.events import AnyEvent, HandCommitted, HandVoided, PlayerLeft, SeedsLocked
from tests.unit.table.crv1kit import PAUSE, WINDOW, Crv1Dealer, commit_seed, opened
from tests.unit.table.fakes import ManualClock, settle
from tests.unit.table.test_runner_liveness import audit_log

pytestmark = pytest.mark.timeout(60)


class RefusingDealer(Crv1Dealer):
    """The real dealer's rule: a CRV1 deck is dealt only with the table's locked seeds."""

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        self._call("get_deck")
        raise RuntimeError("seeds are required for a CRV1 hand: the table's locked seeds")


class BrokenDealer(Crv1Dealer):
    """A dealer that refuses every deal the same way (not as unreachable: a refusal), while
    ``broken``."""

    broken = True

    async def get_dealt(
        self,
        table_id: str,
        hand_id: str,
        log_sequence: int,
        seeds: Sequence[tuple[int, str, bytes, int]],
    ) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        if not self.broken:
            return await super().get_dealt(table_id, hand_id, log_sequence, seeds)
        self._call("get_dealt")
        raise RuntimeError("the dealer refuses (test)")


async def _events(runner: TableRunner) -> list[AnyEvent]:
    return [e for r in await runner.store.read("t1") for e, _ in decode_batch(r.payload)]


async def _leave(runner: TableRunner, seat: int) -> None:
    await runner.submit(
        lambda s: table.unseat_player(s, seat=seat, player=f"p{seat}"),
        request_id=f"leave-{seat}-{runner.version}",
        actor="op",
        kind="unseat",
    )


@pytest.mark.parametrize("phase", ["commit", "reveal"])
async def test_everyone_leaving_in_the_seed_phases_voids_the_hand(phase: str) -> None:
    dealer = RefusingDealer()
    runner, clock = await opened(dealer)
    await clock.advance(PAUSE)
    pending = runner.state.pending
    assert pending is not None and runner.state.seed_phase == "commit"
    if phase == "reveal":
        await commit_seed(runner, 1)
        await clock.advance(WINDOW)
        assert runner.state.seed_phase == "reveal"
    with capture_logs() as logs:
        for seat in (1, 2, 3):
            await _leave(runner, seat)
        await clock.advance(WINDOW)
        await clock.advance(60.0)
    assert runner.state.seats == ()
    assert runner.state.pending is None, "the hand is still committed, never dealt"
    events = await _events(runner)
    voided = [e for e in events if isinstance(e, HandVoided)]
    assert [(v.hand_id, v.refunds) for v in voided] == [(pending.hand_id, ())]
    # No seeds were locked for nobody, and no deck without seeds was asked for. (The phase
    # may end, and lock, as soon as the only seat it waited for left; the deal then voids.)
    assert not [e for e in events if isinstance(e, SeedsLocked) and not e.seeds]
    assert dealer.calls["get_deck"] == 0
    assert not [e for e in logs if e.get("log_level") == "error"], logs
    # The audit counts no hand in progress and finds nothing wrong.
    assert audit_log("t1", await runner.store.read("t1")) == []
    # Players sit down again: the table deals again.
    for seat in (1, 2):
        await runner.submit(
            partial(table.seat_player, seat=seat, player=f"q{seat}", stack=500),
            request_id=f"again-{seat}",
            actor="op",
        )
    await clock.advance(PAUSE)
    again = runner.state.pending
    assert again is not None and again.hand_id != pending.hand_id
    await clock.advance(WINDOW)
    await clock.advance(WINDOW)
    assert runner.state.hand is not None and runner.state.hand.hand_id == again.hand_id


async def test_a_hand_locked_with_no_seeds_before_the_fix_is_voided_on_resume() -> None:
    """A log written before the fix: every player left, then the seeds were locked for nobody.
    The table (restarted) voids that hand instead of asking for a deck it cannot have."""
    dealer = RefusingDealer()
    store = InMemoryEventStore()
    clock = ManualClock()
    config = TableConfig(hand_pause=PAUSE, auto_deal=False)
    runner = await TableRunner.load("t1", store, dealer, config, clock=clock)
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=30,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in (1, 2, 3):
        await runner.submit(
            partial(table.seat_player, seat=seat, player=f"p{seat}", stack=1000),
            request_id=f"seat-{seat}",
            actor="op",
        )
    commitment = await dealer.commit_hand("t1", "t1-5")
    await runner.submit(
        lambda s: table.commit_hand(
            s, hand_id="t1-5", scheme="CRV1", commitment=commitment.commitment,
            deck_size=52, root=commitment.root,
        ),
        request_id="commit",
        actor="service:table",
    )  # fmt: skip
    await runner.close()  # the old table's own steps are not what is tested here
    pending = runner.state.pending
    assert pending is not None
    for seat in (1, 2, 3):
        await _leave(runner, seat)
    await runner.submit(table.lock_seed_commits, request_id="old-commits", actor="service:table")
    await runner.submit(table.lock_seeds, request_id="old-lock", actor="service:table")
    assert runner.state.locked is not None and runner.state.locked.seeds == ()
    resumed = await TableRunner.load("t1", store, dealer, config, clock=clock)
    await resumed.resume()
    await clock.advance(60.0)
    assert resumed.state.pending is None
    assert [e.hand_id for e in await _events(resumed) if isinstance(e, HandVoided)] == [
        pending.hand_id
    ]
    assert dealer.calls["get_deck"] == 0


async def test_a_deal_that_keeps_failing_backs_off_and_is_reported_once_per_doubling() -> None:
    dealer = BrokenDealer()
    runner, clock = await opened(dealer)
    with capture_logs() as logs:
        await clock.advance(PAUSE)
        await clock.advance(WINDOW)
        await clock.advance(WINDOW)
        assert runner.state.locked is not None  # the deal itself is what fails
        await clock.advance(600.0)
    tries = dealer.calls["get_dealt"]
    # 0.25 s doubling to 60 s: about a dozen tries in ten minutes, not 2,400.
    assert 8 <= tries <= 20, tries
    # (The first try is the hand's start, the next ones its deal: one cause, one run.)
    failed = [e for e in logs if e["event"] in {"hand_start_failed", "deal_failed"}]
    # Reported at the 1st, 2nd, 4th, 8th... failure: a handful of lines, each with its count.
    assert [e["failures"] for e in failed] == [2**k for k in range(len(failed))]
    assert len(failed) <= 5
    assert [e["retry_in"] for e in failed][-1] <= 60.0
    # When the dealer answers again, the hand is dealt and the run's end is said once.
    dealer.broken = False
    with capture_logs() as logs:
        await clock.advance(60.0)
    assert runner.state.hand is not None
    assert [e["failures"] for e in logs if e["event"] == "hand_step_recovered"] == [tries]
    commits = [e for e in await _events(runner) if isinstance(e, HandCommitted)]
    assert len(commits) == 1  # the same hand, dealt at last
    assert not [e for e in await _events(runner) if isinstance(e, PlayerLeft)]


async def test_a_hand_everyone_left_is_voided_on_resume_without_waiting_a_seed_phase() -> None:
    """Reloaded with a committed hand that everyone left in its commit phase, the table voids
    it at once (the lifecycle says it can no longer be dealt): no seed window is waited for
    players who are gone. Time never moves here."""
    dealer = RefusingDealer()
    store = InMemoryEventStore()
    clock = ManualClock()
    config = TableConfig(hand_pause=PAUSE)
    runner = await TableRunner.load("t1", store, dealer, config, clock=clock)
    await runner.close()  # a table whose owner died: only its log remains
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=30,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in (1, 2):
        await runner.submit(
            partial(table.seat_player, seat=seat, player=f"p{seat}", stack=1000),
            request_id=f"seat-{seat}",
            actor="op",
        )
    commitment = await dealer.commit_hand("t1", "t1-4")
    await runner.submit(
        lambda s: table.commit_hand(
            s, hand_id="t1-4", scheme="CRV1", commitment=commitment.commitment,
            deck_size=52, root=commitment.root,
        ),
        request_id="commit",
        actor="service:table",
    )  # fmt: skip
    for seat in (1, 2):
        await _leave(runner, seat)
    assert runner.state.seed_phase == "commit"
    resumed = await TableRunner.load("t1", store, dealer, config, clock=clock)
    await resumed.resume()
    await settle()
    assert resumed.state.pending is None
    voided = [e for e in await _events(resumed) if isinstance(e, HandVoided)]
    assert [(v.hand_id, v.reason) for v in voided] == [("t1-4", "not enough players to deal")]
    assert clock.now == 0.0
    await resumed.close()
