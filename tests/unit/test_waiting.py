"""The tests' one waiting helper: polls a condition, never sleeps a fixed time."""

from __future__ import annotations

import pytest

from tests.waiting import until, until_found, until_true


async def test_until_true_waits_for_a_plain_condition() -> None:
    seen: list[int] = []

    def third_look() -> bool:
        seen.append(1)
        return len(seen) >= 3

    await until_true(third_look, "the third look", every=0)
    assert len(seen) == 3


async def test_until_found_returns_the_first_value_and_counts_tolerated_errors_as_not_yet() -> None:
    answers: list[str | Exception | None] = [ConnectionError("not up"), None, "there"]

    async def probe() -> str | None:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert await until_found(probe, "an answer", every=0, tolerate=(ConnectionError,)) == "there"


async def test_until_names_what_never_happened_and_the_last_value() -> None:
    async def probe() -> int:
        return 7

    with pytest.raises(AssertionError, match=r"never: seven is eight .*last seen: 7"):
        await until(probe, lambda n: n == 8, "seven is eight", seconds=0, every=0)
