"""End to end: real dealer and table services (child processes), bots playing real hands, the
settlement service buying players in and cashing them out. Balances and the rake report are
exactly what the table's log implies, and a rebuild reproduces the ledger byte for byte."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import grpc
import grpc.aio
import pytest
from nats.aio.client import Client as NATS
from sqlalchemy import func, select

from riverboat.auth import TokenIssuer
from riverboat.client import TableClient, play_bot, random_chooser
from riverboat.engine.events import HandEnded, RakeTaken
from riverboat.eventcodec import decode_batch
from riverboat.ledger import check_ledger
from riverboat.ledger.db import create_ledger_engine
from riverboat.ledger.models import Hand, TableSeat
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.server import SettlementServer
from riverboat.table.events import PlayerLeft
from riverboat.v1 import table_pb2
from tests.e2e.room.conftest import _dealer, _table
from tests.integration.settlement._kit import (
    SettlementClient,
    dump_of,
    rebuilt_dump,
    table_log,
    wait_caught_up,
)
from tests.integration.settlement.conftest import drop_streams, stream_config
from tests.waiting import until

PLAYERS = ("ann", "bob", "cy")
HANDS = 4


@pytest.fixture
def tables(nats_server: NatsServer, tmp_path: Path) -> Iterator[tuple[str, ServiceProcess]]:
    """A dealer and a table service on their own streams; yields the stream tag."""
    tag = f"S{uuid.uuid4().hex[:8].upper()}"
    dealer = _dealer(nats_server.url, tmp_path, tag)
    dealer.start()
    table = _table(nats_server.url, tmp_path, dealer.address, tag)
    try:
        table.start()
        yield tag, table
    finally:
        table.stop()
        dealer.stop()


def ledger_state(url: str, table_id: str) -> tuple[int, int]:
    """Hands ended and players seated at ``table_id``, per the ledger."""
    engine = create_ledger_engine(url)
    try:
        with engine.connect() as conn:
            ended = conn.scalar(
                select(func.count())
                .select_from(Hand)
                .where(Hand.table_id == table_id, Hand.status == "ended")
            )
            seated = conn.scalar(
                select(func.count()).select_from(TableSeat).where(TableSeat.table_id == table_id)
            )
            return int(ended or 0), int(seated or 0)
    finally:
        engine.dispose()


async def wait_for(url: str, table_id: str, *, hands: int, seated: int, timeout: float) -> None:
    """Until the ledger shows ``hands`` hands over and ``seated`` players at the table."""
    await until(
        lambda: asyncio.to_thread(ledger_state, url, table_id),
        lambda state: state[0] >= hands and state[1] == seated,
        f"{hands} hands and {seated} seated in the ledger (hands, seated)",
        timeout,
    )


async def test_bots_play_and_the_ledger_settles_to_the_table_log(
    tables: tuple[str, ServiceProcess],
    nats_url: str,
    nats_client: NATS,
    sqlite_url: str,
    issuer: TokenIssuer,
    start_settlement_for: Callable[[SettlementConfig], Awaitable[SettlementServer]],
    tmp_path: Path,
) -> None:
    tag, table_process = tables
    config = stream_config(
        nats_url,
        sqlite_url,
        tables_stream=f"RB_TABLES_{tag}",
        tables_prefix=f"rb.tables{tag.lower()}",
    )
    server = await start_settlement_for(config)
    table_id = "e2e"
    rng = random.Random(4)
    stop = asyncio.Event()
    async with (
        grpc.aio.insecure_channel(server.address) as money,
        grpc.aio.insecure_channel(table_process.address) as play,
    ):
        operator = SettlementClient(money, issuer.issue("boss", "operator"))
        lobby = SettlementClient(money, issuer.issue("lobby", "service"))
        dealer_of_tables = TableClient(play, issuer.issue("boss", "operator"), "boss")
        await dealer_of_tables.create_table(table_id, action_seconds=30)
        for seat, player in enumerate(PLAYERS, start=1):
            await operator.deposit(player, 10_000, f"pay-{player}")
            await lobby.reserve(player, table_id, 5_000, f"join-{player}")
            await dealer_of_tables.stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id,
                    seat=seat,
                    player=player,
                    stack=5_000,
                    request_id=f"join-{player}",
                    buy_in_reference=f"join-{player}",
                ),
                metadata=dealer_of_tables.metadata,
            )
        bots = [
            asyncio.ensure_future(
                play_bot(
                    TableClient(play, issuer.issue(p, "player"), p),
                    table_id,
                    random_chooser(random.Random(rng.random())),
                    stop=stop,
                )
            )
            for p in PLAYERS
        ]

        async def leave(seat: int) -> None:  # leave now, or when the hand in play ends
            await dealer_of_tables.stub.UnseatPlayer(
                table_pb2.UnseatPlayerRequest(
                    table_id=table_id, seat=seat, request_id=f"leave-{seat}"
                ),
                metadata=dealer_of_tables.metadata,
            )

        try:
            await wait_for(sqlite_url, table_id, hands=HANDS, seated=3, timeout=60)
            # Two players leave between the next hand's commitment and its deal, so the deal
            # finds too few players and voids it; the third leaves once the deal is decided,
            # keeping what the hands before left them. (Should the deal win the race, all
            # three leave when that hand ends.)
            committed = False
            async with asyncio.timeout(60):
                async for update in dealer_of_tables.watch(table_id):
                    kinds = {e.WhichOneof("payload") for e in update.events}
                    if not committed and "hand_committed" in kinds:
                        committed = True
                        await asyncio.gather(leave(1), leave(2))
                    elif committed and kinds & {"hand_voided", "hand_started"}:
                        break
            await leave(3)
            await wait_for(sqlite_url, table_id, hands=HANDS, seated=0, timeout=60)
        finally:
            stop.set()
            await asyncio.gather(*bots)
        await wait_caught_up(nats_client, config)

        # What the table's own log says happened.
        log = await table_log(nats_client, config).read(table_id)
        events = [e for r in log for e, _ in decode_batch(r.payload)]
        rake = sum(e.amount for e in events if isinstance(e, RakeTaken))
        left = {e.player: e.stack for e in events if isinstance(e, PlayerLeft)}
        hands = sum(isinstance(e, HandEnded) for e in events)
        assert hands >= HANDS and set(left) == set(PLAYERS)
        assert sum(left.values()) + rake == 3 * 5_000
        for player in PLAYERS:
            state = await operator.balance(player)
            assert (state.balance, state.reserved, state.at_tables) == (5_000 + left[player], 0, 0)
        report = await operator.rake(table_id=table_id)
        assert report.total_rake == rake
        assert sum(r.hands for r in report.rows) == hands
        assert {r.variant for r in report.rows} == {"seven_card_stud_hi_lo"}
    engine = create_ledger_engine(sqlite_url)
    with engine.connect() as conn:
        report_ok = check_ledger(conn)
    engine.dispose()
    assert report_ok.ok, report_ok.render()
    assert report_ok.totals["rake"] == rake
    live = dump_of(sqlite_url)
    assert live == await rebuilt_dump(nats_client, config, f"sqlite:///{tmp_path / 'again.db'}")
    await drop_streams(nats_client, config)
