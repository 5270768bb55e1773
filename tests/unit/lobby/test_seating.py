"""The buy-in / move / cash-out saga (riverboat.lobby.seating) against fake owners: every
refusal, failure, compensation and recovery path, and what each owner and the journal saw."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from riverboat.lobby.seating import (
    TRANSITIONS,
    Effect,
    MoveIncomplete,
    Outcome,
    Seating,
    Stage,
    Unseated,
    transition,
)
from riverboat.lobby.state import Join


class Refused(Exception):
    """The fakes' "no" (the services' FAILED_PRECONDITION)."""


class Silent(Exception):
    """A call that got no answer."""


class FakeWallets:
    def __init__(self, balance: int = 10_000) -> None:
        self.balance = balance
        self.reserved: dict[str, int] = {}
        self.released: list[str] = []
        self.fail: Exception | None = None
        self.calls: list[tuple[str, str]] = []

    async def reserve(
        self, player: str, table_id: str, amount: int, reference: str, *, moved_from: str
    ) -> int:
        self.calls.append(("reserve", moved_from))
        if self.fail is not None:
            raise self.fail
        if reference not in self.reserved:  # idempotent by reference
            if amount > self.balance:
                raise Refused("not enough in the wallet")
            self.balance -= amount
            self.reserved[reference] = amount
        return self.balance

    async def check(self, player: str, table_id: str, amount: int, reference: str) -> None:
        self.calls.append(("check", reference))
        if reference not in self.reserved and amount > self.balance:
            raise Refused("not enough in the wallet")

    async def release(self, player: str, reference: str, reason: str) -> None:
        self.calls.append(("release", reason))
        self.balance += self.reserved.pop(reference, 0)
        self.released.append(reference)


class FakeTables:
    def __init__(self) -> None:
        self.seats: dict[tuple[str, str], tuple[int, int]] = {}  # (table, player) -> seat, stack
        self.fail_seat: Exception | None = None
        self.fail_view: Exception | None = None
        self.unseats: list[tuple[str, str, bool]] = []

    async def seat(self, table_id: str, seat: int, player: str, stack: int, reference: str) -> str:
        if self.fail_seat is not None:
            raise self.fail_seat
        if any(t == table_id and s == seat for (t, _), (s, _) in self.seats.items()):
            raise Refused(f"seat {seat} is taken")
        self.seats[table_id, player] = (seat, stack)
        return f"owner-of-{table_id}"

    async def unseat(
        self, table_id: str, player: str, request_id: str, *, between_hands: bool
    ) -> Unseated:
        self.unseats.append((table_id, request_id, between_hands))
        if (table_id, player) not in self.seats:
            raise LookupError(f"{player} does not sit at {table_id}")
        _, stack = self.seats.pop((table_id, player))
        return Unseated(pending=False, stack=stack)

    async def seat_of(self, table_id: str, player: str) -> int | None:
        if self.fail_view is not None:
            raise self.fail_view
        held = self.seats.get((table_id, player))
        return held[0] if held else None


class FakeJournal:
    def __init__(self) -> None:
        self.joins: dict[str, Join] = {}
        self.records: list[tuple[str, str]] = []

    async def started(self, join: Join) -> None:
        self.joins[join.reference] = Join(
            join.reference, join.player, join.table_id, join.seat, join.buy_in
        )
        self.records.append(("started", join.reference))

    async def completed(self, reference: str, seat: int) -> None:
        self.joins[reference].status, self.joins[reference].seat = "completed", seat
        self.records.append(("completed", reference))

    async def failed(self, reference: str, reason: str) -> None:
        self.joins[reference].status, self.joins[reference].reason = "failed", reason
        self.records.append(("failed", reason))


@dataclass
class Room:
    wallets: FakeWallets = field(default_factory=FakeWallets)
    tables: FakeTables = field(default_factory=FakeTables)
    journal: FakeJournal = field(default_factory=FakeJournal)

    @property
    def seating(self) -> Seating:
        return Seating(self.wallets, self.tables, self.journal, refusal=Refused)


@pytest.fixture
def room() -> Room:
    return Room()


def _join(ref: str = "join-ann-1", table: str = "t1", seat: int = 2, amount: int = 2_000) -> Join:
    return Join(ref, "ann", table, seat, amount)


async def test_a_buy_in_reserves_seats_and_completes(room: Room) -> None:
    seated = await room.seating.join(_join())
    assert (seated.seat, seated.stack, seated.balance) == (2, 2_000, 8_000)
    assert seated.owner_address == "owner-of-t1"
    assert room.tables.seats["t1", "ann"] == (2, 2_000)
    assert room.journal.records == [("started", "join-ann-1"), ("completed", "join-ann-1")]
    assert room.journal.joins["join-ann-1"].status == "completed"


async def test_a_buy_in_the_wallet_refuses_is_refused_before_anything_is_written(
    room: Room,
) -> None:
    with pytest.raises(Refused, match="not enough"):
        await room.seating.join(_join(amount=20_000))
    assert room.journal.records == [] and room.wallets.calls == [("check", "join-ann-1")]
    room.wallets.balance = 30_000  # the same request, once the wallet can pay
    assert (await room.seating.join(_join(amount=20_000))).balance == 10_000


async def test_a_refused_reservation_fails_the_join_with_nothing_to_undo(room: Room) -> None:
    late = _join(amount=2_000)
    await room.journal.started(late)  # checked and started; then the wallet was spent
    room.wallets.balance = 1_000
    with pytest.raises(Refused, match="not enough"):
        await room.seating.buy_in(late)
    assert room.journal.records == [
        ("started", "join-ann-1"),
        ("failed", "not enough in the wallet"),
    ]
    assert room.wallets.released == [] and room.tables.seats == {}
    assert room.wallets.balance == 1_000


async def test_a_reservation_without_answer_leaves_the_saga_started(room: Room) -> None:
    room.wallets.fail = Silent("settlement did not answer")
    with pytest.raises(Silent):
        await room.seating.join(_join())
    assert room.journal.records == [("started", "join-ann-1")]
    assert room.journal.joins["join-ann-1"].status == "started"
    # A retry of the same request resumes it; the wallet answers the reference once.
    room.wallets.fail = None
    seated = await room.seating.buy_in(room.journal.joins["join-ann-1"])
    assert seated.balance == 8_000
    assert room.journal.joins["join-ann-1"].status == "completed"


@pytest.mark.parametrize("failure", [Refused("seat 2 is taken"), Silent("table gone")])
async def test_a_seat_that_fails_releases_the_reservation(room: Room, failure: Exception) -> None:
    room.tables.fail_seat = failure
    with pytest.raises(type(failure)):
        await room.seating.join(_join())
    assert room.wallets.released == ["join-ann-1"] and room.wallets.balance == 10_000
    assert room.journal.joins["join-ann-1"].status == "failed"
    assert room.journal.joins["join-ann-1"].reason == f"could not sit down: {failure}"
    assert room.wallets.calls[-1] == ("release", f"could not sit down: {failure}")


async def test_the_owner_of_the_seat_decides_a_taken_seat(room: Room) -> None:
    room.tables.seats["t1", "bob"] = (2, 1_000)
    with pytest.raises(Refused, match="taken"):
        await room.seating.join(_join())
    assert room.wallets.balance == 10_000 and room.journal.joins["join-ann-1"].status == "failed"


async def test_recovery_completes_a_seated_join_and_undoes_the_others(room: Room) -> None:
    seated, lost = _join("join-ann-1", "t1", seat=0), _join("join-ann-2", "t2")
    for join in (seated, lost):
        await room.journal.started(join)
        await room.wallets.reserve(
            join.player, join.table_id, join.buy_in, join.reference, moved_from=""
        )
    room.tables.seats["t1", "ann"] = (5, 2_000)  # seated before the crash, at seat 5
    assert await room.seating.recover([seated, lost]) == []
    assert room.journal.joins["join-ann-1"].status == "completed"
    assert room.journal.joins["join-ann-1"].seat == 5
    assert room.journal.joins["join-ann-2"].status == "failed"
    assert room.journal.joins["join-ann-2"].reason == "interrupted"
    assert room.wallets.released == ["join-ann-2"]


async def test_recovery_leaves_a_join_whose_table_does_not_answer(room: Room) -> None:
    pending = _join()
    await room.journal.started(pending)
    room.tables.fail_view = Silent("no owner")
    unresolved = await room.seating.recover([pending])
    assert [(j.reference, str(e)) for j, e in unresolved] == [("join-ann-1", "no owner")]
    assert room.journal.joins["join-ann-1"].status == "started" and room.wallets.released == []


async def test_a_move_cashes_out_between_hands_and_buys_in_the_same_stack(room: Room) -> None:
    room.tables.seats["t1", "ann"] = (3, 4_321)
    seated = await room.seating.move(_join("move-ann-1", "t2", seat=1, amount=0), source="t1")
    assert (seated.seat, seated.stack) == (1, 4_321)
    assert room.tables.unseats == [("t1", "move-ann-1", True)]
    assert ("reserve", "t1") in room.wallets.calls  # the reservation names the table left
    assert room.tables.seats == {("t2", "ann"): (1, 4_321)}
    assert room.journal.joins["move-ann-1"].buy_in == 4_321


async def test_a_move_refused_at_the_first_table_changes_nothing(room: Room) -> None:
    with pytest.raises(LookupError):
        await room.seating.move(_join("move-ann-1", "t2"), source="t1")
    assert room.journal.records == [] and room.wallets.calls == []


async def test_a_move_the_target_refuses_leaves_the_chips_in_the_wallet(room: Room) -> None:
    room.tables.seats["t1", "ann"] = (3, 4_321)
    room.tables.seats["t2", "bob"] = (1, 1_000)  # the target seat went meanwhile
    with pytest.raises(MoveIncomplete) as incomplete:
        await room.seating.move(_join("move-ann-1", "t2", seat=1), source="t1")
    assert incomplete.value.stack == 4_321
    assert isinstance(incomplete.value.cause, Refused)
    assert room.wallets.released == ["move-ann-1"]
    assert room.journal.joins["move-ann-1"].status == "failed"


async def test_a_move_cut_after_the_leave_resumes_with_the_same_seat_and_chips(
    room: Room,
) -> None:
    room.tables.seats["t1", "ann"] = (3, 4_321)
    room.wallets.fail = Silent("cut")
    with pytest.raises(MoveIncomplete):
        await room.seating.move(_join("move-ann-1", "t2", seat=4), source="t1")
    assert room.journal.joins["move-ann-1"].status == "started"
    room.wallets.fail = None
    seated = await room.seating.resume_move(room.journal.joins["move-ann-1"], source="t1")
    assert (seated.seat, seated.stack) == (4, 4_321)
    assert room.tables.unseats == [("t1", "move-ann-1", True)]  # left once


async def test_a_leave_is_the_tables_unseat_whenever_the_hand_ends(room: Room) -> None:
    room.tables.seats["t1", "ann"] = (3, 700)
    assert await room.seating.leave("t1", "ann", "leave-ann-x") == Unseated(False, 700)
    assert room.tables.unseats == [("t1", "leave-ann-x", False)]


def test_every_stage_short_of_an_end_has_a_way_to_one() -> None:
    ends = {Stage.COMPLETED, Stage.FAILED}
    for stage in set(Stage) - ends:
        reached, frontier = set(), {stage}
        while frontier:
            here = frontier.pop()
            reached.add(here)
            frontier |= {n for (s, _), (n, _) in TRANSITIONS.items() if s is here} - reached
        assert reached & ends, stage
    # A refusal after something was reserved always gives it back, before the record.
    for (stage, _), (following, effects) in TRANSITIONS.items():
        if following is Stage.FAILED and stage is Stage.RESERVED:
            assert effects[0] is Effect.RELEASE
    assert transition(Stage.COMPLETED, Outcome.SEAT_FAILED) == (Stage.COMPLETED, ())
