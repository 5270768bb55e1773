"""Sitting out and in, the automatic sit-out, the time bank, the disconnect protection and hand
numbers, against a real table service (and dealer, and NATS).

The clients here know only the protos (``riverboat.v1``'s stubs and messages) and a bearer
token; what they expect is worked out from the rules in docs/table-service.md, not from the
service's code: who is dealt in (the HandStarted seats every observer sees), which events the
clock writes for whom and in what order, which hand numbers follow which. Each room's log is
then also given to the auditor, which replays the new events through the rules
(docs/audit.md): it must find nothing wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from riverboat.audit import read_archive, verify_archive
from riverboat.v1 import events_pb2, table_pb2, table_pb2_grpc
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_audit_room import export_when_revealed
from tests.waiting import until_true

#: Generous: how long a test waits for the room to get somewhere before it gives up.
PATIENCE = 90.0


def _md(room: Room, who: str, role: str = "player") -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {room.token(who, role)}"),)


@dataclass
class Seen:
    """Everything one watcher received: the updates, and the events with their versions."""

    updates: list[table_pb2.WatchResponse] = field(default_factory=list)

    def events(self) -> list[tuple[int, events_pb2.EventEnvelope]]:
        return [(u.version, e) for u in self.updates for e in u.events]

    def kinds(self, kind: str) -> list[tuple[int, Any]]:
        return [(v, getattr(e, kind)) for v, e in self.events() if e.WhichOneof("payload") == kind]

    def last_view(self) -> table_pb2.TableView | None:
        views = [u.view for u in self.updates if u.HasField("view")]
        return views[-1] if views else None


async def _open(
    room: Room,
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    players: int,
    *,
    action_seconds: int,
    bank: events_pb2.TimeBankPolicy,
) -> list[str]:
    op = _md(room, "boss", "operator")
    await stub.OpenTable(
        table_pb2.OpenTableRequest(
            table_id=table_id,
            name=table_id,
            variant="seven_card_stud_hi_lo",
            action_seconds=action_seconds,
            request_id=f"open-{table_id}",
            time_bank=bank,
        ),
        metadata=op,
    )
    names = [f"{table_id}-p{k}" for k in range(1, players + 1)]
    for k, name in enumerate(names, start=1):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(
                table_id=table_id, seat=k, player=name, stack=5000, request_id=f"seat-{k}"
            ),
            metadata=op,
        )
    return names


async def _watch(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    md: tuple[tuple[str, str], ...],
    seen: Seen,
    on_view: Callable[[table_pb2.TableView], object] | None = None,
) -> None:
    call = stub.Watch(table_pb2.WatchRequest(table_id=table_id), metadata=md)
    async for update in call:
        seen.updates.append(update)
        if on_view is not None and update.HasField("view"):
            result = on_view(update.view)
            if asyncio.iscoroutine(result):
                await result


def _mover(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    md: tuple[tuple[str, str], ...],
    *,
    by_number: bool = False,
    when: Callable[[table_pb2.TableView], bool] = lambda v: True,
) -> Callable[[table_pb2.TableView], object]:
    """A player who makes the first legal move whenever the view offers one (and ``when``
    says so); ``by_number``: naming the hand by its number rather than its id."""
    acted: set[int] = set()

    async def move(view: table_pb2.TableView) -> None:
        if not view.legal_actions or view.version in acted or not when(view):
            return
        acted.add(view.version)
        legal = view.legal_actions[0]
        with contextlib.suppress(grpc.aio.AioRpcError):  # the clock may have been first
            await stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    hand_id=str(view.hand_number) if by_number else view.hand_id,
                    seat=view.viewer_seat,
                    action=legal.action,
                    amount=legal.to[0] if legal.to else 0,
                    request_id=f"m-{view.version}",
                ),
                metadata=md,
            )

    return move


@contextlib.asynccontextmanager
async def _tasks(*coros: object) -> AsyncIterator[None]:
    tasks = [asyncio.ensure_future(c) for c in coros]  # type: ignore[call-overload]
    try:
        yield
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _audit_finds_nothing(room: Room, tmp_path: Path) -> None:
    path = tmp_path / "room.rba.gz"
    await export_when_revealed(room, path)
    report = verify_archive(read_archive(path))
    assert [str(v) for v in report.all_violations] == []


def _dealt(seen: Seen, after: int = 0) -> list[set[int]]:
    """The seats dealt into each hand started after version ``after``."""
    return [{s.seat for s in h.seats} for v, h in seen.kinds("hand_started") if v > after]


def _hidden_leaks(updates: list[table_pb2.WatchResponse], me: int) -> list[str]:
    """Face-down cards of other seats that ``me`` was shown (none may be)."""
    out = []
    for u in updates:
        for e in u.events:
            if e.WhichOneof("payload") == "card_dealt":
                c = e.card_dealt
                if c.seat != me and not c.face_up and c.card:
                    out.append(f"v{u.version} dealt {c.card} to seat {c.seat}")
        if u.HasField("view"):
            for s in u.view.seats:
                for card in s.cards:
                    if s.seat != me and not card.face_up and card.card:
                        out.append(f"v{u.version} view shows {card.card} of seat {s.seat}")
    return out


async def test_a_player_sitting_out_is_dealt_out_sees_nothing_hidden_and_sits_in(
    room: Room,
    tmp_path: Path,
) -> None:
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        tid = "t-sit"
        names = await _open(
            room, stub, tid, 3, action_seconds=600, bank=events_pb2.TimeBankPolicy()
        )
        md = [_md(room, n) for n in names]
        out = await stub.SitOut(
            table_pb2.SitOutRequest(table_id=tid, request_id="o1"), metadata=md[2]
        )
        assert [s.sitting_out for s in out.view.seats] == [False, False, True]
        # Asking again changes nothing (the same version).
        again = await stub.SitOut(
            table_pb2.SitOutRequest(table_id=tid, request_id="o2"), metadata=md[2]
        )
        assert again.version == out.version
        observer, third = Seen(), Seen()
        players = [Seen(), Seen()]
        async with _tasks(
            _watch(stub, tid, _md(room, "boss", "operator"), observer),
            _watch(stub, tid, md[0], players[0], _mover(stub, tid, md[0])),
            _watch(stub, tid, md[1], players[1], _mover(stub, tid, md[1])),
            _watch(stub, tid, md[2], third, _mover(stub, tid, md[2])),
        ):
            await until_true(
                lambda: len(_dealt(observer, out.version)) >= 2, "two hands without p3", PATIENCE
            )
            sat_in = await stub.SitIn(
                table_pb2.SitInRequest(table_id=tid, request_id="i1"), metadata=md[2]
            )
            assert not sat_in.view.seats[2].sitting_out
            await until_true(
                lambda: len(_dealt(observer, sat_in.version)) >= 1, "a hand with p3", PATIENCE
            )
        # Dealt out while sitting out, dealt in again once sitting in.
        between = [
            seats
            for v, h in observer.kinds("hand_started")
            if out.version < v < sat_in.version
            for seats in [{s.seat for s in h.seats}]
        ]
        assert between and all(seats == {1, 2} for seats in between)
        assert _dealt(observer, sat_in.version)[0] == {1, 2, 3}
        # What p3 was shown while out: nothing hidden of anyone (and no cards of their own).
        while_out = [u for u in third.updates if out.version < u.version < sat_in.version]
        assert while_out and _hidden_leaks(while_out, me=3) == []
        assert all(not s.cards for u in while_out if u.HasField("view") for s in u.view.seats[2:])
    await _audit_finds_nothing(room, tmp_path)


async def test_two_time_outs_in_a_row_sit_a_player_out(room: Room, tmp_path: Path) -> None:
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        tid = "t-auto"
        no_bank = events_pb2.TimeBankPolicy(seconds=0)
        names = await _open(room, stub, tid, 2, action_seconds=1, bank=no_bank)
        observer = Seen()
        async with _tasks(_watch(stub, tid, _md(room, "boss", "operator"), observer)):
            await until_true(
                lambda: len(observer.kinds("player_sat_out")) >= 2, "both sat out", PATIENCE
            )
            await until_true(
                lambda: (v := observer.last_view()) is not None and not v.hand_in_progress,
                "the last hand to end",
                PATIENCE,
            )
    # Per player, in log order: timed out, timed out, sat out ("timeouts"), nothing between.
    for seat, name in enumerate(names, start=1):
        mine = [
            (e.WhichOneof("payload"), getattr(e, e.WhichOneof("payload") or "").reason)
            if e.WhichOneof("payload") == "player_sat_out"
            else (e.WhichOneof("payload"), "")
            for _, e in observer.events()
            if e.WhichOneof("payload") in ("player_timed_out", "player_sat_out")
            and getattr(e, e.WhichOneof("payload") or "").player == name
        ]
        assert mine == [
            ("player_timed_out", ""),
            ("player_timed_out", ""),
            ("player_sat_out", "timeouts"),
        ], seat
    view = observer.last_view()
    assert view is not None and all(s.sitting_out for s in view.seats)
    await _audit_finds_nothing(room, tmp_path)


async def test_the_clock_draws_on_the_time_bank_and_a_disconnected_player_is_protected_once(
    room: Room,
    tmp_path: Path,
) -> None:
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        tid = "t-bank"
        bank = events_pb2.TimeBankPolicy(
            seconds=1, topup_seconds=0, topup_hands=0, protect_hands=10
        )
        names = await _open(room, stub, tid, 2, action_seconds=1, bank=bank)
        observer, connected = Seen(), Seen()
        # p1 keeps a Watch stream open (and never acts); p2 never watches: disconnected.
        async with _tasks(
            _watch(stub, tid, _md(room, "boss", "operator"), observer),
            _watch(stub, tid, _md(room, names[0]), connected),
        ):
            await until_true(
                lambda: len(observer.kinds("player_sat_out")) >= 2, "both sat out", PATIENCE
            )
    kinds = ("time_bank_started", "time_bank_used", "player_timed_out", "hand_started")

    def story(name: str) -> list[str]:
        out = []
        for _, e in observer.events():
            kind = e.WhichOneof("payload")
            if kind == "hand_started":
                out.append("deal")
            elif kind in kinds and getattr(e, kind).player == name:
                m = getattr(e, kind)
                if kind == "time_bank_started":
                    out.append(f"bank {m.seconds}{' protection' if m.protection else ''}")
                elif kind == "time_bank_used":
                    out.append(f"drawn {m.seconds}")
                else:
                    out.append("timed out")
        return out

    # Hand 1: the own bank (1 s) runs out, then the clock acts; hand 2: the bank is empty.
    assert story(names[0]) == ["deal", "bank 1", "drawn 1", "timed out", "deal", "timed out"]
    # Disconnected: after the own bank, the protection's second (not drawn) once in 10 hands.
    assert story(names[1]) == [
        "deal",
        "bank 1",
        "drawn 1",
        "bank 1 protection",
        "drawn 0",
        "timed out",
        "deal",
        "timed out",
    ]
    await _audit_finds_nothing(room, tmp_path)


def _passive(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    md: tuple[tuple[str, str], ...],
    when: Callable[[table_pb2.TableView], bool] = lambda v: True,
) -> Callable[[table_pb2.TableView], Awaitable[None]]:
    """A player who never folds while they can check, call or bring in (so every hand reaches
    the other player's turn), when ``when`` says so."""
    acted: set[int] = set()
    order = ("check", "call", "bring_in")

    async def move(view: table_pb2.TableView) -> None:
        if not view.legal_actions or view.version in acted or not when(view):
            return
        acted.add(view.version)
        names = [a.action for a in view.legal_actions]
        legal = view.legal_actions[next((names.index(a) for a in order if a in names), 0)]
        with contextlib.suppress(grpc.aio.AioRpcError):
            await stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    hand_id=view.hand_id,
                    seat=view.viewer_seat,
                    action=legal.action,
                    amount=legal.to[0] if legal.to else 0,
                    request_id=f"p-{view.version}",
                ),
                metadata=md,
            )

    return move


