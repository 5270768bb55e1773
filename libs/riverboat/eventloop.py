"""Running a service's or client's main coroutine on the fastest event loop at hand.

uvloop (libuv) cuts the event loop's own cost per callback, socket read and timer, which is
most of what a busy table service and its clients do besides gRPC and protobuf: measured in the
room bench, it lowers the CPU per action of both the table service and the bots. Where uvloop
is not installed (it does not support Windows), or ``RIVERBOAT_EVENT_LOOP=asyncio`` asks for
the standard loop, asyncio's own loop runs.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_name() -> str:
    """``uvloop`` or ``asyncio``: the loop :func:`run` uses here."""
    if os.environ.get("RIVERBOAT_EVENT_LOOP", "").lower() == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on uvloop when it is available (see the module docstring)."""
    if loop_name() == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
