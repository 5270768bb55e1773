"""Waiting for what a room does asynchronously (projections, settlement, other instances,
a runner's own tasks): the one polling helper of the tests, so that no test waits on time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["until", "until_found", "until_true"]

T = TypeVar("T")


async def until(
    probe: Callable[[], Awaitable[T]],
    ok: Callable[[T], object],
    what: str,
    seconds: float = 60,
    every: float = 0.1,
    *,
    tolerate: tuple[type[BaseException], ...] = (),
) -> T:
    """``probe()`` again and again until ``ok`` says so; fail after ``seconds`` naming ``what``
    and the last value seen. An exception in ``tolerate`` raised by the probe (a service not
    answering yet) counts as not yet."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        last: object
        try:
            value = await probe()
        except tolerate as exc:
            last = exc
        else:
            if ok(value):
                return value
            last = value
        if loop.time() > deadline:
            raise AssertionError(f"never: {what} within {seconds:g} s (last seen: {last})")
        await asyncio.sleep(every)


async def until_found(
    probe: Callable[[], Awaitable[T | None]],
    what: str,
    seconds: float = 60,
    every: float = 0.1,
    *,
    tolerate: tuple[type[BaseException], ...] = (),
) -> T:
    """``probe()`` until it returns something other than None, and that."""
    found = await until(probe, _is_not_none, what, seconds, every, tolerate=tolerate)
    assert found is not None
    return found


async def until_true(
    check: Callable[[], object], what: str, seconds: float = 60, every: float = 0.02
) -> None:
    """Until ``check()`` (a plain function over in-process state) is true."""

    async def probe() -> object:
        return check()

    await until(probe, bool, what, seconds, every)


def _is_not_none(value: object) -> bool:
    return value is not None
