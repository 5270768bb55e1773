"""CRV1 through the table runner with fake ports and time moved by hand: an honest (or
cheating) CRV1 dealer, a table of three, its seed phases driven seat by seat, and the Watch
messages a seat gets. Shared by the table's and the play screen's CRV1 tests."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from riverboat.engine.options import pacific_options
from riverboat.eventstore import InMemoryEventStore
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import Commitment
from riverboat.services.table.runner import TableRunner, Update
from riverboat.services.table.viewpb import TableViews
from riverboat.shuffle import crv1
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent
from riverboat.v1 import table_pb2
from tests.unit.table.fakes import CountingDealer, ManualClock, SwitchLease, settle

PAUSE = 2.0
#: One seed phase after that pause (the longest, 1 s by default).
WINDOW = TableConfig(hand_pause=PAUSE).seed_phase_seconds(PAUSE)


class Crv1Dealer(CountingDealer):
    """An honest CRV1 dealer (the real scheme), or one that swaps the card at dealing index
    ``cheat`` for another after committing (keeping the position's salt and path)."""

    def __init__(self, cheat: int | None = None) -> None:
        super().__init__()
        self.cheat = cheat

    def _seed(self, hand_id: str) -> bytes:
        return hashlib.sha256(hand_id.encode()).digest()

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        self._call("commit_hand")
        commit = crv1.commit_deck(hand_id, self._seed(hand_id))
        return Commitment("CRV1", commit.commitment, 52, commit.root)

    async def get_dealt(
        self,
        table_id: str,
        hand_id: str,
        log_sequence: int,
        seeds: Sequence[tuple[int, str, bytes, int]],
    ) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        self._call("get_dealt")
        locked = [crv1.ClientSeed(s, p, x, crv1.SeedOrigin(o)) for s, p, x, o in seeds]
        hand = crv1.derive_hand(hand_id, self._seed(hand_id), locked)
        cards = list(hand.dealt())
        openings = [hand.commit.opening(j) for j in hand.order]
        if self.cheat is not None:
            i = self.cheat
            other = cards[-1]  # the bottom card, never dealt in a short hand
            cards[i], cards[-1] = other, cards[i]
            good = openings[i]
            openings[i] = crv1.Opening(good.position, other, good.salt, good.path)
        return tuple(cards), tuple(o.to_bytes() for o in openings)


def _seat(seat: int) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=1000)


def client_seed(seat: int) -> bytes:
    return hashlib.sha256(f"client seed of seat {seat}".encode()).digest()


async def opened(dealer: Crv1Dealer, pause: float = PAUSE) -> tuple[TableRunner, ManualClock]:
    """A table of three, dealing by itself after ``pause``."""
    clock = ManualClock()
    runner = await TableRunner.load(
        "t1", InMemoryEventStore(), dealer, TableConfig(hand_pause=pause), clock=clock,
        lease=SwitchLease(),
    )  # fmt: skip
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=30,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in (1, 2, 3):
        await runner.submit(_seat(seat), request_id=f"seat-{seat}", actor="op")
    return runner, clock


async def commit_seed(runner: TableRunner, seat: int, seed: bytes | None = None) -> None:
    pending = runner.state.pending
    assert pending is not None
    digest = crv1.seed_commitment(pending.hand_id, seat, seed or client_seed(seat))
    await runner.submit(
        lambda s: table.commit_seed(
            s, seat=seat, player=f"p{seat}", hand_id=pending.hand_id, commitment=digest
        ),
        request_id=f"commit-{seat}",
        actor=f"p{seat}",
    )


async def reveal_seed(runner: TableRunner, seat: int, seed: bytes | None = None) -> None:
    pending = runner.state.pending
    assert pending is not None
    await runner.submit(
        lambda s: table.send_seed(
            s, seat=seat, player=f"p{seat}", hand_id=pending.hand_id,
            seed=seed or client_seed(seat),
        ),
        request_id=f"reveal-{seat}",
        actor=f"p{seat}",
    )  # fmt: skip


async def dealt_hand(
    dealer: Crv1Dealer, *, committing: Sequence[int] = (), revealing: Sequence[int] = ()
) -> TableRunner:
    """A table of three with its first hand dealt: ``committing`` seats' clients commit to
    their seeds in the commit phase, ``revealing`` ones reveal them in the reveal phase."""
    runner, clock = await opened(dealer)
    await clock.advance(PAUSE)  # the pause: then the commitment, and the commit phase opens
    assert runner.state.seed_phase == "commit" and runner.state.hand is None
    for seat in committing:
        await commit_seed(runner, seat)
    await settle()
    if runner.state.seed_phase == "commit":
        await clock.advance(WINDOW)
    # (With no commitment to wait for, the reveal phase ends at once.)
    assert runner.state.seed_phase == ("reveal" if committing else "")
    for seat in revealing:
        await reveal_seed(runner, seat)
    await settle()
    if runner.state.seed_phase == "reveal":
        await clock.advance(WINDOW)
    await settle()
    assert runner.state.hand is not None
    return runner


async def messages_to(runner: TableRunner, seat: int) -> list[table_pb2.WatchResponse]:
    """What a Watch from the table's start sends ``seat``: every version's events, the last
    with the view."""
    views = TableViews("t1")
    views.proofs, views.deal_indices = runner.proofs, runner.deal_indices
    return [
        views.update(runner.state, runner.version, seat, Update.from_record(record))
        async for record in runner.store.iter_records("t1", 1)
    ]
