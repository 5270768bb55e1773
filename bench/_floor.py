"""The transport floor: the room's message pattern with no Riverboat code at all.

What one action costs on this machine when nothing but the transport runs: a ``grpc.aio``
server whose unary ``Act`` makes one JetStream publish awaiting its acknowledgement (file
stream, ``Nats-Msg-Id`` and ``Nats-Expected-Last-Subject-Sequence`` headers, as a table append)
and then puts one message on each of the table's four ``Watch`` streams; a client process with
four watchers per table, the one a message names calling ``Act`` at once. No rules, views,
tokens, logs or dealer: raw bytes of the sizes the room's messages have. Whatever Riverboat's
rows reach, they cannot beat this one; the gap between the two is Riverboat's own code.

The server runs as a child process (``python -m bench._floor --port P --nats URL --stream S``),
as the table service does; :func:`drive_floor` plays the client in the calling process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats
from nats.js.api import StorageType, StreamConfig

from riverboat import eventloop
from riverboat.services.launcher import free_port

PLAYERS = 4
#: Bytes per message, as measured on the room: a table record, a Watch message with its
#: view, an Act reply.
RECORD_BYTES = 400
WATCH_BYTES = 560
REPLY_BYTES = 400
SERVICE = "riverboatbench.Floor"
TABLES_PER_CHANNEL = 100


def _identity(data: bytes) -> bytes:
    return data


@dataclass
class _Table:
    version: int = 0
    last_sequence: int = 0
    watchers: dict[int, asyncio.Queue[bytes]] = field(default_factory=dict)


async def serve(port: int, nats_url: str, stream: str) -> None:
    """Serve ``Act`` and ``Watch`` on 127.0.0.1:``port`` until killed."""
    nc = await nats.connect(nats_url, no_echo=True)
    js = nc.jetstream()
    prefix = stream.lower()
    await js.add_stream(
        StreamConfig(name=stream, subjects=[f"{prefix}.>"], storage=StorageType.FILE)
    )
    tables: dict[str, _Table] = {}
    record = b"r" * RECORD_BYTES
    reply = b"a" * REPLY_BYTES

    async def append(table_id: str, seat: int) -> None:
        table = tables.setdefault(table_id, _Table())
        table.version += 1
        headers = {
            "Nats-Msg-Id": f"{table_id}-{table.version}",
            "Nats-Expected-Last-Subject-Sequence": str(table.last_sequence),
        }
        ack = await js.publish(f"{prefix}.{table_id}", record, headers=headers)
        table.last_sequence = ack.seq
        update = _update(table.version, seat % PLAYERS + 1)
        for queue in table.watchers.values():
            queue.put_nowait(update)

    async def act(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        await append(*_parse(request))
        return reply

    async def play(
        requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> AsyncIterator[bytes]:
        # One stream per player: the first message names the seat, each later one is an
        # action; the reply and every update go out on the same stream.
        first = await anext(requests)
        table_id, seat = _parse(first)
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        table = tables.setdefault(table_id, _Table())
        table.watchers[seat] = queue

        async def actions() -> None:
            async for _ in requests:
                await append(table_id, seat)
                queue.put_nowait(reply)

        reader = asyncio.ensure_future(actions())
        if len(table.watchers) == PLAYERS:
            for each in table.watchers.values():
                each.put_nowait(_update(0, 1))
        try:
            while True:
                yield await queue.get()
        finally:
            reader.cancel()

    async def watch(
        request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> AsyncIterator[bytes]:
        table_id, seat = _parse(request)
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        table = tables.setdefault(table_id, _Table())
        table.watchers[seat] = queue
        if len(table.watchers) == PLAYERS:
            # Everyone is watching: the table opens, seat 1 to act.
            for each in table.watchers.values():
                each.put_nowait(_update(0, 1))
        while True:
            yield await queue.get()

    handler = grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Act": grpc.unary_unary_rpc_method_handler(act, _identity, _identity),
            "Watch": grpc.unary_stream_rpc_method_handler(watch, _identity, _identity),
            "Play": grpc.stream_stream_rpc_method_handler(play, _identity, _identity),
        },
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print("ready", flush=True)
    await server.wait_for_termination()


def _parse(request: bytes) -> tuple[str, int]:
    table_id, _, seat = request.decode().partition(":")
    return table_id, int(seat)


def _update(version: int, to_act: int) -> bytes:
    head = f"{version}:{to_act}:".encode()
    return head + b"v" * (WATCH_BYTES - len(head))


@dataclass
class FloorResult:
    """Act calls completed inside the window, with their client-side latencies."""

    seconds: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


async def drive_floor(
    address: str,
    tables: int,
    *,
    warmup: float,
    window: float,
    on_window: Callable[[bool], Awaitable[None]],
    stream: bool = False,
) -> FloorResult:
    """Four watchers per table; the one each update names sends ``Act``; count a window.

    With ``stream``, each player has one bidirectional ``Play`` stream instead: its actions go
    in and its reply and updates come out on it.
    """
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(-(-tables // TABLES_PER_CHANNEL))
    ]
    latencies: list[float] = []
    counting = False

    async def streamer(channel: grpc.aio.Channel, table_id: str, seat: int) -> None:
        play = channel.stream_stream(
            f"/{SERVICE}/Play", request_serializer=_identity, response_deserializer=_identity
        )
        call: Any = play()  # type: ignore[call-arg]  # the stubs want a request iterator
        await call.write(f"{table_id}:{seat}".encode())
        began = 0.0
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:  # type: ignore[attr-defined]  # missing from the stubs
                return
            if message[:1] == b"a":  # our action's reply
                if counting:
                    latencies.append(time.perf_counter() - began)
                continue
            _version, to_act, _ = message.split(b":", 2)
            if int(to_act) == seat:
                began = time.perf_counter()
                await call.write(b"act")

    async def player(channel: grpc.aio.Channel, table_id: str, seat: int) -> None:
        watch = channel.unary_stream(
            f"/{SERVICE}/Watch", request_serializer=_identity, response_deserializer=_identity
        )
        act = channel.unary_unary(
            f"/{SERVICE}/Act", request_serializer=_identity, response_deserializer=_identity
        )
        me = f"{table_id}:{seat}".encode()
        async for update in watch(me):
            _version, to_act, _ = update.split(b":", 2)
            if int(to_act) != seat:
                continue
            began = time.perf_counter()
            await act(me)
            if counting:
                latencies.append(time.perf_counter() - began)

    each = streamer if stream else player
    tasks = [
        asyncio.ensure_future(each(channels[k // TABLES_PER_CHANNEL], f"t{k}", seat))
        for k in range(tables)
        for seat in range(1, PLAYERS + 1)
    ]
    try:
        await asyncio.sleep(warmup)
        await on_window(True)
        counting = True
        began = time.perf_counter()
        await asyncio.sleep(window)
        counting = False
        seconds = time.perf_counter() - began
        done = list(latencies)
        await on_window(False)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close(None)
    return FloorResult(seconds, done)


@dataclass
class PacedFloorResult:
    """Paced Act calls completed inside the window, and each watcher's wait from an Act being
    sent to its update arriving."""

    seconds: float
    latencies: list[float]
    broadcasts: list[float]

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


async def drive_floor_paced(
    address: str,
    tables: int,
    *,
    pace: float,
    warmup: float,
    window: float,
    on_window: Callable[[bool], Awaitable[None]],
) -> PacedFloorResult:
    """The floor under the room's human-paced arrivals (``bench._room.drive_paced``): each
    table's Act is due every ``pace`` seconds from a random phase, open loop, sent by the
    watcher the last update names."""
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(-(-tables // TABLES_PER_CHANNEL))
    ]
    latencies: list[float] = []
    broadcasts: list[float] = []
    counting = False

    async def table(channel: grpc.aio.Channel, table_id: str, phase: float) -> None:
        next_due = time.perf_counter() + phase
        sent: dict[int, float] = {}  # the version an Act makes (one more) -> when it was sent

        async def player(seat: int) -> None:
            nonlocal next_due
            watch = channel.unary_stream(
                f"/{SERVICE}/Watch", request_serializer=_identity, response_deserializer=_identity
            )
            act = channel.unary_unary(
                f"/{SERVICE}/Act", request_serializer=_identity, response_deserializer=_identity
            )
            me = f"{table_id}:{seat}".encode()
            async for update in watch(me):
                now = time.perf_counter()
                version, to_act, _ = update.split(b":", 2)
                began = sent.get(int(version))
                if began is not None and counting:
                    broadcasts.append(now - began)
                if int(to_act) != seat:
                    continue
                due, next_due = next_due, next_due + pace
                if due > now:
                    await asyncio.sleep(due - now)
                began = time.perf_counter()
                sent[int(version) + 1] = began
                await act(me)
                if counting:
                    latencies.append(time.perf_counter() - began)

        await asyncio.gather(*(player(seat) for seat in range(1, PLAYERS + 1)))

    phases = [k * pace / max(tables, 1) for k in range(tables)]  # spread, as random phases
    tasks = [
        asyncio.ensure_future(table(channels[k // TABLES_PER_CHANNEL], f"t{k}", phases[k]))
        for k in range(tables)
    ]
    try:
        await asyncio.sleep(warmup)
        await on_window(True)
        counting = True
        began = time.perf_counter()
        await asyncio.sleep(window)
        counting = False
        seconds = time.perf_counter() - began
        done, told = list(latencies), list(broadcasts)
        await on_window(False)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close(None)
    return PacedFloorResult(seconds, done, told)


@contextlib.contextmanager
def floor_server(nats_url: str, stream: str) -> Iterator[tuple[str, int]]:
    """The floor's server as a child process on a free port: (its address, its pid)."""
    port = free_port()
    child = subprocess.Popen(
        [
            *(sys.executable, "-m", "bench._floor", "--port", str(port)),
            *("--nats", nats_url, "--stream", stream),
        ],
        cwd=Path(__file__).resolve().parent.parent,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the floor server exited with status {child.wait()}")
        yield f"127.0.0.1:{port}", child.pid
    finally:
        child.kill()
        child.wait()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench._floor", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--nats", required=True)
    parser.add_argument("--stream", required=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    eventloop.run(serve(args.port, args.nats, args.stream))


if __name__ == "__main__":
    main(sys.argv[1:])
