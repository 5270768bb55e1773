"""Fold of the lobby's events, and the rules its commands follow."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from riverboat.engine.money import MAX_AMOUNT
from riverboat.engine.options import TableOptions, dealers_choice_options, pacific_options
from riverboat.engine.session import DealersChoiceRules
from riverboat.table.events import DEFAULT_TIME_BANK, TimeBankPolicy

USERNAME = re.compile(r"[A-Za-z0-9_-]{3,32}")
TEMPLATES = ("pacific", "dealers_choice")
#: Buy-in limits in bets: house rules set the minimum at 10 lower limits; the maximum is ours.
MIN_BUY_IN_SMALL_BETS = 10
MAX_BUY_IN_BIG_BETS = 100


class LobbyRuleError(ValueError):
    """A request the lobby's rules refuse; ``kind`` names the fitting status."""

    def __init__(self, message: str, kind: str = "invalid") -> None:
        super().__init__(message)
        self.kind = kind  # invalid | precondition | not_found | already_exists


@dataclass(frozen=True, slots=True)
class Account:
    """A registered account."""

    username: str
    player_id: str
    role: str
    password_hash: str
    registered_at: datetime | None = None
    #: Locked by an operator: no login, no buy-in, no waiting list (until unlocked).
    locked: bool = False
    locked_reason: str = ""
    #: Who locked it ("operator:boss") and when.
    locked_by: str = ""
    locked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ListedTable:
    """A table the lobby opened."""

    table_id: str
    name: str
    template: str
    variant: str
    options: TableOptions
    action_seconds: int
    created_at: datetime
    #: The request key that opened it (riverboat.idempotency ``RequestKey.stored``).
    request_key: str = ""
    #: The time bank it was opened with (None: listed before the lobby carried it).
    time_bank: TimeBankPolicy | None = None
    #: A dealer's choice table's games and declarable limits (None: another template, or
    #: listed before the lobby carried them, when the table has the template's).
    rules: DealersChoiceRules | None = None

    @property
    def min_buy_in(self) -> int:
        """Ten lower limits (house rules)."""
        return MIN_BUY_IN_SMALL_BETS * self.options.small_bet

    @property
    def max_buy_in(self) -> int:
        """A hundred big bets (never more than the largest amount there is)."""
        return min(MAX_AMOUNT, MAX_BUY_IN_BIG_BETS * self.options.big_bet)


@dataclass(slots=True)
class Join:
    """A buy-in: reserve chips, then sit down; ``status`` is started, completed or failed."""

    reference: str
    player: str
    table_id: str
    seat: int
    buy_in: int
    status: str = "started"
    reason: str = ""
    #: When JoinStarted was recorded (a lobby resolves only joins older than a live one lasts).
    started_at: datetime | None = None


@dataclass(slots=True)
class Waiting:
    """A player on a table's waiting list, and the seat offered to them (0: none yet)."""

    player: str
    joined_at: datetime | None = None
    offered_seat: int = 0
    offer_expires_at: datetime | None = None


@dataclass(slots=True)
class LobbyState:
    """Everything the lobby knows (mutable: the service folds under its own lock)."""

    accounts: dict[str, Account] = field(default_factory=dict)
    tables: dict[str, ListedTable] = field(default_factory=dict)
    joins: dict[str, Join] = field(default_factory=dict)
    #: table id -> its waiting list, first in line first.
    waiting: dict[str, list[Waiting]] = field(default_factory=dict)

    def waiting_list(self, table_id: str) -> list[Waiting]:
        """Who waits for a seat at ``table_id`` (first in line first)."""
        return self.waiting.get(table_id, [])

    def waiting_entry(self, table_id: str, player: str) -> Waiting | None:
        """``player``'s place on ``table_id``'s list, if they are on it."""
        return next((w for w in self.waiting_list(table_id) if w.player == player), None)

    def pending_joins(self, started_before: datetime | None = None) -> list[Join]:
        """Buy-ins that neither completed nor failed (a crash in between); with
        ``started_before``, only those started before then (others may still be under way
        on another lobby instance)."""
        return [
            j
            for j in self.joins.values()
            if j.status == "started"
            and (started_before is None or j.started_at is None or j.started_at < started_before)
        ]

    def players_in_order(self) -> list[Account]:
        """Player accounts by username."""
        return sorted(
            (a for a in self.accounts.values() if a.role == "player"), key=lambda a: a.username
        )

    def tables_in_order(self) -> list[ListedTable]:
        """Tables by creation time."""
        return sorted(self.tables.values(), key=lambda t: (t.created_at, t.table_id))


def check_username(username: str) -> str:
    """A valid username (3-32 letters, digits, '-', '_'), else :class:`LobbyRuleError`."""
    if not USERNAME.fullmatch(username or ""):
        raise LobbyRuleError("a username is 3-32 letters, digits, '-' or '_'")
    return username


def check_move(source: ListedTable, target: ListedTable) -> None:
    """A player may be moved from ``source`` to ``target`` only within one game and stakes
    (the same template, variant, and bets), as rooms balance tables of one game; else
    :class:`LobbyRuleError` (kind ``precondition``). The stack moves whole: the target's
    buy-in range does not apply to it."""
    if source.table_id == target.table_id:
        raise LobbyRuleError("the player already sits at that table", kind="invalid")
    theirs = (target.template, target.variant, target.options.small_bet, target.options.big_bet)
    ours = (source.template, source.variant, source.options.small_bet, source.options.big_bet)
    if theirs != ours:
        raise LobbyRuleError(
            f"{target.table_id} plays {target.variant} at {target.options.small_bet}/"
            f"{target.options.big_bet}, {source.table_id} {source.variant} at "
            f"{source.options.small_bet}/{source.options.big_bet}: a player moves only between "
            "tables of one game and stakes",
            kind="precondition",
        )


def template_options(template: str, overrides: dict[str, Any]) -> tuple[str, TableOptions]:
    """The variant and options of a table from a template with overrides."""
    if template == "pacific":
        return "seven_card_stud_hi_lo", pacific_options(**overrides)
    if template == "dealers_choice":
        # Every game of the rule book, the dealer choosing before each deal; the dealer's
        # choice money rules: dealer-only $1 ante, $2 bets, $5 in the last round.
        return "dealers_choice", dealers_choice_options(**overrides)
    raise LobbyRuleError(f"unknown template {template!r}; templates are {', '.join(TEMPLATES)}")


#: Each template's time bank: 60 s, 10 s more every 10 hands, disconnect protection once per
#: 10 hands (the table service's own default).
TEMPLATE_TIME_BANKS = {"pacific": DEFAULT_TIME_BANK, "dealers_choice": DEFAULT_TIME_BANK}


def template_time_bank(template: str, asked: TimeBankPolicy | None) -> TimeBankPolicy:
    """The time bank of a table from ``template``: the operator's, else the template's."""
    return asked if asked is not None else TEMPLATE_TIME_BANKS[template]


def template_rules(template: str, asked: DealersChoiceRules | None) -> DealersChoiceRules | None:
    """The dealer's choice settings of a table from ``template``: the operator's, else the
    template's (every game, the dealer declaring only the table's own limits); None for a
    template without a dealer's choice, where asking for them is a :class:`LobbyRuleError`."""
    if template != "dealers_choice":
        if asked is not None:
            raise LobbyRuleError(
                f"dealers_choice settings are for the dealers_choice template, not {template!r}"
            )
        return None
    return asked if asked is not None else DealersChoiceRules()
