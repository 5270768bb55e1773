"""A rolling restart under load, on a three-node NATS cluster: no hand lost.

The room: the dealer, a table-service instance (table leases, ``--lease-ttl 3``), settlement and
the lobby, each given all three nodes' URLs, every stream R3; bots play two tables. One after
another, the dealer, settlement and the lobby are stopped (SIGTERM) and started again, then each
NATS node; play must go on after every step. Oracles (those of ``test_owners``): every hand was
committed by its table's owner, no CommitHand accepted twice, every hand started ended and none
was voided (none lost), chips conserved, ``riverboat audit`` verifies.

Not here yet: restarting the table-service instances themselves in the same run (two instances
handing tables over on SIGTERM). Tried on this cluster, it failed about one run in three: a
stopping instance that did not exit within a minute, and ownership intervals that overlapped in
the instances' logs while a NATS node restarted (renewals failing); see the hand-over tests in
``test_owners.py`` for the table instances on their own.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import pytest

from riverboat.leases import JetStreamLeaseStore, owners_bucket
from riverboat.natsserver import NatsCluster
from riverboat.services.launcher import ServiceProcess, wait_serving
from tests.integration.room._settled import settlement_process
from tests.integration.room.conftest import Room, _dealer, _lobby
from tests.integration.room.test_owners import (
    TTL,
    Driver,
    Pair,
    _instance,
    _lines,
    _room,
    _stop,
    audit,
    check_log,
    check_ownership,
)

pytestmark = pytest.mark.timeout(300)

TAG = "RR"


@pytest.fixture
def rolling(
    nats_cluster: NatsCluster, tmp_path: Path
) -> Iterator[tuple[Pair, list[ServiceProcess]]]:
    """The room on the cluster: (the dealer and table pair, [settlement, lobby])."""
    urls = ",".join(nats_cluster.urls)
    started: list[ServiceProcess] = []

    def start(process: ServiceProcess) -> ServiceProcess:
        process.args += ["--replicas", "3"]
        started.append(process)
        process.start()
        return process

    try:
        dealer = start(_dealer(urls, tmp_path, TAG))
        instances = {"a": start(_instance(urls, tmp_path, dealer.address, TAG, "a"))}
        # The oracles read through one node (all are up again when they run).
        pair = Pair(nats_cluster.urls[0], dealer, instances, tmp_path, TAG)
        room = Room(urls, dealer, instances["a"], tmp_path, pair.issuer)
        settlement = start(settlement_process(room))
        lobby = _lobby(urls, tmp_path, instances["a"].address, settlement.address, TAG)
        start(lobby)
        yield pair, [settlement, lobby]
    finally:
        for node in nats_cluster:
            if not node.is_running:
                node.start()
        for process in reversed(started):
            process.stop()


@pytest.fixture
async def rolling_driver(
    rolling: tuple[Pair, list[ServiceProcess]], nats_cluster: NatsCluster
) -> AsyncIterator[Driver]:
    pair, _ = rolling
    nc = await nats.connect(servers=nats_cluster.urls, max_reconnect_attempts=-1)
    leases = await JetStreamLeaseStore.open(nc, ttl=TTL, bucket=owners_bucket(pair.stream))
    driver = Driver(pair, leases)
    try:
        yield driver
    finally:
        await driver.close()
        await nc.close()


def _accepted_commits(pair: Pair) -> Counter[str]:
    assert pair.dealer.log_path is not None
    return Counter(
        str(line["hand_id"])
        for line in _lines(pair.dealer.log_path)
        if line.get("event") == "rpc finished"
        and line.get("rpc") == "DealerService/CommitHand"
        and line.get("code") == "OK"
    )


async def _restart(process: ServiceProcess) -> None:
    await asyncio.to_thread(process.stop, 60)
    assert process.process is not None and process.process.returncode == 0, process.name
    await asyncio.to_thread(process.start)
    await asyncio.to_thread(wait_serving, process.address, 30)


async def test_a_rolling_restart_of_the_services_and_nodes_loses_no_hand(
    rolling: tuple[Pair, list[ServiceProcess]],
    rolling_driver: Driver,
    nats_cluster: NatsCluster,
) -> None:
    pair, others = rolling
    driver = rolling_driver
    tables, stop, tasks = await _room(driver, 2)
    steps = []
    try:
        await driver.until_hands(tables, 2)
        for process in [pair.dealer, *others]:
            await _restart(process)
            steps.append(process.name)
            await driver.until_hands(tables, 1)  # play goes on after each restart
        for node in nats_cluster:
            await asyncio.to_thread(node.stop)  # SIGTERM: a node's orderly restart
            await asyncio.to_thread(nats_cluster.restart, node)
            steps.append(node.server_name)
            await driver.until_hands(tables, 1)
    finally:
        await _stop(stop, tasks)
    assert steps == [
        "dealer",
        "settlement",
        "lobby",
        *(node.server_name for node in nats_cluster),
    ]
    check_ownership(pair, tables)
    # A CommitHand refused while a node restarts (UNAVAILABLE) is retried: count the accepted.
    repeated = {h: n for h, n in _accepted_commits(pair).items() if n > 1}
    assert not repeated, f"CommitHand accepted twice: {repeated}"
    assert await check_log(pair, tables) == 0, "a hand was voided: lost"
    # The audit verifies (a hand that ended just before the bots stopped may still be having its
    # seed revealed: asked again, boundedly).
    for _ in range(30):
        if await audit(pair) == 0:
            break
        await asyncio.sleep(0.5)
    else:
        raise AssertionError("riverboat audit never verified the streams")
