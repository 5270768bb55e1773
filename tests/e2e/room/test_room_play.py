"""Hands of stud hi/lo played by bots through gRPC against the real services and NATS."""

from __future__ import annotations

import grpc
import pytest

from riverboat.client import TableClient
from riverboat.engine.cards import card_str
from riverboat.engine.events import (
    ActionTaken,
    CardDealt,
    HandEnded,
    HandShown,
    HandStarted,
    RakeTaken,
)
from riverboat.table.events import AnyEvent, HandCommitted
from riverboat.v1 import events_pb2, table_pb2
from tests.e2e.room._play import play_hands, read_log, setup_table
from tests.e2e.room.conftest import Room


def _streams(room: Room) -> tuple[str, str]:
    args = room.table.args
    return args[args.index("--stream") + 1], args[args.index("--subject-prefix") + 1]


async def test_bots_play_full_hands_and_chips_are_conserved(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, "t-play", 4)
    await play_hands(room, "t-play", players, hands=5)
    batches = await read_log(room.nats_url, *_streams(room), "t-play")
    events = [e for batch in batches for e in batch]
    ended = [e for e in events if isinstance(e, HandEnded)]
    assert len(ended) >= 5
    rake = 0
    started = 0
    for e in events:
        if isinstance(e, HandStarted):
            started = sum(s.stack for s in e.seats)
            rake = 0
        elif isinstance(e, RakeTaken):
            rake = e.amount
        elif isinstance(e, HandEnded):
            assert sum(v for _, v in e.stacks) + rake == started
    # Every hand's commitment was logged before any of its cards.
    committed: set[str] = set()
    current = None
    for e in events:
        if isinstance(e, HandCommitted):
            committed.add(e.hand_id)
        elif isinstance(e, HandStarted):
            assert e.hand_id in committed
            current = e.hand_id
        elif isinstance(e, CardDealt):
            assert current in committed


async def test_no_player_or_observer_ever_receives_a_hidden_card(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, "t-leak", 4)
    received: dict[str, list[table_pb2.WatchResponse]] = {}
    observed: list[table_pb2.WatchResponse] = []
    await play_hands(room, "t-leak", players, hands=4, received=received, observe=observed)
    batches = await read_log(room.nats_url, *_streams(room), "t-leak")
    # The truth, from the raw log: after each version, the hand's face-down cards (and whose
    # they are) and the cards shown so far.
    owners: dict[str, int] = {}
    shown: set[str] = set()
    at_version: dict[int, tuple[dict[str, int], set[str]]] = {}
    for version, batch in enumerate(batches, start=1):
        for e in batch:
            if isinstance(e, HandStarted):
                owners, shown = {}, set()
            elif isinstance(e, CardDealt) and not e.face_up:
                owners[card_str(e.card)] = e.seat
            elif isinstance(e, HandShown):
                shown |= {card_str(c) for c in e.cards}
        at_version[version] = (dict(owners), set(shown))

    def check(messages: list[table_pb2.WatchResponse], seat: int) -> int:
        checked = 0
        for update in messages:
            event_cards = {
                env.card_dealt.card for env in update.events if env.HasField("card_dealt")
            }
            event_cards |= {
                c
                for env in update.events
                if env.HasField("hand_shown")
                for c in env.hand_shown.cards
            }
            parts = [(update.version, event_cards)]
            if update.HasField("view"):
                view_cards = {c.card for s in update.view.seats for c in s.cards}
                parts.append((update.view.version, view_cards | set(update.view.community)))
            for version, cards in parts:
                if version not in at_version:
                    continue
                hole, open_cards = at_version[version]
                for card in cards - {""}:
                    checked += 1
                    whose = hole.get(card)
                    assert whose is None or whose == seat or card in open_cards, (
                        f"seat {seat} received {card}, seat {whose}'s hidden card, at v{version}"
                    )
        return checked

    assert set(received) == set(players)
    for k, name in enumerate(players, start=1):
        assert check(received[name], k) > 0
        own = {
            c.card
            for u in received[name]
            if u.HasField("view")
            for s in u.view.seats
            if s.seat == k
            for c in s.cards
            if not c.face_up
        }
        assert own - {""}, "a player sees their own hole cards"
    assert check(observed, 0) > 0


