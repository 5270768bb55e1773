"""Accounts: registering, logging in, and the operators' control of accounts (lock, unlock,
reset a password, list players with their wallets).

Each change is a record on the account's aggregate (``account-<name>``); a name is registered
once (its aggregate must be new, whatever this lobby folded). Argon2id hashing runs off the
event loop, bounded (:mod:`riverboat.services.lobby.hashing`).
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime
from typing import Any

import structlog

from riverboat import paging
from riverboat.auth import PasswordError, TokenIssuer, hash_password, verify_password
from riverboat.auth.passwords import check_rules
from riverboat.eventstore import ConcurrencyError
from riverboat.lobby.aggregate import registration
from riverboat.lobby.state import (
    Account,
    LobbyRuleError,
    check_username,
)
from riverboat.services.common.auth import current_caller, current_identity
from riverboat.services.common.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    Unauthenticated,
)
from riverboat.services.lobby.hashing import WRITE_MARGIN, PasswordHashing, abort_if_gone
from riverboat.services.lobby.part import (
    LobbyContext,
    LobbyPart,
    refuse_locked,
    stamp,
)
from riverboat.services.lobby.remote import passed_on
from riverboat.v1 import lobby_pb2, settlement_pb2

log = structlog.get_logger("riverboat.lobby")

__all__ = ["MAX_PLAYERS_PAGE", "Accounts"]

#: Largest ListPlayers page; a larger page_size is reduced to it (AIP-158).
MAX_PLAYERS_PAGE = 100
# A well-formed hash to verify against when the username is unknown, so a failed login takes
# the same time either way (no account enumeration by timing).
_DUMMY_HASH = hash_password("not-a-real-password-0000")


class Accounts(LobbyPart):
    """Register, Login and the operators' account RPCs."""

    def __init__(
        self,
        context: LobbyContext,
        issuer: TokenIssuer,
        *,
        token_ttl: int,
        hashing: PasswordHashing,
    ) -> None:
        super().__init__(context)
        self.issuer = issuer
        self.token_ttl = token_ttl
        # Argon2 is deliberately slow and memory-hard: bounded, and off the event loop.
        self.hashing = hashing

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
        refuse_locked(account)
        now = datetime.now(UTC)
        token = self.issuer.issue(
            account.player_id, account.role, ttl=self.token_ttl, now=now.timestamp()
        )
        expires = datetime.fromtimestamp(int(now.timestamp()) + self.token_ttl, UTC)
        return lobby_pb2.LoginResponse(
            token=token,
            expires_at=stamp(expires),
            role=account.role,
            player_id=account.player_id,
        )

    # --- operator control of accounts -------------------------------------------------------

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
            player.locked_at.CopyFrom(stamp(account.locked_at))
        if account.registered_at is not None:
            player.registered_at.CopyFrom(stamp(account.registered_at))
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
                passed_on(
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
