"""The table options an operator sets through the lobby: the time bank and a dealer's choice
table's declarable limits, carried by ``CreateTable`` to the table service, shown by
``GetTable``/``ListTables`` and ``riverboat admin``.

A real lobby and table service (child processes) over NATS. The oracles are the operator's own
request and what the table itself does with it, not the lobby's word: the ``TableCreated``
event in the table's raw log, the reserve a seated player's view shows, and a dealer's
declaration accepted inside the bounds and refused outside them. A template's defaults are the
table service's own (60 s, 10 s more every 10 hands, protection once per 10 hands: the
documented defaults, docs/table-service.md). Refused requests change nothing: no table listed,
none opened.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from riverboat.client import LobbyClient, TableClient
from riverboat.services.launcher import ServiceProcess
from riverboat.table.events import TableCreated, TimeBankPolicy
from riverboat.v1 import events_pb2, table_pb2, table_pb2_grpc
from tests import statuskit
from tests.e2e.room._adminkit import Admin
from tests.e2e.room._play import read_log
from tests.e2e.room.conftest import Room
from tests.waiting import until

ASKED_BANK = events_pb2.TimeBankPolicy(
    seconds=90, topup_seconds=15, topup_hands=20, protect_hands=5
)
# Small bet $1-$5, big bet $2-$10 (the table's own, the dealers_choice template's: $2/$5).
ASKED_BOUNDS = events_pb2.DealersChoiceRules(
    min_small_bet=100, max_small_bet=500, min_big_bet=200, max_big_bet=1000
)


def _stream(room: Room) -> tuple[str, str]:
    args = room.table.args
    return args[args.index("--stream") + 1], args[args.index("--subject-prefix") + 1]


async def _created(room: Room, table_id: str) -> TableCreated:
    """The table's own record of how it was opened (its raw log)."""
    stream, prefix = _stream(room)
    batches = await read_log(room.nats_url, stream, prefix, table_id)
    created = [e for batch in batches for e in batch if isinstance(e, TableCreated)]
    assert len(created) == 1, created
    return created[0]


async def test_the_time_bank_and_declared_limits_reach_the_table(
    room: Room, lobby: ServiceProcess, operator: TableClient
) -> None:
    async with grpc.aio.insecure_channel(lobby.address) as channel:
        boss = LobbyClient(channel)
        await boss.login("boss", "boss-password")
        made = await boss.create_table(
            "dealers_choice",
            "Friday",
            request_id="friday",
            time_bank=ASKED_BANK,
            rules=ASKED_BOUNDS,
            action_seconds=20,
        )
        listed = await boss.get_table(made.table_id)
        for shown in (made, listed):
            assert shown.time_bank == ASKED_BANK
            assert shown.action_seconds == 20
            bounds = shown.dealers_choice
            assert (bounds.min_small_bet, bounds.max_small_bet) == (100, 500)
            assert (bounds.min_big_bet, bounds.max_big_bet) == (200, 1000)
            assert len(bounds.games) > 1 and bounds.default_game in bounds.games
        [in_list] = [t for t in (await boss.list_tables()).tables if t.table_id == made.table_id]
        assert in_list.time_bank == ASKED_BANK and in_list.dealers_choice == listed.dealers_choice

        # The table's own log holds what the operator asked for.
        created = await _created(room, made.table_id)
        assert created.time_bank == TimeBankPolicy(90, 15, 20, 5)
        assert created.action_seconds == 20
        assert created.rules is not None
        assert created.rules.limit_bounds(created.options) == (100, 500, 200, 1000)

        # ...and the table applies it: a seated player's reserve, the dealer's declarations.
        for seat in (1, 2):
            await operator.seat(made.table_id, seat, f"friday-p{seat}", 10_000)
        async with grpc.aio.insecure_channel(room.table_address) as table_channel:
            players = {seat: room.client(table_channel, f"friday-p{seat}") for seat in (1, 2)}
            view = await until(
                lambda: players[1].view(made.table_id),
                lambda v: v.choosing_game,
                "the dealer asked to choose",
                every=0.05,
            )
            assert view.time_bank == ASKED_BANK
            assert {s.seat: s.time_bank_seconds for s in view.seats} == {1: 90, 2: 90}
            stub = table_pb2_grpc.TableServiceStub(table_channel)  # type: ignore[no-untyped-call]
            meta = (("authorization", f"Bearer {room.token(f'friday-p{view.dealer}')}"),)

            def declare(small: int, big: int, rid: str) -> Any:
                return stub.Act(
                    table_pb2.ActRequest(
                        table_id=made.table_id,
                        seat=view.dealer,
                        action="choose_game",
                        choice="draw",
                        small_bet=small,
                        big_bet=big,
                        request_id=rid,
                    ),
                    metadata=meta,
                )

            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await declare(600, 1000, "over")
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "small bet of $1 to $5 and a big bet of $2 to $10" in (
                refused.value.details() or ""
            )
            await declare(500, 1000, "within")
            dealt = await players[1].view(made.table_id)
            assert dealt.game == "draw" and not dealt.choosing_game


