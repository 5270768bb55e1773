"""IDEMPOTENCY BATTERY: many clients numbering their request ids alike (1, 2, 3...) in
settlement, in the lobby and at one table, through the real services (dealer, table, lobby
and settlement as processes, a real nats-server), with clients built on the riverboat.v1
stubs only.

For every client and id: the first call is applied exactly once, a repeat with the same
command returns the original result, and the same id with a different command is refused
(ALREADY_EXISTS, REQUEST_ID_REUSED, the message naming the id and the caller); all of it again
after each service restarts. The oracles count from the raw logs in JetStream (the wallet and
table events, who asked for each), never from the services' answers; the last test plants the
old per-table scope in a runner and shows the table oracle catching it.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import grpc
import nats
import pytest

from riverboat.engine.commands import Act
from riverboat.engine.events import ActionTaken
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import decode_batch
from riverboat.eventstore import InMemoryEventStore, JetStreamEventStore, StreamSettings
from riverboat.eventstore.base import EventStore
from riverboat.idempotency import RequestKey, RequestMemory
from riverboat.ledger.wallet import Deposited, Withdrawn, wallet_id
from riverboat.ledger.walletcodec import decode_wallet_batch
from riverboat.services.table import runner as runner_module
from riverboat.services.table.config import TableConfig
from riverboat.services.table.runner import TableRunner
from riverboat.table import aggregate as table
from riverboat.table.events import LeaveRequested, PlayerLeft, PlayerSeated
from riverboat.v1 import (
    lobby_pb2,
    lobby_pb2_grpc,
    settlement_pb2,
    settlement_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)
from tests import statuskit
from tests.battery import size
from tests.e2e.room._settled import _tag, register, settled_lobby
from tests.e2e.room.conftest import Room

REUSED = "REQUEST_ID_REUSED"
NO_DEALER: Any = None  # the planted runner deals from a deck of its own


# --- clients that know only the protos ------------------------------------------------------


@dataclass
class Caller:
    """One identity's stubs and bearer token."""

    name: str
    token: str
    lobby: Any = None
    table: Any = None
    settlement: Any = None

    @property
    def md(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),)


def _caller(room: Room, name: str, role: str, channels: dict[str, grpc.aio.Channel]) -> Caller:
    c = Caller(name, room.token(name, role))
    c.lobby = lobby_pb2_grpc.LobbyServiceStub(channels["lobby"])  # type: ignore[no-untyped-call]
    c.table = table_pb2_grpc.TableServiceStub(channels["table"])  # type: ignore[no-untyped-call]
    c.settlement = settlement_pb2_grpc.SettlementServiceStub(channels["settlement"])  # type: ignore[no-untyped-call]
    return c


