"""``riverboat.v1.LobbyService``: accounts, tables, buy-ins, waiting lists.

Every lobby action is one ``LobbyEvent`` in stream RB_LOBBY, on the subject of its aggregate
(``account-<name>``, ``table-<id>``, ``join-<reference>``), appended with optimistic concurrency;
the lobby's state is rebuilt by replaying them (:mod:`riverboat.services.lobby.log`).

This servicer only routes: each RPC is handled by the part that holds its subject, all over
one :class:`~riverboat.services.lobby.part.LobbyContext`:

- :mod:`~riverboat.services.lobby.accounts`: Register, Login and the operators' account RPCs;
- :mod:`~riverboat.services.lobby.listing`: CreateTable, ListTables, GetTable;
- :mod:`~riverboat.services.lobby.seats`: JoinTable, LeaveTable, MovePlayer, over the seating
  saga (:mod:`riverboat.lobby.seating`: reserve -> seat -> confirm, compensated, recovered);
- :mod:`~riverboat.services.lobby.waiting`: the waiting lists and their seat offers.

A log that does not answer is UNAVAILABLE with "retry with the same request id"
(:func:`~riverboat.services.common.log_error`). An append left without an answer may have been
stored: the lobby reads that aggregate's log again before its next change to it, and a retry
recognised as a repeat folds the original from the log (so it answers as the first try would).
"""

from __future__ import annotations

from typing import Any

from riverboat.auth import TokenIssuer
from riverboat.lobby.seating import Seating
from riverboat.services.common.errors import FailedPrecondition
from riverboat.services.lobby.accounts import Accounts
from riverboat.services.lobby.config import DEFAULT_SEAT_OFFER_SECONDS
from riverboat.services.lobby.hashing import PasswordHashing
from riverboat.services.lobby.listing import TableListing
from riverboat.services.lobby.log import Lobby
from riverboat.services.lobby.owners import TableServices
from riverboat.services.lobby.part import LobbyContext
from riverboat.services.lobby.ports import LogJournal, SettlementWallets, TableSeats
from riverboat.services.lobby.seats import JOIN_GRACE_SECONDS, Seats
from riverboat.services.lobby.waiting import WaitingLists
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc, settlement_pb2_grpc

__all__ = ["JOIN_GRACE_SECONDS", "RULES", "LobbyService"]

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


class LobbyService(lobby_pb2_grpc.LobbyServiceServicer):
    """The servicer: each RPC handed to the part that holds its subject."""

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
        context = LobbyContext(
            lobby, tables, settlement, (("authorization", f"Bearer {service_token}"),)
        )
        self.lobby = lobby
        #: Set when a seat may have freed (a leave): the offer loop looks at once.
        self.seats_changed = context.seats_changed
        #: The buy-in / move / cash-out saga, over the settlement and table services.
        self.seating = Seating(
            SettlementWallets(settlement, context.metadata),
            TableSeats(tables, context.metadata, context.seats_changed),
            LogJournal(lobby),
            refusal=FailedPrecondition,
        )
        self.accounts = Accounts(
            context,
            issuer,
            token_ttl=token_ttl,
            hashing=hashing or PasswordHashing(workers=2, queue=16, per_peer=4),
        )
        self.waiting = WaitingLists(context, seat_offer_seconds=seat_offer_seconds)
        self.listing = TableListing(context, self.waiting)
        self.seats = Seats(context, self.seating, self.waiting)

    async def ensure_account(self, username: str, password: str, role: str) -> None:
        """Create an account at start-up if it does not exist (operators, auditors)."""
        await self.accounts.ensure_account(username, password, role)

    async def resolve_pending_joins(self, older_than: float = JOIN_GRACE_SECONDS) -> None:
        """Finish or undo buy-ins a crash interrupted (those ``older_than`` seconds or more)."""
        await self.seats.resolve_pending_joins(older_than)

    async def offer_seats(self) -> None:
        """One round of the waiting lists' offers."""
        await self.waiting.offer_seats()

    # --- accounts ----------------------------------------------------------------------------

    async def Register(
        self, request: lobby_pb2.RegisterRequest, context: Any
    ) -> lobby_pb2.RegisterResponse:
        """Create a player account."""
        return await self.accounts.Register(request, context)

    async def Login(self, request: lobby_pb2.LoginRequest, context: Any) -> lobby_pb2.LoginResponse:
        """A signed token for valid credentials; the same answer for any wrong pair."""
        return await self.accounts.Login(request, context)

    async def LockAccount(
        self, request: lobby_pb2.LockAccountRequest, context: Any
    ) -> lobby_pb2.LockAccountResponse:
        """Lock an account (operators)."""
        return await self.accounts.LockAccount(request, context)

    async def UnlockAccount(
        self, request: lobby_pb2.UnlockAccountRequest, context: Any
    ) -> lobby_pb2.UnlockAccountResponse:
        """Unlock an account (operators)."""
        return await self.accounts.UnlockAccount(request, context)

    async def ResetPassword(
        self, request: lobby_pb2.ResetPasswordRequest, context: Any
    ) -> lobby_pb2.ResetPasswordResponse:
        """A new password for an account (operators)."""
        return await self.accounts.ResetPassword(request, context)

    async def ListPlayers(
        self, request: lobby_pb2.ListPlayersRequest, context: Any
    ) -> lobby_pb2.ListPlayersResponse:
        """Player accounts with their wallets (operators, auditors)."""
        return await self.accounts.ListPlayers(request, context)

    # --- tables ------------------------------------------------------------------------------

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Any
    ) -> lobby_pb2.CreateTableResponse:
        """Open a table on the table service and list it."""
        return await self.listing.CreateTable(request, context)

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Any
    ) -> lobby_pb2.ListTablesResponse:
        """A page of tables in creation order."""
        return await self.listing.ListTables(request, context)

    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Any
    ) -> lobby_pb2.GetTableResponse:
        """One table."""
        return await self.listing.GetTable(request, context)

    # --- seats -------------------------------------------------------------------------------

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Any
    ) -> lobby_pb2.JoinTableResponse:
        """Buy in and sit down (the seating saga)."""
        return await self.seats.JoinTable(request, context)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Any
    ) -> lobby_pb2.LeaveTableResponse:
        """Stand up; the chips return to the wallet when the seat is free."""
        return await self.seats.LeaveTable(request, context)

    async def MovePlayer(
        self, request: lobby_pb2.MovePlayerRequest, context: Any
    ) -> lobby_pb2.MovePlayerResponse:
        """Move a seated player and their chips to a table of the same game (operators)."""
        return await self.seats.MovePlayer(request, context)

    # --- waiting lists -----------------------------------------------------------------------

    async def JoinWaitingList(
        self, request: lobby_pb2.JoinWaitingListRequest, context: Any
    ) -> lobby_pb2.JoinWaitingListResponse:
        """Wait for a seat at a full table (players)."""
        return await self.waiting.JoinWaitingList(request, context)

    async def LeaveWaitingList(
        self, request: lobby_pb2.LeaveWaitingListRequest, context: Any
    ) -> lobby_pb2.LeaveWaitingListResponse:
        """Stop waiting (players); idempotent."""
        return await self.waiting.LeaveWaitingList(request, context)

    async def GetWaitingList(
        self, request: lobby_pb2.GetWaitingListRequest, context: Any
    ) -> lobby_pb2.GetWaitingListResponse:
        """A table's waiting list."""
        return await self.waiting.GetWaitingList(request, context)
