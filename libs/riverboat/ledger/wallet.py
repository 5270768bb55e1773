"""The wallet aggregate: a player's money outside the tables, as a log of events.

Each wallet is its own event-sourced aggregate (one subject per wallet), written with optimistic
concurrency: a command is decided against the wallet's state at version ``v`` and appended only
if the wallet is still at ``v``. Two commands can therefore never spend the same balance.

The ``decide_*`` functions are pure: they check a command against a :class:`WalletState` and
return a :class:`Decision` (the events to append, or the earlier outcome for a repeat).
Repeats are recognised by the cashier's ``external_ref`` (deposits, withdrawals), the buy-in
``reference`` (reserve, release) or the table event id (seating, cash-out).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

# The room's one bound on amounts (re-exported: wallet code and its tests name it from here).
from riverboat.engine.money import MAX_AMOUNT, amount_problem
from riverboat.idempotency import REQUEST_ID_REUSED
from riverboat.ledger.limits import KINDS, LimitChanged, Limits, SelfExcluded

__all__ = [
    "MAX_AMOUNT",
    "BuyInReleased",
    "BuyInReserved",
    "BuyInSeated",
    "CashedOut",
    "Decision",
    "Deposited",
    "LimitChanged",
    "Reservation",
    "SelfExcluded",
    "WalletError",
    "WalletEvent",
    "WalletState",
    "balance_change",
    "decide_cash_out",
    "decide_deposit",
    "decide_limit",
    "decide_release",
    "decide_reserve",
    "decide_seat",
    "decide_self_exclude",
    "decide_withdraw",
    "wallet_id",
]

MAX_REF = 128
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,120}")
_REF = re.compile(r"[!-~]{1,128}")  # printable ASCII without spaces: it travels in headers


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deposited:
    """The cashier credited the wallet; ``by`` asked (``external_ref`` is theirs)."""

    amount: int
    external_ref: str
    by: str = ""


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """The wallet paid out to the cashier; ``by`` asked (``external_ref`` is theirs)."""

    amount: int
    external_ref: str
    by: str = ""


@dataclass(frozen=True, slots=True)
class BuyInReserved:
    """Chips set aside for a buy-in (wallet -> in transit)."""

    reference: str
    table_id: str
    amount: int


@dataclass(frozen=True, slots=True)
class BuyInReleased:
    """A reservation given back; ``amount`` 0 burns a reference that was never reserved."""

    reference: str
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class BuyInSeated:
    """The table seated the player; ``wallet_delta`` settles reserved vs seated chips."""

    reference: str
    table_id: str
    seated: int
    wallet_delta: int
    table_event_id: str


@dataclass(frozen=True, slots=True)
class CashedOut:
    """A player left a table; their chips came back to the wallet."""

    table_id: str
    amount: int
    table_event_id: str


WalletEvent = (
    Deposited
    | Withdrawn
    | BuyInReserved
    | BuyInReleased
    | BuyInSeated
    | CashedOut
    | LimitChanged
    | SelfExcluded
)


def balance_change(event: WalletEvent) -> int:
    """How much ``event`` adds to the wallet's balance (negative: takes)."""
    match event:
        case Deposited() | CashedOut():
            return event.amount
        case Withdrawn() | BuyInReserved():
            return -event.amount
        case BuyInReleased():
            return event.amount
        case BuyInSeated():
            return event.wallet_delta
        case LimitChanged() | SelfExcluded():
            return 0
    raise TypeError(f"not a wallet event: {event!r}")  # pragma: no cover


# --- state ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Reservation:
    """A buy-in reservation and what became of it."""

    table_id: str
    amount: int
    status: str  # reserved, released, seated
    balance_after: int

    @property
    def outstanding(self) -> int:
        """Chips still in transit under this reservation."""
        return self.amount if self.status == "reserved" else 0