async def refused(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert "Traceback" not in (err.value.details() or "")
    return err.value


def reason_of(error: grpc.aio.AioRpcError) -> str:
    """The machine-readable reason (``ErrorInfo.reason``) of a refusal."""
    return statuskit.reason(error)


async def clash(call: Any, request_id: str, who: str) -> None:
    """``call`` is refused as a reused id, and says which id of whose clashed."""
    error = await refused(call)
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS, error
    assert reason_of(error) == REUSED
    assert f"{request_id!r}" in (error.details() or "") and who in (error.details() or "")


# --- oracles over the raw logs ----------------------------------------------------------------


async def _store(room: Room, stream: str, prefix: str) -> tuple[Any, EventStore]:
    nc = await nats.connect(room.nats_url)
    return nc, JetStreamEventStore(nc, StreamSettings(name=stream, subject_prefix=prefix))


async def cashier_log(room: Room, players: list[str]) -> Counter[tuple[str, str, str, str, int]]:
    """(player, kind, who asked, external_ref, amount) of every deposit and withdrawal in the
    wallet logs."""
    tag = _tag(room)
    nc, store = await _store(room, f"RB_WALLETS_{tag}", f"rb.wallets{tag.lower()}")
    found: Counter[tuple[str, str, str, str, int]] = Counter()
    try:
        for player in players:
            for record in await store.read(wallet_id(player)):
                _, items = decode_wallet_batch(record.payload)
                for item in items:
                    e = item.event
                    if isinstance(e, Deposited | Withdrawn):
                        kind = "deposit" if isinstance(e, Deposited) else "withdraw"
                        found[(player, kind, e.by, e.external_ref, e.amount)] += 1
    finally:
        await nc.close()
    return found


@dataclass
class Batch:
    """One record of a table's log: who asked and what it holds."""

    version: int
    actor: str
    events: list[Any]


async def table_log(room: Room, table_id: str) -> list[Batch]:
    """Every record of ``table_id``'s raw log."""
    tag = _tag(room)
    nc, store = await _store(room, f"RB_TABLES_{tag}", f"rb.tables{tag.lower()}")
    try:
        return _batches(await store.read(table_id))
    finally:
        await nc.close()


def _batches(records: list[Any]) -> list[Batch]:
    out = []
    for record in records:
        pairs = decode_batch(record.payload)
        actor = pairs[0][1].actor if pairs else ""
        out.append(Batch(record.version, actor, [e for e, _ in pairs]))
    return out


@dataclass
class Sent:
    """What one client sent at the table: per request id, the action and the version the
    first answer gave."""

    player: str
    seat: int
    moves: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: The hand each move was sent for (to send it again exactly).
    hands: dict[str, str] = field(default_factory=dict)


def check_moves_applied_once(log: list[Batch], clients: list[Sent]) -> None:
    """Every accepted move of every client is in the log exactly once, in the record its
    answer named, asked for by that client, and nothing else any of them did is."""
    by_version = {b.version: b for b in log}
    for client in clients:
        mine = [
            (b.version, e.action)
            for b in log
            if b.actor == client.player
            for e in b.events
            if isinstance(e, ActionTaken) and e.seat == client.seat
        ]
        assert len(mine) == len(client.moves), (client.player, mine, client.moves)
        for request_id, (action, version) in client.moves.items():
            batch = by_version.get(version)
            assert batch is not None and batch.actor == client.player, (request_id, version)
            assert (version, action) in mine, (client.player, request_id, action, version)


# --- the battery -------------------------------------------------------------------------------


@dataclass
class Clients:
    """The battery's callers and their channels (remade after the services restart)."""

    room: Room
    addresses: dict[str, str]
    channels: dict[str, grpc.aio.Channel] = field(default_factory=dict)
    ops: list[Caller] = field(default_factory=list)
    players: list[Caller] = field(default_factory=list)

    async def connect(self, ops: list[str], players: list[str]) -> None:
        await self.close()
        self.channels = {k: grpc.aio.insecure_channel(a) for k, a in self.addresses.items()}
        self.ops = [_caller(self.room, n, "operator", self.channels) for n in ops]
        self.players = [_caller(self.room, n, "player", self.channels) for n in players]

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.close(None)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]


def _deposit(op: int, player: str, n: int) -> settlement_pb2.DepositRequest:
    """Operator ``op``'s deposit ``n`` for ``player`` (the amount tells who and which)."""
    amount = 20_000 + 100 * op + n
    return settlement_pb2.DepositRequest(player=player, amount=amount, external_ref=str(n))


def _join(table_id: str, buy_in: int = 5_000) -> lobby_pb2.JoinTableRequest:
    return lobby_pb2.JoinTableRequest(table_id=table_id, buy_in=buy_in, request_id="1")


def _create(name: str, request_id: str, seconds: int = 3600) -> lobby_pb2.CreateTableRequest:
    return lobby_pb2.CreateTableRequest(
        template="pacific", name=name, request_id=request_id, action_seconds=seconds
    )


LEAVE = "leave1"
#: The clashing deposit: op-a's reference "1" for another amount.
CLASHING = settlement_pb2.DepositRequest(player="pl0", amount=1, external_ref="1")


async def settlement_phase(c: Clients, refs: int) -> dict[tuple[int, str, int], int]:
    """Both operators number their references 1..refs for every wallet; returns each first
    answer's balance."""
    balances = {}
    for n in range(1, refs + 1):
        for i, op in enumerate(c.ops):
            for player in c.names:
                first = await op.settlement.Deposit(_deposit(i, player, n), metadata=op.md)
                again = await op.settlement.Deposit(_deposit(i, player, n), metadata=op.md)
                assert not first.duplicate and again.duplicate
                assert again.balance == first.balance  # the original answer
                balances[(i, player, n)] = first.balance
    # A withdrawal "1" is another kind of command: applied, not a clash.
    out = settlement_pb2.WithdrawRequest(player="pl0", amount=5, external_ref="1")
    await c.ops[1].settlement.Withdraw(out, metadata=c.ops[1].md)
    await clash(c.ops[0].settlement.Deposit(CLASHING, metadata=c.ops[0].md), "1", "op-a")
    return balances


