"""``riverboat.v1.LobbyService``: accounts, tables, buy-ins.

Every lobby action is one ``LobbyEvent`` in stream RB_LOBBY, on the subject of its aggregate
(``account-<name>``, ``table-<id>``, ``join-<reference>``), appended with optimistic concurrency;
the lobby's state is rebuilt by replaying them. A buy-in is a small saga: ``JoinStarted`` ->
reserve the chips (settlement) -> seat the player (table) -> ``JoinCompleted``; if seating fails
the reservation is released and ``JoinFailed`` recorded, and buy-ins a crash left half done are
finished or undone when the lobby starts.

A log that does not answer is UNAVAILABLE with "retry with the same request id"
(:func:`~riverboat.services.common.log_error`). An append left without an answer may have been
stored: the lobby reads that aggregate's log again before its next change to it, and a retry
recognised as a repeat folds the original from the log (so it answers as the first try would).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import structlog
from google.protobuf.json_format import MessageToDict
from google.protobuf.timestamp_pb2 import Timestamp

from riverboat import paging
from riverboat.auth import PasswordError, TokenIssuer, hash_password, verify_password
from riverboat.auth.passwords import check_rules
from riverboat.engine.errors import InvalidOptions
from riverboat.engine.game_options import RULE_BOOK
from riverboat.engine.money import MAX_AMOUNT, amount_problem
from riverboat.engine.session import DealersChoiceRules
from riverboat.eventstore import ConcurrencyError
from riverboat.handtext import dollars
from riverboat.idempotency import RequestClash, RequestKey, derived_id, fingerprint
from riverboat.lobby.aggregate import registration
from riverboat.lobby.state import (
    MIN_BUY_IN_SMALL_BETS,
    Account,
    ListedTable,
    LobbyRuleError,
    check_move,
    check_username,
    template_options,
    template_rules,
    template_time_bank,
)
from riverboat.redirect import no_owner_delay
from riverboat.rpcstatus import error_info
from riverboat.services.common.auth import current_caller, current_identity
from riverboat.services.common.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NoOwner,
    NotFound,
    PermissionDenied,
    ServiceError,
    Unauthenticated,
    Unavailable,
)
from riverboat.services.lobby.config import DEFAULT_SEAT_OFFER_SECONDS
from riverboat.services.lobby.hashing import WRITE_MARGIN, PasswordHashing, abort_if_gone
from riverboat.services.lobby.log import Lobby
from riverboat.services.lobby.owners import TableServices
from riverboat.settingscodec import (
    options_to_pb,
    rules_from_pb,
    rules_to_pb,
    time_bank_from_pb,
    time_bank_to_pb,
)
from riverboat.v1 import (
    events_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    settlement_pb2,
    settlement_pb2_grpc,
    table_pb2,
)

log = structlog.get_logger("riverboat.lobby")

#: Who may call what: Register and Login are open (see server.OPEN_METHODS).
RULES = {
    "CreateTable": {"operator", "service"},
    "JoinTable": {"player"},
    "LeaveTable": {"player"},
    "LockAccount": {"operator"},
    "UnlockAccount": {"operator"},
    "ResetPassword": {"operator"},
    "ListPlayers": {"operator", "auditor"},
    "MovePlayer": {"operator"},
    "JoinWaitingList": {"player"},
    "LeaveWaitingList": {"player"},
}
#: Players one table's waiting list holds at most.
MAX_WAITING = 50
#: Largest ListPlayers page; a larger page_size is reduced to it (AIP-158).
MAX_PLAYERS_PAGE = 100
#: A buy-in still "started" after this long was interrupted (its lobby crashed): resolve it.
JOIN_GRACE_SECONDS = 60.0
DEFAULT_TABLE_PAGE = 20
MAX_TABLE_PAGE = 100
_KIND = {
    "invalid": InvalidArgument,
    "precondition": FailedPrecondition,
    "not_found": NotFound,
    "already_exists": AlreadyExists,
}
# A well-formed hash to verify against when the username is unknown, so a failed login takes
# the same time either way (no account enumeration by timing).
_DUMMY_HASH = hash_password("not-a-real-password-0000")


def _rule_error(exc: LobbyRuleError) -> Exception:
    return _KIND[exc.kind](str(exc))


def _table_key(table: ListedTable) -> str:
    """A table's place in creation order, as a page cursor (sorts as tables_in_order does)."""
    return f"{table.created_at.astimezone(UTC):%Y%m%dT%H%M%S.%f}|{table.table_id}"


