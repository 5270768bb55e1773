"""The dealer under CRV1 (docs/shuffle.md part II), against a real nats-server and gRPC server.

Oracles: the auditor's own CRV1 (``riverboat.audit.crv1``, written from the document, not the
dealer's code) rebuilds the commitment, root and dealing order from the revealed seed; each
opening is checked by climbing its path by hand."""

from __future__ import annotations

import grpc
import pytest

from riverboat.audit import crv1 as audit_crv1
from riverboat.engine.cards import card_str, parse_card
from riverboat.services.dealer.server import DealerServer
from riverboat.v1 import dealer_pb2, events_pb2
from tests.integration.dealer._kit import (
    DealerClient,
    TableLog,
    committed,
    ended,
    rpc_error,
    started,
    unique,
)
from tests.integration.dealer.conftest import StartDealer

pytestmark = pytest.mark.timeout(60)

SEEDS = [(2, "ann", b"\x0a" * 32, 0), (5, "bob", b"\x0b" * 32, 1)]


def _locked(seeds: list[tuple[int, str, bytes, int]] = SEEDS) -> list[events_pb2.LockedSeed]:
    return [events_pb2.LockedSeed(seat=s, player=p, seed=x, origin=o) for s, p, x, o in seeds]


def _lock(hand: str) -> events_pb2.EventEnvelope:
    """The table's SeedsLocked for ``hand`` with :data:`SEEDS`."""
    return events_pb2.EventEnvelope(
        seeds_locked=events_pb2.SeedsLocked(hand_id=hand, seeds=_locked())
    )


@pytest.fixture
async def crv1_dealer(start_dealer: StartDealer) -> DealerServer:
    return await start_dealer(scheme="CRV1")


@pytest.fixture
async def crv1_client(crv1_dealer: DealerServer, table_log: TableLog) -> DealerClient:
    channel = grpc.aio.insecure_channel(crv1_dealer.address)
    return DealerClient(channel, table_log=table_log)


async def test_crv1_commit_deal_in_the_seeds_order_and_reveal(
    crv1_client: DealerClient, table_log: TableLog
) -> None:
    client = crv1_client
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    assert commit.scheme == "CRV1" and len(commit.merkle_root) == 32
    envelope = events_pb2.EventEnvelope(
        hand_committed=events_pb2.HandCommitted(
            hand_id=hand,
            scheme=commit.scheme,
            commitment=commit.commitment,
            deck_size=52,
            merkle_root=commit.merkle_root,
        )
    )
    logged = await table_log.append(table, envelope)
    request = dealer_pb2.GetDeckRequest(
        table_id=table, hand_id=hand, log_sequence=logged.stream_sequence
    )
    # Without the locked seeds a CRV1 deck has no dealing order: refused, precisely.
    await rpc_error(
        client.stub.GetDeck(request, metadata=client.metadata),
        grpc.StatusCode.INVALID_ARGUMENT,
        reason="MISSING_FIELD",
    )
    request.seeds.extend(_locked())
    # Seeds the log has not locked are not served: the dealer reads the lock from the log.
    await rpc_error(
        client.stub.GetDeck(request, metadata=client.metadata),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="SEEDS_NOT_LOCKED",
    )
    await table_log.append(table, _lock(hand))
    dealt = await client.stub.GetDeck(request, metadata=client.metadata)
    assert len(dealt.cards) == 52 == len(dealt.openings) and len(set(dealt.cards)) == 52
    # Every opening climbs to the committed root and opens the card dealt with it.
    for card, opening in zip(dealt.cards, dealt.openings, strict=True):
        climbed = audit_crv1.climb(hand, opening)
        assert climbed is not None and climbed[2] == commit.merkle_root
        assert card_str(climbed[1]) == card
    # Reshuffle of three of the cards, bound to the seeds.
    thrown = list(dealt.cards[:3])
    stub = await client.stub.Reshuffle(
        dealer_pb2.ReshuffleRequest(
            table_id=table,
            hand_id=hand,
            round=1,
            cards=thrown,
            seeds=_locked(),
            log_sequence=logged.stream_sequence,
        ),
        metadata=client.metadata,
    )
    await table_log.append(table, started(hand))
    await table_log.append(table, ended())
    revealed = await client.reveal(table, hand)
    derived = audit_crv1.derive(hand, revealed.seed, SEEDS, [[parse_card(c) for c in thrown]])
    assert derived.commitment == commit.commitment and derived.root == commit.merkle_root
    order = derived.order
    assert [card_str(derived.deck[j]) for j in order[:52]] == list(dealt.cards)
    assert [card_str(derived.deck[j]) for j in order[52:]] == list(stub.cards)
    assert [audit_crv1.parse_opening(o)[0] for o in dealt.openings] == list(order[:52])  # type: ignore[index]


async def test_crv1_get_deck_refuses_malformed_seeds(
    crv1_client: DealerClient, table_log: TableLog
) -> None:
    client = crv1_client
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    envelope = events_pb2.EventEnvelope(
        hand_committed=events_pb2.HandCommitted(
            hand_id=hand, scheme="CRV1", commitment=commit.commitment, deck_size=52
        )
    )
    logged = await table_log.append(table, envelope)
    short = events_pb2.LockedSeed(seat=1, player="ann", seed=b"\x01" * 16, origin=0)
    twice = [events_pb2.LockedSeed(seat=1, player=p, seed=b"\x01" * 32) for p in ("a", "b")]
    for seeds in ([short], twice):
        request = dealer_pb2.GetDeckRequest(
            table_id=table, hand_id=hand, log_sequence=logged.stream_sequence, seeds=seeds
        )
        await rpc_error(
            client.stub.GetDeck(request, metadata=client.metadata),
            grpc.StatusCode.INVALID_ARGUMENT,
            reason="BAD_SEEDS",
        )


async def test_crv1_serves_only_the_order_of_the_seeds_the_log_locked(
    crv1_client: DealerClient, table_log: TableLog
) -> None:
    """A table process that asks for the deck (or a reshuffle) under other seeds than the
    lock in its own log, to pick the order it likes, is refused and learns nothing."""
    client = crv1_client
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    logged = await table_log.append(table, committed(commit, hand))
    await table_log.append(table, _lock(hand))
    other = [(2, "ann", b"\x0c" * 32, 0), (5, "bob", b"\x0b" * 32, 1)]
    request = dealer_pb2.GetDeckRequest(
        table_id=table, hand_id=hand, log_sequence=logged.stream_sequence, seeds=_locked(other)
    )
    await rpc_error(
        client.stub.GetDeck(request, metadata=client.metadata),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="SEEDS_MISMATCH",
    )
    reshuffle = dealer_pb2.ReshuffleRequest(
        table_id=table,
        hand_id=hand,
        round=1,
        cards=["Ah", "2c"],
        seeds=_locked(other),
        log_sequence=logged.stream_sequence,
    )
    await rpc_error(
        client.stub.Reshuffle(reshuffle, metadata=client.metadata),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="SEEDS_MISMATCH",
    )
    # The log's own seeds, listed in another order, are the same lock.
    del request.seeds[:]
    request.seeds.extend(_locked(SEEDS[::-1]))
    dealt = await client.stub.GetDeck(request, metadata=client.metadata)
    assert len(dealt.cards) == 52
