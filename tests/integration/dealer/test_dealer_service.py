"""DealerService against a real nats-server and a real in-process gRPC server."""

from __future__ import annotations

import asyncio
import base64
import io
import json

import grpc
import grpc.aio
import nats.js.errors
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from riverboat.engine.cards import card_str, parse_card
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.server import DealerServer
from riverboat.services.dealer.store import REVEAL_RECORD_TYPE, SEED_RECORD_TYPE
from riverboat.shuffle import SCHEME, commitment, derive_deck, verify
from tests.integration.dealer._kit import (
    DealerClient,
    TableLog,
    committed,
    ended,
    rpc_error,
    started,
    table_created,
    unique,
    voided,
)

pytestmark = pytest.mark.timeout(60)

FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


async def test_commit_log_deal_end_reveal(
    client: DealerClient,
    table_log: TableLog,
    config: DealerConfig,
    nats_client: NATS,
    captured_logs: io.StringIO,
) -> None:
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    assert commit.scheme == SCHEME == "RBS1"
    assert len(commit.commitment) == 32
    assert commit.deck_size == 52

    logged = await table_log.append(table, committed(commit, hand))
    cards = await client.deck(table, hand, logged.stream_sequence)
    assert len(cards) == 52 and len(set(cards)) == 52

    await table_log.append(table, started(hand))
    await rpc_error(client.reveal(table, hand), FAILED_PRECONDITION, reason="HAND_NOT_ENDED")
    await table_log.append(table, ended())

    revealed = await client.reveal(table, hand)
    assert revealed.scheme == SCHEME
    assert revealed.commitment == commit.commitment
    assert commitment(hand, revealed.seed) == commit.commitment
    deck = derive_deck(hand, revealed.seed)
    assert cards == [card_str(card) for card in deck]
    verify(hand, revealed.seed, commit.commitment, dealt=[parse_card(c) for c in cards])

    # The audit stream holds exactly one record for the hand, with the seed in hex.
    js = nats_client.jetstream()
    subject = f"{config.audit_prefix}.{table}.{hand}"
    message = await js.get_msg(config.audit_stream, subject=subject)
    record = json.loads(message.data or b"")
    assert record["type"] == REVEAL_RECORD_TYPE
    assert (record["table_id"], record["hand_id"], record["scheme"]) == (table, hand, SCHEME)
    assert bytes.fromhex(record["seed"]) == revealed.seed
    assert bytes.fromhex(record["commitment"]) == commit.commitment

    # A repeat returns the same reveal and publishes nothing new.
    assert await client.reveal(table, hand) == revealed
    info = await js.stream_info(config.audit_stream)
    assert info.state.messages == 1

    # Secrets never reach the log: no seed (hex or raw), no deck; cards are checked for every
    # test by the captured_logs fixture.
    text = captured_logs.getvalue()
    assert revealed.seed.hex() not in text
    assert "".join(cards) not in text and " ".join(cards) not in text
    lines = [json.loads(line) for line in text.splitlines()]
    dealer_lines = [line for line in lines if line.get("logger") == "riverboat.dealer"]
    assert dealer_lines and all(
        line["table_id"] == table and line["hand_id"] == hand for line in dealer_lines
    )


async def test_commit_hand_is_idempotent_and_never_redraws(
    client: DealerClient, config: DealerConfig, nats_client: NATS, dealer: object
) -> None:
    table, hand = unique("t"), unique("h")
    first = await client.commit(table, hand)
    assert await client.commit(table, hand) == first

    # Concurrent first commits of another hand: one seed is stored, all callers get it.
    other = unique("h")
    answers = await asyncio.gather(*(client.commit(table, other) for _ in range(8)))
    assert len({answer.commitment for answer in answers}) == 1
    assert answers[0].commitment != first.commitment

    js = nats_client.jetstream()
    info = await js.stream_info(config.seeds_stream)
    assert info.state.messages == 2
    stored = await js.get_msg(config.seeds_stream, subject=f"{config.seeds_prefix}.{table}.{hand}")
    record = json.loads(stored.data or b"")
    assert record["type"] == SEED_RECORD_TYPE
    assert bytes.fromhex(record["commitment"]) == first.commitment
    assert "seed" not in record  # only the sealed form is stored


