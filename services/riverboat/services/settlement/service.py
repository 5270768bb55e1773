"""The settlement RPCs (``riverboat.v1.SettlementService``).

Who may call what is in :data:`RULES` (checked by the auth interceptor before a handler runs);
players are further limited here to their own wallet and accounts. Wallet commands go to the
wallet logs (:class:`~riverboat.services.settlement.wallets.WalletBook`); balances are the
wallet's own (read-your-writes), entries and the rake report come from the ledger.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime, timedelta
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from riverboat import paging
from riverboat.auth import Identity
from riverboat.eventstore import EventStoreError
from riverboat.idempotency import RequestKey, fingerprint
from riverboat.ledger import accounts as acc
from riverboat.ledger import queries
from riverboat.ledger.limits import KINDS, Limits
from riverboat.ledger.wallet import (
    Decision,
    WalletError,
    decide_deposit,
    decide_limit,
    decide_release,
    decide_reserve,
    decide_self_exclude,
    decide_withdraw,
)
from riverboat.services.common.auth import current_caller, current_identity
from riverboat.services.common.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ServiceError,
    Unavailable,
    log_error,
)
from riverboat.services.settlement.database import Database
from riverboat.services.settlement.projector import CatchUpTimeout, Projector
from riverboat.services.settlement.registry import Registry
from riverboat.services.settlement.wallets import TooMuchContention, WalletBook
from riverboat.v1 import settlement_pb2 as pb
from riverboat.v1 import settlement_pb2_grpc

__all__ = ["RULES", "SERVICE_NAME", "SettlementService"]

SERVICE_NAME = "riverboat.v1.SettlementService"

_EVERYONE = {"player", "operator", "auditor", "service"}
RULES: dict[str, set[str]] = {
    "Deposit": {"operator", "service"},
    "Withdraw": {"operator", "service"},
    "GetBalance": _EVERYONE,
    "ListLedgerEntries": _EVERYONE,
    "GetRakeReport": {"operator", "auditor"},
    "ReserveBuyIn": {"service"},
    "ReleaseBuyIn": {"service"},
    # A player sets their own (checked in the handler); operators anyone's.
    "SetLimit": {"player", "operator"},
    "SelfExclude": {"player", "operator"},
    "GetLimits": _EVERYONE,
}
#: LimitKind (the proto enum) <-> the wallet's limit names.
_KIND_NAMES = dict(zip(range(1, len(KINDS) + 1), KINDS, strict=True))
MAX_EXCLUSION_DAYS = 3650
#: A higher limit waits this long by default (docs/settlement-service.md).
DEFAULT_COOLING_OFF = timedelta(hours=24)

DEFAULT_PAGE = 50
MAX_PAGE = 500
_PLAYER_KINDS = {"wallet", "table", "buyin", "cashout"}


def _own(identity: Identity, player: str) -> None:
    if identity.role == "player" and identity.subject != player:
        raise PermissionDenied("players may only see their own wallet")


def _day(value: str, field: str) -> str | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise InvalidArgument(
            f"{field} must be a day YYYY-MM-DD, got {value!r}", field=field
        ) from None


def _wallet_errors(exc: Exception) -> ServiceError:
    """The status for an exception from a wallet command."""
    if isinstance(exc, WalletError):
        kinds: dict[str, type[ServiceError]] = {
            "invalid": InvalidArgument,
            "precondition": FailedPrecondition,
            "conflict": AlreadyExists,
        }
        return kinds[exc.kind](exc.message, reason=exc.reason)
    if isinstance(exc, TooMuchContention):
        return Aborted(str(exc), reason="WALLET_BUSY")
    if isinstance(exc, EventStoreError):
        # Not reachable, or no answer: UNAVAILABLE, "retry with the same request id".
        return log_error(exc, "the wallet change")
    raise exc


class SettlementService(settlement_pb2_grpc.SettlementServiceServicer):
    """The RPC handlers."""

    def __init__(
        self, *, release_wait: float, cooling_off: timedelta = DEFAULT_COOLING_OFF
    ) -> None:
        self._parts: tuple[Database, WalletBook, Projector] | None = None
        self._registry: Registry | None = None
        self._release_wait = release_wait
        self._cooling_off = cooling_off

    def attach(
        self,
        db: Database,
        wallets: WalletBook,
        projector: Projector,
        registry: Registry | None = None,
    ) -> None:
        """Start answering with these (until then every RPC is UNAVAILABLE); with a
        ``registry``, only registered players and existing tables are served."""
        self._parts = (db, wallets, projector)
        self._registry = registry

    async def _known_player(self, player: str) -> str:
        if self._registry is not None:
            await self._registry.check_player(player)
        return player

    @property
    def _db(self) -> Database:
        return self._ready()[0]

    @property
    def _wallets(self) -> WalletBook:
        return self._ready()[1]

    @property
    def _projector(self) -> Projector:
        return self._ready()[2]

    def _ready(self) -> tuple[Database, WalletBook, Projector]:
        if self._parts is None:
            raise Unavailable("the settlement service is starting; retry shortly")
        return self._parts

    async def _run(self, player: str, decide: Any, request_id: str) -> Decision:
        try:
            return await self._wallets.execute(player, decide, request_id)
        except (WalletError, TooMuchContention, EventStoreError) as exc:
            raise _wallet_errors(exc) from None

    async def Deposit(self, request: pb.DepositRequest, context: Any) -> pb.DepositResponse:
        """Credit a wallet (operators); only a registered player's."""
        player = await self._known_player(request.player)
        by = current_caller()
        decide = functools.partial(
            decide_deposit,
            amount=request.amount,
            external_ref=request.external_ref,
            by=by,
            now=datetime.now(UTC),
        )
        key = RequestKey("deposit", by, request.external_ref)
        decision = await self._run(
            player, decide, key.stored(fingerprint(request, ignore=("external_ref",)))
        )
        return pb.DepositResponse(balance=decision.balance, duplicate=decision.duplicate)

    async def Withdraw(self, request: pb.WithdrawRequest, context: Any) -> pb.WithdrawResponse:
        """Pay out of a wallet (operators)."""
        player = await self._known_player(request.player)
        by = current_caller()
        decide = functools.partial(
            decide_withdraw, amount=request.amount, external_ref=request.external_ref, by=by
        )
        key = RequestKey("withdraw", by, request.external_ref)
        decision = await self._run(
            player, decide, key.stored(fingerprint(request, ignore=("external_ref",)))
        )
        return pb.WithdrawResponse(balance=decision.balance, duplicate=decision.duplicate)

    async def GetBalance(
        self, request: pb.GetBalanceRequest, context: Any
    ) -> pb.GetBalanceResponse:
        """A wallet's balance (own wallet for players)."""
        identity = current_identity()
        player = request.player or identity.subject
        _own(identity, player)
        await self._known_player(player)
        try:
            state = await self._wallets.state(player)
        except EventStoreError:
            raise Unavailable("the wallet log is unavailable; retry shortly") from None
        balance, reserved = state.balance, state.reserved
        at_tables = await self._db.read(functools.partial(queries.at_tables, player=player))
        return pb.GetBalanceResponse(
            player=player, balance=balance, reserved=reserved, at_tables=at_tables
        )

    async def ListLedgerEntries(
        self, request: pb.ListLedgerEntriesRequest, context: Any
    ) -> pb.ListLedgerEntriesResponse:
        """An account's lines, newest first (players: their own accounts only)."""
        identity = current_identity()
        name = request.account or (
            acc.wallet(identity.subject).name if identity.role == "player" else ""
        )
        if not name:
            raise InvalidArgument(
                "account is required (for example wallet:<player>)", field="account"
            )
        page = paging.page_request(
            "ListLedgerEntries",
            {"account": name},
            page_size_requested=request.page_size,
            page_token=request.page_token,
            default=DEFAULT_PAGE,
            maximum=MAX_PAGE,
        )
        size = page.size
        before = _line_cursor(page.cursor)
        info = await self._db.read(functools.partial(queries.account_info, name=name))
        if identity.role == "player":
            mine = info is not None and info.player == identity.subject
            if not (mine and info is not None and info.kind in _PLAYER_KINDS):
                if name == acc.wallet(identity.subject).name:
                    return pb.ListLedgerEntriesResponse()  # your wallet, no entries yet
                raise PermissionDenied("players may only read their own accounts")
        if info is None:
            raise NotFound(f"no ledger account {name!r}")
        rows = await self._db.read(
            functools.partial(queries.entries, account=name, limit=size + 1, before_line=before)
        )
        more = len(rows) > size
        rows = rows[:size]
        return pb.ListLedgerEntriesResponse(
            entries=[
                pb.LedgerEntry(
                    posting_id=r.posting_id,
                    account=r.account,
                    amount=r.amount,
                    kind=r.kind,
                    reference=r.reference,
                    occurred_at=r.occurred_at.isoformat(),
                    balance_after=r.balance_after,
                )
                for r in rows
            ],
            next_page_token=page.next_token(rows[-1].line_id if more and rows else None),
        )

    async def GetRakeReport(
        self, request: pb.GetRakeReportRequest, context: Any
    ) -> pb.GetRakeReportResponse:
        """Rake per table, game and day (operators, auditors)."""
        first = _day(request.from_day, "from_day")
        last = _day(request.to_day, "to_day")
        if first and last and first > last:
            raise InvalidArgument("from_day is after to_day", field="from_day")
        rows = await self._db.read(
            functools.partial(
                queries.rake_report,
                from_day=first,
                to_day=last,
                table_id=request.table_id or None,
            )
        )
        return pb.GetRakeReportResponse(
            rows=[
                pb.RakeReportRow(
                    table_id=r.table_id, variant=r.variant, day=r.day, hands=r.hands, rake=r.rake
                )
                for r in rows
            ],
            total_rake=sum(r.rake for r in rows),
        )

    async def ReserveBuyIn(
        self, request: pb.ReserveBuyInRequest, context: Any
    ) -> pb.ReserveBuyInResponse:
        """Move chips from the wallet into transit for a buy-in (services)."""
        player = request.player
        await self._known_player(player)
        if self._registry is not None:
            await self._registry.check_table(request.table_id)
        if request.moved_from:
            # A move: the chips come from the cash-out at the table just left, which must be
            # in the wallet first; and they are no new buy-in for the limits.
            try:
                await self._projector.wait_for_table(request.moved_from, self._release_wait)
            except CatchUpTimeout as exc:
                raise Unavailable(f"{exc}; retry shortly", reason="LEDGER_CATCHING_UP") from None
            except EventStoreError:
                raise Unavailable("the table log is unavailable; retry shortly") from None
        decide = functools.partial(
            decide_reserve,
            table_id=request.table_id,
            amount=request.amount,
            reference=request.reference,
            now=None if request.moved_from else datetime.now(UTC),
        )
        if request.validate_only:  # judged as it would be made, nothing written (AIP-163)
            try:
                decision = decide(await self._wallets.state(player))
            except (WalletError, EventStoreError) as exc:
                raise _wallet_errors(exc) from None
            return pb.ReserveBuyInResponse(balance=decision.balance, duplicate=decision.duplicate)
        decision = await self._run(player, decide, f"reserve:{request.reference}")
        return pb.ReserveBuyInResponse(balance=decision.balance, duplicate=decision.duplicate)

    async def ReleaseBuyIn(
        self, request: pb.ReleaseBuyInRequest, context: Any
    ) -> pb.ReleaseBuyInResponse:
        """Give a reservation back if the table never seated it (services)."""
        player = request.player
        try:
            state = await self._wallets.state(player)
        except EventStoreError:
            raise Unavailable("the wallet log is unavailable; retry shortly") from None
        reservation = state.reservations.get(request.reference)
        if reservation is not None and reservation.status == "reserved":
            # A PlayerSeated already in the table's log must be seen first, or the chips
            # would end up both on the table and back in the wallet.
            try:
                await self._projector.wait_for_table(reservation.table_id, self._release_wait)
            except CatchUpTimeout as exc:
                raise Unavailable(f"{exc}; retry shortly", reason="LEDGER_CATCHING_UP") from None
            except EventStoreError:
                raise Unavailable("the table log is unavailable; retry shortly") from None
        decide = functools.partial(
            decide_release, reference=request.reference, reason=request.reason
        )
        decision = await self._run(player, decide, f"release:{request.reference}")
        return pb.ReleaseBuyInResponse(balance=decision.balance, released=decision.flag)

    # --- responsible-gaming limits ---------------------------------------------------------

    async def _limits_of(self, request_player: str) -> str:
        identity = current_identity()
        player = request_player or identity.subject
        _own(identity, player)
        return await self._known_player(player)

    async def _limits(self, player: str) -> pb.Limits:
        try:
            state = await self._wallets.state(player)
        except EventStoreError:
            raise Unavailable("the wallet log is unavailable; retry shortly") from None
        return limits_pb(player, state.limits, datetime.now(UTC), self._cooling_off)

    async def SetLimit(self, request: pb.SetLimitRequest, context: Any) -> pb.SetLimitResponse:
        """Set one limit: lower at once, higher after the cooling-off (own, or operators)."""
        player = await self._limits_of(request.player)
        kind = _KIND_NAMES.get(request.kind)
        if kind is None:
            raise InvalidArgument(
                "kind must be one of LIMIT_KIND_DEPOSIT_DAY, LIMIT_KIND_DEPOSIT_WEEK, "
                "LIMIT_KIND_BUY_IN_DAY, LIMIT_KIND_BUY_IN_WEEK",
                reason="BAD_LIMIT",
            )
        decide = functools.partial(
            decide_limit,
            kind=kind,
            amount=request.amount,
            by=current_caller(),
            now=datetime.now(UTC),
            cooling_off=self._cooling_off,
        )
        # Setting a limit to what it is changes nothing, so a retry is harmless.
        stamp = datetime.now(UTC).isoformat()
        await self._run(player, decide, f"limit:{kind}:{request.amount}:{stamp}")
        return pb.SetLimitResponse(limits=await self._limits(player))

    async def SelfExclude(
        self, request: pb.SelfExcludeRequest, context: Any
    ) -> pb.SelfExcludeResponse:
        """No deposits or buy-ins for ``days`` days; never shortened (own, or operators)."""
        player = await self._limits_of(request.player)
        if not 1 <= request.days <= MAX_EXCLUSION_DAYS:
            raise InvalidArgument(
                f"days must be 1..{MAX_EXCLUSION_DAYS}", reason="BAD_EXCLUSION_PERIOD"
            )
        now = datetime.now(UTC)
        decide = functools.partial(
            decide_self_exclude,
            until=now + timedelta(days=request.days),
            by=current_caller(),
            now=now,
        )
        await self._run(player, decide, f"exclude:{request.days}:{now.isoformat()}")
        return pb.SelfExcludeResponse(limits=await self._limits(player))

    async def GetLimits(self, request: pb.GetLimitsRequest, context: Any) -> pb.GetLimitsResponse:
        """A player's limits now (own for players)."""
        player = await self._limits_of(request.player)
        return pb.GetLimitsResponse(limits=await self._limits(player))


