"""Helpers for the dealer tests: configuration, a typed client, table-log writing."""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable
from typing import Any

import grpc
import grpc.aio
import pytest

from riverboat.eventstore import AppendResult, JetStreamEventStore
from riverboat.eventstore.base import validate_aggregate_id
from riverboat.services.dealer.config import DealerConfig
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc, events_pb2
from tests import statuskit
from tests.conftest import make_token

KEY = bytes(range(32))
OTHER_KEY = bytes(range(100, 132))

# A card as a token of its own ("Th", "7c"): never allowed in a log line.
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")


def unique(prefix: str) -> str:
    """An id no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def dealer_config(nats_url: str, **overrides: Any) -> DealerConfig:
    """A dealer configuration on fresh streams and any free port."""
    tag = uuid.uuid4().hex[:10]
    values: dict[str, Any] = {
        "address": "127.0.0.1:0",
        "nats_url": nats_url,
        "tables_stream": f"RBD_T_{tag}",
        "tables_prefix": f"rbd{tag}.tables",
        "seeds_stream": f"RBD_S_{tag}",
        "seeds_prefix": f"rbd{tag}.seeds",
        "audit_stream": f"RBD_A_{tag}",
        "audit_prefix": f"rbd{tag}.audit",
        "grace": 0.5,
        "connect_timeout": 5.0,
        # The dealer tests check RBS1 decks (served in deck order, docs/shuffle.md part I);
        # CRV1, the default, has its own tests (test_dealer_crv1.py).
        "scheme": "RBS1",
    }
    values.update(overrides)
    return DealerConfig(**values)


class DealerClient:
    """Typed calls to a dealer (the generated stub is untyped)."""

    def __init__(
        self, channel: grpc.aio.Channel, role: str = "service", table_log: TableLog | None = None
    ) -> None:
        self.stub: Any = dealer_pb2_grpc.DealerServiceStub(channel)  # type: ignore[no-untyped-call]
        self.metadata = (("authorization", f"Bearer {make_token('table', role)}"),)
        self.table_log = table_log

    async def commit(self, table_id: str, hand_id: str) -> dealer_pb2.CommitHandResponse:
        """CommitHand; with a ``table_log``, the table is opened in it first (as the table
        service does before any hand), since the dealer commits only for tables that exist."""
        if self.table_log is not None:
            await self.table_log.open(table_id)
        request = dealer_pb2.CommitHandRequest(table_id=table_id, hand_id=hand_id)
        response: dealer_pb2.CommitHandResponse = await self.stub.CommitHand(
            request, timeout=10, metadata=self.metadata
        )
        return response

    async def deck(self, table_id: str, hand_id: str, log_sequence: int) -> list[str]:
        request = dealer_pb2.GetDeckRequest(
            table_id=table_id, hand_id=hand_id, log_sequence=log_sequence
        )
        response: dealer_pb2.GetDeckResponse = await self.stub.GetDeck(
            request, timeout=10, metadata=self.metadata
        )
        return list(response.cards)

    async def reveal(
        self, table_id: str, hand_id: str, log_sequence: int = 0
    ) -> dealer_pb2.RevealSeedResponse:
        request = dealer_pb2.RevealSeedRequest(
            table_id=table_id, hand_id=hand_id, log_sequence=log_sequence
        )
        response: dealer_pb2.RevealSeedResponse = await self.stub.RevealSeed(
            request, timeout=10, metadata=self.metadata
        )
        return response


async def rpc_error(
    call: Awaitable[object], code: grpc.StatusCode, *, reason: str | None = None
) -> grpc.aio.AioRpcError:
    """Await ``call``, which must fail with ``code`` (and ``reason``); return the error."""
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    error = info.value
    assert error.code() == code, f"{error.code()}: {error.details()}"
    if reason is not None:
        assert statuskit.reason(error) == reason, error.details()
    details = error.details() or ""
    assert "Traceback" not in details
    return error


# -- table-log helpers (the test plays the table service) -----------------------------------


def committed(response: dealer_pb2.CommitHandResponse, hand_id: str) -> events_pb2.EventEnvelope:
    """A HandCommitted event carrying what CommitHand returned."""
    return events_pb2.EventEnvelope(
        hand_committed=events_pb2.HandCommitted(
            hand_id=hand_id,
            scheme=response.scheme,
            commitment=response.commitment,
            deck_size=response.deck_size,
        )
    )


def started(hand_id: str) -> events_pb2.EventEnvelope:
    """A HandStarted event."""
    return events_pb2.EventEnvelope(hand_started=events_pb2.HandStarted(hand_id=hand_id))


def ended() -> events_pb2.EventEnvelope:
    """A HandEnded event (it names no hand: it ends the last one started)."""
    return events_pb2.EventEnvelope(hand_ended=events_pb2.HandEnded())


def voided(hand_id: str) -> events_pb2.EventEnvelope:
    """A HandVoided event."""
    return events_pb2.EventEnvelope(
        hand_voided=events_pb2.HandVoided(hand_id=hand_id, reason="test")
    )


def table_created(table_id: str) -> events_pb2.EventEnvelope:
    """A TableCreated event (a record without any commitment)."""
    return events_pb2.EventEnvelope(
        table_created=events_pb2.TableCreated(table_id=table_id, name="test")
    )


class TableLog:
    """The table logs of one test, written the way the table service writes them."""

    def __init__(self, store: JetStreamEventStore) -> None:
        self.store = store

    async def open(self, table_id: str) -> None:
        """Write the table's TableCreated unless its log has a record (valid ids only: others
        are left for the dealer to refuse)."""
        try:
            validate_aggregate_id(table_id)
        except ValueError:
            return
        if await self.store.last_version(table_id) == 0:
            await self.append(table_id, table_created(table_id))

    async def append(self, table_id: str, *events: events_pb2.EventEnvelope) -> AppendResult:
        """Append one EventBatch record; returns its position (``stream_sequence``)."""
        version = await self.store.last_version(table_id)
        payload = events_pb2.EventBatch(events=list(events)).SerializeToString()
        return await self.store.append(
            table_id, payload, expected_version=version, request_id=uuid.uuid4().hex
        )
