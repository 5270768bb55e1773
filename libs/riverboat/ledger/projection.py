"""Events -> postings: the ledger's rules, as functions without I/O.

``project_table_event`` and ``project_wallet_event`` turn one event into *effects*: balanced
:class:`PostingSpec` movements, and facts for the read models and checks (:class:`HandOpened`,
:class:`HandRaked`, :class:`HandClosed`, :class:`HandCheck`, :class:`WalletSeen`). The table
rules need a little memory (who sits where, the hand in progress), kept in a
:class:`TableContext` that the caller loads before a record and saves after it.

Table events (``table`` = the player's stack at the table, ``pot`` = the hand's pot):

================================== =====================================================
PlayerSeated (buy-in reference)    buyin:<ref> -> table
PlayerSeated (no reference)        cashier -> table   (chips an operator sat down with)
AntePosted, ActionTaken (amount)   table -> pot
UncalledBetReturned                pot -> table
RakeTaken                          pot -> rake
PotAwarded                         pot -> each winner's table stack
HandVoided                         pot -> each contributor's table stack (refunds)
PlayerLeft                         table -> cashout:<event id>
CardPaymentPosted, PotMatched      table -> pot   (dealer's choice dead money)
PotCarriedOver / PotCarriedIn      pot -> pot:<table>:carried -> the next deal's pot
================================== =====================================================

Wallet events: Deposited cashier -> wallet; Withdrawn wallet -> cashier; BuyInReserved
wallet -> buyin; BuyInReleased buyin -> wallet; BuyInSeated settles reserved vs seated between
buyin and wallet; CashedOut cashout -> wallet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from riverboat.engine import events as ev
from riverboat.eventcodec import EventMeta
from riverboat.ledger import accounts as acc
from riverboat.ledger.accounts import AccountRef
from riverboat.ledger.wallet import (
    BuyInReleased,
    BuyInReserved,
    BuyInSeated,
    CashedOut,
    Deposited,
    Withdrawn,
)
from riverboat.ledger.walletcodec import WalletRecordEvent
from riverboat.table import events as tev
from riverboat.table.events import AnyEvent

__all__ = [
    "Effect",
    "HandCheck",
    "HandClosed",
    "HandOpened",
    "HandRaked",
    "PostingSpec",
    "ProjectionError",
    "SeatInfo",
    "TableContext",
    "WalletSeen",
    "posting",
    "project_table_event",
    "project_wallet_event",
]

TABLES = "tables"
WALLETS = "wallets"


class ProjectionError(ValueError):
    """An event that cannot be turned into postings (the log contradicts itself)."""


@dataclass(frozen=True, slots=True)
class PostingSpec:
    """One balanced movement to record: ``lines`` sum to zero, one line per account."""

    key: str
    kind: str
    lines: tuple[tuple[AccountRef, int], ...]
    occurred_at: datetime
    reference: str = ""
    table_id: str | None = None
    hand_id: str | None = None


def posting(
    key: str,
    kind: str,
    moves: Iterable[tuple[AccountRef, AccountRef, int]],
    occurred_at: datetime,
    *,
    reference: str = "",
    table_id: str | None = None,
    hand_id: str | None = None,
) -> PostingSpec | None:
    """A posting from ``(from, to, amount)`` moves; None when nothing moves.

    Lines on the same account are merged and zero lines dropped, so the posting is the net
    effect; it balances by construction (each move adds ``-amount`` and ``+amount``).
    """
    net: dict[AccountRef, int] = {}
    for source, target, amount in moves:
        if amount < 0:
            raise ProjectionError(f"{key}: negative movement {amount}")
        net[source] = net.get(source, 0) - amount
        net[target] = net.get(target, 0) + amount
    lines = tuple(sorted(((a, n) for a, n in net.items() if n), key=lambda line: line[0].name))
    if not lines:
        return None
    return PostingSpec(key, kind, lines, occurred_at, reference, table_id, hand_id)


@dataclass(frozen=True, slots=True)
class HandOpened:
    """A hand started (it shows in the rake report once it ends)."""

    table_id: str
    hand_id: str
    variant: str
    started_at: datetime


@dataclass(frozen=True, slots=True)
class HandRaked:
    """Rake taken from a hand's pot."""

    table_id: str
    hand_id: str
    amount: int


@dataclass(frozen=True, slots=True)
class HandClosed:
    """A hand ended (``ended``) or was voided (``voided``); its UTC day is the report's day."""

    table_id: str
    hand_id: str
    status: str
    ended_at: datetime


