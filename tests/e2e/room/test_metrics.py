"""Every service's /metrics, scraped over HTTP from the real processes after real calls.

The oracle: N calls of a method answered with a code raise that series' counter (and its
histogram's count) by exactly N, for each code; an append to the table log shows in the event
store's histogram; an open Watch stream shows in the gauge and leaves it when it ends.
"""

from __future__ import annotations

import asyncio
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from riverboat.auth import TokenIssuer
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess, free_port
from riverboat.v1 import table_pb2, table_pb2_grpc
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room._settled import settlement_process
from tests.e2e.room.conftest import Room, _dealer, _lobby, _table

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]

HEALTH_SERVICE = "grpc.health.v1.Health"


def _with_metrics(process: ServiceProcess) -> str:
    address = f"127.0.0.1:{free_port()}"
    process.args += ["--metrics-address", address]
    return address


def scrape(address: str) -> Samples:
    """Every sample of ``http://address/metrics``, by name and labels."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as reply:
        assert reply.status == 200
        assert reply.headers["Content-Type"].startswith("text/plain")
        text = reply.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sample ``name{labels}``, 0 when absent (a series appears with its first event)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def handled(samples: Samples, service: str, method: str, code: str) -> float:
    return value(samples, "riverboat_rpc_handled_total", service=service, method=method, code=code)


def timed(samples: Samples, service: str, method: str, code: str) -> float:
    return value(
        samples, "riverboat_rpc_duration_seconds_count", service=service, method=method, code=code
    )


@pytest.fixture
def metered(nats_server: NatsServer, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The room's four services as processes, each with a metrics endpoint."""
    tag = f"M{os.getpid() % 10**6}{free_port() % 1000}"
    dealer = _dealer(nats_server.url, tmp_path, tag)
    endpoints = {"dealer": _with_metrics(dealer)}
    started: list[ServiceProcess] = []
    try:
        dealer.start()
        started.append(dealer)
        table = _table(nats_server.url, tmp_path, dealer.address, tag)
        endpoints["table"] = _with_metrics(table)
        table.start()
        started.append(table)
        room = Room(nats_server.url, dealer, table, tmp_path, TokenIssuer(TEST_TOKEN_KEY))
        settlement = settlement_process(room)
        endpoints["settlement"] = _with_metrics(settlement)
        lobby = _lobby(nats_server.url, tmp_path, table.address, settlement.address, tag)
        endpoints["lobby"] = _with_metrics(lobby)
        lobby.start()
        started.append(lobby)
        settlement.start()
        started.append(settlement)
        yield {
            "room": room,
            "endpoints": endpoints,
            "addresses": {p.name: p.address for p in started},
            "tag": tag,
        }
    finally:
        for process in reversed(started):
            process.stop()


async def _health(address: str, ok: int, unknown: int) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for _ in range(ok):
            await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
        for _ in range(unknown):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"))
            assert caught.value.code() is grpc.StatusCode.NOT_FOUND


async def test_each_service_counts_its_calls_by_method_and_code(metered: dict[str, Any]) -> None:
    endpoints: dict[str, str] = metered["endpoints"]
    addresses: dict[str, str] = metered["addresses"]
    before = {name: scrape(address) for name, address in endpoints.items()}
    # A different number of calls per service, so a count read from the wrong process shows.
    plan = {"dealer": (3, 1), "table": (5, 2), "lobby": (7, 3), "settlement": (4, 4)}
    for name, (ok, unknown) in plan.items():
        await _health(addresses[name], ok, unknown)
    after = {name: scrape(address) for name, address in endpoints.items()}
    for name, (ok, unknown) in plan.items():
        for code, calls in (("OK", ok), ("NOT_FOUND", unknown)):
            for series in (handled, timed):
                grew = series(after[name], HEALTH_SERVICE, "Check", code) - series(
                    before[name], HEALTH_SERVICE, "Check", code
                )
                assert grew == calls, (name, code, series.__name__)
        # The process collector comes with the registry: the bench reads CPU the same way.
        assert value(after[name], "process_cpu_seconds_total") > 0


async def test_table_calls_appends_and_watch_streams(metered: dict[str, Any]) -> None:
    room: Room = metered["room"]
    table_metrics: str = metered["endpoints"]["table"]
    stream = f"RB_TABLES_{metered['tag']}"
    service = "riverboat.v1.TableService"
    before = scrape(table_metrics)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        operator = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
        await stub.OpenTable(
            table_pb2.OpenTableRequest(table_id="metered", name="m", request_id="open-m"),
            metadata=operator,
            timeout=30,
        )
        for _ in range(3):  # no token: the auth interceptor refuses, inside the error mapping
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetTableView(table_pb2.GetTableViewRequest(table_id="metered"))
            assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
        for _ in range(2):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id="no-such-table"), metadata=operator
                )
            assert caught.value.code() is grpc.StatusCode.NOT_FOUND
        watch = stub.Watch(table_pb2.WatchRequest(table_id="metered"), metadata=operator)
        await watch.read()
        during = scrape(table_metrics)
        watch.cancel()
    assert (
        handled(during, service, "OpenTable", "OK") - handled(before, service, "OpenTable", "OK")
        == 1
    )
    assert (
        handled(during, service, "GetTableView", "UNAUTHENTICATED")
        - handled(before, service, "GetTableView", "UNAUTHENTICATED")
        == 3
    )
    assert (
        handled(during, service, "GetTableView", "NOT_FOUND")
        - handled(before, service, "GetTableView", "NOT_FOUND")
        == 2
    )
    opened = value(during, "riverboat_rpc_streams_open", service=service, method="Watch")
    assert opened == 1
    appends = "riverboat_eventstore_append_duration_seconds_count"
    assert (
        value(during, appends, stream=stream, outcome="ok")
        - value(before, appends, stream=stream, outcome="ok")
        == 1
    )  # OpenTable writes the table's first record
    # The cancelled stream leaves the gauge (the server learns of the cancel asynchronously).
    for _ in range(200):
        now = scrape(table_metrics)
        if value(now, "riverboat_rpc_streams_open", service=service, method="Watch") == 0:
            break
        await asyncio.sleep(0.05)
    assert value(now, "riverboat_rpc_streams_open", service=service, method="Watch") == 0
    assert (
        handled(now, service, "Watch", "CANCELLED") - handled(before, service, "Watch", "CANCELLED")
        == 1
    )