def expected_cashier(c: Clients, refs: int) -> Counter[tuple[str, str, str, str, int]]:
    """The deposits and withdrawals the settlement phase asked for, each once."""
    expected: Counter[tuple[str, str, str, str, int]] = Counter()
    for n in range(1, refs + 1):
        for i, op in enumerate(c.ops):
            for player in c.names:
                d = _deposit(i, player, n)
                expected[(player, "deposit", f"operator:{op.name}", d.external_ref, d.amount)] += 1
    expected[("pl0", "withdraw", "operator:op-b", "1", 5)] += 1
    return expected


async def lobby_phase(
    c: Clients,
) -> tuple[list[str], dict[tuple[str, str], Any], dict[str, Any]]:
    """op-a opens two tables; every player joins both with id "1" and leaves the first with
    "leave1". Returns the tables, the join answers and the leave answers."""
    boss = c.ops[0]
    tables = []
    for name, request_id in (("one", "1"), ("two", "2")):
        created = await boss.lobby.CreateTable(_create(name, request_id), metadata=boss.md)
        tables.append(created.table.table_id)
    again = await boss.lobby.CreateTable(_create("one", "1"), metadata=boss.md)
    assert again.table.table_id == tables[0]
    renamed = _create("uno", "1")
    await clash(boss.lobby.CreateTable(renamed, metadata=boss.md), "1", "op-a")
    taken = await refused(c.ops[1].lobby.CreateTable(renamed, metadata=c.ops[1].md))
    assert taken.code() == grpc.StatusCode.ALREADY_EXISTS  # op-b's "1" names op-a's table
    assert reason_of(taken) == "TABLE_EXISTS"

    joined = {}
    for table_id in tables:
        for p in c.players:
            joined[(p.name, table_id)] = await p.lobby.JoinTable(_join(table_id), metadata=p.md)
    for (name, table_id), first in joined.items():
        p = c.players[c.names.index(name)]
        repeat = await p.lobby.JoinTable(_join(table_id), metadata=p.md)
        assert (repeat.seat, repeat.stack) == (first.seat, first.stack)
        await clash(p.lobby.JoinTable(_join(table_id, 6_000), metadata=p.md), "1", name)
    for table_id in tables:
        seated = Counter(
            e.player
            for b in await table_log(c.room, table_id)
            for e in b.events
            if isinstance(e, PlayerSeated)
        )
        assert seated == Counter(c.names), (table_id, seated)

    # Everyone leaves table one with the same request id (finding 14).
    left = {}
    leave = lobby_pb2.LeaveTableRequest(table_id=tables[0], request_id=LEAVE)
    for p in c.players:
        left[p.name] = await p.lobby.LeaveTable(leave, metadata=p.md)
    await check_leave_repeats(c, tables[0], left)
    check_leaves(await table_log(c.room, tables[0]), left)
    return tables, joined, left


async def check_leave_repeats(c: Clients, table_id: str, left: dict[str, Any]) -> None:
    """Every player's "leave1" again: their own original answer."""
    leave = lobby_pb2.LeaveTableRequest(table_id=table_id, request_id=LEAVE)
    for p in c.players:
        again = await p.lobby.LeaveTable(leave, metadata=p.md)
        assert (again.pending, again.stack) == (left[p.name].pending, left[p.name].stack)


async def check_table_repeats(c: Clients, table_id: str, sent: dict[str, Sent]) -> None:
    """Each player's last moves again: the original versions; with another move: refused."""
    for p in c.players:
        mine = sent[p.name]
        for request_id, (action, version) in list(mine.moves.items())[-3:]:
            hand = mine.hands[request_id]
            again = await p.table.Act(
                _act(table_id, hand, mine.seat, action, request_id), metadata=p.md
            )
            assert again.version == version
            different = _act(table_id, hand, mine.seat, _other(action), request_id)
            await clash(p.table.Act(different, metadata=p.md), request_id, p.name)


