"""riverboat.natsserver.NatsCluster against real processes: routes, leaders, kill -9, restart."""

from __future__ import annotations

import asyncio

import nats
import pytest
from nats.js.api import StreamConfig

from riverboat.eventstore.streams import ensure_stream_config
from riverboat.natsserver import NatsCluster

pytestmark = pytest.mark.timeout(90)


async def publish_and_count(urls: list[str], stream: str, count: int) -> int:
    """Append ``count`` messages to ``stream`` through any node; return the stream's total."""
    nc = await nats.connect(servers=urls, connect_timeout=5, max_reconnect_attempts=10)
    try:
        js = nc.jetstream(timeout=10)
        for index in range(count):
            await js.publish(f"{stream.lower()}.x", str(index).encode())
        info = await js.stream_info(stream)
        return int(info.state.messages)
    finally:
        await nc.close()


async def make_stream(urls: list[str], stream: str) -> list[str]:
    """An R3 stream, made as every Riverboat stream is (``ensure_stream_config``: a node not yet
    counted online leaves no place for a replica, "no suitable peers for placement", and the
    creation waits for it, as it once had to on a loaded CI machine); its replicas' nodes."""
    nc = await nats.connect(servers=urls, connect_timeout=5)
    try:
        js = nc.jetstream()
        wanted = StreamConfig(name=stream, subjects=[f"{stream.lower()}.>"], num_replicas=3)
        await ensure_stream_config(js, wanted, fixed=())
        info = await js.stream_info(stream)
        assert info.cluster is not None
        return [str(peer.name) for peer in info.cluster.replicas or []] + [str(info.cluster.leader)]
    finally:
        await nc.close()


def test_three_nodes_one_meta_leader(nats_cluster: NatsCluster) -> None:
    names = {node.server_name for node in nats_cluster}
    assert len(nats_cluster.nodes) == 3 and len(names) == 3
    assert len(set(nats_cluster.urls)) == 3
    assert all(node.is_running and node.port not in (0, 4222) for node in nats_cluster)
    assert nats_cluster.meta_leader() in names
    # The nodes are routed into one cluster: an R3 stream gets a replica on every node.
    members = asyncio.run(make_stream(nats_cluster.urls, "PROBE"))
    assert set(members) == names


def test_kill_the_stream_leader_then_restart_it(nats_cluster: NatsCluster) -> None:
    asyncio.run(make_stream(nats_cluster.urls, "KILLME"))
    assert asyncio.run(publish_and_count(nats_cluster.urls, "KILLME", 5)) == 5
    leader = nats_cluster.wait_stream_leader("KILLME")

    nats_cluster.kill(leader)
    assert not leader.is_running
    successor = nats_cluster.wait_stream_leader("KILLME")
    assert successor is not leader and successor.is_running
    # Two of three nodes still hold a majority: appends go on, nothing acknowledged is lost.
    assert asyncio.run(publish_and_count(nats_cluster.urls, "KILLME", 5)) == 10

    nats_cluster.restart(leader)
    assert leader.is_running
    assert nats_cluster.meta_leader() is not None
    # Through the restarted node alone: it rejoined and serves the stream with every message.
    assert asyncio.run(publish_and_count([leader.url], "KILLME", 1)) == 11


def test_node_lookup_by_name(nats_cluster: NatsCluster) -> None:
    first = nats_cluster.nodes[0]
    assert nats_cluster.node(first.server_name) is first
    with pytest.raises(KeyError):
        nats_cluster.node("nobody")
