"""The unit tier does no I/O: no socket is connected or bound, no process is started.

An autouse fixture makes ``socket.socket.connect``/``connect_ex``/``bind``, ``subprocess.Popen``
(which ``asyncio``'s subprocesses use too), ``os.system``/``posix_spawn``/``fork`` and gRPC's
servers and channels raise :class:`UnitIOError`, so a test that needs a server fails at once
and belongs in ``tests/integration`` (or ``tests/e2e``). Reading repository files and writing
under ``tmp_path`` is allowed; ``socket.socketpair`` (event loops' self-pipes) is not I/O.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import grpc.aio
import pytest


class UnitIOError(AssertionError):
    """A unit test tried to reach the network or start a process."""


def _refuse(what: str) -> Callable[..., Any]:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise UnitIOError(
            f"unit tests do no I/O, but this one called {what}: move it to tests/integration "
            "or tests/e2e (docs/testing.md)"
        )

    return refuse


# (owner, attribute) pairs replaced for every unit test.
_GUARDED: list[tuple[Any, str, str]] = [
    (socket.socket, "connect", "socket.connect"),
    (socket.socket, "connect_ex", "socket.connect_ex"),
    (socket.socket, "bind", "socket.bind"),
    (subprocess.Popen, "__init__", "subprocess.Popen"),
    (os, "system", "os.system"),
    (os, "posix_spawn", "os.posix_spawn"),
    (os, "posix_spawnp", "os.posix_spawnp"),
    (os, "fork", "os.fork"),
    # gRPC's C core opens its own sockets, out of the socket module's reach.
    (grpc, "server", "grpc.server"),
    (grpc, "insecure_channel", "grpc.insecure_channel"),
    (grpc, "secure_channel", "grpc.secure_channel"),
    (grpc.aio, "server", "grpc.aio.server"),
    (grpc.aio, "insecure_channel", "grpc.aio.insecure_channel"),
    (grpc.aio, "secure_channel", "grpc.aio.secure_channel"),
]


@pytest.fixture(autouse=True)
def no_io(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make every network and process entry point raise :class:`UnitIOError` for one test."""
    for owner, name, what in _GUARDED:
        if hasattr(owner, name):
            monkeypatch.setattr(owner, name, _refuse(what))
    yield
