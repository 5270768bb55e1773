"""The event-store contract: every EventStore implementation must pass all of it.

:class:`EventStoreContract` is abstract: a subclass named ``Test...`` provides the ``store``
fixture (an empty store) and inherits every test. The in-memory store runs it in
``tests/contract/test_eventstore.py`` (no server); the JetStream store in
``tests/integration/eventstore/test_jetstream_contract.py`` (a real nats-server, a fresh stream
per test). A new implementation is one more subclass.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from riverboat.eventstore import (
    AppendResult,
    ConcurrencyError,
    EventStore,
    InvalidAggregateIdError,
    InvalidRequestIdError,
)


async def append_n(
    store: EventStore, aggregate_id: str, count: int, *, start: int = 0, tag: str = "r"
) -> list[AppendResult]:
    """Append ``count`` records sequentially after version ``start``."""
    results = []
    for version in range(start + 1, start + count + 1):
        results.append(
            await store.append(
                aggregate_id,
                payload_for(aggregate_id, version),
                expected_version=version - 1,
                request_id=f"{tag}-{aggregate_id}-{version}",
            )
        )
    return results


def payload_for(aggregate_id: str, version: int) -> bytes:
    return f"{aggregate_id}/{version}".encode()


@pytest.mark.timeout(60)
class EventStoreContract:
    """What every :class:`EventStore` promises; subclasses provide the ``store`` fixture."""

    # -- append / read --------------------------------------------------------------------------

    async def test_append_then_read_returns_records_in_order(self, store: EventStore) -> None:
        results = await append_n(store, "t1", 5)

        assert [r.version for r in results] == [1, 2, 3, 4, 5]
        assert all(not r.duplicate and r.aggregate_id == "t1" for r in results)
        sequences = [r.stream_sequence for r in results]
        assert sequences == sorted(sequences) and len(set(sequences)) == 5

        records = await store.read("t1")
        assert [r.version for r in records] == [1, 2, 3, 4, 5]
        assert [r.payload for r in records] == [payload_for("t1", v) for v in range(1, 6)]
        assert [r.request_id for r in records] == [f"r-t1-{v}" for v in range(1, 6)]
        assert [r.stream_sequence for r in records] == sequences
        assert all(r.aggregate_id == "t1" for r in records)
        assert all(isinstance(r.recorded_at, datetime) and r.recorded_at.tzinfo for r in records)
        assert await store.last_version("t1") == 5

    async def test_payload_bytes_round_trip_exactly(self, store: EventStore) -> None:
        payloads = [b"", b"\x00\xff\r\n", bytes(range(256)) * 40]
        for version, payload in enumerate(payloads, start=1):
            await store.append(
                "t1", payload, expected_version=version - 1, request_id=f"p{version}"
            )

        assert [r.payload for r in await store.read("t1")] == payloads

    async def test_empty_aggregate(self, store: EventStore) -> None:
        assert await store.read("nobody") == []
        assert await store.read("nobody", from_version=3) == []
        assert [r async for r in store.iter_records("nobody")] == []
        assert await store.last_version("nobody") == 0

    # -- optimistic concurrency ----------------------------------------------------------------

    async def test_stale_expected_version_raises_and_writes_nothing(
        self, store: EventStore
    ) -> None:
        await append_n(store, "t1", 2)

        with pytest.raises(ConcurrencyError) as caught:
            await store.append("t1", b"late", expected_version=1, request_id="late-writer")

        error = caught.value
        assert (error.aggregate_id, error.expected_version, error.actual_version) == ("t1", 1, 2)
        assert "'t1'" in str(error) and "1" in str(error) and "2" in str(error)
        assert [r.version for r in await store.read("t1")] == [1, 2]
        assert await store.last_version("t1") == 2

    async def test_expected_version_ahead_of_history_raises(self, store: EventStore) -> None:
        await append_n(store, "t1", 1)

        with pytest.raises(ConcurrencyError) as caught:
            await store.append("t1", b"x", expected_version=5, request_id="ahead")

        assert (caught.value.expected_version, caught.value.actual_version) == (5, 1)
        assert len(await store.read("t1")) == 1

    async def test_creating_an_existing_aggregate_raises(self, store: EventStore) -> None:
        await append_n(store, "t1", 1)

        with pytest.raises(ConcurrencyError):
            await store.append("t1", b"again", expected_version=0, request_id="second-create")

        assert [r.payload for r in await store.read("t1")] == [payload_for("t1", 1)]

    async def test_concurrent_writers_exactly_one_wins(self, store: EventStore) -> None:
        await append_n(store, "t1", 3)

        outcomes = await asyncio.gather(
            *(
                store.append("t1", f"writer-{i}".encode(), expected_version=3, request_id=f"w{i}")
                for i in range(5)
            ),
            return_exceptions=True,
        )

        winners = [o for o in outcomes if isinstance(o, AppendResult)]
        losers = [o for o in outcomes if isinstance(o, ConcurrencyError)]
        assert len(winners) == 1 and len(losers) == 4, outcomes
        assert winners[0].version == 4 and not winners[0].duplicate
        records = await store.read("t1")
        assert [r.version for r in records] == [1, 2, 3, 4]
        assert records[-1].request_id == winners[0].request_id
        assert all(loser.actual_version == 4 for loser in losers)

    async def test_concurrent_creators_exactly_one_wins(self, store: EventStore) -> None:
        outcomes = await asyncio.gather(
            store.append("t1", b"a", expected_version=0, request_id="a"),
            store.append("t1", b"b", expected_version=0, request_id="b"),
            return_exceptions=True,
        )

        assert sorted(type(o).__name__ for o in outcomes) == ["AppendResult", "ConcurrencyError"]
        assert len(await store.read("t1")) == 1

    # -- idempotency ---------------------------------------------------------------------------

    async def test_repeated_request_id_returns_original_and_writes_nothing(
        self, store: EventStore
    ) -> None:
        original = await store.append("t1", b"first", expected_version=0, request_id="req-1")

        # A retry of the same command (same expectation), even with a different payload.
        repeat = await store.append("t1", b"second", expected_version=0, request_id="req-1")

        assert repeat.duplicate and not original.duplicate
        assert (repeat.version, repeat.stream_sequence, repeat.request_id) == (
            original.version,
            original.stream_sequence,
            original.request_id,
        )
        assert [r.payload for r in await store.read("t1")] == [b"first"]

    async def test_repeated_request_id_at_current_version_is_still_a_duplicate(
        self,
        store: EventStore,
    ) -> None:
        original = await store.append("t1", b"first", expected_version=0, request_id="req-1")

        # The caller re-read the aggregate (now at version 1) and retried with the same id.
        repeat = await store.append("t1", b"first", expected_version=1, request_id="req-1")

        assert repeat.duplicate and repeat.version == original.version == 1
        assert len(await store.read("t1")) == 1

    async def test_repeated_request_id_after_later_writes_returns_original(
        self, store: EventStore
    ) -> None:
        original = await store.append("t1", b"first", expected_version=0, request_id="req-1")
        await store.append("t1", b"other", expected_version=1, request_id="req-2")
        await store.append("t1", b"third", expected_version=2, request_id="req-3")

        repeat = await store.append("t1", b"first", expected_version=0, request_id="req-1")

        assert repeat.duplicate
        assert (repeat.version, repeat.stream_sequence) == (1, original.stream_sequence)
        assert await store.last_version("t1") == 3

    async def test_concurrent_duplicates_store_one_record(self, store: EventStore) -> None:
        outcomes = await asyncio.gather(
            *(store.append("t1", b"same", expected_version=0, request_id="req-x") for _ in range(3))
        )

        assert sorted(o.duplicate for o in outcomes) == [False, True, True]
        assert {(o.version, o.stream_sequence) for o in outcomes} == {
            (1, outcomes[0].stream_sequence)
        }
        assert len(await store.read("t1")) == 1

    async def test_request_ids_are_scoped_to_the_aggregate(self, store: EventStore) -> None:
        first = await store.append("t1", b"a", expected_version=0, request_id="shared")
        second = await store.append("t2", b"b", expected_version=0, request_id="shared")

        assert not first.duplicate and not second.duplicate
        assert second.aggregate_id == "t2"
        assert [r.payload for r in await store.read("t2")] == [b"b"]

    # -- isolation and partial reads -----------------------------------------------------------

    async def test_aggregates_are_isolated(self, store: EventStore) -> None:
        for version in range(1, 4):
            for aggregate_id in ("t1", "t2", "t3"):
                await store.append(
                    aggregate_id,
                    payload_for(aggregate_id, version),
                    expected_version=version - 1,
                    request_id=f"{aggregate_id}-{version}",
                )
        await store.append("t2", b"extra", expected_version=3, request_id="t2-4")

        assert [r.payload for r in await store.read("t1")] == [
            payload_for("t1", v) for v in (1, 2, 3)
        ]
        assert [r.version for r in await store.read("t2")] == [1, 2, 3, 4]
        assert {r.aggregate_id for r in await store.read("t3")} == {"t3"}
        assert await store.last_version("t1") == 3
        assert await store.last_version("t2") == 4
        # A conflict on one aggregate says nothing about another.
        with pytest.raises(ConcurrencyError):
            await store.append("t1", b"x", expected_version=4, request_id="t1-x")

    async def test_read_from_version(self, store: EventStore) -> None:
        # Interleave another aggregate so stream sequences and versions differ.
        for version in range(1, 11):
            await store.append(
                "t1",
                payload_for("t1", version),
                expected_version=version - 1,
                request_id=f"t1-{version}",
            )
            await store.append(
                "noise", b"n", expected_version=version - 1, request_id=f"n-{version}"
            )

        assert [r.version for r in await store.read("t1", from_version=1)] == list(range(1, 11))
        assert [r.version for r in await store.read("t1", from_version=4)] == list(range(4, 11))
        assert [r.payload for r in await store.read("t1", from_version=10)] == [
            payload_for("t1", 10)
        ]
        assert await store.read("t1", from_version=11) == []
        assert [r.version async for r in store.iter_records("t1", from_version=7)] == [7, 8, 9, 10]

    async def test_iteration_can_stop_early(self, store: EventStore) -> None:
        await append_n(store, "t1", 5)

        seen = []
        async for record in store.iter_records("t1"):
            seen.append(record.version)
            if record.version == 2:
                break

        assert seen == [1, 2]
        assert len(await store.read("t1")) == 5  # the store is still usable

    async def test_large_history_reads_back_completely(self, store: EventStore) -> None:
        count = 2_000
        # Two aggregates written concurrently make a busy, interleaved stream.
        await asyncio.gather(append_n(store, "big", count), append_n(store, "busy", count))

        records = await store.read("big")
        assert len(records) == count
        assert [r.version for r in records] == list(range(1, count + 1))
        assert records[-1].payload == payload_for("big", count)

        tail = [r.version async for r in store.iter_records("big", from_version=1_537)]
        assert tail == list(range(1_537, count + 1))
        assert await store.last_version("busy") == count

    # -- argument validation -------------------------------------------------------------------

    @pytest.mark.parametrize("aggregate_id", ["", "a.b", "a*", "a>", "a b", "t\n", "x" * 129, "é"])
    async def test_unsafe_aggregate_ids_are_rejected(
        self, store: EventStore, aggregate_id: str
    ) -> None:
        with pytest.raises(InvalidAggregateIdError):
            await store.append(aggregate_id, b"x", expected_version=0, request_id="r")
        with pytest.raises(InvalidAggregateIdError):
            await store.read(aggregate_id)
        with pytest.raises(InvalidAggregateIdError):
            await store.last_version(aggregate_id)

    @pytest.mark.parametrize("request_id", ["", "has space", "line\nbreak", "x" * 257])
    async def test_bad_request_ids_are_rejected(self, store: EventStore, request_id: str) -> None:
        with pytest.raises(InvalidRequestIdError):
            await store.append("t1", b"x", expected_version=0, request_id=request_id)
        assert await store.read("t1") == []

    async def test_bad_versions_are_rejected(self, store: EventStore) -> None:
        with pytest.raises(ValueError):
            await store.append("t1", b"x", expected_version=-1, request_id="r")
        with pytest.raises(ValueError):
            await store.read("t1", from_version=0)
        assert await store.last_version("t1") == 0
