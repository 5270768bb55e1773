"""``riverboat admin`` as an operator runs it: a real lobby (child process) and the settlement API.

Each command runs as its own process, exactly as typed in a shell, and the test reads what it
prints: the ``export`` line of ``login``, the tables, the wallet moves and the refusals as
sentences (never a traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from riverboat.auth import TokenIssuer
from riverboat.cli import main
from riverboat.services.launcher import ServiceProcess
from riverboat.v1 import settlement_pb2
from tests.conftest import TEST_TOKEN_KEY, make_token
from tests.integration.room._fake_settlement import FakeSettlement, start_lobby_with_settlement
from tests.integration.room.conftest import Room

REPO = Path(__file__).resolve().parents[3]


@dataclass
class Result:
    """What a command did."""

    status: int
    out: str
    err: str


@dataclass
class Admin:
    """Runs ``riverboat admin`` against one room.

    ``shell=True`` runs it as its own process, exactly as typed; otherwise the same command
    line runs in a thread of this process (the CLI's start-up costs a second or more per
    process, and the settlement stand-in must keep serving from this event loop either way).
    """

    lobby: str
    settlement: str
    token: str = ""

    async def __call__(self, *argv: str, token: str | None = None, shell: bool = False) -> Result:
        token = self.token if token is None else token
        full = [
            "admin",
            *argv,
            *([] if "--lobby" in argv else ["--lobby", self.lobby]),
            "--settlement",
            self.settlement,
        ]
        result = await (self._process(full, token) if shell else self._thread(full, token))
        assert "Traceback" not in result.out + result.err, result.err
        return result

    async def _process(self, argv: list[str], token: str) -> Result:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_TOKEN")}
        env.update(PYTHONPATH=str(REPO), COLUMNS="160")
        if token:
            env["RIVERBOAT_TOKEN"] = token
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "riverboat.cli",
            *argv,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        return Result(process.returncode or 0, out.decode(), err.decode())

    async def _thread(self, argv: list[str], token: str) -> Result:
        def run() -> Result:
            out, err = io.StringIO(), io.StringIO()
            saved = os.environ.pop("RIVERBOAT_TOKEN", None)
            if token:
                os.environ["RIVERBOAT_TOKEN"] = token
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    status = main(argv)
            finally:
                os.environ.pop("RIVERBOAT_TOKEN", None)
                if saved is not None:
                    os.environ["RIVERBOAT_TOKEN"] = saved
            return Result(status, out.getvalue(), err.getvalue())

        return await asyncio.to_thread(run)


@pytest.fixture
async def admin(room: Room) -> AsyncIterator[tuple[Admin, FakeSettlement]]:
    lobby, server, fake, address = await start_lobby_with_settlement(room)
    try:
        yield Admin(lobby.address, address), fake
    finally:
        await asyncio.to_thread(ServiceProcess.stop, lobby)
        await server.stop(None)


async def test_an_operators_day(admin: tuple[Admin, FakeSettlement], tmp_path: Path) -> None:
    run, fake = admin
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
    assert made.out.strip() == (
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
    assert too_much.err.strip() == "riverboat admin: Ann has only 5000 cents in the wallet."
    typo = await run("deposit", "ann", "12.505", "--ref", "pay-3")
    assert typo.status == 1 and "or cents with a trailing c (1250c)" in typo.err

    balance = await run("balance", "ann")
    assert re.search(r"\$50\.00 .* \$0\.00 .* \$0\.00 .* \$50\.00", balance.out)

    fake.w.rake_rows.append(
        settlement_pb2.RakeReportRow(
            table_id="pacific-pacific-5-10",
            variant="seven_card_stud_hi_lo",
            day="2025-01-02",
            hands=12,
            rake=340,
        )
    )
    rake = await run("rake-report", "--from", "2025-01-01", "--to", "2025-01-31")
    assert "Rake 2025-01-01 to 2025-01-31" in rake.out
    assert re.search(r"2025-01-02 .* pacific-pacific-5-10 .* 12 .* \$3\.40", rake.out)
    assert re.search(r"Total .* 12 .* \$3\.40", rake.out)
    backwards = await run("rake-report", "--from", "2025-02-01", "--to", "2025-01-01")
    assert "is before --from" in backwards.err

    ledger = await run("ledger", "wallet:ann")
    assert "Ledger wallet:ann (newest first)" in ledger.out and "$25.00" in ledger.out

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
