"""The lobby's bounded hashing: at most ``workers`` at once, ``queue`` waiting, ``per_peer`` places
per address, and no work for a caller gone. The work is a gate the test opens, not Argon2, so
the test decides when each "hash" ends; the call context is a fake (this is a unit test)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

import grpc
import pytest

from riverboat.services.common.errors import DeadlineExceeded, ResourceExhausted
from riverboat.services.lobby.hashing import PasswordHashing
from tests.waiting import until_true


class Aborted(Exception):
    """What the fake context's abort raises (grpc.aio raises AbortError)."""


@dataclass
class FakeContext:
    peer_text: str = "ipv4:10.0.0.1:5000"
    remaining: float | None = 30.0
    gone: bool = False

    def peer(self) -> str:
        return self.peer_text

    def time_remaining(self) -> float | None:
        return self.remaining

    def cancelled(self) -> bool:
        return self.gone

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Aborted(code, details)


class Gate:
    """Work that runs until the test releases it; counts how often it ran."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self.lock = threading.Lock()

    def work(self) -> str:
        with self.lock:
            self.started += 1
        self.release.wait(30)
        return "hashed"


async def test_beyond_workers_and_queue_a_call_is_refused_at_once() -> None:
    hashing = PasswordHashing(workers=1, queue=2, per_peer=10)
    gate = Gate()
    try:
        calls = [asyncio.ensure_future(hashing.run(FakeContext(), gate.work)) for _ in range(3)]
        await until_true(
            lambda: gate.started == 1 and hashing.waiting == 2,
            "gate.started == 1 and hashing.waiting == 2",
        )
        with pytest.raises(ResourceExhausted) as err:
            await hashing.run(FakeContext(), gate.work)
        assert err.value.reason == "PASSWORD_HASHING_BUSY" and err.value.retry_delay > 0
        gate.release.set()
        assert await asyncio.gather(*calls) == ["hashed"] * 3
        assert gate.started == 3  # the refused call never ran
    finally:
        gate.release.set()
        hashing.close()


async def test_one_address_holds_at_most_its_share() -> None:
    hashing = PasswordHashing(workers=1, queue=10, per_peer=2)
    gate = Gate()
    flooder, bystander = FakeContext("ipv4:10.0.0.9:1"), FakeContext("ipv4:10.0.0.1:2")
    try:
        mine = [asyncio.ensure_future(hashing.run(flooder, gate.work)) for _ in range(2)]
        await until_true(lambda: gate.started == 1, "gate.started == 1")
        with pytest.raises(ResourceExhausted, match="for your address"):
            await hashing.run(FakeContext("ipv4:10.0.0.9:777"), gate.work)  # another port
        other = asyncio.ensure_future(hashing.run(bystander, gate.work))
        gate.release.set()
        assert await asyncio.gather(*mine, other) == ["hashed"] * 3
        # Places are given back when the work ends: the address may hash again.
        assert await hashing.run(flooder, gate.work) == "hashed"
    finally:
        gate.release.set()
        hashing.close()


async def test_a_caller_gone_while_waiting_gets_no_work_done() -> None:
    hashing = PasswordHashing(workers=1, queue=5)
    gate = Gate()
    late = FakeContext()
    try:
        first = asyncio.ensure_future(hashing.run(FakeContext(), gate.work))
        await until_true(lambda: gate.started == 1, "gate.started == 1")
        waiting = asyncio.ensure_future(hashing.run(late, gate.work))
        await until_true(lambda: hashing.waiting == 1, "hashing.waiting == 1")
        late.remaining = 0.0  # its deadline passes while it waits
        gate.release.set()
        assert await first == "hashed"
        with pytest.raises(DeadlineExceeded) as err:
            await waiting
        assert err.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert gate.started == 1  # nothing was hashed for it
        assert await hashing.run(FakeContext(), gate.work) == "hashed"  # its place was freed
    finally:
        gate.release.set()
        hashing.close()


async def test_the_bound_oracle_catches_an_unbounded_queue() -> None:
    # Planted bug: a queue as large as the flood; the first test's refusal never comes.
    hashing = PasswordHashing(workers=1, queue=1000, per_peer=1000)
    gate = Gate()
    try:
        calls = [asyncio.ensure_future(hashing.run(FakeContext(), gate.work)) for _ in range(4)]
        await until_true(
            lambda: gate.started == 1 and hashing.waiting == 3,
            "gate.started == 1 and hashing.waiting == 3",
        )
        extra = asyncio.ensure_future(hashing.run(FakeContext(), gate.work))
        await asyncio.sleep(0.05)
        assert not extra.done()  # queued, not refused: the oracle's pytest.raises would fail
        gate.release.set()
        await asyncio.gather(*calls, extra)
    finally:
        gate.release.set()
        hashing.close()