async def test_a_template_gives_its_defaults_and_refusals_change_nothing(
    room: Room, lobby: ServiceProcess, operator: TableClient
) -> None:
    async with grpc.aio.insecure_channel(lobby.address) as channel:
        boss = LobbyClient(channel)
        await boss.login("boss", "boss-password")
        pacific = await boss.create_table("pacific", "Plain", request_id="plain")
        documented = events_pb2.TimeBankPolicy(
            seconds=60, topup_seconds=10, topup_hands=10, protect_hands=10
        )
        assert pacific.time_bank == documented and pacific.action_seconds == 30
        assert not pacific.HasField("dealers_choice")
        assert (await _created(room, pacific.table_id)).time_bank == TimeBankPolicy(60, 10, 10, 10)
        choice = await boss.create_table("dealers_choice", "Plain choice", request_id="plain")
        # Unset bounds: only the table's own limits, spelled out (the template's $2 bets, $5 in
        # the last round: docs/games.md).
        bounds = choice.dealers_choice
        assert (bounds.min_small_bet, bounds.max_small_bet) == (200, 200)
        assert (bounds.min_big_bet, bounds.max_big_bet) == (500, 500)
        none = await boss.create_table(
            "pacific", "No bank", request_id="nobank", time_bank=events_pb2.TimeBankPolicy()
        )
        assert none.time_bank == events_pb2.TimeBankPolicy()

        before = [t.table_id for t in (await boss.list_tables()).tables]
        refusals: list[tuple[str, dict[str, Any], str, str]] = [
            (
                "pacific",
                {"time_bank": events_pb2.TimeBankPolicy(seconds=3601)},
                "INVALID_REQUEST",
                "time_bank.seconds",
            ),
            (
                "pacific",
                {"rules": ASKED_BOUNDS},
                "NOT_DEALERS_CHOICE",
                "dealers_choice",
            ),
            (
                "dealers_choice",
                {"rules": events_pb2.DealersChoiceRules(min_small_bet=500, max_small_bet=100)},
                "INVALID_OPTIONS",
                "dealers_choice",
            ),
            (
                "dealers_choice",
                {"rules": events_pb2.DealersChoiceRules(max_big_bet=-1)},
                "INVALID_REQUEST",
                "dealers_choice.max_big_bet",
            ),
        ]
        for n, (template, extra, reason, field) in enumerate(refusals):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await boss.create_table(template, "Bad", request_id=f"bad{n}", **extra)
            found = statuskit.details(refused.value)
            assert found.code == grpc.StatusCode.INVALID_ARGUMENT, found
            assert found.reason == reason, found
            assert field in found.fields, found
            # Nothing opened at the table service either.
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await operator.view(f"{template.replace('_', '-')}-bad{n}")
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        assert [t.table_id for t in (await boss.list_tables()).tables] == before


async def test_riverboat_admin_sets_and_shows_them(room: Room, lobby: ServiceProcess) -> None:
    run = Admin(lobby.address, "127.0.0.1:9", room.table_address)
    login = await run("login", "--user", "boss", "--password", "boss-password")
    run.token = login.out.strip().removeprefix("export RIVERBOAT_TOKEN=")
    made = await run(
        "create-table",
        "--template",
        "dealers_choice",
        "--name",
        "Friday",
        "--time-bank",
        "90",
        "--time-bank-topup",
        "15/20",
        "--protect-hands",
        "5",
        "--declare-small",
        "1-5",
        "--declare-big",
        "2-10",
    )
    assert made.out.splitlines() == [
        "Table dealers-choice-friday (Friday): Dealer's choice $2.00/$5.00, buy-in "
        "$20.00-$500.00, up to 8 players.",
        "Clock 30 s a decision; time bank 90 s, 15 s more every 20 hands, disconnect protection"
        " once per 5 hands; the dealer may declare a small bet of $1.00-$5.00 and a big bet of"
        " $2.00-$10.00.",
    ], made.err
    plain = await run("create-table", "--name", "Plain", "--time-bank-topup", "0")
    assert plain.out.splitlines()[1] == (
        "Clock 30 s a decision; time bank 60 s, disconnect protection once per 10 hands."
    )
    created = await _created(room, "pacific-plain")
    assert created.time_bank == TimeBankPolicy(60, 0, 0, 10)
    bad = await run("create-table", "--name", "Bad", "--declare-small", "5")
    assert bad.status == 1 and "--declare-small wants MIN-MAX" in bad.err
    wrong = await run("create-table", "--name", "Wrong", "--declare-big", "2-10")
    assert wrong.status == 1 and "dealers_choice template" in wrong.err, wrong.err

    tables = await run("tables")
    text = tables.out
    assert "declare $1.00-$5.00" in text and "/ $2.00-$10.00" in text, text
    assert "30 s, bank 90 s" in text and "+15 s/20 hands" in text and "protect/5 hands" in text
    assert "30 s, bank 60 s" in text