@dataclass(slots=True)
class WalletState:
    """The fold of one wallet's events (mutable: the repository owns and updates it)."""

    player: str
    version: int = 0
    balance: int = 0
    # (kind, who asked, external_ref) -> (amount, balance after): the cashier's requests by
    # their key (riverboat.idempotency: the caller's, per kind, in this wallet).
    cashier_refs: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)
    reservations: dict[str, Reservation] = field(default_factory=dict)
    # Table events (seatings, cash-outs) already recorded, with the balance after each.
    table_events: dict[str, int] = field(default_factory=dict)
    #: Responsible-gaming limits and the deposits and buy-ins they count.
    limits: Limits = field(default_factory=Limits)

    @property
    def reserved(self) -> int:
        """Chips reserved for buy-ins not seated or released yet."""
        return sum(r.outstanding for r in self.reservations.values())

    def apply(self, event: WalletEvent, balance_after: int, at: datetime | None = None) -> None:
        """Fold one event in (``balance_after`` as the log states it, ``at`` when it was
        recorded: the limits count deposits and buy-ins by it)."""
        self.balance = balance_after
        match event:
            case Deposited():
                key = ("deposit", event.by, event.external_ref)
                self.cashier_refs.setdefault(key, (event.amount, balance_after))
                if at is not None:
                    self.limits.deposited(event.amount, at)
            case LimitChanged():
                self.limits.changed(event, at or event.effective_at)
            case SelfExcluded():
                self.limits.excluded(event)
            case Withdrawn():
                key = ("withdrawal", event.by, event.external_ref)
                self.cashier_refs.setdefault(key, (event.amount, balance_after))
            case BuyInReserved():
                self.reservations[event.reference] = Reservation(
                    event.table_id, event.amount, "reserved", balance_after
                )
                if at is not None:
                    self.limits.reserved(event.reference, event.amount, at)
            case BuyInReleased():
                self.limits.released(event.reference)
                known = self.reservations.get(event.reference)
                if known is None:  # a tombstone: the reference was never reserved
                    self.reservations[event.reference] = Reservation("", 0, "released", 0)
                else:
                    known.status = "released"
            case BuyInSeated():
                known = self.reservations.get(event.reference)
                if known is None:
                    self.reservations[event.reference] = Reservation(
                        event.table_id, 0, "seated", balance_after
                    )
                else:
                    known.status = "seated"
                self.table_events[event.table_event_id] = balance_after
            case CashedOut():
                self.table_events[event.table_event_id] = balance_after


# --- decisions ------------------------------------------------------------------------------


class WalletError(Exception):
    """A refused wallet command. ``reason`` is stable (UPPER_SNAKE_CASE); ``kind`` says which
    gRPC status fits: ``invalid``, ``precondition`` or ``conflict`` (already exists)."""

    def __init__(self, message: str, *, reason: str, kind: str) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Decision:
    """What a command does: ``events`` to append (empty for a repeat, then ``duplicate``)."""

    events: tuple[WalletEvent, ...]
    duplicate: bool
    balance: int  # the balance after the command (the original one for a repeat)
    flag: bool = True  # command-specific: ReleaseBuyIn's "released"


def _amount(amount: int) -> None:
    problem = amount_problem(amount, "amount")
    if problem:
        raise WalletError(problem, reason="BAD_AMOUNT", kind="invalid")


def _ref(value: str, what: str) -> None:
    if _REF.fullmatch(value or "") is None:
        raise WalletError(
            f"{what} must be 1-{MAX_REF} printable characters without spaces",
            reason="BAD_REFERENCE",
            kind="invalid",
        )


def _dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"


def _funds(state: WalletState, amount: int) -> None:
    if amount > state.balance:
        raise WalletError(
            # People read this sentence (riverboat play, admin): dollars, not cents.
            f"insufficient funds: the wallet holds {_dollars(state.balance)}, "
            f"{_dollars(amount)} is needed",
            reason="INSUFFICIENT_FUNDS",
            kind="precondition",
        )