async def test_same_hand_id_at_two_tables_gets_two_seeds(client: DealerClient) -> None:
    hand = unique("h")
    one = await client.commit(unique("t"), hand)
    two = await client.commit(unique("t"), hand)
    assert one.commitment != two.commitment


async def test_get_deck_needs_the_commitment_in_this_tables_log(
    client: DealerClient, table_log: TableLog
) -> None:
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)

    # Nothing logged yet: the stream has no message at that sequence.
    await table_log.append(unique("t-warmup"), table_created("x"))
    await rpc_error(
        client.deck(table, hand, 999), FAILED_PRECONDITION, reason="COMMITMENT_NOT_LOGGED"
    )

    # A record of this table that holds no commitment for the hand.
    other_record = await table_log.append(table, table_created(table))
    await rpc_error(
        client.deck(table, hand, other_record.stream_sequence),
        FAILED_PRECONDITION,
        reason="COMMITMENT_NOT_LOGGED",
    )

    # The right commitment, but in another table's log.
    elsewhere = await table_log.append(unique("t"), committed(commit, hand))
    error = await rpc_error(
        client.deck(table, hand, elsewhere.stream_sequence),
        FAILED_PRECONDITION,
        reason="NOT_THIS_TABLE",
    )
    assert table in (error.details() or "")

    # This table's log, but a different commitment for the hand.
    forged = type(commit)(scheme=commit.scheme, commitment=bytes(32), deck_size=52)
    wrong = await table_log.append(table, committed(forged, hand))
    await rpc_error(
        client.deck(table, hand, wrong.stream_sequence),
        FAILED_PRECONDITION,
        reason="COMMITMENT_MISMATCH",
    )
    # The reveal refuses a log that commits the hand to something else, too.
    await table_log.append(table, started(hand), ended())
    await rpc_error(client.reveal(table, hand), FAILED_PRECONDITION, reason="COMMITMENT_MISMATCH")


async def test_get_deck_with_the_right_record_among_others(
    client: DealerClient, table_log: TableLog
) -> None:
    table, hand, other_hand = unique("t"), unique("h"), unique("h")
    commit = await client.commit(table, hand)
    other = await client.commit(table, other_hand)
    # One batch may carry several events; the dealer finds its hand's commitment among them.
    logged = await table_log.append(
        table, table_created(table), committed(other, other_hand), committed(commit, hand)
    )
    first = await client.deck(table, hand, logged.stream_sequence)
    second = await client.deck(table, other_hand, logged.stream_sequence)
    assert first != second
    assert await client.deck(table, hand, logged.stream_sequence) == first


async def test_unknown_hand_is_not_found(client: DealerClient, table_log: TableLog) -> None:
    table = unique("t")
    record = await table_log.append(table, table_created(table))
    error = await rpc_error(
        client.deck(table, "never-committed", record.stream_sequence),
        grpc.StatusCode.NOT_FOUND,
        reason="HAND_NOT_COMMITTED",
    )
    assert "CommitHand" in (error.details() or "")
    await rpc_error(client.reveal(table, "never-committed"), grpc.StatusCode.NOT_FOUND)


@pytest.mark.parametrize(
    ("table_id", "hand_id"),
    [
        ("", "h1"),
        ("t1", ""),
        ("t.1", "h1"),
        ("t1", "h*"),
        ("t1", "h>"),
        ("t 1", "h1"),
        ("t1", "h\u00e9"),
        ("t" * 129, "h1"),
        ("t1", "h" * 129),
    ],
)
async def test_bad_ids_are_invalid_argument(
    client: DealerClient, table_id: str, hand_id: str
) -> None:
    for call in (
        client.commit(table_id, hand_id),
        client.deck(table_id, hand_id, 1),
        client.reveal(table_id, hand_id),
    ):
        error = await rpc_error(call, grpc.StatusCode.INVALID_ARGUMENT)
        assert ("table_id" if table_id in ("", "t.1", "t 1", "t" * 129) else "hand_id") in (
            error.details() or ""
        )


async def test_longest_ids_are_accepted(client: DealerClient) -> None:
    commit = await client.commit("t" * 128, "h" * 128)
    assert len(commit.commitment) == 32


