"""The lobby's table calls (services.lobby.owners.TableServices) against real in-process
grpc.aio servers: to the lease's holder, one NOT_OWNER redirect followed, and to --table when
the holder the leases name does not answer (it stopped a moment ago)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from riverboat.leases import Holder, MemoryLeaseStore
from riverboat.redirect import REASON_NO_OWNER
from riverboat.services.common.errors import NoOwner
from riverboat.services.launcher import free_port
from riverboat.services.lobby.owners import UNREACHABLE_RETRY, OwnerDirectory, TableServices
from riverboat.v1 import table_pb2
from tests.ownerkit import ScriptedTable, redirect

VIEW = table_pb2.GetTableViewRequest(table_id="t1")


async def _directory(holder: str) -> OwnerDirectory:
    leases = MemoryLeaseStore()
    await leases.create("t1", Holder("i1", holder))

    async def open_store() -> MemoryLeaseStore:
        return leases

    owners = OwnerDirectory(open_store)
    owners.start()
    for _ in range(1000):
        if owners.address("t1"):
            return owners
        await asyncio.sleep(0.001)
    raise AssertionError("the directory never read the lease")


async def test_calls_go_to_the_holder_and_follow_one_redirect() -> None:
    owner = ScriptedTable(lambda _m, _r: None)
    await owner.start()
    stale = ScriptedTable(redirect(owner.address))
    await stale.start()
    owners = await _directory(stale.address)  # the lease is behind: it names the stale one
    tables = TableServices(f"127.0.0.1:{free_port()}", owners)
    try:
        _, answered = await tables.call("t1", "GetTableView", VIEW, metadata=(), timeout=5)
        assert answered == owner.address
        assert (stale.methods(), owner.methods()) == (["GetTableView"], ["GetTableView"])
    finally:
        await tables.close()
        await owners.stop()
        await stale.stop()
        await owner.stop()


async def test_a_holder_that_does_not_answer_is_passed_over_for_the_default() -> None:
    anyone = ScriptedTable(lambda _m, _r: None)
    await anyone.start()
    owners = await _directory(f"127.0.0.1:{free_port()}")  # nobody listens there
    tables = TableServices(anyone.address, owners)
    try:
        _, answered = await tables.call("t1", "GetTableView", VIEW, metadata=(), timeout=5)
        assert answered == anyone.address and anyone.methods() == ["GetTableView"]
        # Without a default to fall back on, the table has no owner that answers: UNAVAILABLE,
        # reason NO_OWNER, with when to retry (not a bare "did not answer").
        alone = TableServices(owners.address("t1"), owners)
        try:
            with pytest.raises(NoOwner) as refused:
                await alone.call("t1", "GetTableView", VIEW, metadata=(), timeout=5)
            assert refused.value.code is grpc.StatusCode.UNAVAILABLE
            assert refused.value.reason == REASON_NO_OWNER
            assert refused.value.retry_delay == UNREACHABLE_RETRY
        finally:
            await alone.close()
    finally:
        await tables.close()
        await owners.stop()
        await anyone.stop()
