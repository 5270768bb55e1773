"""Operator control of accounts against a real lobby and settlement service: lock, unlock,
reset a password, list players with their wallets; players are refused with a reason.

The oracles are this test's own: the amounts it deposited, the passwords it chose, and the
lobby's stream read straight from NATS as protobuf records (who asked, and when).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import grpc
import nats
import pytest

from riverboat.client import LobbyClient
from riverboat.v1 import lobby_pb2, settlement_pb2, settlement_pb2_grpc
from tests import statuskit
from tests.e2e.room._settled import _tag, register, settled_lobby
from tests.e2e.room.conftest import Room


async def _refusal(call) -> tuple[grpc.StatusCode, str]:  # type: ignore[no-untyped-def]
    """The status code and machine-readable reason of a refused call."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value.code(), statuskit.reason(err.value)


async def _lobby_records(room: Room, subject: str) -> list[lobby_pb2.LobbyEvent]:
    """Every record on one lobby subject, decoded with the protos only."""
    nc = await nats.connect(room.nats_url)
    try:
        js = nc.jetstream()
        tag = _tag(room)
        sub = await js.subscribe(f"rb.lobby{tag.lower()}.{subject}", ordered_consumer=True)
        records = []
        while True:
            try:
                msg = await sub.next_msg(timeout=1)
            except nats.errors.TimeoutError:
                break
            event = lobby_pb2.LobbyEvent()
            event.ParseFromString(msg.data)
            records.append(event)
        await sub.unsubscribe()
        return records
    finally:
        await nc.close()


async def test_lock_unlock_reset_and_list_players(room: Room) -> None:
    async with settled_lobby(room) as settled:
        await register(settled.lobby.address, ["ann", "bob", "cyd"])
        wallet_of = {"ann": 5000, "bob": 2000, "cyd": 0}
        async with (
            grpc.aio.insecure_channel(settled.lobby.address) as channel,
            grpc.aio.insecure_channel(settled.settlement.address) as money_channel,
        ):
            settlement = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
            cashier = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
            for name, amount in wallet_of.items():
                if amount:
                    await settlement.Deposit(
                        settlement_pb2.DepositRequest(
                            player=name, amount=amount, external_ref=f"pay-{name}"
                        ),
                        metadata=cashier,
                    )
            # Deposits to an account the lobby never registered are refused, precisely.
            unknown = settlement.Deposit(
                settlement_pb2.DepositRequest(player="zed", amount=100, external_ref="pay-zed"),
                metadata=cashier,
            )
            assert await _refusal(unknown) == (grpc.StatusCode.NOT_FOUND, "NOT_REGISTERED")

            boss = LobbyClient(channel)
            await boss.login("boss", "boss-password")
            ann = LobbyClient(channel)
            await ann.login("ann", "ann-password")

            # Players may not use the operator's RPCs: refused with the reason.
            for call in (
                ann.lock_account("bob"),
                ann.unlock_account("bob"),
                ann.reset_password("bob", "a new password"),
                ann.list_players(),
            ):
                assert await _refusal(call) == (
                    grpc.StatusCode.PERMISSION_DENIED,
                    "ROLE_NOT_ALLOWED",
                )

            # Every player with the wallet this test filled, paged one at a time.
            seen: dict[str, int] = {}
            page = ""
            while True:
                reply = await boss.list_players(page_size=1, page_token=page)
                assert len(reply.players) <= 1
                seen.update({p.username: p.balance for p in reply.players})
                page = reply.next_page_token
                if not page:
                    break
            assert seen == wallet_of  # boss is an operator, not a player: not listed
            big = await boss.list_players(page_size=5000)  # reduced to the maximum, not refused
            assert [p.username for p in big.players] == ["ann", "bob", "cyd"]
            bad_page = boss.list_players(page_token="not-a-token")
            assert await _refusal(bad_page) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_TOKEN")

            before = datetime.now(UTC)
            locked = await boss.lock_account("ann", "chargeback")
            assert (locked.locked, locked.locked_reason, locked.locked_by) == (
                True,
                "chargeback",
                "operator:boss",
            )
            again = await boss.lock_account("ann", "chargeback")  # idempotent
            assert again.locked_at == locked.locked_at
            # Locked: the right password is refused with the reason, a wrong one says nothing.
            assert await _refusal(LobbyClient(channel).login("ann", "ann-password")) == (
                grpc.StatusCode.PERMISSION_DENIED,
                "ACCOUNT_LOCKED",
            )
            code, _ = await _refusal(LobbyClient(channel).login("ann", "wrong password"))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            # Her token from before the lock cannot buy in either.
            tables = await boss.list_tables()
            assert tables.tables == []
            table = await boss.create_table("pacific", "Pacific", request_id="p1")
            join = ann.join(table.table_id, table.min_buy_in, request_id="j1")
            assert await _refusal(join) == (grpc.StatusCode.PERMISSION_DENIED, "ACCOUNT_LOCKED")
            listed = {p.username: p for p in (await boss.list_players()).players}
            assert listed["ann"].locked and not listed["bob"].locked
            assert await _refusal(boss.lock_account("nobody")) == (
                grpc.StatusCode.NOT_FOUND,
                "NO_SUCH_ACCOUNT",
            )

            await boss.unlock_account("ann")
            await LobbyClient(channel).login("ann", "ann-password")

            await boss.reset_password("bob", "bob-new-password")
            code, _ = await _refusal(LobbyClient(channel).login("bob", "bob-password"))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            await LobbyClient(channel).login("bob", "bob-new-password")
            short = boss.reset_password("bob", "short")
            # lobby.proto's rule (8-256 characters), checked before the handler runs.
            assert await _refusal(short) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")

        # Audited: who and when, in the lobby's own log; no password in it.
        records = await _lobby_records(room, "account-ann")
        kinds = [(r.WhichOneof("payload"), r.actor) for r in records]
        assert kinds == [
            ("account_registered", ""),
            ("account_locked", "operator:boss"),
            ("account_unlocked", "operator:boss"),
        ]
        assert records[1].occurred_at.ToDatetime(tzinfo=UTC) >= before.replace(microsecond=0)
        bob = await _lobby_records(room, "account-bob")
        assert bob[-1].WhichOneof("payload") == "password_reset"
        assert bob[-1].actor == "operator:boss"
        assert b"bob-new-password" not in b"".join(r.SerializeToString() for r in bob)

        # The state is the fold of the log: a restarted lobby knows the new password and locks.
        async with grpc.aio.insecure_channel(settled.lobby.address) as channel:
            boss = LobbyClient(channel)
            await boss.login("boss", "boss-password")
            await boss.lock_account("cyd", "self-reported")
        await asyncio.to_thread(settled.lobby.stop)
        await asyncio.to_thread(settled.lobby.start)
        async with grpc.aio.insecure_channel(settled.lobby.address) as channel:
            await LobbyClient(channel).login("bob", "bob-new-password")
            assert await _refusal(LobbyClient(channel).login("cyd", "cyd-password")) == (
                grpc.StatusCode.PERMISSION_DENIED,
                "ACCOUNT_LOCKED",
            )