async def test_get_deck_needs_a_log_sequence(client: DealerClient) -> None:
    error = await rpc_error(client.deck("t1", "h1", 0), grpc.StatusCode.INVALID_ARGUMENT)
    assert "log_sequence" in (error.details() or "")


async def test_reveal_after_a_void(client: DealerClient, table_log: TableLog) -> None:
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    await table_log.append(table, committed(commit, hand))
    # Another hand's void does not end this one.
    await table_log.append(table, voided(unique("h")))
    await rpc_error(client.reveal(table, hand), FAILED_PRECONDITION, reason="HAND_NOT_ENDED")
    await table_log.append(table, voided(hand))
    revealed = await client.reveal(table, hand)
    assert commitment(hand, revealed.seed) == commit.commitment


async def test_reveal_refused_when_the_commitment_was_never_logged(
    client: DealerClient, table_log: TableLog
) -> None:
    table, hand = unique("t"), unique("h")
    await client.commit(table, hand)
    await table_log.append(table, table_created(table))
    await rpc_error(client.reveal(table, hand), FAILED_PRECONDITION, reason="COMMITMENT_NOT_LOGGED")


async def test_hand_ended_belongs_to_the_hand_started_last(
    client: DealerClient, table_log: TableLog
) -> None:
    table, first, second = unique("t"), unique("h"), unique("h")
    one = await client.commit(table, first)
    two = await client.commit(table, second)
    await table_log.append(table, committed(one, first), started(first))
    # The next hand is committed before the first ends: that end is still the first hand's.
    await table_log.append(table, committed(two, second))
    await table_log.append(table, ended())
    await client.reveal(table, first)
    await rpc_error(client.reveal(table, second), FAILED_PRECONDITION, reason="HAND_NOT_ENDED")
    await table_log.append(table, started(second), ended())
    await client.reveal(table, second)


async def test_reveal_finds_a_hand_far_back_in_a_long_log(
    client: DealerClient, table_log: TableLog
) -> None:
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    await table_log.append(table, committed(commit, hand), started(hand))
    await table_log.append(table, ended())
    for number in range(300):  # beyond the first two search windows (64, 256)
        await table_log.append(table, started(f"later-{number}"), ended())
    revealed = await client.reveal(table, hand)
    assert commitment(hand, revealed.seed) == commit.commitment


async def test_reveal_given_the_commitments_sequence_reads_from_there(
    client: DealerClient, table_log: TableLog, config: DealerConfig, nats_client: NATS
) -> None:
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    for number in range(80):  # older hands: more than the first search window
        await table_log.append(table, started(f"earlier-{number}"), ended())
    logged = await table_log.append(table, committed(commit, hand))
    await table_log.append(table, started(hand))
    await rpc_error(
        client.reveal(table, hand, logged.stream_sequence),
        FAILED_PRECONDITION,
        reason="HAND_NOT_ENDED",
    )
    await table_log.append(table, ended())

    # Count the dealer's reads of the table log: stream-leader gets (the log's last record,
    # the search's probes) and direct gets (pages of records).
    gets: list[str] = []

    async def seen(msg: Msg) -> None:
        gets.append(msg.subject.split(".")[2])

    for api in ("STREAM.MSG.GET", "DIRECT.GET"):
        await nats_client.subscribe(f"$JS.API.{api}.{config.tables_stream}", cb=seen)
    await nats_client.flush()
    revealed = await client.reveal(table, hand, logged.stream_sequence)
    await nats_client.flush()
    assert commitment(hand, revealed.seed) == commit.commitment
    # One lookup of the last record and one page from the commitment on: no search.
    assert sorted(gets) == ["DIRECT", "STREAM"]


async def test_reveal_with_a_wrong_sequence_still_finds_the_hand(
    client: DealerClient, table_log: TableLog
) -> None:
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    await table_log.append(table, committed(commit, hand), started(hand))
    after_commit = await table_log.append(table, started(hand))
    await table_log.append(table, ended())
    elsewhere = await table_log.append(unique("t"), committed(commit, hand))
    # Past the commitment, in another table's log, beyond the end of the stream: each only
    # costs the search, and the answer is the same.
    for hint in (after_commit.stream_sequence, elsewhere.stream_sequence, 10**9):
        revealed = await client.reveal(table, hand, hint)
        assert commitment(hand, revealed.seed) == commit.commitment
    never = unique("h")
    await client.commit(table, never)
    await rpc_error(
        client.reveal(table, never, after_commit.stream_sequence),
        FAILED_PRECONDITION,
        reason="COMMITMENT_NOT_LOGGED",
    )