def _cashier(
    state: WalletState, kind: str, amount: int, external_ref: str, by: str
) -> Decision | None:
    """The original outcome of ``by``'s ``kind`` with ``external_ref`` (the request-id rule of
    riverboat.idempotency), None if it is new; the same key for another amount is refused."""
    _amount(amount)
    _ref(external_ref, "external_ref")
    earlier = state.cashier_refs.get((kind, by, external_ref))
    if earlier is None:
        return None
    if earlier[0] != amount:
        raise WalletError(
            f"external_ref {external_ref!r} was already used by {by or 'the cashier'} for a "
            f"{kind} of {_dollars(earlier[0])} from this wallet; send a new external_ref",
            reason=REQUEST_ID_REUSED,
            kind="conflict",
        )
    return Decision((), True, earlier[1])


def _within_limits(state: WalletState, what: str, amount: int, now: datetime | None) -> None:
    """Refuse a deposit or buy-in a self-exclusion or a limit forbids (``now`` None: the
    caller checks no limits)."""
    if now is None:
        return
    limits = state.limits
    if limits.is_excluded(now):
        assert limits.excluded_until is not None
        until = limits.excluded_until.strftime("%Y-%m-%d %H:%M UTC")
        raise WalletError(
            f"the player is self-excluded until {until}: no deposits or buy-ins before then",
            reason="SELF_EXCLUDED",
            kind="precondition",
        )
    over = limits.over(what, amount, now)
    if over is not None:
        kind, limit, used = over
        window = "24 hours" if kind.endswith("day") else "7 days"
        noun = "deposits" if what == "deposit" else "buy-ins"
        raise WalletError(
            f"{_dollars(amount)} more would pass the {kind.replace('_', ' ')} limit of "
            f"{_dollars(limit)}: {noun} in the last {window} are {_dollars(used)}, "
            f"{_dollars(max(0, limit - used))} left",
            reason="DEPOSIT_LIMIT" if what == "deposit" else "BUY_IN_LIMIT",
            kind="precondition",
        )


def decide_deposit(
    state: WalletState,
    amount: int,
    external_ref: str,
    by: str = "",
    now: datetime | None = None,
) -> Decision:
    """Credit the wallet; a repeat of ``by``'s ``external_ref`` changes nothing. With ``now``,
    a self-exclusion or deposit limit in force refuses it."""
    earlier = _cashier(state, "deposit", amount, external_ref, by)
    if earlier is not None:
        return earlier
    _within_limits(state, "deposit", amount, now)
    if state.balance + amount > MAX_AMOUNT:
        raise WalletError("the wallet would exceed its limit", reason="LIMIT", kind="precondition")
    return Decision((Deposited(amount, external_ref, by),), False, state.balance + amount)


def decide_withdraw(state: WalletState, amount: int, external_ref: str, by: str = "") -> Decision:
    """Pay out from the wallet, never below zero; a repeat of ``by``'s ``external_ref``
    changes nothing."""
    earlier = _cashier(state, "withdrawal", amount, external_ref, by)
    if earlier is not None:
        return earlier
    _funds(state, amount)
    return Decision((Withdrawn(amount, external_ref, by),), False, state.balance - amount)


def decide_reserve(
    state: WalletState,
    table_id: str,
    amount: int,
    reference: str,
    now: datetime | None = None,
) -> Decision:
    """Set chips aside for a buy-in at ``table_id``; idempotent per ``reference``. With
    ``now``, a self-exclusion or buy-in limit in force refuses it."""
    _amount(amount)
    _ref(reference, "reference")
    if not table_id:
        raise WalletError("table_id is required", reason="BAD_TABLE", kind="invalid")
    earlier = state.reservations.get(reference)
    if earlier is not None:
        if earlier.status == "released":
            raise WalletError(
                f"buy-in {reference!r} was released; use a new reference",
                reason="BUY_IN_RELEASED",
                kind="precondition",
            )
        if (earlier.table_id, earlier.amount) != (table_id, amount):
            raise WalletError(
                f"buy-in {reference!r} was already reserved for {earlier.amount} at "
                f"{earlier.table_id}",
                reason=REQUEST_ID_REUSED,
                kind="conflict",
            )
        return Decision((), True, earlier.balance_after)
    _within_limits(state, "buy_in", amount, now)
    _funds(state, amount)
    return Decision((BuyInReserved(reference, table_id, amount),), False, state.balance - amount)