def _stamp(when: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(when)
    return ts


class LobbyService(lobby_pb2_grpc.LobbyServiceServicer):
    """The servicer."""

    def __init__(
        self,
        lobby: Lobby,
        issuer: TokenIssuer,
        tables: TableServices,
        settlement: settlement_pb2_grpc.SettlementServiceStub,
        *,
        service_token: str,
        token_ttl: int,
        hashing: PasswordHashing | None = None,
        seat_offer_seconds: float = DEFAULT_SEAT_OFFER_SECONDS,
    ) -> None:
        self.lobby = lobby
        self.issuer = issuer
        self.tables = tables
        self.settlement = settlement
        self.metadata = (("authorization", f"Bearer {service_token}"),)
        self.token_ttl = token_ttl
        # Argon2 is deliberately slow and memory-hard: bounded, and off the event loop.
        self.hashing = hashing or PasswordHashing(workers=2, queue=16, per_peer=4)
        self.seat_offer_seconds = seat_offer_seconds
        #: Set when a seat may have freed (a leave): the offer loop looks at once.
        self.seats_changed = asyncio.Event()

    # --- accounts --------------------------------------------------------------------------

    async def ensure_account(self, username: str, password: str, role: str) -> None:
        """Create an account at start-up if it does not exist (operators, auditors)."""
        if username in self.lobby.state.accounts:
            return
        # Another lobby instance starting with the same accounts may register it first.
        with contextlib.suppress(AlreadyExists):
            await self._register(username, password, role)

    async def _register(
        self, username: str, password: str, role: str, context: Any = None
    ) -> Account:
        try:
            check_username(username)
        except LobbyRuleError as exc:
            raise InvalidArgument(str(exc), reason="BAD_USERNAME", field="username") from None
        try:
            check_rules(password)
        except PasswordError as exc:
            raise InvalidArgument(str(exc), reason="BAD_PASSWORD", field="password") from None
        existing = self.lobby.state.accounts.get(username)
        if existing is not None:
            return await self._registered_before(existing, password, role, context)
        hashed = await self.hashing.run(context, hash_password, password)
        # The caller may have given up while it waited for the hash: then write nothing.
        await abort_if_gone(context, WRITE_MARGIN)
        existing = self.lobby.state.accounts.get(username)  # taken meanwhile?
        if existing is not None:
            return await self._registered_before(existing, password, role, context)
        aggregate_id, event = registration(username, role, hashed)
        try:
            # A name is registered once: its aggregate must be new, whatever this lobby folded.
            await self.lobby.record(aggregate_id, event, expected_version=0)
        except ConcurrencyError:  # registered a moment ago (here, or on another lobby)
            existing = self.lobby.state.accounts[username]
            return await self._registered_before(existing, password, role, context)
        account = self.lobby.state.accounts[username]
        log.info("account_registered", player_id=username, role=role)
        return account

    async def _registered_before(
        self, account: Account, password: str, role: str, context: Any
    ) -> Account:
        """A name that is registered: with its own password (and role) this is a repeat of
        that registration (a retry, perhaps on another lobby, of one whose answer was lost),
        answered as it was; with any other it is taken."""
        ok = await self.hashing.run(context, verify_password, account.password_hash, password)
        if not ok or account.role != role:
            raise AlreadyExists(f"the username {account.username!r} is taken")
        return account

    async def Register(
        self, request: lobby_pb2.RegisterRequest, context: Any
    ) -> lobby_pb2.RegisterResponse:
        """Create a player account."""
        account = await self._register(request.username, request.password, "player", context)
        return lobby_pb2.RegisterResponse(player_id=account.player_id)

    async def Login(self, request: lobby_pb2.LoginRequest, context: Any) -> lobby_pb2.LoginResponse:
        """A signed token for valid credentials; the same answer for any wrong pair."""
        account = self.lobby.state.accounts.get(request.username)
        stored = account.password_hash if account else _DUMMY_HASH
        ok = await self.hashing.run(context, verify_password, stored, request.password)
        if account is None or not ok:
            raise Unauthenticated("wrong username or password", reason="BAD_CREDENTIALS")
        assert account is not None
        # Said only to whoever knows the password: a lock reveals nothing to a guesser.
        _refuse_locked(account)
        now = datetime.now(UTC)
        token = self.issuer.issue(
            account.player_id, account.role, ttl=self.token_ttl, now=now.timestamp()
        )
        expires = datetime.fromtimestamp(int(now.timestamp()) + self.token_ttl, UTC)
        return lobby_pb2.LoginResponse(
            token=token,
            expires_at=_stamp(expires),
            role=account.role,
            player_id=account.player_id,
        )

    # --- operator control of accounts -------------------------------------------------------

    def _account(self, username: str) -> Account:
        account = self.lobby.state.accounts.get(username)
        if account is None:
            raise NotFound(f"no account {username!r}", reason="NO_SUCH_ACCOUNT")
        return account

    async def LockAccount(
        self, request: lobby_pb2.LockAccountRequest, context: Any
    ) -> lobby_pb2.LockAccountResponse:
        """Lock an account: no login, buy-in or waiting list until unlocked (operators)."""
        account = self._account(request.username)
        if account.username == current_identity().subject:
            raise FailedPrecondition(
                "an operator cannot lock their own account", reason="CANNOT_LOCK_SELF"
            )
        if not account.locked:
            await self._record_account(
                account.username,
                "lock",
                lobby_pb2.LobbyEvent(
                    account_locked=lobby_pb2.AccountLocked(
                        username=account.username, reason=request.reason
                    )
                ),
            )
            log.info("account_locked", player_id=account.username, by=current_caller())
        return lobby_pb2.LockAccountResponse(account=self._player(request.username))

    async def UnlockAccount(
        self, request: lobby_pb2.UnlockAccountRequest, context: Any
    ) -> lobby_pb2.UnlockAccountResponse:
        """Unlock an account (operators)."""
        account = self._account(request.username)
        if account.locked:
            await self._record_account(
                account.username,
                "unlock",
                lobby_pb2.LobbyEvent(
                    account_unlocked=lobby_pb2.AccountUnlocked(username=account.username)
                ),
            )
            log.info("account_unlocked", player_id=account.username, by=current_caller())
        return lobby_pb2.UnlockAccountResponse(account=self._player(request.username))

    async def ResetPassword(
        self, request: lobby_pb2.ResetPasswordRequest, context: Any
    ) -> lobby_pb2.ResetPasswordResponse:
        """A new password for an account; the old one stops working at once (operators)."""
        account = self._account(request.username)
        try:
            check_rules(request.new_password)
        except PasswordError as exc:
            raise InvalidArgument(str(exc), reason="BAD_PASSWORD") from None
        hashed = await self.hashing.run(context, hash_password, request.new_password)
        await abort_if_gone(context, WRITE_MARGIN)
        await self._record_account(
            account.username,
            "password",
            lobby_pb2.LobbyEvent(
                password_reset=lobby_pb2.PasswordReset(
                    username=account.username, password_hash=hashed
                )
            ),
        )
        log.info("password_reset", player_id=account.username, by=current_caller())
        return lobby_pb2.ResetPasswordResponse(account=self._player(request.username))

    async def _record_account(self, username: str, what: str, event: lobby_pb2.LobbyEvent) -> None:
        """Append an operator's change to the account's aggregate, with who asked."""
        aggregate_id = f"account-{username}"
        # Unique per change: the version it follows (a retry after a lost answer is a repeat).
        version = self.lobby.aggregate.version(aggregate_id)
        event.request_id = f"{what}-{username}-{version + 1}"
        event.actor = current_caller()
        try:
            await self.lobby.record(aggregate_id, event)
        except ConcurrencyError:  # another lobby changed the account meanwhile: say so
            raise Aborted(
                f"the account {username!r} changed meanwhile; look again and retry",
                reason="ACCOUNT_CHANGED",
            ) from None

    def _player(self, username: str) -> lobby_pb2.PlayerAccount:
        account = self.lobby.state.accounts[username]
        player = lobby_pb2.PlayerAccount(
            username=account.username,
            role=account.role,
            locked=account.locked,
            locked_reason=account.locked_reason,
            locked_by=account.locked_by,
        )
        if account.locked_at is not None:
            player.locked_at.CopyFrom(_stamp(account.locked_at))
        if account.registered_at is not None:
            player.registered_at.CopyFrom(_stamp(account.registered_at))
        return player

    async def ListPlayers(
        self, request: lobby_pb2.ListPlayersRequest, context: Any
    ) -> lobby_pb2.ListPlayersResponse:
        """Player accounts by username with their wallets (operators, auditors)."""
        paged = paging.page_request(
            "ListPlayers",
            {},
            page_size_requested=request.page_size,
            page_token=request.page_token,
            default=20,
            maximum=MAX_PLAYERS_PAGE,
        )
        size = paged.size
        after = paged.cursor if paged.cursor is not None else ""
        if not isinstance(after, str):
            raise InvalidArgument(
                "page_token is not one this lobby gave out", reason=paging.REASON_BAD_PAGE_TOKEN
            )
        players = [a for a in self.lobby.state.players_in_order() if a.username > after]
        page = players[:size]
        balances = await asyncio.gather(
            *(
                self._call(
                    self.settlement.GetBalance(
                        settlement_pb2.GetBalanceRequest(player=a.username),
                        metadata=self.metadata,
                        timeout=5,
                    )
                )
                for a in page
            )
        )
        described = []
        for account, wallet in zip(page, balances, strict=True):
            player = self._player(account.username)
            player.balance, player.reserved, player.at_tables = (
                wallet.balance,
                wallet.reserved,
                wallet.at_tables,
            )
            described.append(player)
        more = len(players) > size
        return lobby_pb2.ListPlayersResponse(
            players=described,
            next_page_token=paged.next_token(page[-1].username if more and page else None),
        )

    # --- tables ----------------------------------------------------------------------------

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Any
    ) -> lobby_pb2.CreateTableResponse:
        """Open a table on the table service and list it.

        The request id names the table (``<template>-<request_id>``); a retry by the same
        caller with the same request returns it, anything else that names an existing table
        is refused (ALREADY_EXISTS).
        """
        request_id = request.request_id
        caller = current_caller()
        key = RequestKey("create_table", caller, request_id)
        fp = fingerprint(request)
        try:
            overrides = MessageToDict(request.overrides) if request.HasField("overrides") else {}
        except ValueError:  # NaN or infinity: a Struct may hold them, JSON may not
            raise InvalidArgument(
                "overrides must be JSON values (no NaN or infinity)", field="overrides"
            ) from None
        # JSON numbers arrive as floats; money and counts are integers.
        overrides = {
            k: int(v) if isinstance(v, float) and v.is_integer() else v
            for k, v in overrides.items()
        }
        template = request.template or "pacific"
        try:
            variant, options = template_options(template, overrides)
        except LobbyRuleError as exc:
            raise _rule_error(exc) from None
        except InvalidOptions as exc:  # the engine's rule is the reason, as at the table
            raise _options_refused(exc, "overrides") from None
        # The template's time bank and dealer's choice settings unless the operator gives
        # their own; the table is opened with them spelled out, so what the lobby lists is
        # what the table applies.
        asked_bank = time_bank_from_pb(request.time_bank) if request.HasField("time_bank") else None
        time_bank = template_time_bank(template, asked_bank)
        try:
            asked = (
                rules_from_pb(request.dealers_choice, edition=RULE_BOOK)
                if request.HasField("dealers_choice")
                else None
            )
            rules = template_rules(template, asked)
        except LobbyRuleError as exc:
            raise InvalidArgument(
                str(exc), reason="NOT_DEALERS_CHOICE", field="dealers_choice"
            ) from None
        except InvalidOptions as exc:
            raise _options_refused(exc, "dealers_choice") from None
        except ValueError as exc:  # game_defaults_json that is no JSON object
            raise InvalidArgument(str(exc), field="dealers_choice.game_defaults_json") from None
        if amount_problem(MIN_BUY_IN_SMALL_BETS * options.small_bet, "the minimum buy-in"):
            raise InvalidArgument(
                f"small_bet is at most {MAX_AMOUNT // MIN_BUY_IN_SMALL_BETS} cents: the minimum "
                f"buy-in ({MIN_BUY_IN_SMALL_BETS} small bets) must stay within {MAX_AMOUNT} cents"
            )
        name = request.name or f"{template} table"
        table_id = f"{template.replace('_', '-')}-{request_id}"[:64]
        listed = self.lobby.state.tables.get(table_id)
        if listed is not None:
            return lobby_pb2.CreateTableResponse(table=await self._created(listed, key, fp))
        action_seconds = request.action_seconds or 30
        await self._call(
            self.tables.call(
                table_id,
                "OpenTable",
                table_pb2.OpenTableRequest(
                    table_id=table_id,
                    name=name,
                    variant=variant,
                    options=options_to_pb(options),
                    action_seconds=action_seconds,
                    # The caller's key in the table's id: another caller's id opens nothing.
                    request_id=derived_id("lobby", caller, request_id),
                    time_bank=time_bank_to_pb(time_bank),
                    dealers_choice=rules_to_pb(rules) if rules is not None else None,
                ),
                metadata=self.metadata,
                timeout=10,
            )
        )
        await self.lobby.record(
            f"table-{table_id}",
            lobby_pb2.LobbyEvent(
                request_id=key.stored(fp),
                table_listed=lobby_pb2.TableListed(
                    table_id=table_id,
                    name=name,
                    template=template,
                    variant=variant,
                    options=options_to_pb(options),
                    action_seconds=action_seconds,
                    time_bank=time_bank_to_pb(time_bank),
                    dealers_choice=rules_to_pb(rules) if rules is not None else None,
                ),
            ),
        )
        log.info("table_created", table_id=table_id, template=template)
        table = self.lobby.state.tables[table_id]
        return lobby_pb2.CreateTableResponse(table=await self._describe(table))

    async def _created(self, listed: ListedTable, key: RequestKey, fp: str) -> lobby_pb2.LobbyTable:
        """A listed table asked for again: the original answer for the same request, else
        ALREADY_EXISTS naming what clashed."""
        parsed = RequestKey.parse(listed.request_key)
        if parsed is None or parsed[0] != key:
            raise AlreadyExists(
                f"table {listed.table_id} exists (another request opened it); choose another "
                "request_id",
                reason="TABLE_EXISTS",
            )
        if parsed[1] != fp:
            clash = RequestClash(key)
            raise AlreadyExists(clash.message, reason=clash.reason)
        return await self._describe(listed)

    async def _view(self, table_id: str) -> tuple[table_pb2.TableView, str]:
        """The table's view, and the address of its owner (the instance that answered)."""
        reply, address = await self._call(
            self.tables.call(
                table_id,
                "GetTableView",
                table_pb2.GetTableViewRequest(table_id=table_id),
                metadata=self.metadata,
                timeout=5,
            )
        )
        view: table_pb2.TableView = reply.view
        return view, address

    async def _describe(self, table: ListedTable) -> lobby_pb2.LobbyTable:
        view, answered = await self._view(table.table_id)
        rules = template_rules(table.template, table.rules)
        return lobby_pb2.LobbyTable(
            table_id=table.table_id,
            name=table.name,
            template=table.template,
            variant=table.variant,
            small_bet=table.options.small_bet,
            big_bet=table.options.big_bet,
            min_buy_in=table.min_buy_in,
            max_buy_in=table.max_buy_in,
            max_players=table.options.max_players,
            seats=[
                lobby_pb2.TakenSeat(seat=s.seat, player=s.player, stack=s.stack) for s in view.seats
            ],
            created_at=_stamp(table.created_at),
            # The lease's word, else whoever answered for the table (the owner, redirect
            # followed; a lone table service without leases).
            owner_address=self.tables.owner_address(table.table_id) or answered,
            waiting_list=self._waiting_pb(table.table_id),
            action_seconds=table.action_seconds,
            # A table listed before the lobby recorded its time bank: the table's own word.
            time_bank=time_bank_to_pb(table.time_bank) if table.time_bank else view.time_bank,
            dealers_choice=_rules_shown(rules, table) if rules is not None else None,
            closed=view.closed,
            closing=view.closing,
            paused=view.paused,
        )

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Any
    ) -> lobby_pb2.ListTablesResponse:
        """A page of tables in creation order (AIP-158 paging: riverboat.paging)."""
        page = paging.page_request(
            "ListTables",
            {},
            page_size_requested=request.page_size,
            page_token=request.page_token,
            default=DEFAULT_TABLE_PAGE,
            maximum=MAX_TABLE_PAGE,
        )
        tables = self.lobby.state.tables_in_order()
        # The cursor is the next page's first table (creation time, id), not a count, so a
        # table opened or closed between pages neither repeats nor skips one.
        keys = [_table_key(t) for t in tables]
        if page.cursor is None:
            start = 0
        elif isinstance(page.cursor, str):
            start = bisect.bisect_left(keys, page.cursor)
        else:
            raise InvalidArgument(
                "page_token is not one this lobby gave out", reason=paging.REASON_BAD_PAGE_TOKEN
            )
        chosen = tables[start : start + page.size]
        described = await asyncio.gather(*(self._describe(t) for t in chosen))
        following = start + page.size
        return lobby_pb2.ListTablesResponse(
            tables=described,
            next_page_token=page.next_token(keys[following] if following < len(keys) else None),
        )

    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Any
    ) -> lobby_pb2.GetTableResponse:
        """One table."""
        table = self.lobby.state.tables.get(request.table_id)
        if table is None:
            raise NotFound(f"no table {request.table_id!r}")
        return lobby_pb2.GetTableResponse(table=await self._describe(table))

    # --- buying in and leaving -------------------------------------------------------------

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Any
    ) -> lobby_pb2.JoinTableResponse:
        """Reserve the buy-in from the wallet, then sit down; undone if seating fails."""
        player = current_identity().subject
        request_id = request.request_id
        _refuse_locked(self.lobby.state.accounts.get(player))
        # One reference per (player, table, request id), unambiguous: see derived_id.
        reference = derived_id("join", player, request.table_id, request_id, readable=player)
        known = self.lobby.state.joins.get(reference)
        if known is not None:
            if known.buy_in != request.buy_in or request.seat not in (0, known.seat):
                clash = RequestClash(RequestKey("join", player, request_id), request.table_id)
                raise AlreadyExists(clash.message, reason=clash.reason)
            if known.status == "completed":
                balance = await self._balance(player)
                owner = self.tables.owner_address(known.table_id)
                return lobby_pb2.JoinTableResponse(
                    seat=known.seat,
                    stack=known.buy_in,
                    balance=balance,
                    owner_address=owner or (await self._view(known.table_id))[1],
                )
            if known.status == "failed":
                raise FailedPrecondition(
                    f"this join failed ({known.reason}); send a new request_id to try again",
                    reason="JOIN_FAILED",
                )
        table = self.lobby.state.tables.get(request.table_id)
        if table is None:
            raise NotFound(f"no table {request.table_id!r}")
        # Everything the request says is checked before anything is written (JoinStarted,
        # the reservation): a refused join leaves no trace.
        seats = table.options.max_players
        if not 0 <= request.seat <= seats:
            raise InvalidArgument(
                f"seats are 1..{seats} at this table (0: the first free seat)",
                reason="BAD_SEAT",
                field="seat",
            )
        if not table.min_buy_in <= request.buy_in <= table.max_buy_in:
            raise InvalidArgument(
                f"buy in for {table.min_buy_in} to {table.max_buy_in} cents at this table",
                reason="BAD_BUY_IN",
                field="buy_in",
            )
        view, _ = await self._view(table.table_id)
        _refuse_closed(view)
        taken = {s.seat for s in view.seats}
        if any(s.player == player for s in view.seats):
            raise FailedPrecondition(f"you already sit at {table.table_id}")
        offered = self._offer_for(table.table_id, player) if known is None else 0
        seat = request.seat or offered
        seat = seat or next((n for n in range(1, seats + 1) if n not in taken), 0)
        if seat == 0 or len(taken) >= table.options.max_players:
            raise FailedPrecondition("the table is full")
        if seat in taken:
            raise FailedPrecondition(f"seat {seat} is taken")
        if known is None:
            # Refused before anything is written; settlement checks again as it reserves.
            await self._check_limits(player, request.buy_in)
            await self._start_join(reference, player, table.table_id, seat, request.buy_in)
        balance, owner = await self._buy_in(reference, table.table_id, seat, request.buy_in)
        log.info("player_joined", player_id=player, table_id=table.table_id, seat=seat)
        if self.lobby.state.waiting_entry(table.table_id, player) is not None:
            with contextlib.suppress(ConcurrencyError):
                await self._record_waiting(table.table_id, player, "seated")
        return lobby_pb2.JoinTableResponse(
            seat=seat,
            stack=request.buy_in,
            balance=balance,
            owner_address=self.tables.owner_address(table.table_id) or owner,
        )

    async def _start_join(
        self, reference: str, player: str, table_id: str, seat: int, amount: int
    ) -> None:
        """Record a buy-in's start (``JoinStarted``), before anything else is done for it."""
        await self.lobby.record(
            reference,
            lobby_pb2.LobbyEvent(
                request_id=f"{reference}-start",
                join_started=lobby_pb2.JoinStarted(
                    reference=reference,
                    player=player,
                    table_id=table_id,
                    seat=seat,
                    buy_in=amount,
                ),
            ),
        )

    async def _buy_in(
        self, reference: str, table_id: str, seat: int, amount: int, *, moved_from: str = ""
    ) -> tuple[int, str]:
        """The rest of a started buy-in: reserve the chips (settlement), seat the player
        (table), record it done; undone (released, ``JoinFailed``) if seating fails. The
        wallet's balance after, and the address of the table's owner."""
        player = self.lobby.state.joins[reference].player
        try:
            reserved = await self._call(
                self.settlement.ReserveBuyIn(
                    settlement_pb2.ReserveBuyInRequest(
                        player=player,
                        table_id=table_id,
                        amount=amount,
                        reference=reference,
                        moved_from=moved_from,
                    ),
                    metadata=self.metadata,
                    timeout=10,
                )
            )
        except FailedPrecondition as exc:  # not enough in the wallet: nothing to undo
            await self._fail_join(reference, str(exc), release=False)
            raise
        try:
            _, owner = await self._call(
                self.tables.call(
                    table_id,
                    "SeatPlayer",
                    table_pb2.SeatPlayerRequest(
                        table_id=table_id,
                        seat=seat,
                        player=player,
                        stack=amount,
                        request_id=reference,
                        buy_in_reference=reference,
                    ),
                    metadata=self.metadata,
                    timeout=10,
                )
            )
        except Exception as exc:
            await self._fail_join(reference, f"could not sit down: {exc}", release=True)
            raise
        await self.lobby.record(
            reference,
            lobby_pb2.LobbyEvent(
                request_id=f"{reference}-done",
                join_completed=lobby_pb2.JoinCompleted(reference=reference, seat=seat),
            ),
        )
        return int(reserved.balance), str(owner)

    async def _check_limits(self, player: str, buy_in: int) -> None:
        """Refuse a buy-in a self-exclusion or buy-in limit forbids (FAILED_PRECONDITION,
        reasons SELF_EXCLUDED, BUY_IN_LIMIT), as settlement would."""
        reply = await self._call(
            self.settlement.GetLimits(
                settlement_pb2.GetLimitsRequest(player=player), metadata=self.metadata, timeout=5
            )
        )
        limits: settlement_pb2.Limits = reply.limits
        if limits.HasField("excluded_until"):
            until = limits.excluded_until.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M UTC")
            raise FailedPrecondition(
                f"you are self-excluded until {until}: no buy-ins before then",
                reason="SELF_EXCLUDED",
            )
        for limit in limits.limits:
            is_buy_in = limit.kind in (
                settlement_pb2.LIMIT_KIND_BUY_IN_DAY,
                settlement_pb2.LIMIT_KIND_BUY_IN_WEEK,
            )
            if is_buy_in and limit.remaining >= 0 and buy_in > limit.remaining:
                window = (
                    "24 hours" if limit.kind == settlement_pb2.LIMIT_KIND_BUY_IN_DAY else "7 days"
                )
                raise FailedPrecondition(
                    f"a buy-in of {dollars(buy_in)} would pass your buy-in limit of "
                    f"{dollars(limit.amount)} per {window} ({dollars(limit.remaining)} left)",
                    reason="BUY_IN_LIMIT",
                )

    async def _fail_join(self, reference: str, reason: str, *, release: bool) -> None:
        join = self.lobby.state.joins[reference]
        if release:
            await self._call(
                self.settlement.ReleaseBuyIn(
                    settlement_pb2.ReleaseBuyInRequest(
                        player=join.player, reference=reference, reason=reason[:200]
                    ),
                    metadata=self.metadata,
                    timeout=10,
                )
            )
        await self.lobby.record(
            reference,
            lobby_pb2.LobbyEvent(
                request_id=f"{reference}-failed",
                join_failed=lobby_pb2.JoinFailed(reference=reference, reason=reason[:200]),
            ),
        )
        log.warning("join_failed", player_id=join.player, table_id=join.table_id, reason=reason)

    async def resolve_pending_joins(self, older_than: float = JOIN_GRACE_SECONDS) -> None:
        """Finish or undo buy-ins a crash interrupted: seated -> completed, else released.

        Only those started ``older_than`` seconds ago or more: a younger one may still be
        under way on another lobby instance (a live join takes three calls of at most 10 s).
        """
        since = datetime.now(UTC) - timedelta(seconds=older_than)
        for join in self.lobby.state.pending_joins(started_before=since):
            try:
                view, _ = await self._view(join.table_id)
            except Exception as exc:  # the table service may not be up yet; try next start
                log.warning("join_unresolved", reference=join.reference, reason=str(exc))
                continue
            seated = next((s for s in view.seats if s.player == join.player), None)
            if seated is not None:
                await self.lobby.record(
                    join.reference,
                    lobby_pb2.LobbyEvent(
                        request_id=f"{join.reference}-done",
                        join_completed=lobby_pb2.JoinCompleted(
                            reference=join.reference, seat=seated.seat
                        ),
                    ),
                )
            else:
                await self._fail_join(join.reference, "interrupted", release=True)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Any
    ) -> lobby_pb2.LeaveTableResponse:
        """Stand up; the chips return to the wallet when the seat is free (settlement)."""
        player = current_identity().subject
        request_id = request.request_id
        if request.table_id not in self.lobby.state.tables:
            raise NotFound(f"no table {request.table_id!r}")
        try:
            # The table finds the player's seat itself (seat 0) and keeps the request id, with
            # the player in it, in its log: a retry gets the original answer, even once the
            # player has gone, and nobody else's leave is ever taken for theirs.
            reply, _ = await self._call(
                self.tables.call(
                    request.table_id,
                    "UnseatPlayer",
                    table_pb2.UnseatPlayerRequest(
                        table_id=request.table_id,
                        seat=0,
                        player=player,
                        request_id=derived_id("leave", player, request_id, readable=player),
                    ),
                    metadata=self.metadata,
                    timeout=10,
                )
            )
        except NotFound:
            raise FailedPrecondition(f"you do not sit at {request.table_id}") from None
        log.info(
            "player_leaving", player_id=player, table_id=request.table_id, pending=reply.pending
        )
        self.seats_changed.set()  # a seat may be free for the waiting list
        return lobby_pb2.LeaveTableResponse(pending=reply.pending, stack=reply.stack)

    # --- moving a player (operators) --------------------------------------------------------

    async def MovePlayer(
        self, request: lobby_pb2.MovePlayerRequest, context: Any
    ) -> lobby_pb2.MovePlayerResponse:
        """Move a seated player, with their chips, to a table of the same game and stakes,
        between hands: they leave ``from_table`` (cashed out, as any leave) and the same chips
        buy them in at ``to_table`` (see lobby.proto)."""
        request_id = request.request_id
        player = request.player
        # One reference per (operator, request id): the leave's request id at the first table
        # and the buy-in's at the second, so a retry finds both.
        reference = derived_id("move", current_caller(), request_id, readable=player)
        known = self.lobby.state.joins.get(reference)
        if known is not None:
            if (known.player, known.table_id) != (player, request.to_table_id) or (
                request.seat not in (0, known.seat)
            ):
                clash = RequestClash(RequestKey("move", current_caller(), request_id), player)
                raise AlreadyExists(clash.message, reason=clash.reason)
            if known.status == "completed":
                return await self._moved(known.table_id, known.seat, known.buy_in)
            if known.status == "failed":
                raise FailedPrecondition(
                    f"this move failed ({known.reason}); {player}'s chips are in their wallet",
                    reason="MOVE_INCOMPLETE",
                )
        self._account(player)
        source = self.lobby.state.tables.get(request.from_table_id)
        target = self.lobby.state.tables.get(request.to_table_id)
        for wanted, listed in ((request.from_table_id, source), (request.to_table_id, target)):
            if listed is None:
                raise NotFound(f"no table {wanted!r}", reason="NO_TABLE")
        assert source is not None and target is not None
        try:
            check_move(source, target)
        except LobbyRuleError as exc:
            reason = "SAME_TABLE" if exc.kind == "invalid" else "STAKES_DIFFER"
            raise _KIND[exc.kind](str(exc), reason=reason) from None
        if known is None:
            seat = await self._target_seat(request, target)
            await self._check_limits(player, 0)  # a self-excluded player is not seated anew
            stack = await self._leave_for_move(reference, source, player)
            await self._start_join(reference, player, target.table_id, seat, stack)
        else:  # a retry of a move interrupted after the player left: the same seat and chips
            seat, stack = known.seat, known.buy_in
        try:
            await self._buy_in(reference, target.table_id, seat, stack, moved_from=source.table_id)
        except ServiceError as exc:
            raise FailedPrecondition(
                f"{player} left {source.table_id} with {dollars(stack)}, but {target.table_id} "
                f"could not seat them ({exc}): the chips are in their wallet",
                reason="MOVE_INCOMPLETE",
            ) from None
        log.info(
            "player_moved",
            player_id=player,
            from_table=source.table_id,
            to_table=target.table_id,
            seat=seat,
            stack=stack,
            by=current_caller(),
        )
        return await self._moved(target.table_id, seat, stack)

    async def _target_seat(self, request: lobby_pb2.MovePlayerRequest, target: ListedTable) -> int:
        """The seat a move takes at ``target``, checked before anything is written."""
        player = request.player
        there, _ = await self._view(target.table_id)
        _refuse_closed(there)
        if any(s.player == player for s in there.seats):
            raise FailedPrecondition(
                f"{player} already sits at {target.table_id}", reason="ALREADY_SEATED"
            )
        line = self.lobby.state.waiting_list(target.table_id)
        held = {s.seat for s in there.seats} | {w.offered_seat for w in line if w.offered_seat}
        seats = target.options.max_players
        if request.seat > seats:
            raise InvalidArgument(
                f"seats are 1..{seats} at {target.table_id} (0: the first free seat)",
                reason="BAD_SEAT",
                field="seat",
            )
        if request.seat and request.seat in held:
            raise FailedPrecondition(
                f"seat {request.seat} at {target.table_id} is taken (or offered to a player "
                "on its waiting list)",
                reason="SEAT_TAKEN",
            )
        seat = request.seat or next((n for n in range(1, seats + 1) if n not in held), 0)
        if not seat:
            raise FailedPrecondition(
                f"{target.table_id} has no free seat (its seats are taken or offered to its "
                "waiting list)",
                reason="TABLE_FULL",
            )
        return seat

    async def _leave_for_move(self, reference: str, source: ListedTable, player: str) -> int:
        """Take ``player`` off ``source`` now (refused while dealt into the hand in play:
        nothing changes) and return the chips they left with. The leave's request id is the
        move's: a retry after a lost answer gets the original leave back."""
        here, _ = await self._view(source.table_id)
        mine = next((s for s in here.seats if s.player == player), None)
        if mine is not None and mine.stack <= 0:
            raise FailedPrecondition(
                f"{player} has no chips at {source.table_id}: nothing to move", reason="NO_CHIPS"
            )
        try:
            # The table refuses a player dealt into the hand in play (IN_HAND), and answers
            # NOT_FOUND for one not seated (unless this very leave took them off before).
            left, _ = await self._call(
                self.tables.call(
                    source.table_id,
                    "UnseatPlayer",
                    table_pb2.UnseatPlayerRequest(
                        table_id=source.table_id,
                        seat=0,
                        player=player,
                        request_id=reference[:64],
                        between_hands=True,
                    ),
                    metadata=self.metadata,
                    timeout=10,
                )
            )
        except NotFound:
            raise FailedPrecondition(
                f"{player} does not sit at {source.table_id}", reason="NOT_SEATED"
            ) from None
        self.seats_changed.set()  # a seat is free for the waiting list
        return int(left.stack)

    async def _moved(self, table_id: str, seat: int, stack: int) -> lobby_pb2.MovePlayerResponse:
        owner = self.tables.owner_address(table_id) or (await self._view(table_id))[1]
        return lobby_pb2.MovePlayerResponse(
            to_table_id=table_id, seat=seat, stack=stack, owner_address=owner
        )

    # --- waiting lists -----------------------------------------------------------------------

    def _waiting_pb(self, table_id: str) -> lobby_pb2.WaitingList:
        out = lobby_pb2.WaitingList(table_id=table_id)
        for entry in self.lobby.state.waiting_list(table_id):
            item = lobby_pb2.Waiting(player=entry.player, offered_seat=entry.offered_seat)
            if entry.joined_at is not None:
                item.joined_at.CopyFrom(_stamp(entry.joined_at))
            if entry.offer_expires_at is not None:
                item.offer_expires_at.CopyFrom(_stamp(entry.offer_expires_at))
            out.waiting.append(item)
        return out

    def _offer_for(self, table_id: str, player: str) -> int:
        """The seat offered to ``player`` at ``table_id`` (0 while nobody waits there).

        While anyone waits for the table only a player holding a live offer may sit down:
        else FAILED_PRECONDITION, reason WAITING_LIST (join the list) or OFFER_EXPIRED.
        """
        line = self.lobby.state.waiting_list(table_id)
        if not line:
            return 0
        mine = self.lobby.state.waiting_entry(table_id, player)
        if mine is None or not mine.offered_seat:
            ahead = len(line) if mine is None else line.index(mine)
            raise FailedPrecondition(
                f"{ahead} player(s) wait for a seat at {table_id}: join the waiting list "
                "(JoinWaitingList) and a seat will be offered to you in turn",
                reason="WAITING_LIST",
            )
        if mine.offer_expires_at is not None and mine.offer_expires_at <= datetime.now(UTC):
            raise FailedPrecondition(
                "the seat offered to you has expired; it goes to the next in line",
                reason="OFFER_EXPIRED",
            )
        return mine.offered_seat

    async def _record_waiting(
        self,
        table_id: str,
        player: str,
        left: str = "",
        *,
        seat: int = 0,
        expires: datetime | None = None,
    ) -> None:
        """Append a waiting-list change to the table's aggregate: joined (no ``left``, no
        ``seat``), left for ``left``, or offered ``seat`` until ``expires``."""
        aggregate_id = f"table-{table_id}"
        version = self.lobby.aggregate.version(aggregate_id)
        event = lobby_pb2.LobbyEvent()
        if seat:
            assert expires is not None
            event.seat_offered.CopyFrom(
                lobby_pb2.SeatOffered(
                    table_id=table_id, player=player, seat=seat, expires_at=_stamp(expires)
                )
            )
            what = f"offer{seat}"
        elif left:
            event.waitlist_left.CopyFrom(
                lobby_pb2.WaitlistLeft(table_id=table_id, player=player, reason=left)
            )
            what = left
        else:
            event.waitlist_joined.CopyFrom(
                lobby_pb2.WaitlistJoined(table_id=table_id, player=player)
            )
            what = "join"
        # Unique per change (the version it follows): a retry after a lost answer is a repeat.
        event.request_id = f"wait-{what}-{player}-{version + 1}"[:120]
        await self.lobby.record(aggregate_id, event)

    async def JoinWaitingList(
        self, request: lobby_pb2.JoinWaitingListRequest, context: Any
    ) -> lobby_pb2.JoinWaitingListResponse:
        """Wait for a seat at a full table (players)."""
        player = current_identity().subject
        table = self.lobby.state.tables.get(request.table_id)
        if table is None:
            raise NotFound(f"no table {request.table_id!r}")
        _refuse_locked(self.lobby.state.accounts.get(player))
        if self.lobby.state.waiting_entry(table.table_id, player) is None:
            line = self.lobby.state.waiting_list(table.table_id)
            view, _ = await self._view(table.table_id)
            _refuse_closed(view)
            if any(s.player == player for s in view.seats):
                raise FailedPrecondition(
                    f"you already sit at {table.table_id}", reason="ALREADY_SEATED"
                )
            if not line and len(view.seats) < table.options.max_players:
                raise FailedPrecondition(
                    f"a seat is free at {table.table_id}: sit down with JoinTable",
                    reason="SEAT_FREE",
                )
            if len(line) >= MAX_WAITING:
                raise FailedPrecondition(
                    f"the waiting list of {table.table_id} is full ({MAX_WAITING} players)",
                    reason="WAITING_LIST_FULL",
                )
            await self._check_limits(player, 0)  # a self-excluded player may not wait either
            for _ in range(3):  # another lobby may change the list at the same moment
                try:
                    await self._record_waiting(table.table_id, player)
                    break
                except ConcurrencyError:
                    if self.lobby.state.waiting_entry(table.table_id, player) is not None:
                        break
            else:
                raise Aborted("the waiting list is busy; retry", reason="WAITING_LIST_BUSY")
            log.info("waiting_list_joined", player_id=player, table_id=table.table_id)
            self.seats_changed.set()
        line = self.lobby.state.waiting_list(table.table_id)
        position = 1 + [w.player for w in line].index(player)
        return lobby_pb2.JoinWaitingListResponse(
            waiting_list=self._waiting_pb(table.table_id), position=position
        )

    async def LeaveWaitingList(
        self, request: lobby_pb2.LeaveWaitingListRequest, context: Any
    ) -> lobby_pb2.LeaveWaitingListResponse:
        """Stop waiting (players); idempotent."""
        player = current_identity().subject
        if request.table_id not in self.lobby.state.tables:
            raise NotFound(f"no table {request.table_id!r}")
        for _ in range(3):
            if self.lobby.state.waiting_entry(request.table_id, player) is None:
                break
            with contextlib.suppress(ConcurrencyError):
                await self._record_waiting(request.table_id, player, "left")
        self.seats_changed.set()  # an offer they held goes to the next
        return lobby_pb2.LeaveWaitingListResponse(waiting_list=self._waiting_pb(request.table_id))

    async def GetWaitingList(
        self, request: lobby_pb2.GetWaitingListRequest, context: Any
    ) -> lobby_pb2.GetWaitingListResponse:
        """A table's waiting list."""
        if request.table_id not in self.lobby.state.tables:
            raise NotFound(f"no table {request.table_id!r}")
        return lobby_pb2.GetWaitingListResponse(waiting_list=self._waiting_pb(request.table_id))

    async def offer_seats(self) -> None:
        """One round: drop expired offers (the seat goes to the next in line), then offer
        every free seat not already offered to the first in line without an offer.

        Every lobby instance runs it; the table aggregate's version makes one of them win each
        change (the others get a conflict and look again next round).
        """
        for table_id in [t for t, line in self.lobby.state.waiting.items() if line]:
            try:
                await self._offer_seats_at(table_id)
            except ConcurrencyError:
                continue  # another lobby changed the list: next round

    async def _offer_seats_at(self, table_id: str) -> None:
        table = self.lobby.state.tables[table_id]
        now = datetime.now(UTC)
        view, _ = await self._view(table_id)
        if view.closed or view.closing:  # no seat will be offered there again
            for entry in list(self.lobby.state.waiting_list(table_id)):
                await self._record_waiting(table_id, entry.player, "table_closed")
            return
        for entry in list(self.lobby.state.waiting_list(table_id)):
            if entry.offer_expires_at is not None and entry.offer_expires_at <= now:
                await self._record_waiting(table_id, entry.player, "offer_expired")
                log.info("seat_offer_expired", player_id=entry.player, table_id=table_id)
        line = self.lobby.state.waiting_list(table_id)
        if not line:
            return
        seated = {s.player for s in view.seats}
        for entry in [w for w in line if w.player in seated]:  # sat down some other way
            await self._record_waiting(table_id, entry.player, "seated")
        line = self.lobby.state.waiting_list(table_id)
        held = {s.seat for s in view.seats} | {w.offered_seat for w in line if w.offered_seat}
        free = [n for n in range(1, table.options.max_players + 1) if n not in held]
        expires = now + timedelta(seconds=self.seat_offer_seconds)
        for entry, seat in zip([w for w in line if not w.offered_seat], free, strict=False):
            await self._record_waiting(table_id, entry.player, seat=seat, expires=expires)
            log.info("seat_offered", player_id=entry.player, table_id=table_id, seat=seat)

    # --- helpers ---------------------------------------------------------------------------

    async def _balance(self, player: str) -> int:
        reply = await self._call(
            self.settlement.GetBalance(
                settlement_pb2.GetBalanceRequest(player=player),
                metadata=self.metadata,
                timeout=5,
            )
        )
        return int(reply.balance)

    async def _call(self, call: Any) -> Any:
        """Await another service's answer, passing its refusals on as ours."""
        try:
            return await call
        except grpc.aio.AioRpcError as exc:
            code, details = exc.code(), exc.details() or ""
            # The machine-readable reason and its facts go along too (REQUEST_ID_REUSED, the
            # engine's rule); the other service's field violations name its fields, not ours.
            info = error_info(exc)
            reason = info.reason if info is not None else None
            meta = dict(info.metadata) if info is not None else None
            passed: dict[grpc.StatusCode, type[ServiceError]] = {
                grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
                grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
                grpc.StatusCode.NOT_FOUND: NotFound,
                grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
                grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
            }
            if code in passed:
                raise passed[code](details, reason=reason, metadata=meta) from None
            delay = no_owner_delay(exc)
            if delay is not None:
                # Nobody alive owns the table for now (its owner died and its lease runs):
                # the reason and when to retry go along, as the table service said them.
                table_id = meta.get("table_id", "") if meta else ""
                raise NoOwner(table_id, retry_delay=delay) from None
            raise Unavailable(f"a service the lobby needs did not answer ({code.name})") from None


