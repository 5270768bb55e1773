"""The operator's account and table screens of ``riverboat admin`` against a real room (lobby,
settlement, table service and dealer as child processes): ``waiting`` and the ``Waiting``
column of ``tables``, ``players``, ``lock``/``unlock``, ``reset-password``, ``limits``.

The oracle is the room as this test made it and as it answers other clients: who joined the
waiting list in which order, the seat that was freed, the money the test moved (deposits less
buy-ins), a login refused or accepted with the old and the new password, and the time the
commands ran (for the offer's deadline and the limits' windows).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import grpc
import pytest

from riverboat.client import LobbyClient
from riverboat.services.lobby.config import DEFAULT_SEAT_OFFER_SECONDS
from tests import statuskit
from tests.e2e.room._adminkit import Admin, admin_room, rows
from tests.e2e.room.conftest import Room
from tests.waiting import until

TABLE = "pacific-duo"
PASSWORD = "correct horse"


@pytest.fixture
async def admin(room: Room) -> AsyncIterator[Admin]:
    async with admin_room(room) as run:
        login = await run("login", "--user", "boss", "--password", "boss-password")
        run.token = login.out.strip().removeprefix("export RIVERBOAT_TOKEN=")
        yield run


def _on_the_day_after(start: datetime, hms: str) -> datetime:
    """The first moment at or after ``start``'s second whose UTC clock reads ``hms``."""
    clock = datetime.strptime(hms, "%H:%M:%S").time()
    when = datetime.combine(start.date(), clock, tzinfo=UTC)
    return when if when >= start.replace(microsecond=0) else when + timedelta(days=1)


async def _login_refusal(lobby: str, user: str, password: str) -> str:
    """The reason a login is refused ("" when it is accepted)."""
    async with grpc.aio.insecure_channel(lobby) as channel:
        try:
            await LobbyClient(channel).login(user, password)
        except grpc.aio.AioRpcError as exc:
            return statuskit.reason(exc)
    return ""


