"""The lobby against the real table service: accounts, tokens, tables, and who may do what."""

from __future__ import annotations

import grpc
import pytest

from riverboat.auth import TokenIssuer
from riverboat.client import LobbyClient
from riverboat.services.launcher import ServiceProcess
from tests.conftest import TEST_TOKEN_KEY
from tests.e2e.room.conftest import Room


async def _code(call) -> grpc.StatusCode:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert "Traceback" not in (err.value.details() or "")
    return err.value.code()


async def test_register_login_and_the_token_it_gives(room: Room, lobby: ServiceProcess) -> None:
    async with grpc.aio.insecure_channel(lobby.address) as channel:
        ann = LobbyClient(channel)
        assert await ann.register("ann", "correct horse") == "ann"
        assert await _code(ann.register("ann", "another pass")) == grpc.StatusCode.ALREADY_EXISTS
        assert await _code(ann.register("a", "long enough")) == grpc.StatusCode.INVALID_ARGUMENT
        assert await _code(ann.register("bob", "short")) == grpc.StatusCode.INVALID_ARGUMENT
        assert await _code(ann.login("ann", "wrong horse")) == grpc.StatusCode.UNAUTHENTICATED
        assert await _code(ann.login("nobody", "wrong horse")) == grpc.StatusCode.UNAUTHENTICATED
        reply = await ann.login("ann", "correct horse")
        identity = TokenIssuer(TEST_TOKEN_KEY).verify(reply.token)
        assert (identity.subject, identity.role, reply.role) == ("ann", "player", "player")
        assert reply.expires_at.seconds > 0


async def test_operators_create_tables_players_list_them(room: Room, lobby: ServiceProcess) -> None:
    async with grpc.aio.insecure_channel(lobby.address) as channel:
        boss = LobbyClient(channel)
        await boss.login("boss", "boss-password")
        pacific = await boss.create_table(
            "pacific",
            "Pacific $5/$10",
            request_id="t1",
            overrides={"small_bet": 500, "big_bet": 1000},
        )
        assert (pacific.small_bet, pacific.big_bet, pacific.min_buy_in) == (500, 1000, 5000)
        choice = await boss.create_table("dealers_choice", "Dealer's choice", request_id="t2")
        again = await boss.create_table("dealers_choice", "Dealer's choice", request_id="t2")
        assert choice.variant == "dealers_choice"
        assert again.table_id == choice.table_id  # a retried request opens nothing new
        bad = boss.create_table("omaha", "x", request_id="t3")
        assert await _code(bad) == grpc.StatusCode.INVALID_ARGUMENT
        bad = boss.create_table("pacific", "x", request_id="t4", overrides={"small_bet": -5})
        assert await _code(bad) == grpc.StatusCode.INVALID_ARGUMENT
        for n in range(3):
            await boss.create_table("pacific", f"extra {n}", request_id=f"x{n}")

        ann = LobbyClient(channel)
        await ann.register("ann", "correct horse")
        await ann.login("ann", "correct horse")
        assert await _code(ann.create_table("pacific", "mine", request_id="m1")) == (
            grpc.StatusCode.PERMISSION_DENIED
        )
        first = await ann.list_tables(page_size=2)
        second = await ann.list_tables(page_size=2, page_token=first.next_page_token)
        third = await ann.list_tables(page_size=2, page_token=second.next_page_token)
        names = [t.name for page in (first, second, third) for t in page.tables]
        assert names == ["Pacific $5/$10", "Dealer's choice", "extra 0", "extra 1", "extra 2"]
        assert third.next_page_token == ""
        table = await ann.get_table(pacific.table_id)
        assert table.variant == "seven_card_stud_hi_lo" and table.seats == []
        assert await _code(ann.get_table("nope")) == grpc.StatusCode.NOT_FOUND


async def test_every_rpc_needs_a_valid_token(room: Room, lobby: ServiceProcess) -> None:
    async with grpc.aio.insecure_channel(lobby.address) as channel:
        anon = LobbyClient(channel)
        assert await _code(anon.list_tables()) == grpc.StatusCode.UNAUTHENTICATED
        forged = LobbyClient(channel, TokenIssuer(b"x" * 32).issue("boss", "operator"))
        assert await _code(forged.list_tables()) == grpc.StatusCode.UNAUTHENTICATED
        expired = LobbyClient(
            channel, TokenIssuer(TEST_TOKEN_KEY).issue("boss", "operator", ttl=-10)
        )
        assert await _code(expired.list_tables()) == grpc.StatusCode.UNAUTHENTICATED
        garbage = LobbyClient(channel, "not-a-token")
        assert await _code(garbage.list_tables()) == grpc.StatusCode.UNAUTHENTICATED


async def test_the_lobby_is_rebuilt_from_its_log(room: Room, lobby: ServiceProcess) -> None:
    async with grpc.aio.insecure_channel(lobby.address) as channel:
        boss = LobbyClient(channel)
        await boss.login("boss", "boss-password")
        await boss.create_table("pacific", "Kept", request_id="k1")
        ann = LobbyClient(channel)
        await ann.register("ann", "correct horse")
    lobby.kill()
    lobby.start()
    async with grpc.aio.insecure_channel(lobby.address) as channel:
        ann = LobbyClient(channel)
        await ann.login("ann", "correct horse")
        assert [t.name for t in (await ann.list_tables()).tables] == ["Kept"]
