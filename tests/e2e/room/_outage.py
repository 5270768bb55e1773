"""A room with a nats-server of its own, for tests that kill -9, freeze and restart it (same
port, same store): the dealer, table, settlement and lobby as processes, plus what the outage tests
observe from outside (health over gRPC, the raw log over a NATS client of their own)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import grpc
import nats
from grpc_health.v1 import health_pb2, health_pb2_grpc

from riverboat.auth import TokenIssuer
from riverboat.engine.events import HandEnded, HandStarted, RakeTaken
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import JetStreamEventStore, StoredRecord, StreamSettings
from riverboat.idempotency import RequestKey
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess
from riverboat.table.events import HandVoided, PlayerLeft, PlayerSeated
from tests import statuskit
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room._settled import settlement_process
from tests.e2e.room.conftest import Room, _dealer, _lobby, _table
from tests.natsfixtures import freeze

TAG = "OUT"


@dataclass
class OutageRoom:
    """The room, its own nats-server, its settlement service and its lobby."""

    nats: NatsServer
    room: Room
    settlement: ServiceProcess
    lobby: ServiceProcess

    @property
    def services(self) -> dict[str, str]:
        """Name -> gRPC address of every service whose health must follow NATS."""
        return {
            "dealer": self.room.dealer.address,
            "table": self.room.table.address,
            "settlement": self.settlement.address,
            "lobby": self.lobby.address,
        }

    def kill_nats(self) -> None:
        self.nats.kill()  # SIGKILL

    def restart_nats(self) -> None:
        self.nats.start()  # same port, same store; returns once JetStream answers

    def freeze_nats(self) -> None:
        assert self.nats.pid is not None
        freeze(self.nats.pid)

    def thaw_nats(self) -> None:
        if self.nats.pid is not None:
            os.kill(self.nats.pid, signal.SIGCONT)


def outage_room(tmp_path: Path) -> Iterator[OutageRoom]:
    """Start everything; stop it all afterwards (a generator for a fixture)."""
    server = NatsServer(tmp_path / "nats", port=0)
    server.start()
    started: list[ServiceProcess] = []
    try:
        dealer = _dealer(server.url, tmp_path, TAG)
        dealer.start()
        started.append(dealer)
        table = _table(server.url, tmp_path, dealer.address, TAG)
        table.start()
        started.append(table)
        room = Room(server.url, dealer, table, tmp_path, TokenIssuer(TEST_TOKEN_KEY))
        settlement = settlement_process(room)
        settlement.start()
        started.append(settlement)
        lobby = _lobby(server.url, tmp_path, table.address, settlement.address, TAG)
        lobby.start()
        started.append(lobby)
        yield OutageRoom(server, room, settlement, lobby)
    finally:
        if server.pid is not None:
            os.kill(server.pid, signal.SIGCONT)
        if not server.is_running:
            server.start()  # let the services drain cleanly
        for process in reversed(started):
            process.stop()
        server.close()


async def health(address: str, service: str = "") -> str:
    """The service's gRPC health (overall, or of ``service``), or the code of a failed check."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
        except grpc.aio.AioRpcError as exc:
            return exc.code().name
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


async def wait_health(addresses: dict[str, str], want: str, seconds: float = 30.0) -> None:
    """Every service reports ``want`` within ``seconds`` (a bounded wait, not a speed test)."""
    last: dict[str, str] = {}
    for _ in range(int(seconds / 0.1)):
        last = {name: await health(address) for name, address in addresses.items()}
        if all(status == want for status in last.values()):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"health did not follow NATS to {want} within {seconds:g} s: {last}")


def reason(exc: grpc.aio.AioRpcError) -> str:
    """The machine-readable reason of a refusal (``ErrorInfo.reason``), or ``""``."""
    return statuskit.maybe_reason(exc)


async def read_records(nats_url: str, table_id: str) -> list[StoredRecord]:
    """The table's raw log, read with a client of the test's own."""
    nc = await nats.connect(nats_url, connect_timeout=5, max_reconnect_attempts=5)
    try:
        settings = StreamSettings(name=f"RB_TABLES_{TAG}", subject_prefix=f"rb.tables{TAG.lower()}")
        return await JetStreamEventStore(nc, settings).read(table_id)
    finally:
        await nc.close()


# --- oracles over the raw log (derived from the events alone, not from the table's code) -----


def chips_on_the_books(records: list[StoredRecord]) -> tuple[int, int, int]:
    """Follow every chip through the log: ``(bought in, on the table now, raked)``.

    Each hand must start with exactly the chips its seats held, and end with them less the
    rake; a voided hand leaves every seat as it was. Raises ``AssertionError`` at the first
    record where chips appear or vanish.
    """
    seats: dict[int, int] = {}
    bought = raked = 0
    started: dict[int, int] | None = None
    hand_rake = 0
    for record in records:
        for event, _ in decode_batch(record.payload):
            where = f"version {record.version} ({type(event).__name__})"
            if isinstance(event, PlayerSeated):
                assert event.seat not in seats, f"{where}: seat {event.seat} taken twice"
                seats[event.seat] = event.stack
                bought += event.stack
            elif isinstance(event, PlayerLeft):
                assert seats.pop(event.seat, None) == event.stack, f"{where}: wrong stack left"
            elif isinstance(event, HandStarted):
                started = {entry.seat: entry.stack for entry in event.seats}
                held = {seat: seats.get(seat) for seat in started}
                assert held == started, f"{where}: dealt in with {started}, held {held}"
                hand_rake = 0
            elif isinstance(event, RakeTaken):
                hand_rake += event.amount
            elif isinstance(event, HandEnded):
                assert started is not None, f"{where}: a hand ended that never started"
                ended = dict(event.stacks)
                assert set(ended) == set(started), f"{where}: seats changed within the hand"
                assert sum(ended.values()) + hand_rake == sum(started.values()), (
                    f"{where}: {sum(started.values())} in, {sum(ended.values())} out "
                    f"+ {hand_rake} rake"
                )
                seats.update(ended)
                raked += hand_rake
                started = None
            elif isinstance(event, HandVoided):
                started = None  # every contribution refunded: the seats keep what they held
    return bought, sum(seats.values()), raked


def longest_gaps(records: list[StoredRecord]) -> list[float]:
    """Seconds between consecutive records, longest first (the stream's own timestamps)."""
    times = [record.recorded_at.timestamp() for record in records]
    return sorted((b - a for a, b in pairwise(times)), reverse=True)


def is_request(stored: str, request_id: str) -> bool:
    """The stored request id is the client's ``request_id`` (the table stores it scoped to its
    caller and command, ``kind/caller/request_id#fingerprint``)."""
    parsed = RequestKey.parse(stored)
    return (parsed[0].request_id if parsed is not None else stored) == request_id


def request_ids_once(records: list[StoredRecord]) -> dict[str, int]:
    """Request id -> version; raises ``AssertionError`` if any request id is stored twice."""
    seen: dict[str, int] = {}
    for record in records:
        assert record.request_id not in seen, (
            f"request id {record.request_id!r} stored at versions {seen[record.request_id]} "
            f"and {record.version}"
        )
        seen[record.request_id] = record.version
    return seen
