"""A whole room at the edge: the four services as processes, raw calls, and the oracles.

What the edge tests and the fuzz battery share:

* :func:`whole_room`: dealer, table, settlement (SQLite) and lobby as child processes over the
  session's nats-server, with the settlement service reading the lobby's log as its account
  registry, and a NATS connection to look at the streams.
* :func:`call`: one RPC by method path with raw request bytes (the caller knows only the
  protos), answering ``(code, details, reply bytes)``.
* The oracles, derived independently of the services' code: :func:`status_problem` (a refusal
  is a typed status with a short, plain message), :func:`log_problems` (no traceback and no
  error-level line in a service log), :func:`stream_states` (the JetStream stream sequences).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import nats
import nats.js.errors
from google.protobuf.descriptor import MethodDescriptor
from nats.aio.client import Client as NATS

from riverboat.v1 import dealer_pb2, lobby_pb2, settlement_pb2, table_pb2
from tests.e2e.room._settled import _tag, settled_lobby
from tests.e2e.room.conftest import Room

#: Every service of the room, from the generated descriptors (a new RPC is covered at once).
SERVICES = {
    d.full_name: d
    for module in (lobby_pb2, table_pb2, dealer_pb2, settlement_pb2)
    for d in module.DESCRIPTOR.services_by_name.values()
}

#: Statuses a refusal must never have: they mean the server did not decide (or broke).
UNTYPED = frozenset({grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL})

#: The longest status message a service may send (common.errors caps them at 400).
MAX_DETAILS = 400

# What a message written for a caller never contains: traces, exception types, source paths,
# library names (compiled independently of the services' error code).
_INTERNALS = re.compile(
    r"Traceback|<class |File \"|\.py\b|Exception|DecodeError|KeyError|ValueError|TypeError|"
    r"AttributeError|AssertionError|OverflowError|IndexError|RuntimeError|sqlalchemy|sqlite3|"
    r"psycopg|nats\.|grpc\._|incident"
)


def methods() -> list[tuple[str, MethodDescriptor]]:
    """``(path, descriptor)`` of every RPC of every room service."""
    return [
        (f"/{service.full_name}/{m.name}", m)
        for service in SERVICES.values()
        for m in service.methods
    ]


def status_problem(code: grpc.StatusCode, details: str) -> str | None:
    """Why a non-OK answer is not a clear, typed refusal (None when it is)."""
    if code in UNTYPED:
        return f"untyped status {code.name}"
    if not details.strip():
        return f"{code.name} without a message"
    if len(details) > MAX_DETAILS:
        return f"{code.name} message of {len(details)} characters"
    found = _INTERNALS.search(details)
    if found:
        return f"{code.name} message shows internals ({found.group(0)!r})"
    return None


def log_problems(text: str, name: str) -> list[str]:
    """Tracebacks and error-level lines in one service's JSON log."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if "Traceback" in line:
            out.append(f"{name}:{number}: traceback: {line[:300]}")
            continue
        try:
            level = json.loads(line).get("level", "")
        except (ValueError, AttributeError):
            continue  # not a structured line (the process's own start-up output)
        if level in ("error", "critical", "exception"):
            out.append(f"{name}:{number}: {level}: {line[:300]}")
    return out


@dataclass
class WholeRoom:
    """The four services of one test, their logs and a NATS connection."""

    room: Room
    lobby: str
    settlement: str
    tag: str
    nc: NATS

    @property
    def table(self) -> str:
        return self.room.table_address

    @property
    def dealer(self) -> str:
        return self.room.dealer.address

    def address(self, service: str) -> str:
        """The address serving ``riverboat.v1.<Name>Service``."""
        name = service.rsplit(".", 1)[-1]
        return {
            "LobbyService": self.lobby,
            "TableService": self.table,
            "DealerService": self.dealer,
            "SettlementService": self.settlement,
        }[name]

    def token(self, subject: str, role: str = "player") -> str:
        return self.room.token(subject, role)

    def auth(self, subject: str, role: str = "player") -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token(subject, role)}"),)

    @property
    def streams(self) -> list[str]:
        """Every stream the room's services write."""
        return [
            f"RB_{kind}_{self.tag}" for kind in ("TABLES", "DEALER", "AUDIT", "LOBBY", "WALLETS")
        ]

    def logs(self) -> dict[str, str]:
        """Each service's log so far."""
        out = {}
        for name in ("dealer", "table", "settlement", "lobby"):
            path = Path(self.room.var) / f"{name}.log"
            out[name] = path.read_text(errors="replace") if path.exists() else ""
        return out

    def log_problems(self) -> list[str]:
        return [p for name, text in self.logs().items() for p in log_problems(text, name)]