async def test_a_dropped_watch_stream_gets_the_protection_before_the_clock_once_per_n_hands(
    room: Room, tmp_path: Path
) -> None:
    """p2 plays hand 1 with its Watch stream open, then its client cancels the stream as hand 2
    starts and never comes back (it only sits in again when the clock sat it out). The rules
    (docs/table-service.md): a disconnected player whose own bank is empty gets the table's
    bank size once per ``protect_hands`` hands (here 2), before the clock acts for them."""
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        tid = "t-drop"
        bank = events_pb2.TimeBankPolicy(seconds=1, topup_seconds=0, topup_hands=0, protect_hands=2)
        names = await _open(room, stub, tid, 2, action_seconds=1, bank=bank)
        md = [_md(room, n) for n in names]
        observer, p2 = Seen(), Seen()
        dropped_at: list[int] = []  # the last version p2's stream received

        async def p2_client() -> None:
            call = stub.Watch(table_pb2.WatchRequest(table_id=tid), metadata=md[1])
            act = _passive(stub, tid, md[1], when=lambda v: v.hand_number < 2)
            async for update in call:
                p2.updates.append(update)
                if update.HasField("view"):
                    if update.view.hand_number >= 2:
                        call.cancel()  # the client drops the stream as hand 2 starts
                        dropped_at.append(update.version)
                        return
                    await act(update.view)

        sat_in: list[int] = []

        async def p2_sits_in_when_sat_out(view: table_pb2.TableView) -> None:
            # No stream, only the unary SitIn: p2 stays disconnected, dealt in again.
            if dropped_at and view.seats[1].sitting_out and view.version not in sat_in:
                sat_in.append(view.version)
                await stub.SitIn(
                    table_pb2.SitInRequest(table_id=tid, request_id=f"in-{view.version}"),
                    metadata=md[1],
                )

        async with _tasks(
            _watch(stub, tid, _md(room, "boss", "operator"), observer, p2_sits_in_when_sat_out),
            _watch(stub, tid, md[0], Seen(), _passive(stub, tid, md[0])),
            p2_client(),
        ):
            await until_true(
                lambda: len(observer.kinds("hand_ended")) >= 4, "four hands played", PATIENCE
            )
    assert dropped_at and not any(u.version > dropped_at[0] for u in p2.updates)

    # p2's bank events and time-outs, hand by hand (hand 1, 2, 3, 4), in log order.
    per_hand: list[list[tuple[int, str]]] = []
    for version, e in observer.events():
        kind = e.WhichOneof("payload")
        if kind == "hand_started":
            per_hand.append([])
        elif kind in ("time_bank_started", "time_bank_used", "player_timed_out"):
            m = getattr(e, kind)
            if m.player != names[1] or not per_hand:
                continue
            if kind == "time_bank_started":
                per_hand[-1].append((version, f"bank {m.seconds}" + (" protection" * m.protection)))
            elif kind == "time_bank_used":
                per_hand[-1].append((version, f"drawn {m.seconds}"))
            else:
                per_hand[-1].append((version, "timed out"))
    story = [[what for _, what in hand] for hand in per_hand[:4]]
    # Hand 1, connected and acting: the clock never ran out on p2.
    assert story[0] == [], story
    # Hand 2, just dropped: the own bank (1 s) runs out, then the protection's second (not
    # drawn from the bank), and only then the clock acts; nothing more is given this hand.
    assert story[1][:5] == ["bank 1", "drawn 1", "bank 1 protection", "drawn 0", "timed out"]
    assert set(story[1][5:]) <= {"timed out"}, story
    # Hand 3: still away, bank empty, protection had one hand ago: the clock acts at once.
    assert story[2] and set(story[2]) == {"timed out"}, story
    # Hand 4: two hands after the last protection: given again, before the clock acts.
    assert story[3][:3] == ["bank 1 protection", "drawn 0", "timed out"], story
    assert set(story[3][3:]) <= {"timed out"}, story
    # Every protection came after the stream was dropped.
    given = [v for hand in per_hand for v, what in hand if what.endswith("protection")]
    assert len(given) == 2 and all(v > dropped_at[0] for v in given)
    await _audit_finds_nothing(room, tmp_path)


