"""Realistic logs without services: tables played by the real table aggregate and engine, and
wallets decided by the real wallet aggregate, encoded exactly as the services store them.

A :class:`Room` yields :class:`Record` objects (one per log message) in the order a live room
would write them, plus what the hands imply (rake per hand, the final wallets), so tests can
compare the ledger with the truth.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from riverboat.bots.policy import TightBot
from riverboat.engine.commands import Act
from riverboat.engine.events import HandEnded, RakeTaken
from riverboat.engine.game import legal_actions
from riverboat.engine.options import pacific_options
from riverboat.eventcodec import encode_batch
from riverboat.ledger import wallet as w
from riverboat.ledger.walletcodec import encode_wallet_batch
from riverboat.table import aggregate as table
from riverboat.table.events import AnyEvent, PlayerLeft

TABLES = "tables"
WALLETS = "wallets"
START = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)  # the day changes at midnight UTC mid-run


@dataclass(frozen=True)
class Record:
    """One log message: which log, which aggregate, its version and bytes."""

    source: str
    aggregate_id: str
    version: int
    payload: bytes
    events: tuple[object, ...] = ()


@dataclass(frozen=True)
class Command:
    """What a live room would do, in order: a wallet RPC (``deposit``, ``withdraw``,
    ``reserve``, ``release`` with its arguments) or a table log record (``table``)."""

    op: str
    player: str = ""
    amount: int = 0
    ref: str = ""
    table_id: str = ""
    record: Record | None = None


@dataclass
class SimTable:
    """A table played with the real aggregate."""

    table_id: str
    state: table.TableState
    version: int = 0


@dataclass
class Room:
    """Tables and wallets in one deterministic timeline."""

    seed: int = 1
    clock: datetime = START
    step: timedelta = timedelta(seconds=37)
    records: list[Record] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    tables: dict[str, SimTable] = field(default_factory=dict)
    wallets: dict[str, w.WalletState] = field(default_factory=dict)
    rake: list[tuple[str, str, str, int]] = field(default_factory=list)  # table, variant, day, rake

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def _tick(self) -> datetime:
        self.clock += self.step
        return self.clock

    # -- wallets ------------------------------------------------------------------------------

    def wallet(self, player: str) -> w.WalletState:
        return self.wallets.setdefault(player, w.WalletState(player))

    def _wallet_commit(self, player: str, decision: w.Decision) -> w.Decision:
        state = self.wallet(player)
        if decision.events:
            at = self._tick()
            payload = encode_wallet_batch(
                player, decision.events, balance_before=state.balance, occurred_at=at
            )
            balance = state.balance
            for event in decision.events:
                balance += w.balance_change(event)
                state.apply(event, balance)
            state.version += 1
            self.records.append(
                Record(WALLETS, w.wallet_id(player), state.version, payload, decision.events)
            )
        return decision

    def deposit(self, player: str, amount: int, ref: str | None = None) -> w.Decision:
        ref = ref or f"dep-{player}-{len(self.records)}"
        self.commands.append(Command("deposit", player, amount, ref))
        return self._wallet_commit(player, w.decide_deposit(self.wallet(player), amount, ref))

    def withdraw(self, player: str, amount: int, ref: str | None = None) -> w.Decision:
        ref = ref or f"wd-{player}-{len(self.records)}"
        self.commands.append(Command("withdraw", player, amount, ref))
        return self._wallet_commit(player, w.decide_withdraw(self.wallet(player), amount, ref))

    def reserve(self, player: str, table_id: str, amount: int, ref: str) -> w.Decision:
        decision = w.decide_reserve(self.wallet(player), table_id, amount, ref)
        self.commands.append(Command("reserve", player, amount, ref, table_id))
        return self._wallet_commit(player, decision)

    def release(self, player: str, ref: str) -> w.Decision:
        self.commands.append(Command("release", player, ref=ref))
        return self._wallet_commit(player, w.decide_release(self.wallet(player), ref, "test"))

    # -- tables -------------------------------------------------------------------------------

    def _table_commit(self, sim: SimTable, events: list[AnyEvent], request_id: str) -> None:
        if not events:
            return
        sim.version += 1
        at = self._tick()
        payload = encode_batch(
            events,
            aggregate_id=sim.table_id,
            version=sim.version,
            request_id=request_id,
            actor="test",
            occurred_at=at,
        )
        sim.state = table.fold(events, sim.state)
        record = Record(TABLES, sim.table_id, sim.version, payload, tuple(events))
        self.records.append(record)
        self.commands.append(Command("table", table_id=sim.table_id, record=record))
        for index, event in enumerate(events):
            self._react(sim, event, f"{sim.table_id}:{sim.version}:{index}")
            if isinstance(event, RakeTaken):
                self._hand_rake = event.amount
            if isinstance(event, HandEnded):
                day = at.date().isoformat()
                self.rake.append((sim.table_id, sim.state.variant, day, self._hand_rake))
                self._hand_rake = 0

    def _react(self, sim: SimTable, event: object, event_id: str) -> None:
        """What the settlement service appends to wallets for a table event."""
        from riverboat.table.events import PlayerSeated

        if isinstance(event, PlayerSeated) and event.buy_in_reference:
            decision = w.decide_seat(
                self.wallet(event.player),
                event.buy_in_reference,
                sim.table_id,
                event.stack,
                event_id,
            )
            self._wallet_commit(event.player, decision)
        if isinstance(event, PlayerLeft) and event.stack:
            decision = w.decide_cash_out(
                self.wallet(event.player), sim.table_id, event.stack, event_id
            )
            self._wallet_commit(event.player, decision)

    def open_table(self, table_id: str, **options: int) -> SimTable:
        sim = SimTable(table_id, table.TableState(table_id))
        self.tables[table_id] = sim
        self._hand_rake = 0
        opts = pacific_options(small_bet=200, big_bet=400, **options)
        events = table.create_table(
            sim.state,
            name=table_id,
            variant="seven_card_stud_hi_lo",
            options=opts,
            action_seconds=30,
        )
        self._table_commit(sim, events, f"open-{table_id}")
        return sim

    def buy_in(self, table_id: str, seat: int, player: str, amount: int) -> None:
        """Reserve from the wallet, then seat with the reservation (the lobby's flow)."""
        ref = f"join-{table_id}-{player}-{len(self.records)}"
        self.reserve(player, table_id, amount, ref)
        sim = self.tables[table_id]
        events = table.seat_player(
            sim.state, seat=seat, player=player, stack=amount, buy_in_reference=ref
        )
        self._table_commit(sim, events, ref)

    def seat_by_operator(self, table_id: str, seat: int, player: str, amount: int) -> None:
        sim = self.tables[table_id]
        events = table.seat_player(sim.state, seat=seat, player=player, stack=amount)
        self._table_commit(sim, events, f"seat-{player}-{len(self.records)}")

    def leave(self, table_id: str, seat: int) -> None:
        sim = self.tables[table_id]
        self._table_commit(
            sim, table.unseat_player(sim.state, seat=seat), f"leave-{seat}-{len(self.records)}"
        )

    def play_hand(self, table_id: str, *, void_after: int | None = None) -> bool:
        """Commit, deal and play one hand with bots (or void it after some actions); False when
        too few players have chips."""
        sim = self.tables[table_id]
        if not sim.state.can_start_hand():
            return False
        hand_id = f"{table_id}-{sim.version + 1}"
        commit = table.commit_hand(
            sim.state, hand_id=hand_id, scheme="RBS1", commitment=b"c" * 32, deck_size=52
        )
        self._table_commit(sim, commit, f"commit-{hand_id}")
        deck = list(range(52))
        self.rng.shuffle(deck)
        self._table_commit(sim, table.deal_hand(sim.state, deck), f"deal-{hand_id}")
        bot = TightBot(self.rng, fold_rate=0.1, raise_rate=0.3)
        actions = 0
        while sim.state.hand is not None and not sim.state.hand.finished:
            if void_after is not None and actions >= void_after:
                self._table_commit(sim, table.void_hand(sim.state, "test void"), f"void-{hand_id}")
                return True
            hand = sim.state.hand
            assert hand.to_act is not None
            name, to = bot.choose(legal_actions(hand))
            command = Act(hand.seats[hand.to_act], name, to)
            self._table_commit(sim, table.act(sim.state, command, deck), f"act-{hand_id}-{actions}")
            actions += 1
        return True

    def seated(self, table_id: str) -> list[tuple[int, str]]:
        return [(s.seat, s.player) for s in self.tables[table_id].state.seats]


def standard_room(seed: int = 1, hands: int = 6) -> Room:
    """Two tables, five players, deposits, a withdrawal, buy-ins, hands, a void, cash-outs."""
    room = Room(seed=seed)
    players = ["ann", "bob", "cy", "dee", "eve"]
    for p in players:
        room.deposit(p, 20_000)
    room.withdraw("eve", 1_500)
    room.open_table("alpha")
    room.open_table("beta")
    for seat, p in enumerate(players[:3], start=1):
        room.buy_in("alpha", seat, p, 5_000)
    room.buy_in("beta", 1, "dee", 4_000)
    room.buy_in("beta", 2, "eve", 4_000)
    room.seat_by_operator("beta", 3, "house-bot", 3_000)
    for k in range(hands):
        room.play_hand("alpha")
        room.play_hand("beta", void_after=3 if k == 2 else None)
    room.leave("alpha", 2)
    room.play_hand("alpha")
    for seat, _player in room.seated("beta"):
        room.leave("beta", seat)
    room.reserve("ann", "beta", 1_000, "abandoned-join")
    room.release("ann", "abandoned-join")
    return room
