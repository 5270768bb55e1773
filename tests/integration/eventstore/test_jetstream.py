"""JetStream-specific behaviour: stream protection, crash durability, stream management, and the
paths of the version->sequence mapping that only exist on JetStream."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import nats
import nats.js.errors
import pytest
from nats.aio.client import Client as NATS

from riverboat.eventstore import (
    AppendResult,
    ConcurrencyError,
    CorruptHistoryError,
    EventStoreError,
    JetStreamEventStore,
    StreamConfigError,
    StreamSettings,
)
from riverboat.eventstore.jetstream import HEADER_REQUEST_ID, HEADER_VERSION
from riverboat.natsserver import NatsServer

pytestmark = pytest.mark.timeout(60)

MakeStore = Callable[..., Awaitable[JetStreamEventStore]]


# -- protection ----------------------------------------------------------------------------


async def test_protected_stream_refuses_message_delete_and_purge(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    store = await make_jetstream_store()
    result = await store.append("t1", b"chips", expected_version=0, request_id="r1")
    js = nats_client.jetstream()

    with pytest.raises(nats.js.errors.APIError, match="not permitted"):
        await js.delete_msg(store.stream, result.stream_sequence)
    with pytest.raises(nats.js.errors.APIError, match="not permitted"):
        await js.purge_stream(store.stream)
    with pytest.raises(nats.js.errors.APIError, match="not permitted"):
        await js.purge_stream(store.stream, subject=store.subject("t1"))

    info = await js.stream_info(store.stream)
    assert info.config.deny_delete and info.config.deny_purge
    assert [r.payload for r in await store.read("t1")] == [b"chips"]


async def test_unprotected_stream_allows_purge(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    # The contrast that shows the refusal above comes from the option, not from the server.
    store = await make_jetstream_store(protect_history=False)
    await store.append("t1", b"scratch", expected_version=0, request_id="r1")

    await nats_client.jetstream().purge_stream(store.stream)

    assert await store.read("t1") == []


# -- durability ----------------------------------------------------------------------------


async def test_acknowledged_appends_survive_sigkill_and_restart(tmp_path: Path) -> None:
    server = NatsServer(tmp_path / "store", port=0)
    server.start()
    try:
        settings = StreamSettings(name="RB_CRASH", subject_prefix="rbcrash")
        nc = await nats.connect(server.url, allow_reconnect=False)
        store = await JetStreamEventStore.open(nc, settings)

        async def write_table(table: str, count: int) -> list[AppendResult]:
            return [
                await store.append(
                    table,
                    f"{table}:{v}".encode(),
                    expected_version=v - 1,
                    request_id=f"{table}-{v}",
                )
                for v in range(1, count + 1)
            ]

        acked = await asyncio.gather(*(write_table(f"t{i}", 60) for i in range(3)))
        server.kill()  # no shutdown, no flush: a crash
        await nc.close()

        server.start()  # same port and store directory
        nc = await nats.connect(server.url, allow_reconnect=False)
        try:
            reopened = await JetStreamEventStore.open(nc, settings)
            for i, results in enumerate(acked):
                records = await reopened.read(f"t{i}")
                assert [(r.version, r.stream_sequence) for r in records] == [
                    (a.version, a.stream_sequence) for a in results
                ]
                assert records[-1].payload == f"t{i}:60".encode()
            # Writing continues at the right version, and a pre-crash request id is recognised.
            nxt = await reopened.append("t0", b"after", expected_version=60, request_id="t0-61")
            assert nxt.version == 61
            again = await reopened.append("t0", b"t0:1", expected_version=0, request_id="t0-1")
            assert again.duplicate and again.version == 1
        finally:
            await nc.close()
    finally:
        server.close()


# -- stream management ---------------------------------------------------------------------


async def test_ensure_stream_is_idempotent(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    store = await make_jetstream_store()
    await store.append("t1", b"a", expected_version=0, request_id="r1")
    js = nats_client.jetstream()
    before = await js.stream_info(store.stream)

    for _ in range(3):
        await store.ensure_stream()
    await JetStreamEventStore(nats_client, store.settings).ensure_stream()

    after = await js.stream_info(store.stream)
    assert after.created == before.created
    assert after.config == before.config
    assert after.state.messages == 1
    assert after.config.subjects == [f"{store.settings.subject_prefix}.>"]
    assert after.config.allow_direct
    assert after.config.duplicate_window == pytest.approx(120.0)


async def test_ensure_stream_updates_editable_settings(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    store = await make_jetstream_store()
    changed = StreamSettings(
        name=store.stream,
        subject_prefix=store.settings.subject_prefix,
        duplicate_window=300.0,
        description="changed",
    )

    await JetStreamEventStore(nats_client, changed).ensure_stream()

    config = (await nats_client.jetstream().stream_info(store.stream)).config
    assert config.duplicate_window == pytest.approx(300.0)
    assert config.description == "changed"
    assert config.deny_delete and config.deny_purge


async def test_ensure_stream_refuses_to_drop_protection(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    store = await make_jetstream_store()
    unprotected = StreamSettings(
        name=store.stream, subject_prefix=store.settings.subject_prefix, protect_history=False
    )

    with pytest.raises(StreamConfigError, match="deny_delete"):
        await JetStreamEventStore(nats_client, unprotected).ensure_stream()


async def test_concurrent_ensure_stream_calls_agree(nats_client: NATS) -> None:
    tag = uuid.uuid4().hex[:8]
    settings = StreamSettings(name=f"RB_RACE_{tag}", subject_prefix=f"rbrace.{tag}")
    try:
        await asyncio.gather(
            *(JetStreamEventStore(nats_client, settings).ensure_stream() for _ in range(4))
        )
        info = await nats_client.jetstream().stream_info(settings.name)
        assert info.config.deny_delete
    finally:
        await nats_client.jetstream().delete_stream(settings.name)


# -- version -> sequence mapping, idempotency beyond the window ----------------------------


async def test_writer_with_stale_cache_loses_to_another_process(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    writer_a = await make_jetstream_store()
    writer_b = JetStreamEventStore(nats_client, writer_a.settings)  # a second process
    await writer_a.append("t1", b"a1", expected_version=0, request_id="a1")
    await writer_b.append("t1", b"b2", expected_version=1, request_id="b2")

    # writer_a still believes version 1 is the last one (its cached position).
    with pytest.raises(ConcurrencyError) as caught:
        await writer_a.append("t1", b"a2", expected_version=1, request_id="a2")
    assert caught.value.actual_version == 2

    assert (await writer_a.append("t1", b"a3", expected_version=2, request_id="a3")).version == 3
    assert [r.payload for r in await writer_b.read("t1")] == [b"a1", b"b2", b"a3"]


async def test_stale_cached_sequence_with_right_version_is_retried(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    store = await make_jetstream_store(protect_history=False)
    for v in range(1, 3):
        await store.append("t1", b"old", expected_version=v - 1, request_id=f"old-{v}")
    # The stream is rebuilt (e.g. restored from a backup) with the aggregate at the same version
    # but at different stream sequences; the store's cached sequence for version 2 is now wrong.
    await nats_client.jetstream().delete_stream(store.stream)
    other = JetStreamEventStore(nats_client, store.settings)
    await other.ensure_stream()
    await other.append("pad", b"p", expected_version=0, request_id="pad")
    for v in range(1, 3):
        await other.append("t1", b"new", expected_version=v - 1, request_id=f"new-{v}")

    result = await store.append("t1", b"next", expected_version=2, request_id="next")

    assert (result.version, result.duplicate) == (3, False)
    assert [r.version for r in await store.read("t1")] == [1, 2, 3]


async def test_repeat_beyond_duplicate_window_is_still_recognised(
    make_jetstream_store: MakeStore,
) -> None:
    store = await make_jetstream_store(duplicate_window=0.2)
    original = await store.append("t1", b"bet", expected_version=0, request_id="bet-1")
    await store.append("t1", b"call", expected_version=1, request_id="call-1")
    await asyncio.sleep(0.5)  # the server has forgotten the Nats-Msg-Id by now

    repeat = await store.append("t1", b"bet", expected_version=0, request_id="bet-1")

    assert repeat.duplicate
    assert (repeat.version, repeat.stream_sequence) == (1, original.stream_sequence)
    assert len(await store.read("t1")) == 2


async def test_gap_in_history_is_reported(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    store = await make_jetstream_store()
    await store.append("t1", b"ok", expected_version=0, request_id="r1")
    # A foreign writer bypasses the store and skips version 2.
    await nats_client.jetstream().publish(
        store.subject("t1"), b"bad", headers={HEADER_VERSION: "3", HEADER_REQUEST_ID: "rogue"}
    )

    with pytest.raises(CorruptHistoryError, match="expected 2"):
        await store.read("t1")


async def test_records_carry_version_and_request_id_headers(
    make_jetstream_store: MakeStore, nats_client: NATS
) -> None:
    store = await make_jetstream_store()
    result = await store.append("t1", b"x", expected_version=0, request_id="req-9")

    msg = await nats_client.jetstream().get_msg(store.stream, seq=result.stream_sequence)

    assert msg.subject == store.subject("t1")
    headers = msg.headers or {}
    assert headers[HEADER_VERSION] == "1"
    assert headers[HEADER_REQUEST_ID] == "req-9"
    assert headers["Nats-Msg-Id"] == "t1:req-9"


async def test_small_pages_read_long_history(make_jetstream_store: MakeStore) -> None:
    store = await make_jetstream_store(store_kwargs={"page_size": 7})
    for v in range(1, 51):
        await store.append("t1", str(v).encode(), expected_version=v - 1, request_id=f"r{v}")

    assert [int(r.payload) for r in await store.read("t1")] == list(range(1, 51))
    assert [r.version for r in await store.read("t1", from_version=23)] == list(range(23, 51))


async def test_records_from_a_stream_sequence(make_jetstream_store: MakeStore) -> None:
    store = await make_jetstream_store(store_kwargs={"page_size": 3})
    sequences = {}
    for v in range(1, 11):
        # Another aggregate's records in between: the read keeps to its own subject.
        await store.append("other", b"-", expected_version=v - 1, request_id=f"o{v}")
        result = await store.append(
            "t1", str(v).encode(), expected_version=v - 1, request_id=f"r{v}"
        )
        sequences[v] = result.stream_sequence

    async def from_sequence(sequence: int) -> list[int]:
        return [r.version async for r in store.iter_records_at("t1", sequence)]

    assert await from_sequence(sequences[4]) == list(range(4, 11))
    # A sequence between two of its records starts at the next one.
    assert await from_sequence(sequences[4] - 1) == list(range(4, 11))
    assert await from_sequence(1) == list(range(1, 11))
    assert await from_sequence(sequences[10] + 1) == []
    assert [r.version async for r in store.iter_records_at("empty", 1)] == []
    with pytest.raises(ValueError, match="stream_sequence"):
        await from_sequence(0)


async def test_missing_stream_is_an_error_not_an_empty_aggregate(nats_client: NATS) -> None:
    store = JetStreamEventStore(
        nats_client, StreamSettings(name=f"RB_NONE_{uuid.uuid4().hex[:8]}", subject_prefix="rbnone")
    )

    with pytest.raises(EventStoreError, match="ensure_stream"):
        await store.last_version("t1")
    with pytest.raises(EventStoreError, match="ensure_stream"):
        await store.read("t1")
    with pytest.raises(EventStoreError):
        await store.append("t1", b"x", expected_version=0, request_id="r1")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("subject_prefix", "a..b"),
        ("subject_prefix", "a.>"),
        ("subject_prefix", "tabl\u00e9s"),
        ("subject_prefix", ""),
        ("name", "has.dot"),
        ("name", ""),
        ("duplicate_window", 0.0),
    ],
)
def test_invalid_stream_settings_are_rejected(field: str, value: Any) -> None:
    with pytest.raises(ValueError):
        StreamSettings(**{field: value})


async def test_the_tail_holds_every_aggregate_s_records_in_stream_order(
    make_jetstream_store: Callable[..., Awaitable[JetStreamEventStore]],
) -> None:
    """records_after: what a follower of the whole stream reads (the lobby), paged by limit."""
    store = await make_jetstream_store(store_kwargs={"page_size": 2})
    assert await store.records_after(0) == ([], 0)
    written: list[tuple[str, int, bytes]] = []
    for n, aggregate in enumerate(["a", "b", "a", "c", "b"]):
        version = sum(1 for w in written if w[0] == aggregate)
        await store.append(
            aggregate, f"p{n}".encode(), expected_version=version, request_id=f"r{n}"
        )
        written.append((aggregate, version + 1, f"p{n}".encode()))
    records, last = await store.records_after(0)
    assert last == 5
    assert [(r.aggregate_id, r.version, r.payload) for r in records] == written
    assert [r.stream_sequence for r in records] == [1, 2, 3, 4, 5]
    page, _ = await store.records_after(1, limit=3)
    assert [(r.aggregate_id, r.version) for r in page] == [("b", 1), ("a", 2), ("c", 1)]
    assert await store.records_after(5) == ([], 5)