async def test_a_player_acting_on_the_time_bank_draws_the_seconds_it_ran(
    room: Room, tmp_path: Path
) -> None:
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        tid = "t-draw"
        bank = events_pb2.TimeBankPolicy(seconds=120, topup_seconds=0, topup_hands=0)
        names = await _open(room, stub, tid, 2, action_seconds=1, bank=bank)
        observer = Seen()
        seen = [Seen(), Seen()]

        def on_bank(view: table_pb2.TableView) -> bool:
            me = view.seats[view.viewer_seat - 1]
            return me.time_bank_running > 0  # act only once the bank runs

        async with _tasks(
            _watch(stub, tid, _md(room, "boss", "operator"), observer),
            *(
                _watch(stub, tid, _md(room, n), s, _mover(stub, tid, _md(room, n), when=on_bank))
                for n, s in zip(names, seen, strict=True)
            ),
        ):
            await until_true(
                lambda: len(observer.kinds("hand_ended")) >= 1, "a hand played", PATIENCE
            )
            await until_true(
                lambda: (v := observer.last_view()) is not None and not v.hand_in_progress,
                "the hand's end in the view",
                PATIENCE,
            )
            view = observer.last_view()
    assert not observer.kinds("player_timed_out")  # every move was made on the bank
    used = observer.kinds("time_bank_used")
    started = observer.kinds("time_bank_started")
    assert used and len(used) == len(started)
    drawn = {1: 0, 2: 0}
    for _, u in used:
        assert 0 < u.seconds <= 120
        drawn[u.seat] += u.seconds
    # The bank a player started each turn with is what was left of it.
    left = {1: 120, 2: 120}
    for (_, s), (_, u) in zip(started, used, strict=True):
        assert s.seat == u.seat and s.seconds == left[s.seat]
        left[s.seat] -= u.seconds
    assert view is not None
    assert {s.seat: s.time_bank_seconds for s in view.seats} == {k: 120 - drawn[k] for k in (1, 2)}
    await _audit_finds_nothing(room, tmp_path)


