"""``riverboat admin`` where a newcomer tripped: whose token a command uses (the saved file is
the lobby's own; a ``--user`` typed beats ``$RIVERBOAT_TOKEN``), a refused option named alone,
the rake's postings naming their hand, the ledger's "more" line, and a limit lowered below
what was already used. Each command runs as an operator types it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from riverboat.client import LobbyClient
from tests.conftest import make_token
from tests.e2e.room._adminkit import Admin, admin_room, rows
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_admin_cli import play_some_hands
from tests.waiting import until

BOSS = ("--user", "boss", "--password", "boss-password")


@pytest.fixture
async def admin(room: Room) -> AsyncIterator[Admin]:
    async with admin_room(room) as run:
        yield run


async def test_whose_token_a_command_uses(
    admin: Admin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = admin
    monkeypatch.chdir(tmp_path)  # the working directory `var/` is relative to
    # `login --save` writes the token beside this lobby's name, and says where.
    saved = await run("login", *BOSS, "--save", token="")
    own = Path("var") / f"admin@{run.lobby}.token"
    assert own.is_file() and own.stat().st_mode & 0o777 == 0o600, saved.err
    assert f"Saved to {own}; admin commands to the lobby at {run.lobby} read it from there." in (
        saved.err
    )
    assert not Path("var/admin.token").exists()
    assert (await run("players", token="")).status == 0  # read from the lobby's file
    # Another room's lobby (nothing listens there) never gets this room's token: no token
    # is found for it, so the command asks who logs in (nobody answers here).
    other = await run("players", "--lobby", "127.0.0.1:9", token="", shell=True)
    assert other.status == 1 and "No username given (use --user)." in other.err, other.err

    # A --user typed on the command line beats $RIVERBOAT_TOKEN (here a player's, as after
    # an `eval "$(riverboat admin login ...)"` of another account), and says so.
    ann = make_token("ann", "player")
    players = await run("players", *BOSS, token=ann)
    assert players.status == 0, players.err
    assert players.err.strip() == "--user boss logs in; $RIVERBOAT_TOKEN is not used."
    # Without --user the variable is used, and a player is refused with "a player".
    refused = await run("players", token=ann)
    assert refused.status == 1 and "not a player" in refused.err, refused.err
    auditor = await run("create-table", "--name", "X", token=make_token("eve", "auditor"))
    assert "not an auditor" in auditor.err, auditor.err


async def test_refusals_rake_references_and_a_lowered_limit(admin: Admin) -> None:
    run = admin
    login = await run("login", *BOSS)
    run.token = login.out.strip().removeprefix("export RIVERBOAT_TOKEN=")

    # Only the option typed is refused, not the bring-in and ante derived from it.
    bad = await run("create-table", "--name", "Broken", "--set", "small_bet=-5")
    assert (bad.status, bad.err.strip()) == (
        1,
        "riverboat admin: small_bet must be 1..1000000000000 cents, got -5.",
    )

    made = await run("create-table", "--name", "Pacific $1/$2")
    assert made.status == 0, made.err
    table_id = "pacific-pacific-1-2"
    await play_some_hands(run, table_id, hands=5)  # the bots rarely fold: most are raked

    # Each rake posting names the hand it came from: its pot, pot:TABLE:HAND.
    ledger = await until(
        lambda: run("ledger", "rake", "--limit", "1"),
        lambda r: "older ones" in r.out,
        "a second rake posting",
        every=0.3,
    )
    found = rows(ledger.out)
    assert [r[2] for r in found] == ["rake"], ledger.out
    assert found[0][3].startswith(f"pot:{table_id}:{table_id}-"), ledger.out
    assert ledger.out.splitlines()[-1] == (
        "The newest posting; rake has older ones (--limit 2 lists twice as many)."
    ), ledger.out

    # A weekly buy-in limit lowered below what ann already bought in for this week applies at
    # once, and the operator is told that it blocks every further buy-in.
    async with grpc.aio.insecure_channel(run.lobby) as channel:
        await LobbyClient(channel).register("ann", "correct horse")
        await run("deposit", "ann", "100", "--ref", "ann-1")
        await LobbyClient(channel, make_token("ann", "player")).join(
            table_id, 3_000, request_id="ann-in"
        )
    lowered = await run("set-limit", "ann", "buy-in-week", "10")
    assert lowered.status == 0, lowered.err
    assert lowered.out.splitlines() == [
        "ann's buy-in-week limit is $10.00 from now.",
        "ann already bought in for $30.00 in the last 7 days, more than the new limit: no "
        "further buy-ins until enough of that is older than 7 days (`riverboat admin limits "
        "ann` shows what is left).",
    ]
    # A limit above what was used says nothing more.
    assert (await run("set-limit", "ann", "deposit-day", "500")).out.splitlines() == [
        "ann's deposit-day limit is $500.00 from now."
    ]