def _options_refused(exc: InvalidOptions, field: str) -> InvalidArgument:
    """INVALID_ARGUMENT for options the engine refuses: its rule is the reason, as at the
    table."""
    return InvalidArgument(
        exc.message, reason=exc.rule.upper(), metadata={"rule": exc.rule}, field=field
    )


def _rules_shown(rules: DealersChoiceRules, table: ListedTable) -> events_pb2.DealersChoiceRules:
    """A dealer's choice table's settings as listed: every declarable bound spelled out (an
    unset one is the table's own small or big bet, as the table applies it)."""
    shown = rules_to_pb(rules)
    bounds = rules.limit_bounds(table.options)
    shown.min_small_bet, shown.max_small_bet, shown.min_big_bet, shown.max_big_bet = bounds
    return shown


def _refuse_locked(account: Account | None) -> None:
    """PERMISSION_DENIED, reason ACCOUNT_LOCKED, for an account an operator locked."""
    if account is not None and account.locked:
        raise PermissionDenied(
            f"the account {account.username!r} is locked; ask the card room's operator",
            reason="ACCOUNT_LOCKED",
        )


def _refuse_closed(view: table_pb2.TableView) -> None:
    """FAILED_PRECONDITION, reason TABLE_CLOSED, for a table an operator closed (or is closing
    after the hand in play): nobody sits down there."""
    if view.closed or view.closing:
        raise FailedPrecondition(
            f"{view.table_id} is closed: nobody may sit down there", reason="TABLE_CLOSED"
        )
