"""``riverboat admin`` as an operator runs it: a real lobby (child process) and the settlement API.

Each command runs as its own process, exactly as typed in a shell, and the test reads what it
prints: the ``export`` line of ``login``, the tables, the wallet moves and the refusals as
sentences (never a traceback).
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest

from riverboat.auth import TokenIssuer
from riverboat.client import LobbyClient, TableClient, play_bot, random_chooser
from riverboat.handtext import money
from riverboat.v1 import table_pb2
from tests.conftest import TEST_TOKEN_KEY, make_token
from tests.e2e.room._adminkit import Admin, admin_room
from tests.e2e.room.conftest import Room
from tests.waiting import until


@pytest.fixture
async def admin(room: Room) -> AsyncIterator[Admin]:
    async with admin_room(room) as run:
        yield run


async def test_an_operators_day(admin: Admin, tmp_path: Path) -> None:
    run = admin
    wrong = await run("login", "--user", "boss", "--password", "not-the-password", shell=True)
    assert (wrong.status, wrong.err.strip()) == (
        1,
        "riverboat admin: Wrong username or password.",
    )
    login = await run("login", "--user", "boss", "--password", "boss-password", shell=True)
    assert login.status == 0, login.err
    assert re.fullmatch(r"export RIVERBOAT_TOKEN=[\w.-]+\n", login.out)
    assert re.match(r"Logged in as boss \(operator\) until \d{4}-\d\d-\d\d", login.err)
    run.token = login.out.strip().removeprefix("export RIVERBOAT_TOKEN=")

    saved = tmp_path / "admin.token"
    again = await run(
        "login", "--user", "boss", "--password", "boss-password", "--save", str(saved)
    )
    assert saved.stat().st_mode & 0o777 == 0o600 and "Saved to" in again.err
    from_file = await run("tables", "--token-file", str(saved), token="")
    assert "No tables yet" in from_file.out

    made = await run(
        "create-table",
        "--name",
        "Pacific $5/$10",
        "--set",
        "small_bet=500",
        "--set",
        "big_bet=1000",
    )
    assert made.out.splitlines()[0] == (
        "Table pacific-pacific-5-10 (Pacific $5/$10): Seven-card stud hi/lo $5.00/$10.00, "
        "buy-in $50.00-$1000.00, up to 8 players."
    )
    twice = await run(
        "create-table",
        "--name",
        "Pacific $5/$10",
        "--set",
        "small_bet=500",
        "--set",
        "big_bet=1000",
    )
    assert twice.out == made.out  # the same request id: one table
    await run("create-table", "--template", "dealers_choice", "--name", "Friday game")
    tables = await run("tables")
    assert "pacific-pacific-5-10" in tables.out and "dealers-choice-friday-game" in tables.out
    assert "$5.00/$10.00" in tables.out and "0/8" in tables.out

    bad = await run("create-table", "--name", "Broken", "--set", "small_bet=-5")
    assert bad.status == 1 and bad.err.startswith("riverboat admin: ") and not bad.out

    # Money moves only for accounts the lobby registered.
    nobody = await run("deposit", "ann", "50", "--ref", "pay-0")
    assert nobody.status == 1 and "account 'ann'" in nobody.err and not nobody.out
    assert (await run("balance", "ann")).status == 1
    async with grpc.aio.insecure_channel(run.lobby) as lobby_channel:
        await LobbyClient(lobby_channel).register("ann", "correct horse")
    deposit = await run("deposit", "ann", "50", "--ref", "pay-1")
    assert deposit.out.strip() == "Deposited $50.00 to ann (ref pay-1); wallet now $50.00."
    repeat = await run("deposit", "ann", "50", "--ref", "pay-1")
    assert "was already recorded; nothing changed. ann's wallet: $50.00." in repeat.out
    cents = await run("deposit", "ann", "1250c", "--ref", "pay-2")
    assert "Deposited $12.50" in cents.out and "wallet now $62.50" in cents.out
    out = await run("withdraw", "ann", "12.50", "--ref", "out-1")
    assert out.out.strip() == "Paid $12.50 out of ann's wallet (ref out-1); wallet now $50.00."
    too_much = await run("withdraw", "ann", "$500", "--ref", "out-2")
    assert too_much.status == 1
    assert too_much.err.startswith("riverboat admin: Insufficient funds")
    typo = await run("deposit", "ann", "12.505", "--ref", "pay-3")
    assert typo.status == 1 and "or cents with a trailing c (1250c)" in typo.err

    balance = await run("balance", "ann")
    assert re.search(r"\$50\.00 .* \$0\.00 .* \$0\.00 .* \$50\.00", balance.out)

    # The ledger is a projection of the wallet log: it catches up within moments.
    ledger = await until(
        lambda: run("ledger", "wallet:ann"), lambda r: "out-1" in r.out, "out-1 posted", every=0.3
    )
    assert "Ledger wallet:ann (newest first)" in ledger.out
    postings = re.findall(r"│ (\w+) +│ (\S+) +│ +(-?\$[\d.]+) │", ledger.out)
    assert postings == [
        ("withdrawal", "out-1", "-$12.50"),
        ("deposit", "pay-2", "$12.50"),
        ("deposit", "pay-1", "$50.00"),
    ]

    # Two bots play a few hands so there is rake to report.
    table_id = "pacific-pacific-5-10"
    rake_seen = await play_some_hands(run, table_id)
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    rake = await until(
        lambda: run("rake-report", "--table", table_id),
        lambda r: f"{money(rake_seen)}" in r.out.split("Total")[-1],
        "the rake seen in the report",
        every=0.3,
    )
    assert f"Rake {today}, {table_id}" in rake.out
    assert re.search(
        rf"{today} .* {table_id} .* Seven-card stud hi/lo .* \d+ .* \$\d+\.\d\d", rake.out
    )
    empty = await run("rake-report", "--from", "2001-01-01", "--to", "2001-01-31")
    assert "Rake 2001-01-01 to 2001-01-31" in empty.out and re.search(
        r"Total .* 0 .* \$0\.00", empty.out
    )
    backwards = await run("rake-report", "--from", "2025-02-01", "--to", "2025-01-01")
    assert "is before --from" in backwards.err

    # Refusals, each one sentence on stderr and status 1.
    nowhere = await run("tables", "--lobby", "127.0.0.1:9", token="x.y.z")
    assert nowhere.status == 1
    assert "that is not a Riverboat token" in nowhere.err
    unreachable = await run(
        "tables", "--lobby", "127.0.0.1:9", token=make_token("boss", "operator")
    )
    assert unreachable.err.strip() == (
        "riverboat admin: Cannot reach the lobby at 127.0.0.1:9; is `make run` going?"
    )
    player = await run("create-table", "--name", "Mine", token=make_token("ann", "player"))
    assert player.status == 1 and player.err.startswith("riverboat admin: ")
    expired = await run(
        "tables", token=TokenIssuer(TEST_TOKEN_KEY).issue("boss", "operator", ttl=-10)
    )
    assert expired.err.strip() == (
        "riverboat admin: The token has expired; run `riverboat admin login` again."
    )


async def play_some_hands(run: Admin, table_id: str, hands: int = 3) -> int:
    """Two bots buy in and play ``hands`` hands; returns the rake the table's log shows."""
    async with (
        grpc.aio.insecure_channel(run.lobby) as lobby_channel,
        grpc.aio.insecure_channel(run.table) as table_channel,
    ):
        stop = asyncio.Event()
        rake: dict[str, int] = {}
        ended: set[str] = set()

        def count(update: table_pb2.WatchResponse) -> None:
            for env in update.events:
                if env.HasField("rake_taken"):
                    rake[update.view.hand_id or str(update.version)] = env.rake_taken.amount
                if env.HasField("hand_ended"):
                    ended.add(update.view.hand_id)
                    if len(ended) >= hands:
                        stop.set()

        bots = []
        for n, name in enumerate(("bot-1", "bot-2")):
            await LobbyClient(lobby_channel).register(name, "correct horse")
            await run("deposit", name, "100", "--ref", f"{name}-seed")
            token = make_token(name, "player")
            await LobbyClient(lobby_channel, token).join(table_id, 5_000, request_id=f"{name}-in")
            bots.append(
                play_bot(
                    TableClient(table_channel, token, name),
                    table_id,
                    random_chooser(random.Random(n)),
                    stop=stop,
                    on_update=count if n == 0 else None,
                )
            )
        await asyncio.wait_for(asyncio.gather(*bots), 60)
    return sum(rake.values())
