"""Fold of the lobby's events, and the rules its commands follow."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from riverboat.engine.money import MAX_AMOUNT
from riverboat.engine.options import TableOptions, dealers_choice_options, pacific_options
from riverboat.engine.session import DealersChoiceRules

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


#: The dealers_choice template's keys that are no table options: the limits a dealer may declare
#: for one deal (in cents; unset or 0: the table's own small or big bet).
LIMIT_BOUNDS = ("min_small_bet", "max_small_bet", "min_big_bet", "max_big_bet")


def template_rules(
    template: str, overrides: dict[str, Any]
) -> tuple[dict[str, Any], DealersChoiceRules | None]:
    """The overrides that are table options, and a dealers_choice table's rules: every game,
    with the limit bounds the overrides set (:data:`LIMIT_BOUNDS`; invalid ones raise
    :class:`~riverboat.engine.errors.InvalidOptions`). Other templates have no rules."""
    if template != "dealers_choice":
        return dict(overrides), None
    bounds = {k: v for k, v in overrides.items() if k in LIMIT_BOUNDS}
    options = {k: v for k, v in overrides.items() if k not in LIMIT_BOUNDS}
    return options, DealersChoiceRules(**bounds)


def template_options(template: str, overrides: dict[str, Any]) -> tuple[str, TableOptions]:
    """The variant and options of a table from a template with overrides."""
    if template == "pacific":
        return "seven_card_stud_hi_lo", pacific_options(**overrides)
    if template == "dealers_choice":
        # Every game of the rule book, the dealer choosing before each deal; the dealer's
        # choice money rules: dealer-only $1 ante, $2 bets, $5 in the last round.
        return "dealers_choice", dealers_choice_options(**overrides)
    raise LobbyRuleError(f"unknown template {template!r}; templates are {', '.join(TEMPLATES)}")