def _stamp(when: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(when)
    return stamp


def limits_pb(player: str, limits: Limits, now: datetime, cooling_off: timedelta) -> pb.Limits:
    """A wallet's limits as the API shows them at ``now``."""
    out = pb.Limits(player=player, cooling_off_seconds=int(cooling_off.total_seconds()))
    for number, kind in _KIND_NAMES.items():
        remaining = limits.remaining(kind, now)
        item = pb.Limit(
            kind=number,  # type: ignore[arg-type]
            amount=limits.amount(kind, now),
            used=limits.used(kind, now),
            remaining=-1 if remaining is None else remaining,
        )
        limit = limits.limits[kind]
        if (
            limit.pending is not None
            and limit.pending_from is not None
            and limit.pending_from > now
        ):
            item.has_pending = True
            item.pending_amount = limit.pending
            item.pending_from.CopyFrom(_stamp(limit.pending_from))
        out.limits.append(item)
    if limits.is_excluded(now) and limits.excluded_until is not None:
        out.excluded_until.CopyFrom(_stamp(limits.excluded_until))
    return out


def _line_cursor(cursor: paging.Cursor | None) -> int | None:
    """The ledger line a page starts below (None: the newest)."""
    if cursor is None:
        return None
    if not isinstance(cursor, int) or cursor < 0:
        raise InvalidArgument(
            "page_token is not one this service gave out", reason="BAD_PAGE_TOKEN"
        )
    return cursor