def decide_limit(
    state: WalletState,
    kind: str,
    amount: int,
    by: str,
    now: datetime,
    cooling_off: timedelta,
) -> Decision:
    """Set a limit: a stricter one from ``now``, a more generous one after ``cooling_off``;
    one that changes nothing records nothing."""
    if kind not in KINDS:
        raise WalletError(
            f"no limit {kind!r}; limits are {', '.join(KINDS)}", reason="BAD_LIMIT", kind="invalid"
        )
    if amount != 0:
        _amount(amount)
    effective = state.limits.change_for(kind, amount, now, cooling_off)
    if effective is None:
        return Decision((), True, state.balance)
    return Decision((LimitChanged(kind, amount, effective, by),), False, state.balance)


def decide_self_exclude(state: WalletState, until: datetime, by: str, now: datetime) -> Decision:
    """Exclude the player until ``until``; an exclusion in force is never shortened."""
    current = state.limits.excluded_until
    if until <= now or (current is not None and until <= current):
        return Decision((), True, state.balance)
    return Decision((SelfExcluded(until, by),), False, state.balance)


def decide_release(state: WalletState, reference: str, reason: str) -> Decision:
    """Give a reservation back. Releasing an unknown reference burns it (a later reserve with it
    is refused), so a reserve that arrives after its own compensation cannot strand chips."""
    _ref(reference, "reference")
    earlier = state.reservations.get(reference)
    if earlier is None:
        return Decision((BuyInReleased(reference, 0, reason[:200]),), False, state.balance, False)
    if earlier.status == "seated":
        raise WalletError(
            f"buy-in {reference!r} was seated: the chips are on the table",
            reason="BUY_IN_SEATED",
            kind="precondition",
        )
    if earlier.status == "released":
        return Decision((), True, state.balance, earlier.amount > 0)
    released = BuyInReleased(reference, earlier.amount, reason[:200])
    return Decision((released,), False, state.balance + earlier.amount)


def decide_seat(
    state: WalletState, reference: str, table_id: str, seated: int, table_event_id: str
) -> Decision:
    """Record that a table seated the player with ``reference``'s chips.

    The reservation's outstanding chips pay for the seat; any difference is settled with the
    wallet (a seat without an outstanding reservation is paid from the wallet, which may then
    go negative: ``riverboat settlement check`` reports that).
    """
    if table_event_id in state.table_events:
        return Decision((), True, state.table_events[table_event_id])
    earlier = state.reservations.get(reference)
    outstanding = earlier.outstanding if earlier is not None else 0
    delta = outstanding - seated
    event = BuyInSeated(reference, table_id, seated, delta, table_event_id)
    return Decision((event,), False, state.balance + delta)


def decide_cash_out(
    state: WalletState, table_id: str, amount: int, table_event_id: str
) -> Decision:
    """Credit the chips a player left a table with; once per table event."""
    if table_event_id in state.table_events:
        return Decision((), True, state.table_events[table_event_id])
    if amount < 0:
        raise WalletError("a negative cash-out", reason="BAD_AMOUNT", kind="invalid")
    return Decision((CashedOut(table_id, amount, table_event_id),), False, state.balance + amount)


def wallet_id(player: str) -> str:
    """The wallet's aggregate id (a NATS subject token) for ``player``.

    Ids that are already safe tokens are used as they are; others become ``h_`` and a
    SHA-256 prefix (the player's name is kept inside each record).
    """
    if _SAFE_ID.fullmatch(player) and not player.startswith("h_"):
        return player
    return "h_" + hashlib.sha256(player.encode()).hexdigest()[:40]
