"""The event store's observer port: each append's outcome, each retry, extra headers."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest
from nats.aio.client import Client as NATS

from riverboat.eventstore import ConcurrencyError, JetStreamEventStore, observer
from tests.integration.eventstore.test_jetstream import MakeStore


class Recording(observer.EventStoreObserver):
    def __init__(self) -> None:
        self.appends: list[tuple[str, str]] = []
        self.retries: list[tuple[str, str]] = []
        self.headers: Mapping[str, str] | None = None

    def appended(self, stream: str, seconds: float, outcome: str) -> None:
        assert seconds >= 0
        self.appends.append((stream, outcome))

    def retried(self, stream: str, reason: str) -> None:
        self.retries.append((stream, reason))

    def append_headers(self) -> Mapping[str, str] | None:
        return self.headers


@pytest.fixture
def recording() -> Iterator[Recording]:
    before = observer.current()
    watcher = Recording()
    observer.install(watcher)
    try:
        yield watcher
    finally:
        observer.install(before)


async def test_each_append_reports_its_outcome(
    make_jetstream_store: MakeStore, nats_client: NATS, recording: Recording
) -> None:
    store = await make_jetstream_store()
    await store.append("t1", b"a", expected_version=0, request_id="r1")
    await store.append("t1", b"a", expected_version=0, request_id="r1")  # the same request
    with pytest.raises(ConcurrencyError):
        await store.append("t1", b"b", expected_version=0, request_id="r2")
    recording.headers = {"traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01"}
    await store.append("t1", b"c", expected_version=1, request_id="r3")

    s = store.stream
    assert recording.appends == [(s, "ok"), (s, "duplicate"), (s, "conflict"), (s, "ok")]
    assert recording.retries == []
    raw = await nats_client.jetstream().get_last_msg(s, store.subject("t1"))
    assert (
        raw.headers is not None and raw.headers["traceparent"] == recording.headers["traceparent"]
    )


async def test_a_stale_sequence_retry_is_reported(
    make_jetstream_store: MakeStore, nats_client: NATS, recording: Recording
) -> None:
    store = await make_jetstream_store(protect_history=False)
    await store.append("t1", b"old", expected_version=0, request_id="old-1")
    await nats_client.jetstream().delete_stream(store.stream)  # rebuilt: same version, new seq
    other = JetStreamEventStore(nats_client, store.settings)
    await other.ensure_stream()
    await other.append("pad", b"p", expected_version=0, request_id="pad")
    await other.append("t1", b"new", expected_version=0, request_id="new-1")
    recording.appends.clear()

    await store.append("t1", b"next", expected_version=1, request_id="next")

    assert recording.retries == [(store.stream, "stale_sequence")]
    assert recording.appends == [(store.stream, "ok")]