@dataclass(frozen=True, slots=True)
class HandCheck:
    """Invariants to verify at this point of a hand: the players' table stacks must equal the
    table's own statement, and (at the end) the pot must be empty."""

    table_id: str
    hand_id: str
    moment: str  # start, end, void
    stacks: tuple[tuple[str, int], ...]
    pot_empty: bool


@dataclass(frozen=True, slots=True)
class WalletSeen:
    """The wallet's balance as its own log states it after an event."""

    player: str
    wallet_id: str
    balance: int
    version: int


Effect = PostingSpec | HandOpened | HandRaked | HandClosed | HandCheck | WalletSeen


@dataclass(slots=True)
class SeatInfo:
    """A seated player and the stack the table last stated for them."""

    player: str
    stack: int


@dataclass(slots=True)
class TableContext:
    """What the table rules remember between events of one table."""

    table_id: str
    variant: str = ""
    current_hand: str | None = None
    seats: dict[int, SeatInfo] = field(default_factory=dict)

    def player_at(self, seat: int, key: str) -> str:
        """Who sits at ``seat`` (the log must have seated them)."""
        info = self.seats.get(seat)
        if info is None:
            raise ProjectionError(f"{key}: nobody is seated at seat {seat}")
        return info.player

    def hand(self, key: str) -> str:
        """The hand in progress (the log must have started one)."""
        if self.current_hand is None:
            raise ProjectionError(f"{key}: a hand event with no hand in progress")
        return self.current_hand


def table_event_key(meta: EventMeta) -> str:
    """The effect id of a table event: ``tables:<table>:<version>:<index>``."""
    return f"{TABLES}:{meta.event_id}"


def project_table_event(ctx: TableContext, event: AnyEvent, meta: EventMeta) -> list[Effect]:
    """The effects of one table event; updates ``ctx`` (seats, hand in progress)."""
    key = table_event_key(meta)
    table = ctx.table_id
    at = meta.occurred_at
    out: list[Effect | None] = []

    def stack(seat: int) -> AccountRef:
        return acc.table_stack(table, ctx.player_at(seat, key))

    def pot() -> AccountRef:
        return acc.pot(table, ctx.hand(key))

    def move(kind: str, moves: list[tuple[AccountRef, AccountRef, int]], ref: str = "") -> None:
        hand = ctx.current_hand if kind not in ("buy_in", "operator_seat", "leave") else None
        out.append(posting(key, kind, moves, at, reference=ref, table_id=table, hand_id=hand))

    match event:
        case tev.TableCreated():
            ctx.variant = event.variant
        case tev.PlayerSeated():
            ctx.seats[event.seat] = SeatInfo(event.player, event.stack)
            target = acc.table_stack(table, event.player)
            if event.buy_in_reference:
                source = acc.buyin(event.buy_in_reference, event.player, table)
                move("buy_in", [(source, target, event.stack)], event.buy_in_reference)
            else:
                move("operator_seat", [(acc.CASHIER_ACCOUNT, target, event.stack)])
        case tev.PlayerLeft():
            player = ctx.player_at(event.seat, key)
            if player != event.player:
                raise ProjectionError(f"{key}: {event.player} left seat {event.seat} of {player}")
            del ctx.seats[event.seat]
            target = acc.cashout(meta.event_id, event.player, table)
            move("leave", [(acc.table_stack(table, player), target, event.stack)], meta.event_id)
        case ev.HandStarted():
            if ctx.current_hand is not None:
                raise ProjectionError(
                    f"{key}: hand {event.hand_id} starts during {ctx.current_hand}"
                )
            ctx.current_hand = event.hand_id
            ctx.variant = event.variant or ctx.variant
            out.append(HandOpened(table, event.hand_id, event.variant, at))
            for entry in event.seats:
                ctx.seats[entry.seat] = SeatInfo(entry.player, entry.stack)
            stacks = tuple((e.player, e.stack) for e in event.seats)
            out.append(HandCheck(table, event.hand_id, "start", stacks, pot_empty=True))
        case ev.AntePosted():
            move("ante", [(stack(event.seat), pot(), event.amount)])
        case ev.ActionTaken():
            if event.amount:
                move("bet", [(stack(event.seat), pot(), event.amount)], event.action)
        case ev.UncalledBetReturned():
            move("uncalled", [(pot(), stack(event.seat), event.amount)])
        case ev.RakeTaken():
            hand = ctx.hand(key)
            move("rake", [(pot(), acc.RAKE_ACCOUNT, event.amount)])
            if event.amount:
                out.append(HandRaked(table, hand, event.amount))
        case ev.PotAwarded():
            source = pot()
            move("award", [(source, stack(s), a) for s, a in event.shares], f"pot {event.pot}")
        case ev.HandEnded():
            hand = ctx.hand(key)
            final = []
            for seat, amount in event.stacks:
                final.append((ctx.player_at(seat, key), amount))
                ctx.seats[seat].stack = amount
            out.append(HandClosed(table, hand, "ended", at))
            out.append(HandCheck(table, hand, "end", tuple(final), pot_empty=True))
            ctx.current_hand = None
        case tev.HandVoided():
            if ctx.current_hand is None or ctx.current_hand != event.hand_id:
                if event.refunds:
                    raise ProjectionError(f"{key}: refunds for hand {event.hand_id} not in play")
                return []  # voided before it was dealt: no chips moved
            source = pot()
            move("refund", [(source, stack(s), a) for s, a in event.refunds], event.reason)
            # Every stack goes back to where the hand started (as HandStarted stated it).
            started = tuple((info.player, info.stack) for info in ctx.seats.values())
            out.append(HandClosed(table, event.hand_id, "voided", at))
            out.append(HandCheck(table, event.hand_id, "void", started, pot_empty=True))
            ctx.current_hand = None
        case _:
            _project_game_event(event, stack, pot, move, table)
    return [effect for effect in out if effect is not None]