async def test_waiting_players_lock_reset_and_limits(room: Room, admin: Admin) -> None:
    run = admin
    # A two-seat table: ann sits and sits out (so no hand is dealt and the stacks stay the
    # buy-ins), bob sits: full. cyd, then dan, wait.
    made = await run("create-table", "--name", "Duo", "--set", "max_players=2", "--id", "duo")
    assert made.status == 0, made.err
    deposits = {"ann": 10_000, "bob": 5_000, "cyd": 2_500, "dan": 1_000}
    buy_ins = {"ann": 2_000, "bob": 3_000}
    async with (
        grpc.aio.insecure_channel(run.lobby) as lobby_channel,
        grpc.aio.insecure_channel(run.table) as table_channel,
    ):
        clients = {}
        for name, cents in deposits.items():
            clients[name] = LobbyClient(lobby_channel)
            await clients[name].register(name, PASSWORD)
            await clients[name].login(name, PASSWORD)
            paid = await run("deposit", name, f"{cents}c", "--ref", f"pay-{name}")
            assert paid.status == 0, paid.err
        no_list = await run("tables")
        assert "Waiting" not in no_list.out  # the column only while someone waits
        seat = {}
        joined = await clients["ann"].join(TABLE, buy_ins["ann"], request_id="ann-in")
        seat["ann"] = joined.seat
        await room.client(table_channel, "ann").sit_out(TABLE, request_id="ann-out")
        seat["bob"] = (await clients["bob"].join(TABLE, buy_ins["bob"], request_id="bob-in")).seat
        nobody = await run("waiting", TABLE)
        assert nobody.out.strip() == f"Nobody waits for a seat at {TABLE}."
        await clients["cyd"].join_waiting_list(TABLE)
        await clients["dan"].join_waiting_list(TABLE)
        since = datetime.now(UTC)

        waiting = await run("waiting", TABLE)
        assert f"Waiting list of {TABLE}" in waiting.out
        listed = rows(waiting.out)
        assert [(r[0], r[1], r[3]) for r in listed] == [("1", "cyd", ""), ("2", "dan", "")]
        for row in listed:  # joined a moment ago (the column is to the second, UTC)
            joined_at = datetime.strptime(row[2], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
            assert since - timedelta(seconds=30) <= joined_at <= since + timedelta(seconds=1)
        tables = await run("tables")
        header = next(line for line in tables.out.splitlines() if "Table" in line)
        assert header.split()[-1] == "Waiting"
        duo = tables.out[tables.out.index(TABLE) :]
        assert re.search(r"\bcyd\b", duo) and re.search(r"\bdan\b", duo), tables.out
        assert duo.index("cyd") < duo.index("dan")

        # bob leaves: his seat is offered to cyd, the first in line, for the lobby's minute.
        left = datetime.now(UTC)
        await clients["bob"].leave(TABLE, request_id="bob-out")
        offered = await until(
            lambda: run("waiting", TABLE), lambda r: "seat" in r.out, "a seat offered", every=0.3
        )
        first, second = rows(offered.out)
        match = re.fullmatch(rf"seat {seat['bob']} until (\d\d:\d\d:\d\d) UTC", first[3])
        assert first[1] == "cyd" and match, offered.out
        offset = timedelta(seconds=DEFAULT_SEAT_OFFER_SECONDS)
        deadline = _on_the_day_after(left, match.group(1))
        assert left + offset - timedelta(seconds=1) <= deadline <= datetime.now(UTC) + offset
        assert second[1] == "dan" and second[3] == ""
        with_offer = await run("tables")
        assert f"cyd (seat {seat['bob']} offered until {match.group(1)} UTC)" in with_offer.out

    # Accounts: lock bob, reset cyd's password; the lobby's own answers are the oracle.
    locked = await run("lock", "bob", "--reason", "chargeback under review")
    assert re.fullmatch(
        r"bob is locked \(by operator:boss, \d{4}-\d\d-\d\d \d\d:\d\d UTC\); they cannot log in "
        r"or buy in until `riverboat admin unlock`\.\n",
        locked.out,
    ), locked.out
    assert await _login_refusal(run.lobby, "bob", PASSWORD) == "ACCOUNT_LOCKED"
    again = await run("lock", "bob")  # idempotent: still locked, the first reason kept
    assert again.status == 0

    def money(cents: int) -> str:
        return f"${cents // 100:,}.{cents % 100:02d}"

    wallet = {name: deposits[name] - buy_ins.get(name, 0) for name in deposits}
    # bob left: his chips went back to his wallet.
    wallet["bob"] += buy_ins["bob"]
    at_tables = {"ann": buy_ins["ann"]}

    def players_right(result: object) -> bool:
        got = {r[0]: r for r in rows(getattr(result, "out", ""))}
        return all(
            got.get(name, [""] * 6)[2:]
            == [
                money(wallet[name]),
                money(0),
                money(at_tables.get(name, 0)),
                money(wallet[name] + at_tables.get(name, 0)),
            ]
            for name in deposits
        )

    players = await until(lambda: run("players"), players_right, "the players listed", every=0.3)
    got = {r[0]: r for r in rows(players.out)}
    assert players_right(players), players.out
    assert sorted(got) == sorted(deposits)  # player accounts only (not the operator)
    assert got["bob"][1] == "locked by operator:boss: chargeback under review"
    assert {got[n][1] for n in ("ann", "cyd", "dan")} == {"active"}

    unlocked = await run("unlock", "bob")
    assert unlocked.out.strip() == "bob is unlocked; they may log in and buy in again."
    assert await _login_refusal(run.lobby, "bob", PASSWORD) == ""
    assert rows((await run("players")).out)[1][1] == "active"

    reset = await run("reset-password", "cyd", "--new-password", "cyd-new-password")
    assert reset.out.strip() == "cyd has a new password; the old one no longer logs in."
    assert await _login_refusal(run.lobby, "cyd", PASSWORD) == "BAD_CREDENTIALS"
    assert await _login_refusal(run.lobby, "cyd", "cyd-new-password") == ""
    short = await run("reset-password", "cyd", "--new-password", "short")
    assert short.status == 1 and short.err.startswith("riverboat admin: ") and not short.out
    nobody = await run("lock", "zed")
    assert nobody.status == 1 and "zed" in nobody.err

    # Limits: what the test deposited and bought in today is what the windows hold.
    assert (await run("set-limit", "ann", "deposit-day", "150")).status == 0
    raised = await run("set-limit", "ann", "deposit-day", "500")
    assert "becomes $500.00 on" in raised.out
    assert (await run("set-limit", "ann", "buy-in-week", "80")).status == 0
    limits = await run("limits", "ann")
    assert "Limits of ann" in limits.out
    by_kind = {r[0]: r[1:] for r in rows(limits.out)}
    tomorrow = datetime.now(UTC) + timedelta(hours=24)
    assert by_kind["deposit-day"][:3] == [money(15_000), money(10_000), money(5_000)]
    pending = by_kind["deposit-day"][3]
    assert pending.startswith("$500.00 from ") and pending.endswith(" UTC")
    when = datetime.strptime(pending[len("$500.00 from ") :], "%Y-%m-%d %H:%M UTC")
    assert abs(when.replace(tzinfo=UTC) - tomorrow) < timedelta(minutes=2)
    assert by_kind["deposit-week"][:3] == ["none", money(10_000), ""]
    assert by_kind["buy-in-day"][:3] == ["none", money(buy_ins["ann"]), ""]
    assert by_kind["buy-in-week"][:3] == [money(8_000), money(2_000), money(6_000)]
    assert "Self-excluded" not in limits.out

    excluded = await run("self-exclude", "dan", "--days", "30")
    assert excluded.status == 0, excluded.err
    dans = await run("limits", "dan")
    match = re.search(r"^Self-excluded until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC\.$", dans.out, re.M)
    assert match, dans.out
    until_day = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
    assert abs(until_day - (datetime.now(UTC) + timedelta(days=30))) < timedelta(minutes=2)
    assert {r[0] for r in rows(dans.out)} == {
        "deposit-day",
        "deposit-week",
        "buy-in-day",
        "buy-in-week",
    }
