"""Players leaving at the edges of a hand, in a real room (dealer and table services,
nats-server), from outside: clients that know only the protos, the raw log and the audit.
Issue "Every edge", items 1-3:

1. everyone leaves in a CRV1 hand's seed phase: the hand is voided (the audit counts no hand
   in progress), and the table deals again once players sit down;
2. a player leaving as the hand ends (``HandShown``, ``HandEnded`` and ``PlayerLeft`` in one
   batch) leaves the proofs of what they showed in the next view, and they verify for the
   other players and observers;
3. a player who asked to leave is not waited for: their turns are taken at once (check when
   free, else fold), never on the clock or the time bank.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import grpc
import pytest

from riverboat.client import TableClient
from riverboat.proofcheck import CardChecker, Verdict
from riverboat.v1 import events_pb2, table_pb2
from tests.e2e.room._play import setup_table
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_audit_room import cli, stream_flags
from tests.waiting import until

pytestmark = pytest.mark.timeout(180)

#: Clock and time bank long enough that a turn waited out would outlast the test's waits.
ACTION_SECONDS = 30
BANK = events_pb2.TimeBankPolicy(seconds=60)


def _past(version: int) -> Callable[[table_pb2.TableView], bool]:
    return lambda view: view.version > version


async def _unseat(operator: TableClient, table_id: str, seat: int, tag: str) -> bool:
    """The player at ``seat`` leaves (as the lobby asks the table); True if pending."""
    reply = await operator.stub.UnseatPlayer(
        table_pb2.UnseatPlayerRequest(table_id=table_id, seat=seat, request_id=f"{tag}-{seat}"),
        metadata=operator.metadata,
    )
    return bool(reply.pending)


async def _play_out(
    room: Room,
    channel: grpc.aio.Channel,
    table_id: str,
    players: list[str],
    *,
    leaver: int,
    leave_when: Callable[[table_pb2.TableView], bool],
    operator: TableClient,
) -> str:
    """Play the hand in play to its end: the others check, else call, else bring in; the
    player at ``leaver`` asks to leave once ``leave_when(view)``, and never acts again (the
    table must). Returns the hand's id."""
    observer = room.client(channel, "observer", "auditor")
    view = await until(
        lambda: observer.view(table_id), lambda v: v.hand_in_progress, "a hand dealt"
    )
    hand_id = view.hand_id
    asked = False
    for step in range(300):
        view = await observer.view(table_id)
        if view.hand_id != hand_id or not view.hand_in_progress:
            return hand_id
        if not asked and leave_when(view):
            assert await _unseat(operator, table_id, leaver, f"leave-{hand_id}")
            asked = True
            continue
        due = [s for s in view.waiting_for if s != leaver or not asked]
        if not due:
            # Only the leaver is waited for: the table acts for them, at once. (Waiting for
            # the view to move on, not for time: a turn on the clock would outlast this.)
            await until(
                lambda: observer.view(table_id),
                _past(view.version),
                f"step {step}: the table acting for the leaver at seat {leaver}",
                seconds=20,
                every=0.05,
            )
            continue
        seat = due[0]
        player = room.client(channel, players[seat - 1])
        mine = await player.view(table_id)
        if seat not in mine.waiting_for:
            continue  # moved on meanwhile
        names = [a.action for a in mine.legal_actions]
        action = next(a for a in ("check", "call", "bring_in", "fold") if a in names)
        try:
            await player.act(
                table_id, mine.hand_id, seat, action, request_id=f"{mine.hand_id}-{mine.version}"
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                raise  # (else the hand moved on between the view and the act)
    raise AssertionError(f"hand {hand_id} never ended")


async def _watched(
    client: TableClient, table_id: str, until_version: int
) -> list[table_pb2.WatchResponse]:
    """Everything a Watch from the table's start sends ``client``, up to ``until_version``
    (after version 1, the table's opening: a Watch after 0 sends only the view now)."""
    out = []
    async for update in client.watch(table_id, after_version=1):
        out.append(update)
        if update.version >= until_version:
            break
    return out


async def test_everyone_leaving_in_the_seed_phase_voids_the_hand(
    room: Room, operator: TableClient, capsys: pytest.CaptureFixture[str]
) -> None:
    # A seed phase long enough to land in from outside: 30 s, where it would wait for seeds.
    room.table.args += ["--min-seed-window", "30"]
    room.restart_table()
    table_id = "t-seedleave"
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        operator = room.client(channel, "operator", "operator")
        players = await setup_table(operator, table_id, 3, action_seconds=ACTION_SECONDS)
        observer = room.client(channel, "observer", "auditor")
        seeding = await until(
            lambda: observer.view(table_id),
            lambda v: v.HasField("seeding"),
            "the first hand committed, gathering seeds",
        )
        committed = seeding.seeding.hand_id
        for seat in (1, 2, 3):
            assert not await _unseat(operator, table_id, seat, "gone")  # left at once
        # The hand is voided at once: nobody is left for the phase to wait for.
        view = await until(
            lambda: observer.view(table_id),
            lambda v: not v.HasField("seeding") and not v.seats,
            "the committed hand voided",
            seconds=20,
        )
        assert not view.hand_in_progress
    # The audit counts the hand voided, none in progress, and everything verifies.
    flags = ["audit", "--nats", room.nats_url, *stream_flags(room), "--no-progress", "--json"]

    async def audited() -> dict[str, object]:
        capsys.readouterr()
        code = await cli(*flags)
        report: dict[str, object] = json.loads(capsys.readouterr().out)
        report["code"] = code
        return report

    report = await until(audited, lambda r: r["code"] == 0, "a clean audit (the seed revealed)")
    hands = {h["hand_id"]: h["status"] for h in report["hands"]}  # type: ignore[attr-defined]
    assert hands == {committed: "voided"}, hands
    # Players sit down again: the table starts the next hand.
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        operator = room.client(channel, "operator", "operator")
        observer = room.client(channel, "observer", "auditor")
        # (New players: the first ones' seat requests, repeated, would be answered as repeats.)
        newcomers = [f"{table_id}-q{k}" for k in (1, 2)]
        for k, name in enumerate(newcomers, start=1):
            await operator.seat(table_id, k, name, 5000)
        again = await until(
            lambda: observer.view(table_id),
            lambda v: v.HasField("seeding") and v.seeding.hand_id != committed,
            "the next hand committed",
        )
        assert {s.player for s in again.seats} == set(newcomers)
        assert len(players) == 3


async def test_a_leavers_showdown_stays_provable_for_everyone_else(
    room: Room, operator: TableClient
) -> None:
    table_id = "t-showleave"
    leaver = 2
    players = await setup_table(
        operator, table_id, 3, action_seconds=ACTION_SECONDS, time_bank=BANK
    )
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        op = room.client(channel, "operator", "operator")

        def level_after_third_street(view: table_pb2.TableView) -> bool:
            # The bets are level after third street: the leaver checks to the showdown.
            return view.street > 3 and not any(s.street_bet for s in view.seats)

        await until(lambda: op.view(table_id), lambda v: v.hand_in_progress, "the first hand dealt")
        # No next hand after this one: the view after its end stays the newest.
        await op.pause_table(table_id, request_id="pause")
        hand_id = await _play_out(
            room, channel, table_id, players, leaver=leaver,
            leave_when=level_after_third_street, operator=op,
        )  # fmt: skip
        observer = room.client(channel, "observer", "auditor")
        final = await observer.view(table_id)
        assert final.hand_id == hand_id and not final.hand_in_progress
        assert leaver not in {s.seat for s in final.seats}
        clients = {
            "observer": observer,
            players[0]: room.client(channel, players[0]),
            players[2]: room.client(channel, players[2]),
        }
        for name, client in clients.items():
            messages = await _watched(client, table_id, final.version)
            ending = next(
                m
                for m in messages
                if any(e.WhichOneof("payload") == "hand_ended" for e in m.events)
            )
            kinds = [e.WhichOneof("payload") for e in ending.events]
            assert {"hand_shown", "hand_ended", "player_left"} <= set(kinds), kinds
            shown = next(
                e.hand_shown
                for e in ending.events
                if e.WhichOneof("payload") == "hand_shown" and e.hand_shown.seat == leaver
            )
            theirs = set(shown.cards)
            assert len(theirs) == 7
            assert messages[-1].HasField("view")
            assert theirs <= {p.card for p in messages[-1].view.proofs}, name
            checker = CardChecker()
            for message in messages:
                checker.update(message)
            assert checker.failures == [], (name, checker.failures[:3])
            verified = {c.card for c in checker.checks if c.verdict is Verdict.VERIFIED}
            assert theirs <= verified, (name, theirs - verified)


async def test_a_player_who_asked_to_leave_is_never_waited_for(
    room: Room, operator: TableClient
) -> None:
    table_id = "t-pendleave"
    players = await setup_table(
        operator, table_id, 3, action_seconds=ACTION_SECONDS, time_bank=BANK
    )
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        op = room.client(channel, "operator", "operator")
        first = await until(
            lambda: op.view(table_id), lambda v: v.hand_in_progress, "the first hand dealt"
        )
        # The player after the one to act asks to leave at once, and acts no more.
        order = [s.seat for s in first.seats]
        leaver = order[(order.index(first.to_act) + 1) % len(order)]
        await op.pause_table(table_id, request_id="pause")
        hand_id = await _play_out(
            room, channel, table_id, players, leaver=leaver,
            leave_when=lambda view: True, operator=op,
        )  # fmt: skip
        observer = room.client(channel, "observer", "auditor")
        final = await observer.view(table_id)
        messages = await _watched(observer, table_id, final.version)
    events = [e for m in messages for e in m.events]
    asked = next(
        i
        for i, e in enumerate(events)
        if e.WhichOneof("payload") == "leave_requested" and e.leave_requested.seat == leaver
    )
    ended = next(
        i for i, e in enumerate(events) if e.WhichOneof("payload") == "hand_ended" and i > asked
    )
    theirs = [
        e
        for e in events[asked:ended]
        if e.WhichOneof("payload") == "action_taken" and e.action_taken.seat == leaver
    ]
    # Their turns came and were taken by the table, each a check or a fold...
    assert theirs, "the leaver had no turn in the hand"
    assert {e.actor for e in theirs} == {"service:table"}
    assert {e.action_taken.action for e in theirs} <= {"check", "fold", "bring_in"}
    # ...never by the clock: no time bank started, no time-out, in the whole hand.
    kinds = {e.WhichOneof("payload") for e in events[asked:ended]}
    assert not kinds & {"time_bank_started", "player_timed_out"}, kinds
    # And they left with the hand's end.
    left = [e.player_left.seat for e in events[ended:] if e.WhichOneof("payload") == "player_left"]
    assert left == [leaver]
    assert final.hand_id == hand_id