# Dealer's choice games add money events of their own. They are matched by name (and read by
# attribute) so this module also runs with an engine that predates them.
_DEAD_MONEY = {"CardPaymentPosted": "card_payment", "PotMatched": "match"}


def _project_game_event(
    event: object,
    stack: Callable[[int], AccountRef],
    pot: Callable[[], AccountRef],
    move: Callable[[str, list[tuple[AccountRef, AccountRef, int]]], None],
    table: str,
) -> None:
    """Dead money paid into the pot, and a pot riding from one deal to the next (held in the
    table's ``pot:<table>:carried`` account in between). Anything else moves no money: cards,
    rounds, shows, commitments, leave requests, phases, declarations."""
    name = type(event).__name__
    data: Any = event
    if name in _DEAD_MONEY:
        move(_DEAD_MONEY[name], [(stack(data.seat), pot(), data.amount)])
    elif name == "PotCarriedOver":
        move("carry_over", [(pot(), acc.carried_pot(table), data.amount)])
    elif name == "PotCarriedIn":
        move("carry_in", [(acc.carried_pot(table), pot(), data.amount)])


def project_wallet_event(
    player: str, wallet_id: str, version: int, item: WalletRecordEvent
) -> list[Effect]:
    """The effects of one wallet event."""
    key = f"{WALLETS}:{wallet_id}:{version}:{item.index}"
    wallet = acc.wallet(player)
    event = item.event
    spec: PostingSpec | None
    at = item.occurred_at
    match event:
        case Deposited():
            moves = [(acc.CASHIER_ACCOUNT, wallet, event.amount)]
            spec = posting(key, "deposit", moves, at, reference=event.external_ref)
        case Withdrawn():
            moves = [(wallet, acc.CASHIER_ACCOUNT, event.amount)]
            spec = posting(key, "withdrawal", moves, at, reference=event.external_ref)
        case BuyInReserved():
            transit = acc.buyin(event.reference, player, event.table_id)
            spec = posting(
                key,
                "buy_in_reserved",
                [(wallet, transit, event.amount)],
                at,
                reference=event.reference,
                table_id=event.table_id,
            )
        case BuyInReleased():
            transit = acc.buyin(event.reference, player, "")
            spec = posting(
                key,
                "buy_in_released",
                [(transit, wallet, event.amount)],
                at,
                reference=event.reference,
            )
        case BuyInSeated():
            transit = acc.buyin(event.reference, player, event.table_id)
            delta = event.wallet_delta
            moves = [(transit, wallet, delta)] if delta > 0 else [(wallet, transit, -delta)]
            spec = posting(
                key,
                "buy_in_settled",
                moves,
                at,
                reference=event.reference,
                table_id=event.table_id,
            )
        case CashedOut():
            transit = acc.cashout(event.table_event_id, player, event.table_id)
            spec = posting(
                key,
                "cash_out",
                [(transit, wallet, event.amount)],
                at,
                reference=event.table_event_id,
                table_id=event.table_id,
            )
        case _:  # limits and exclusions move no money
            spec = None
    seen = WalletSeen(player, wallet_id, item.balance_after, version)
    return [spec, seen] if spec is not None else [seen]
