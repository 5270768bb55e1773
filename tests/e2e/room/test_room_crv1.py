"""CRV1 in a real room (dealer and table services, nats-server): every card a player gets is
proved to it; seeds are locked after the commitment and before the first card; a seed after
the lock is refused. The oracles know only the protos and the raw log."""

from __future__ import annotations

import grpc
import pytest

from riverboat.client import TableClient
from riverboat.engine.events import CardDealt, CommunityCardDealt, HandStarted
from riverboat.table.events import ClientSeedSent, HandCommitted, SeedsLocked
from tests import statuskit
from tests.e2e.room._play import play_hands, read_log, setup_table
from tests.e2e.room.conftest import Room

pytestmark = pytest.mark.timeout(120)


def _streams(room: Room) -> tuple[str, str]:
    tag = room.table.args[room.table.args.index("--stream") + 1]
    prefix = room.table.args[room.table.args.index("--subject-prefix") + 1]
    return tag, prefix


async def test_every_card_is_proved_to_its_player_and_seeds_lock_in_order(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, "t-crv1", 3)
    stats = await play_hands(room, "t-crv1", players, hands=4)
    assert [f for s in stats for f in s.proof_failures] == []
    assert sum(s.cards_verified for s in stats) >= 4 * 3 * 2  # at least two cards each hand
    assert sum(s.seeds_sent + s.seeds_refused for s in stats) >= 3
    batches = await read_log(room.nats_url, *_streams(room), "t-crv1")
    order: list[str] = []
    for batch in batches:
        for e in batch:
            if isinstance(e, HandCommitted):
                assert e.scheme == "CRV1" and len(e.root) == 32
                order.append("commit")
            elif isinstance(e, SeedsLocked):
                assert {seat for seat, *_ in e.seeds} == {1, 2, 3}
                assert all(len(seed) == 32 and origin in (0, 1) for _, _, seed, origin in e.seeds)
                order.append("lock")
            elif isinstance(e, HandStarted):
                order.append("start")
            elif isinstance(e, CardDealt | CommunityCardDealt) and order[-1] != "card":
                order.append("card")
    # Each dealt hand: commitment, then the lock, then the deal, then cards.
    text = " ".join(order)
    assert text.count("commit lock start card") >= 4, text


async def test_a_seed_after_the_lock_is_refused_and_changes_nothing(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, "t-late", 2)
    await play_hands(room, "t-late", players, hands=1)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        ann = room.client(channel, players[0])
        view = await ann.view("t-late")
        locked_hand = view.hand_id
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await ann.act(
                "t-late", locked_hand, 1, "seed", request_id="late-seed", client_seed=b"\x07" * 32
            )
        assert info.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert statuskit.reason(info.value) in {"SEEDS_LOCKED", "NOT_SEEDING"}
        # A malformed seed is refused as bad input.
        with pytest.raises(grpc.aio.AioRpcError) as bad:
            await ann.act("t-late", locked_hand, 1, "seed", request_id="short", client_seed=b"1")
        assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    # Nothing of either refused seed reached the log.
    for batch in await read_log(room.nats_url, *_streams(room), "t-late"):
        for e in batch:
            assert not (isinstance(e, ClientSeedSent) and e.seed in (b"\x07" * 32, b"1"))
            if isinstance(e, SeedsLocked):
                assert all(seed != b"\x07" * 32 for _, _, seed, _ in e.seeds)
