"""Waiting for what a room does asynchronously (projections, settlement, other instances)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["until"]

T = TypeVar("T")


async def until(
    probe: Callable[[], Awaitable[T]],
    ok: Callable[[T], bool],
    what: str,
    seconds: float = 60,
    every: float = 0.1,
) -> T:
    """``probe()`` again and again until ``ok`` says so; fail after ``seconds`` naming ``what``
    and the last value seen."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        value = await probe()
        if ok(value):
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"never: {what} (last seen: {value})")
        await asyncio.sleep(every)