async def test_hand_numbers_count_hands_in_views_and_are_accepted_as_hand_ids(room: Room) -> None:
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        tid = "t-numbers"
        names = await _open(
            room, stub, tid, 2, action_seconds=600, bank=events_pb2.TimeBankPolicy()
        )
        observer = Seen()
        async with _tasks(
            _watch(stub, tid, _md(room, "boss", "operator"), observer),
            *(
                _watch(
                    stub, tid, _md(room, n), Seen(), _mover(stub, tid, _md(room, n), by_number=True)
                )
                for n in names
            ),
        ):
            await until_true(
                lambda: len(observer.kinds("hand_ended")) >= 3, "three hands", PATIENCE
            )
    numbers: dict[str, int] = {}
    for u in observer.updates:
        if u.HasField("view") and u.view.hand_id:
            assert numbers.setdefault(u.view.hand_id, u.view.hand_number) == u.view.hand_number
    started = [h.hand_id for _, h in observer.kinds("hand_started")]
    assert [numbers[h] for h in started[:3]] == [1, 2, 3]
    # The hand ids are log versions (they jump); the numbers count hands.
    assert started[:3] != ["1", "2", "3"]
    # Every move named its hand by number and was accepted: no clock acted.
    assert not observer.kinds("player_timed_out")
