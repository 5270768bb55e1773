"""The ledger's invariants, checked over the whole ledger (``riverboat settlement check``).

The same facts are checked at every hand's end for that hand (``LedgerWriter._check_hand``);
here they are checked for everything at once, against independent sources where there is one
(the wallets' own logs, the tables' statements of each stack, the hands' rake):

``postings_balance``      every posting's lines sum to zero
``balances_match_lines``  every account's balance is the sum of its lines
``conservation``          wallets + table stacks + pots in flight + buy-ins and cash-outs in
                          transit + rake = deposits - withdrawals (+ chips operators sat down
                          with), and the cashier holds exactly minus that
``finished_pots_empty``   no chips left in the pot of a hand that ended or was voided
``no_negative_balances``  no wallet, stack, pot, transit or rake account below zero
``wallets_match_logs``    each wallet's balance equals the balance its own log states
``rake_matches_hands``    the rake account equals the rake recorded per hand (the report)
``stacks_match_tables``   between hands, each seated player's stack equals the table's
                          statement, and nobody has chips at a table they are not seated at

A ledger that is still catching up with the logs can show buy-ins or cash-outs in transit;
those are listed, and only negative ones (a seat before its reservation) count as violations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Connection, func, select

from riverboat.ledger.accounts import AccountKind
from riverboat.ledger.models import (
    Account,
    Hand,
    LedgerTable,
    Posting,
    PostingLine,
    TableSeat,
    Wallet,
)
from riverboat.ledger.store import Violation

__all__ = ["CHECKS", "CheckReport", "check_ledger"]

CHECKS = (
    "postings_balance",
    "balances_match_lines",
    "conservation",
    "finished_pots_empty",
    "no_negative_balances",
    "wallets_match_logs",
    "rake_matches_hands",
    "stacks_match_tables",
)

_HELD = ("wallet", "table", "pot", "buyin", "cashout", "rake")
_LABELS = {
    "wallet": "wallets",
    "table": "table stacks",
    "pot": "pots in flight",
    "buyin": "buy-ins in transit",
    "cashout": "cash-outs in transit",
    "rake": "rake",
}


@dataclass(slots=True)
class CheckReport:
    """Totals and the invariants' outcome."""

    postings: int = 0
    accounts: int = 0
    totals: dict[str, int] = field(default_factory=dict)  # balance per account kind
    deposits: int = 0
    withdrawals: int = 0
    operator_seats: int = 0
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every invariant holds."""
        return not self.violations

    @property
    def held(self) -> int:
        """Everything not at the cashier."""
        return sum(self.totals.get(kind, 0) for kind in _HELD)

    def failed(self, check: str) -> list[Violation]:
        """The violations of one check."""
        return [v for v in self.violations if v.check == check]

    def render(self, source: str = "") -> str:
        """A plain-text report (what ``riverboat settlement check`` prints)."""
        lines = [f"Ledger check{': ' + source if source else ''} (amounts in cents)"]
        lines.append(f"  {self.postings:,} postings on {self.accounts:,} accounts")
        for kind in _HELD:
            lines.append(f"  {_LABELS[kind]:<22}{self.totals.get(kind, 0):>14,}")
        lines.append(f"  {'':<22}{'-' * 14}")
        lines.append(f"  {'held':<22}{self.held:>14,}")
        lines.append(
            f"  {'deposits - withdrawals':<22}{self.deposits - self.withdrawals:>14,}"
            f"   (deposits {self.deposits:,}, withdrawals {self.withdrawals:,})"
        )
        if self.operator_seats:
            lines.append(f"  {'+ operator seatings':<22}{self.operator_seats:>14,}")
        lines.append("")
        for check in CHECKS:
            failures = self.failed(check)
            lines.append(f"  {'FAIL' if failures else 'ok':<6}{check}")
            for v in failures[:20]:
                where = " ".join(
                    part
                    for part in (
                        f"table={v.table_id}" if v.table_id else "",
                        f"hand={v.hand_id}" if v.hand_id else "",
                    )
                    if part
                )
                lines.append(f"          {v.message}{'  [' + where + ']' if where else ''}")
            if len(failures) > 20:
                lines.append(f"          ... and {len(failures) - 20} more")
        failed = sum(1 for check in CHECKS if self.failed(check))
        lines.append("")
        lines.append(
            f"All {len(CHECKS)} invariants hold."
            if not failed
            else f"{failed} of {len(CHECKS)} invariants FAILED ({len(self.violations)} violations)."
        )
        return "\n".join(lines)


def _balances(conn: Connection) -> list[tuple[str, str, str | None, str | None, int]]:
    query = select(Account.name, Account.kind, Account.player, Account.table_id, Account.balance)
    return [(n, k, p, t, int(b)) for n, k, p, t, b in conn.execute(query)]


def _cashier_flows(conn: Connection) -> dict[str, int]:
    """Money in (positive) from the cashier per posting kind."""
    query = (
        select(Posting.kind, func.sum(PostingLine.amount))
        .join(PostingLine, PostingLine.posting_id == Posting.id)
        .join(Account, Account.id == PostingLine.account_id)
        .where(Account.kind == AccountKind.CASHIER.value)
        .group_by(Posting.kind)
    )
    return {kind: -int(total or 0) for kind, total in conn.execute(query)}


def check_ledger(conn: Connection) -> CheckReport:
    """Check every invariant; the report lists totals and violations."""
    report = CheckReport()
    fail = report.violations.append
    report.postings = int(conn.scalar(select(func.count()).select_from(Posting)) or 0)
    balances = _balances(conn)
    report.accounts = len(balances)
    for _name, kind, _player, _table, balance in balances:
        report.totals[kind] = report.totals.get(kind, 0) + balance

    # postings_balance
    unbalanced = (
        select(PostingLine.posting_id, func.sum(PostingLine.amount))
        .group_by(PostingLine.posting_id)
        .having(func.sum(PostingLine.amount) != 0)
    )
    for posting_id, total in conn.execute(unbalanced):
        fail(Violation("postings_balance", f"posting {posting_id} is off by {total}"))

    # balances_match_lines
    sums = dict(
        conn.execute(
            select(PostingLine.account_id, func.sum(PostingLine.amount)).group_by(
                PostingLine.account_id
            )
        ).all()
    )
    for account_id, name, balance in conn.execute(
        select(Account.id, Account.name, Account.balance)
    ):
        lines_total = int(sums.get(account_id) or 0)
        if lines_total != balance:
            fail(
                Violation(
                    "balances_match_lines", f"{name} says {balance}, its lines add to {lines_total}"
                )
            )

    # conservation
    flows = _cashier_flows(conn)
    report.deposits = flows.pop("deposit", 0)
    report.withdrawals = -flows.pop("withdrawal", 0)
    report.operator_seats = flows.pop("operator_seat", 0)
    external = report.deposits - report.withdrawals + report.operator_seats
    for kind, amount in flows.items():
        fail(Violation("conservation", f"{kind} postings moved {amount} out of the cashier"))
    if report.held != external:
        fail(
            Violation(
                "conservation",
                f"the ledger holds {report.held:,} but deposits - withdrawals"
                f"{' + operator seatings' if report.operator_seats else ''} is {external:,}",
            )
        )
    if report.totals.get("cashier", 0) != -external:
        fail(
            Violation(
                "conservation",
                f"the cashier is at {report.totals.get('cashier', 0):,}, not {-external:,}",
            )
        )

    # finished_pots_empty
    finished = {
        f"pot:{table}:{hand}"
        for table, hand in conn.execute(
            select(Hand.table_id, Hand.hand_id).where(Hand.status != "playing")
        )
    }
    for name, kind, _player, _table, balance in balances:
        if kind == "pot" and balance and name in finished:
            fail(Violation("finished_pots_empty", f"{name} still holds {balance}"))

    # no_negative_balances
    for name, kind, _player, _table, balance in balances:
        if kind != "cashier" and balance < 0:
            fail(Violation("no_negative_balances", f"{name} is {balance}"))

    # wallets_match_logs
    ledger_wallets = {p: b for _n, k, p, _t, b in balances if k == "wallet" and p}
    logged = dict(conn.execute(select(Wallet.player, Wallet.balance)).all())
    for player in sorted({p for p in ledger_wallets if p} | set(logged)):
        ours, theirs = ledger_wallets.get(player, 0), int(logged.get(player, 0))
        if ours != theirs:
            fail(
                Violation(
                    "wallets_match_logs",
                    f"wallet:{player} is {ours} in the ledger, {theirs} in its log",
                )
            )

    # rake_matches_hands
    hands_rake = int(conn.scalar(select(func.coalesce(func.sum(Hand.rake), 0))) or 0)
    if hands_rake != report.totals.get("rake", 0):
        fail(
            Violation(
                "rake_matches_hands",
                f"the rake account holds {report.totals.get('rake', 0)}, hands raked {hands_rake}",
            )
        )

    # stacks_match_tables
    busy = {
        t
        for (t,) in conn.execute(
            select(LedgerTable.table_id).where(LedgerTable.current_hand_id.is_not(None))
        )
    }
    seated = {
        (t, p): int(s)
        for t, p, s in conn.execute(select(TableSeat.table_id, TableSeat.player, TableSeat.stack))
    }
    stacks = {(t, p): (n, b) for n, k, p, t, b in balances if k == "table" and t and p}
    for (table, player), (name, balance) in sorted(stacks.items()):
        if table in busy:
            continue
        stated = seated.get((table, player))
        if stated is None and balance:
            fail(
                Violation(
                    "stacks_match_tables",
                    f"{name} holds {balance} but {player} is not seated there",
                    table,
                )
            )
        elif stated is not None and stated != balance:
            fail(
                Violation(
                    "stacks_match_tables", f"{name} is {balance}, the table says {stated}", table
                )
            )
    return report