@contextlib.asynccontextmanager
async def whole_room(room: Room) -> AsyncIterator[WholeRoom]:
    """Settlement and lobby in front of the room's dealer and table services."""
    async with settled_lobby(room) as settled:
        nc = await nats.connect(room.nats_url, connect_timeout=5, max_reconnect_attempts=2)
        try:
            yield WholeRoom(room, settled.lobby.address, settled.settlement.address, _tag(room), nc)
        finally:
            await nc.close()


async def stream_states(nc: NATS, names: Sequence[str]) -> dict[str, tuple[int, int]]:
    """``name -> (messages, last sequence)`` of each stream that exists."""
    js = nc.jetstream(timeout=10)

    async def one(name: str) -> tuple[int, int] | None:
        try:
            info = await js.stream_info(name)
        except nats.js.errors.NotFoundError:
            return None
        return (int(info.state.messages), int(info.state.last_seq))

    states = await asyncio.gather(*(one(name) for name in names))
    return {name: state for name, state in zip(names, states, strict=True) if state is not None}


async def call(
    channel: grpc.aio.Channel,
    path: str,
    payload: bytes,
    metadata: Sequence[tuple[str, str]] = (),
    *,
    streaming: bool = False,
    timeout: float = 30.0,
) -> tuple[grpc.StatusCode, str, bytes | None]:
    """One call with raw request bytes: ``(code, details, first reply)``.

    A server-streaming call answers with its first message (then is cancelled), or with its
    status; one that sends nothing for ``timeout`` seconds is ``DEADLINE_EXCEEDED``.
    """
    try:
        if streaming:
            stream = channel.unary_stream(path, None, None)(
                payload, metadata=tuple(metadata), timeout=timeout
            )
            try:
                async for reply in stream:
                    return grpc.StatusCode.OK, "", bytes(reply)
            finally:
                stream.cancel()
            return grpc.StatusCode.OK, "", None
        reply = await channel.unary_unary(path, None, None)(
            payload, metadata=tuple(metadata), timeout=timeout
        )
        return grpc.StatusCode.OK, "", bytes(reply)
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or "", None


async def must_refuse(
    channel: grpc.aio.Channel,
    path: str,
    request: Any,
    metadata: Sequence[tuple[str, str]],
    code: grpc.StatusCode,
    *,
    streaming: bool = False,
    timeout: float = 30.0,
) -> str:
    """Call and check the refusal is ``code`` with a clear message; returns the message."""
    payload = request if isinstance(request, bytes) else request.SerializeToString()
    got, details, _ = await call(
        channel, path, payload, metadata, streaming=streaming, timeout=timeout
    )
    assert got == code, f"{path}: {got.name} {details!r}, expected {code.name}"
    problem = status_problem(got, details)
    assert problem is None, f"{path}: {problem}: {details[:200]!r}"
    return details


async def settle(
    wr: WholeRoom, probe: Any = None, *, quiet: float = 0.5, limit: float = 30.0
) -> Any:
    """Wait until the streams (and ``probe()``'s answer) stop changing; returns the last state."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    last: Any = None
    while True:
        state = (await stream_states(wr.nc, wr.streams), await probe() if probe else None)
        if state == last or loop.time() > deadline:
            return state
        last = state
        await asyncio.sleep(quiet)
