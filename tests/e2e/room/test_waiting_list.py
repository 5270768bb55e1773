"""Waiting lists against a real lobby, settlement and table service: a full table's list, the
freed seat offered to the first in line with a deadline, then to the next; nobody else sits
down while anyone waits.

The oracle is the story this test tells (who joined when, who let an offer lapse) and the
lobby's stream read straight from NATS, decoded with the protos only.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc
import nats
import pytest

from riverboat.client import LobbyClient, TableClient, play_bot, random_chooser
from riverboat.v1 import lobby_pb2, settlement_pb2, settlement_pb2_grpc
from tests import statuskit
from tests.e2e.room._settled import _tag, register, settled_lobby
from tests.e2e.room.conftest import Room
from tests.waiting import until

OFFER_SECONDS = 3


async def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value.code(), statuskit.reason(err.value)


async def _waiting_records(room: Room, table_id: str) -> list[tuple[str, str, str]]:
    """(kind, player, detail) of every waiting-list record on the table's subject."""
    nc = await nats.connect(room.nats_url)
    try:
        subject = f"rb.lobby{_tag(room).lower()}.table-{table_id}"
        sub = await nc.jetstream().subscribe(subject, ordered_consumer=True)
        out = []
        while True:
            try:
                msg = await sub.next_msg(timeout=1)
            except nats.errors.TimeoutError:
                break
            event = lobby_pb2.LobbyEvent()
            event.ParseFromString(msg.data)
            kind = event.WhichOneof("payload")
            if kind == "waitlist_joined":
                out.append((kind, event.waitlist_joined.player, ""))
            elif kind == "waitlist_left":
                out.append((kind, event.waitlist_left.player, event.waitlist_left.reason))
            elif kind == "seat_offered":
                out.append((kind, event.seat_offered.player, str(event.seat_offered.seat)))
        await sub.unsubscribe()
        return out
    finally:
        await nc.close()


async def test_a_freed_seat_goes_to_the_first_in_line_then_the_next(room: Room) -> None:
    lobby_flags = ["--seat-offer-seconds", str(OFFER_SECONDS)]
    async with settled_lobby(room, lobby_args=lobby_flags) as settled:
        names = ["ann", "bob", "cyd", "dan"]
        await register(settled.lobby.address, names)
        async with (
            grpc.aio.insecure_channel(settled.lobby.address) as channel,
            grpc.aio.insecure_channel(settled.settlement.address) as money_channel,
            grpc.aio.insecure_channel(room.table_address) as table_channel,
        ):
            money = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
            boss_auth = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
            for name in names:
                await money.Deposit(
                    settlement_pb2.DepositRequest(player=name, amount=10_000, external_ref=name),
                    metadata=boss_auth,
                )
            boss = LobbyClient(channel)
            await boss.login("boss", "boss-password")
            table = await boss.create_table(
                "pacific", "Heads-up", request_id="hu", overrides={"max_players": 2}
            )
            empty = await boss.create_table("pacific", "Empty", request_id="empty")
            tid = table.table_id
            player = {n: LobbyClient(channel, room.token(n)) for n in names}

            # A table with a free seat and nobody waiting: sit down instead.
            assert await _refusal(
                player["cyd"].stub.JoinWaitingList(
                    lobby_pb2.JoinWaitingListRequest(table_id=empty.table_id),
                    metadata=player["cyd"].metadata,
                )
            ) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_FREE")

            stop = asyncio.Event()
            bots = []
            for n, name in enumerate(("ann", "bob")):
                await player[name].join(tid, 2_000, request_id="in")
                bots.append(
                    asyncio.create_task(
                        play_bot(
                            TableClient(table_channel, room.token(name), name),
                            tid,
                            random_chooser(random.Random(n)),
                            stop=stop,
                        )
                    )
                )

            def join_list(name: str) -> Any:
                return player[name].stub.JoinWaitingList(
                    lobby_pb2.JoinWaitingListRequest(table_id=tid), metadata=player[name].metadata
                )

            # The offers are made by the lobby's own loop: ask again until the list is as wanted.
            async def read() -> lobby_pb2.WaitingList:
                reply = await boss.stub.GetWaitingList(
                    lobby_pb2.GetWaitingListRequest(table_id=tid), metadata=boss.metadata
                )
                return reply.waiting_list  # type: ignore[no-any-return]

            assert (await join_list("cyd")).position == 1
            assert (await join_list("dan")).position == 2
            assert (await join_list("cyd")).position == 1  # asked again: the same place
            assert await _refusal(join_list("ann")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "ALREADY_SEATED",
            )
            listed = await boss.get_table(tid)  # the lobby's table record shows the list too
            assert [w.player for w in listed.waiting_list.waiting] == ["cyd", "dan"]

            # Ann leaves (at the end of the hand in progress): her seat goes to cyd, first.
            ann_seat = next(s.seat for s in listed.seats if s.player == "ann")
            await player["ann"].leave(tid, request_id="out")
            offered = await until(
                read, lambda w: w.waiting[0].offered_seat != 0, "a seat offered to cyd", every=0.25
            )
            assert [(w.player, w.offered_seat) for w in offered.waiting] == [
                ("cyd", ann_seat),
                ("dan", 0),
            ]
            assert offered.waiting[0].HasField("offer_expires_at")
            # While cyd holds the offer, dan (on the list, no offer) may not sit down.
            assert await _refusal(player["dan"].join(tid, 2_000, request_id="d1")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "WAITING_LIST",
            )

            # Cyd lets it lapse: she drops off and the seat is offered to dan.
            def dan_offered(w: lobby_pb2.WaitingList) -> bool:
                return [x.player for x in w.waiting] == ["dan"] and w.waiting[0].offered_seat > 0

            offered = await until(read, dan_offered, "a seat offered to dan", every=0.25)
            assert offered.waiting[0].offered_seat == ann_seat
            assert await _refusal(player["cyd"].join(tid, 2_000, request_id="c1")) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "WAITING_LIST",
            )
            seated = await player["dan"].join(tid, 2_000, request_id="d2")
            assert seated.seat == ann_seat
            assert (await read()).waiting == []
            stop.set()
            await asyncio.wait_for(asyncio.gather(*bots), 60)

        assert await _waiting_records(room, tid) == [
            ("waitlist_joined", "cyd", ""),
            ("waitlist_joined", "dan", ""),
            ("seat_offered", "cyd", str(ann_seat)),
            ("waitlist_left", "cyd", "offer_expired"),
            ("seat_offered", "dan", str(ann_seat)),
            ("waitlist_left", "dan", "seated"),
        ]