async def test_tables_stream_missing(dealer: DealerServer) -> None:
    # No table_log fixture here: the tables stream was never created.
    async with grpc.aio.insecure_channel(dealer.address) as channel:
        client = DealerClient(channel)
        table, hand = unique("t"), unique("h")
        await rpc_error(client.commit(table, hand), FAILED_PRECONDITION, reason="TABLE_LOG_MISSING")


async def test_hands_are_committed_only_for_tables_that_exist(
    client: DealerClient, dealer: DealerServer, config: DealerConfig, nats_client: NATS
) -> None:
    async with grpc.aio.insecure_channel(dealer.address) as channel:
        bare = DealerClient(channel)  # does not open the table first
        for table in (unique("t"), "no-such-table"):
            error = await rpc_error(
                bare.commit(table, unique("h")), grpc.StatusCode.NOT_FOUND, reason="TABLE_NOT_FOUND"
            )
            assert table in (error.details() or "")
    info = await nats_client.jetstream().stream_info(config.seeds_stream)
    assert info.state.messages == 0  # nothing sealed for a table that does not exist
    table = unique("t")
    await client.commit(table, unique("h"))  # opened in its log: committed


async def test_seed_stream_is_write_once(
    client: DealerClient, config: DealerConfig, nats_client: NATS
) -> None:
    table, hand = unique("t"), unique("h")
    commit = await client.commit(table, hand)
    js = nats_client.jetstream()
    subject = f"{config.seeds_prefix}.{table}.{hand}"
    stored = await js.get_msg(config.seeds_stream, subject=subject)

    # Even a writer that ignores the dealer's headers cannot add a second seed for the hand,
    with pytest.raises(nats.js.errors.APIError):
        await js.publish(subject, b"{}", stream=config.seeds_stream)
    # nor delete or purge one.
    with pytest.raises(nats.js.errors.APIError, match="not permitted"):
        await js.delete_msg(config.seeds_stream, int(stored.seq or 0))
    with pytest.raises(nats.js.errors.APIError, match="not permitted"):
        await js.purge_stream(config.seeds_stream)
    assert await client.commit(table, hand) == commit


async def test_corrupt_seed_records_are_data_loss_not_a_new_deck(
    client: DealerClient, config: DealerConfig, nats_client: NATS, table_log: TableLog
) -> None:
    table = unique("t")
    js = nats_client.jetstream()
    # A record for a hand the dealer sealed, with one bit of the sealed seed flipped, planted
    # under another hand's subject (where nothing was stored yet).
    hand, tampered = unique("h"), unique("h")
    commit = await client.commit(table, hand)
    original = await js.get_msg(
        config.seeds_stream, subject=f"{config.seeds_prefix}.{table}.{hand}"
    )
    record = json.loads(original.data or b"")
    sealed = bytearray(base64.b64decode(record["sealed_seed"]))
    sealed[20] ^= 1
    record.update(hand_id=tampered, sealed_seed=base64.b64encode(bytes(sealed)).decode())
    await js.publish(
        f"{config.seeds_prefix}.{table}.{tampered}",
        json.dumps(record).encode(),
        stream=config.seeds_stream,
    )
    await rpc_error(
        client.commit(table, tampered), grpc.StatusCode.DATA_LOSS, reason="SEALED_SEED_CORRUPT"
    )
    logged = await table_log.append(table, committed(commit, tampered))
    await rpc_error(
        client.deck(table, tampered, logged.stream_sequence),
        grpc.StatusCode.DATA_LOSS,
        reason="SEALED_SEED_CORRUPT",
    )

    # Not even JSON.
    garbage = unique("h")
    await js.publish(
        f"{config.seeds_prefix}.{table}.{garbage}", b"\x00garbage", stream=config.seeds_stream
    )
    error = await rpc_error(
        client.commit(table, garbage), grpc.StatusCode.DATA_LOSS, reason="SEED_RECORD_CORRUPT"
    )
    assert "garbage" not in (error.details() or "")