async def test_errors_have_precise_statuses_and_write_nothing(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, "t-err", 2)
    view = await operator.view("t-err")
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        p1, p2 = room.client(channel, players[0]), room.client(channel, players[1])
        anon = TableClient(channel, "not-a-token")
        auditor = room.client(channel, "aud", "auditor")
        import asyncio

        for _ in range(100):  # the first hand is dealt right after the players sit
            view = await p1.view("t-err")
            if view.to_act:
                break
            await asyncio.sleep(0.05)
        assert view.to_act
        me = p1 if view.to_act == 1 else p2
        other = p2 if me is p1 else p1
        other_seat = 2 if view.to_act == 1 else 1
        before = view.version

        async def code(call) -> grpc.StatusCode:  # type: ignore[no-untyped-def]
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await call
            return err.value.code()

        hand = view.hand_id
        assert (
            await code(anon.act("t-err", hand, view.to_act, "bring_in", request_id="a1"))
            == grpc.StatusCode.UNAUTHENTICATED
        )
        assert (
            await code(auditor.act("t-err", hand, view.to_act, "bring_in", request_id="a1"))
            == grpc.StatusCode.PERMISSION_DENIED
        )
        assert (
            await code(p1.create_table("t-mine", request_id="c9"))
            == grpc.StatusCode.PERMISSION_DENIED
        )
        assert (
            await code(other.act("t-err", hand, view.to_act, "bring_in", request_id="a2"))
            == grpc.StatusCode.PERMISSION_DENIED
        )
        assert (
            await code(other.act("t-err", hand, other_seat, "call", request_id="a3"))
            == grpc.StatusCode.FAILED_PRECONDITION
        )  # out of turn
        assert (
            await code(me.act("t-err", hand, view.to_act, "check", request_id="a4"))
            == grpc.StatusCode.FAILED_PRECONDITION
        )  # the bring-in is forced
        assert (
            await code(me.act("t-err", hand, view.to_act, "shove", request_id="a5"))
            == grpc.StatusCode.INVALID_ARGUMENT
        )
        assert (
            await code(me.act("t-err", hand, view.to_act, "bring_in", request_id="bad id!"))
            == grpc.StatusCode.INVALID_ARGUMENT
        )
        assert (
            await code(me.act("nope", hand, 1, "call", request_id="a6"))
            == grpc.StatusCode.NOT_FOUND
        )
        assert (
            await code(operator.create_table("t-err", request_id="create-again"))
            == grpc.StatusCode.ALREADY_EXISTS
        )
        assert (
            await code(operator.seat("t-err", 1, "zed", 100)) == grpc.StatusCode.FAILED_PRECONDITION
        )
        huge = "x" * 100_000
        assert (
            await code(me.act("t-err", hand, view.to_act, huge, request_id="a7"))
            == grpc.StatusCode.RESOURCE_EXHAUSTED
        )
        assert (await p1.view("t-err")).version == before  # nothing was written
        # A retried request is applied once and returns the original result.
        first = await me.act("t-err", hand, view.to_act, "bring_in", request_id="dup-1")
        again = await me.act("t-err", hand, view.to_act, "bring_in", request_id="dup-1")
        assert first.version == again.version == before + 1
        assert (await p1.view("t-err")).version == before + 1


async def test_action_clock_checks_or_folds_on_expiry(room: Room, operator: TableClient) -> None:
    # No time bank: the clock acts as soon as the action clock runs out.
    no_bank = events_pb2.TimeBankPolicy(seconds=0)
    await setup_table(operator, "t-clock", 2, action_seconds=1, time_bank=no_bank)
    import asyncio

    batches: list[list[AnyEvent]] = []
    for _ in range(100):  # nobody acts: the clock acts for them
        batches = await read_log(room.nats_url, *_streams(room), "t-clock")
        if any(isinstance(e, HandEnded) for b in batches for e in b):
            break
        await asyncio.sleep(0.1)
    actions = [e for b in batches for e in b if isinstance(e, ActionTaken)]
    # The forced bring-in is posted, then the other player, facing it, is folded.
    assert [a.action for a in actions[:2]] == ["bring_in", "fold"]
    assert any(isinstance(e, HandEnded) for b in batches for e in b)