@pytest.mark.battery
async def test_idempotency_battery(room: Room) -> None:
    players_n = size(3, 8)  # players, each at two tables (8 seats a table at most)
    refs = size(2, 5)  # cashier references each operator numbers 1..refs
    moves = size(12, 120)  # numbered table moves before the restarts (and a third after)
    rng = random.Random(12)
    ops, names = ["op-a", "op-b"], [f"pl{k}" for k in range(players_n)]
    async with settled_lobby(room) as services:
        await register(services.lobby.address, names)
        addresses = {
            "lobby": services.lobby.address,
            "table": room.table_address,
            "settlement": services.settlement.address,
        }
        c = Clients(room, addresses)
        try:
            await c.connect(ops, names)
            balances = await settlement_phase(c, refs)
            expected = expected_cashier(c, refs)
            assert await cashier_log(room, names) == expected
            tables, joined, left = await lobby_phase(c)

            # The table: every player numbers their moves 1, 2, 3... at table two.
            sent = {n: Sent(n, joined[(n, tables[1])].seat) for n in names}
            counters = dict.fromkeys(names, 0)
            await play_numbered(c.players, tables[1], sent, counters, moves, rng)
            check_moves_applied_once(await table_log(room, tables[1]), list(sent.values()))

            # Each service restarts; what it remembers comes back from its logs.
            for process in (room.table, services.settlement, services.lobby):
                await asyncio.to_thread(process.kill)
                await asyncio.to_thread(process.start)
            await c.connect(ops, names)
            for (i, player, n), balance in balances.items():
                op = c.ops[i]
                repeat = await op.settlement.Deposit(_deposit(i, player, n), metadata=op.md)
                assert repeat.duplicate and repeat.balance == balance
            await clash(c.ops[0].settlement.Deposit(CLASHING, metadata=c.ops[0].md), "1", "op-a")
            for (name, table_id), first in joined.items():
                p = c.players[names.index(name)]
                rejoin = await p.lobby.JoinTable(_join(table_id), metadata=p.md)
                assert (rejoin.seat, rejoin.stack) == (first.seat, first.stack)
            await check_leave_repeats(c, tables[0], left)
            await check_table_repeats(c, tables[1], sent)
            # More numbered moves after the restart, then the whole logs again.
            await play_numbered(c.players, tables[1], sent, counters, moves // 3, rng)
            check_moves_applied_once(await table_log(room, tables[1]), list(sent.values()))
            check_leaves(await table_log(room, tables[0]), left)
            assert await cashier_log(room, names) == expected
        finally:
            await c.close()


def check_leaves(log: list[Batch], left: dict[str, lobby_pb2.LeaveTableResponse]) -> None:
    """Every player who left has exactly one leave in the log, the kind their answer said:
    LeaveRequested when pending, PlayerLeft asked by the lobby when not."""
    for name, answer in left.items():
        requested = [e for b in log for e in b.events if isinstance(e, LeaveRequested)]
        asked = [
            e
            for b in log
            if b.actor == "service:lobby"
            for e in b.events
            if isinstance(e, PlayerLeft)
        ]
        mine_requested = [e for e in requested if e.player == name]
        mine_left = [e for e in asked if e.player == name]
        if answer.pending:
            assert len(mine_requested) == 1 and not mine_left, (name, answer)
        else:
            assert len(mine_left) == 1 and not mine_requested, (name, answer)
            assert mine_left[0].stack == answer.stack


def _act(table_id: str, hand: str, seat: int, action: str, request_id: str) -> Any:
    return table_pb2.ActRequest(
        table_id=table_id, hand_id=hand, seat=seat, action=action, request_id=request_id
    )


def _other(action: str) -> str:
    return "fold" if action != "fold" else "check"


async def play_numbered(
    players: list[Caller],
    table_id: str,
    sent: dict[str, Sent],
    counters: dict[str, int],
    moves: int,
    rng: random.Random,
) -> None:
    """Whoever must act sends their next numbered move, then repeats it (same answer) and,
    now and then, reuses an earlier id of theirs for another move (refused)."""
    by_seat = {s.seat: players[[p.name for p in players].index(n)] for n, s in sent.items()}
    done = 0
    idle = 0
    while done < moves:
        viewer = players[0]
        view = (
            await viewer.table.GetTableView(
                table_pb2.GetTableViewRequest(table_id=table_id), metadata=viewer.md
            )
        ).view
        if not view.hand_in_progress or not view.to_act or view.to_act not in by_seat:
            idle += 1
            assert idle < 400, "the table stopped dealing"
            await asyncio.sleep(0.05)
            continue
        idle = 0
        p = by_seat[view.to_act]
        mine = (
            await p.table.GetTableView(
                table_pb2.GetTableViewRequest(table_id=table_id), metadata=p.md
            )
        ).view
        legal = [a.action for a in mine.legal_actions]
        if mine.version != view.version or not legal:
            continue
        passive = [a for a in legal if a in ("check", "call", "bring_in")]
        action = rng.choice(passive) if passive and rng.random() < 0.8 else rng.choice(legal)
        counters[p.name] += 1
        request_id = str(counters[p.name])
        req = _act(table_id, mine.hand_id, mine.viewer_seat, action, request_id)
        try:
            first = await p.table.Act(req, metadata=p.md)
        except grpc.aio.AioRpcError as exc:
            # Amount-taking actions (bet/raise to a total) are all sent with the default; the
            # table may refuse one: nothing was applied, so the id is not recorded as a move.
            assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
            continue
        sent[p.name].moves[request_id] = (action, first.version)
        sent[p.name].hands[request_id] = mine.hand_id
        again = await p.table.Act(req, metadata=p.md)
        assert again.version == first.version  # the original result, applied once
        if rng.random() < 0.3:
            old = rng.choice(list(sent[p.name].moves))
            old_action = sent[p.name].moves[old][0]
            req = _act(table_id, sent[p.name].hands[old], mine.viewer_seat, _other(old_action), old)
            await clash(p.table.Act(req, metadata=p.md), old, p.name)
        done += 1


# --- the oracles can fail ---------------------------------------------------------------------


async def test_the_table_oracle_catches_ids_scoped_per_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Plant the old rule in a real runner (a request id is the table's whoever sends it, and
    a repeat is not compared with the original) and run the battery's table oracle on its log:
    the second player's move "1" is answered OK but never applied, and the oracle says so."""

    async def play(table_id: str) -> tuple[list[Batch], list[Sent]]:
        runner = await TableRunner.load(table_id, store, NO_DEALER, TableConfig(auto_deal=False))
        await runner.submit(
            lambda s: table.create_table(
                s, name="t", variant="seven_card_stud_hi_lo", options=pacific_options(),
                action_seconds=30,
            ),
            request_id="open", actor="operator:boss", kind="open",
        )  # fmt: skip
        for seat in (1, 2):
            await runner.submit(
                functools.partial(table.seat_player, seat=seat, player=f"p{seat}", stack=900),
                request_id=f"seat{seat}", actor="operator:boss", kind="seat",
            )  # fmt: skip
        deck = tuple(range(52))
        await runner.submit(
            lambda s: table.commit_hand(
                s, hand_id="h1", scheme="RBS1", commitment=b"c", deck_size=52
            ),
            request_id="commit", actor="service:table",
        )  # fmt: skip
        await runner.submit(lambda s: table.deal_hand(s, deck), request_id="deal", actor="t")
        runner.deck = deck  # what the dealer would serve
        clients = []
        for action in ("bring_in", "fold"):  # both players number their first move "1"
            hand = runner.state.hand
            assert hand is not None and hand.to_act is not None
            seat = hand.seats[hand.to_act]
            player = f"p{seat}"
            done = await runner.act(
                functools.partial(
                    table.act, command=Act(seat, action), deck=deck, hand_id="h1"
                ),
                request_id="1", actor=player, kind="act", fingerprint=f"{seat}-{action}",
            )  # fmt: skip
            clients.append(Sent(player, seat, {"1": (action, done.version)}))
        await runner.close()
        return _batches(await store.read(table_id)), clients

    store = InMemoryEventStore()
    check_moves_applied_once(*await play("fixed"))

    class PerTable:
        """The old key: the table's request id alone."""

        parse = staticmethod(RequestKey.parse)

        def __new__(cls, kind: str, caller: str, request_id: str) -> RequestKey:  # type: ignore[misc]
            return RequestKey("table", "", request_id)

    def blind(self: Any, key: RequestKey, fp: str, target: str = "") -> Any:
        known = self._known.get(key)
        return None if known is None else known[1]

    monkeypatch.setattr(runner_module, "RequestKey", PerTable)
    monkeypatch.setattr(RequestMemory, "recall", blind)
    log, clients = await play("planted")
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        check_moves_applied_once(log, clients)


def test_the_leave_oracle_catches_a_leave_answered_with_someone_elses() -> None:
    """What the lobby did before (finding 14): the second player told pending with the first
    player's answer, and nothing of theirs in the log."""
    log = [Batch(7, "service:lobby", [LeaveRequested(1, "ann")])]
    answer = lobby_pb2.LeaveTableResponse(pending=True, stack=4_000)
    check_leaves(log, {"ann": answer})
    with pytest.raises(AssertionError):
        check_leaves(log, {"ann": answer, "bob": answer})
