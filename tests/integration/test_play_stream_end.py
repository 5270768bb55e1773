"""A Play stream the service ends while the player is sending: the player learns why.

When a server ends a bidirectional call while the client is writing, grpc's asyncio client
fails the write with its own ``INTERNAL: Internal error from Core`` (or, a moment later,
``InvalidStateError``) instead of the status the server sent, which arrives just after. The
room's bots saw that ``INTERNAL`` under load, when the table service ended their streams
(``UNAVAILABLE``, reason ``NO_OWNER``, while it was losing its leases). :class:`PlayStream`
must raise the server's status, retry delay included, whichever way the race goes.
"""

from __future__ import annotations

import collections
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest

from riverboat.playstream import PlayStream
from riverboat.redirect import no_owner_delay
from riverboat.services.common.errors import ErrorInterceptor, NoOwner
from riverboat.v1 import table_pb2, table_pb2_grpc

pytestmark = pytest.mark.timeout(120)

STREAMS = 200


async def test_a_stream_ended_during_a_write_raises_the_servers_status() -> None:
    async def play(requests: Any, context: Any) -> AsyncIterator[table_pb2.PlayResponse]:
        async for _ in requests:  # the first action: the table changes hands
            raise NoOwner("t-1", retry_delay=0.5)
        yield table_pb2.PlayResponse()

    server = grpc.aio.server(interceptors=[ErrorInterceptor()])
    handler = grpc.stream_stream_rpc_method_handler(
        play, table_pb2.PlayRequest.FromString, table_pb2.PlayResponse.SerializeToString
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("riverboat.v1.TableService", {"Play": handler}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    seen: collections.Counter[str] = collections.Counter()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            for _ in range(STREAMS):
                stream = PlayStream("t-1", stub.Play(), None)
                try:
                    for k in range(100):  # actions sent without waiting, as the bots do
                        await stream.act("h-1", 1, "call", request_id=f"a-{k}")
                    async for _ in stream:
                        pass
                    seen["no error"] += 1
                except grpc.aio.AioRpcError as exc:
                    delay = no_owner_delay(exc)
                    seen[f"{exc.code().name} {delay}"] += 1
                except Exception as exc:  # what else the client raised, counted
                    seen[type(exc).__name__] += 1
    finally:
        await server.stop(0)
    assert seen == {"UNAVAILABLE 0.5": STREAMS}
