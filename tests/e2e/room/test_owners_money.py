"""Kill -9 a table-service instance in a whole room: the money, end to end.

The room of ``test_owners`` (dealer under RBS1, two table-service instances with ``--lease-ttl
3``) with the lobby and the settlement service (SQLite ledger) in front: players register in
the lobby, the cashier deposits, each player buys in through the lobby's JoinTable (the wallet
pays the stack), bots play four tables, and instance b is killed -9 under load. Oracles of our
own, as in ``test_owners`` (fail-over within the bound, ownership intervals, interrupted hands
resumed with their committed deck or voided and refunded), and for the money:

* once every player sat out and the tables stopped dealing: what the wallets hold (the ledger,
  through GetBalance) plus the chips on the tables (each seat's stack after the last hand it
  was dealt into, from the table's log) plus the rake (the log's RakeTaken) equals what was
  deposited (our own sum); the ledger agrees on the chips at the tables and on the rake
  (GetRakeReport);
* ``riverboat audit --database`` is clean: every hand verifies and the live ledger equals the
  ledger rebuilt from the events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import grpc
import nats
import pytest

from riverboat.client import LobbyClient
from riverboat.engine.events import HandEnded, RakeTaken
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess
from riverboat.services.settlement.config import SettlementConfig
from riverboat.table.events import HandCommitted, HandVoided
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc
from tests.e2e.room._play import read_log
from tests.e2e.room._settled import register, settlement_process
from tests.e2e.room.conftest import Room, _lobby
from tests.e2e.room.test_owners import (
    TTL,
    Driver,
    Pair,
    _driver,
    _holders,
    _pair,
    _stop,
    _tag,
    audit,
    check_interrupted,
    check_log,
    check_ownership,
    kill_9_under_load,
    table_chips,
)
from tests.integration.settlement._kit import wait_caught_up

pytestmark = pytest.mark.timeout(240)

TABLES = 4
PLAYERS = 4  # per table: a table deals on until three of them are broke


@pytest.fixture
def money_room(
    nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Pair, ServiceProcess, ServiceProcess]]:
    """(the dealer and instances a and b, the lobby, settlement)."""
    with _pair(nats_server.url, tmp_path, _tag(request), dealer_flags=("--scheme", "RBS1")) as pair:
        room = Room(nats_server.url, pair.dealer, pair.instances["a"], tmp_path, pair.issuer)
        settlement = settlement_process(room)
        settlement.start()
        lobby = _lobby(
            nats_server.url, tmp_path, pair.instances["a"].address, settlement.address, pair.tag
        )
        try:
            lobby.start()
            yield pair, lobby, settlement
        finally:
            lobby.stop()
            settlement.stop()


def _ledger_config(pair: Pair) -> SettlementConfig:
    return SettlementConfig(
        database_url=f"sqlite:///{pair.var / 'settlement.db'}",
        wallets_stream=f"RB_WALLETS_{pair.tag}",
        wallets_prefix=f"rb.wallets{pair.tag.lower()}",
        tables_stream=pair.stream,
        tables_prefix=pair.prefix,
    )


async def test_kill_9_in_a_room_with_money_keeps_every_cent(
    money_room: tuple[Pair, ServiceProcess, ServiceProcess],
) -> None:
    pair, lobby, settlement = money_room
    names = [f"m{t}p{k}" for t in range(TABLES) for k in range(1, PLAYERS + 1)]
    await register(lobby.address, names)
    async with (
        _driver(pair) as driver,
        grpc.aio.insecure_channel(lobby.address) as lobby_channel,
        grpc.aio.insecure_channel(settlement.address) as cashier_channel,
    ):
        cashier = settlement_pb2_grpc.SettlementServiceStub(cashier_channel)  # type: ignore[no-untyped-call]
        boss = LobbyClient(lobby_channel, pair.issuer.issue("boss", "operator"))
        made = [
            await boss.create_table("pacific", f"Money {n}", request_id=f"money-{n}")
            for n in range(TABLES)
        ]
        tables = [t.table_id for t in made]
        deposit = 2 * made[0].max_buy_in
        operator = (("authorization", f"Bearer {pair.issuer.issue('cashier', 'operator')}"),)
        for name in names:
            await cashier.Deposit(
                settlement_pb2.DepositRequest(
                    player=name, amount=deposit, external_ref=f"d-{name}"
                ),
                metadata=operator,
            )
        seated: dict[str, list[str]] = {}
        for n, table in enumerate(made):
            seated[table.table_id] = names[n * PLAYERS : (n + 1) * PLAYERS]
            for name in seated[table.table_id]:
                player = LobbyClient(lobby_channel, pair.issuer.issue(name, "player"))
                await player.join(table.table_id, table.max_buy_in, request_id=f"j-{name}")
        stop = asyncio.Event()
        bots = [asyncio.ensure_future(driver.play(t, seated[t], stop)) for t in tables]
        try:
            report = await kill_9_under_load(pair, driver, tables)
            await _everyone_sits_out(driver, seated)
        finally:
            await _stop(stop, bots)
        assert _holders(await driver.leases.all()) == {"a": TABLES}
        check_ownership(pair, tables)
        await check_log(pair, tables)
        await check_interrupted(pair, report)

        # The money, once the ledger has applied every record.
        nc = await nats.connect(pair.nats_url)
        try:
            await wait_caught_up(nc, _ledger_config(pair), timeout=60, settle=1.0)
        finally:
            await nc.close()
        service = (("authorization", f"Bearer {pair.issuer.issue('lobby', 'service')}"),)
        balances = [
            await cashier.GetBalance(settlement_pb2.GetBalanceRequest(player=n), metadata=service)
            for n in names
        ]
        wallets = sum(b.balance for b in balances)
        stacks, rake = 0, 0
        for table_id in tables:
            events = [
                e
                for batch in await read_log(pair.first_url, pair.stream, pair.prefix, table_id)
                for e in batch
            ]
            stacks += table_chips(events)
            rake += sum(e.amount for e in events if isinstance(e, RakeTaken))
        ledger_rake = (
            await cashier.GetRakeReport(settlement_pb2.GetRakeReportRequest(), metadata=operator)
        ).total_rake
        print(
            f"\nmoney after kill -9 (TTL {TTL} s): deposits {deposit * len(names)}, wallets "
            f"{wallets}, stacks {stacks}, rake {rake}"
        )
        assert sum(b.reserved for b in balances) == 0
        assert sum(b.at_tables for b in balances) == stacks, "the ledger's chips at the tables"
        assert ledger_rake == rake, "the ledger's rake"
        assert wallets + stacks + rake == deposit * len(names), "wallets + stacks + rake"
    await asyncio.to_thread(settlement.stop)  # the ledger at rest for the audit
    ledger = _ledger_config(pair)
    wallet_flags = (
        "--wallets-stream",
        ledger.wallets_stream,
        "--wallets-prefix",
        ledger.wallets_prefix,
    )
    assert await audit(pair, *wallet_flags, "--database", ledger.database_url) == 0


async def _everyone_sits_out(driver: Driver, seated: dict[str, list[str]]) -> None:
    """Every player sits out (from the next hand); the bots play the hands in progress out,
    until no table deals any more: every hand started has ended, and stays so."""
    for table_id, players in seated.items():
        for player in players:
            await driver.call(
                table_id,
                player,
                "player",
                lambda c, t=table_id, p=player: c.sit_out(t, request_id=f"out-{p}"),  # type: ignore[misc]
            )
    pair = driver.pair
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 90
    quiet: dict[str, int] = {}
    tails: dict[str, list[str]] = {}
    while loop.time() < deadline:
        counts = {}
        for table_id in seated:
            events = [
                e
                for batch in await read_log(pair.first_url, pair.stream, pair.prefix, table_id)
                for e in batch
            ]
            # Every hand committed ends, played out or voided (a hand committed as the players
            # sat out is voided before it is dealt: it never started).
            committed = sum(isinstance(e, HandCommitted) for e in events)
            ended = sum(isinstance(e, HandEnded | HandVoided) for e in events)
            counts[table_id] = len(events) if committed == ended else -1
            tails[table_id] = [type(e).__name__ for e in events[-12:]]
        if -1 not in counts.values() and counts == quiet:
            return
        quiet = counts
        await asyncio.sleep(1.0)
    raise AssertionError(f"the tables kept dealing after every player sat out: {counts} {tails}")
