"""The table's dealer client retries a call the dealer cancelled while stopping."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from riverboat.services.table.dealer_client import DealerClient
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc


class StoppingDealer(dealer_pb2_grpc.DealerServiceServicer):
    """Cancels the first RevealSeed (as a dealer shutting down does), answers the next."""

    def __init__(self) -> None:
        self.calls = 0

    async def RevealSeed(
        self,
        request: dealer_pb2.RevealSeedRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> dealer_pb2.RevealSeedResponse:
        self.calls += 1
        if self.calls == 1:
            await context.abort(grpc.StatusCode.CANCELLED, "the dealer is stopping")
        return dealer_pb2.RevealSeedResponse()


@pytest.fixture
async def dealer() -> AsyncIterator[tuple[StoppingDealer, str]]:
    server = grpc.aio.server()
    servicer = StoppingDealer()
    dealer_pb2_grpc.add_DealerServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        await server.stop(0)


async def test_a_reveal_cancelled_by_a_stopping_dealer_is_retried(
    dealer: tuple[StoppingDealer, str],
) -> None:
    servicer, address = dealer
    client = DealerClient(address, patience=30)
    try:
        await client.reveal_seed("t1", "t1-1", 7)
    finally:
        await client.close()
    assert servicer.calls == 2
