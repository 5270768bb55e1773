"""What every part of the lobby's servicer shares: the log, the other services, and the
checks of a request that several RPCs make.

The servicer (:mod:`riverboat.services.lobby.service`) is thin: each RPC is handled by the part
that holds its subject (:mod:`~riverboat.services.lobby.accounts`,
:mod:`~riverboat.services.lobby.listing`, :mod:`~riverboat.services.lobby.seats`,
:mod:`~riverboat.services.lobby.waiting`), each a :class:`LobbyPart` over one
:class:`LobbyContext`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from riverboat.lobby.state import Account
from riverboat.services.common.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ServiceError,
)
from riverboat.services.lobby.log import Lobby
from riverboat.services.lobby.owners import TableServices
from riverboat.services.lobby.ports import table_view
from riverboat.services.lobby.remote import passed_on
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc, table_pb2

__all__ = [
    "RULE_KIND",
    "LobbyContext",
    "LobbyPart",
    "refuse_closed",
    "refuse_locked",
    "stamp",
]

#: The status of each kind of :class:`~riverboat.lobby.state.LobbyRuleError`.
RULE_KIND: dict[str, type[ServiceError]] = {
    "invalid": InvalidArgument,
    "precondition": FailedPrecondition,
    "not_found": NotFound,
    "already_exists": AlreadyExists,
}


@dataclass(slots=True)
class LobbyContext:
    """The lobby's log and its clients of the other services, shared by every part."""

    lobby: Lobby
    tables: TableServices
    settlement: settlement_pb2_grpc.SettlementServiceStub
    #: The lobby's own service token, sent on every call to another service.
    metadata: tuple[tuple[str, str], ...]
    #: Set when a seat may have freed (a leave): the offer loop looks at once.
    seats_changed: asyncio.Event = field(default_factory=asyncio.Event)


class LobbyPart:
    """A part of the servicer: the shared context, and the reads several parts make."""

    def __init__(self, context: LobbyContext) -> None:
        self.context = context
        self.lobby = context.lobby
        self.tables = context.tables
        self.settlement = context.settlement
        self.metadata = context.metadata
        self.seats_changed = context.seats_changed

    def _account(self, username: str) -> Account:
        account = self.lobby.state.accounts.get(username)
        if account is None:
            raise NotFound(f"no account {username!r}", reason="NO_SUCH_ACCOUNT")
        return account

    async def _view(self, table_id: str) -> tuple[table_pb2.TableView, str]:
        """The table's view, and the address of its owner (the instance that answered)."""
        return await table_view(self.tables, table_id, self.metadata)

    async def _balance(self, player: str) -> int:
        reply = await passed_on(
            self.settlement.GetBalance(
                settlement_pb2.GetBalanceRequest(player=player),
                metadata=self.metadata,
                timeout=5,
            )
        )
        return int(reply.balance)

    async def _refuse_excluded(self, player: str) -> None:
        """FAILED_PRECONDITION, reason SELF_EXCLUDED, for a self-excluded player (settlement's
        word): the lobby seats nobody anew by a move, nor puts them on a waiting list, while
        it lasts. (A buy-in is judged by settlement itself: ``Wallets.check``.)"""
        reply = await passed_on(
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


def stamp(when: datetime) -> Timestamp:
    """``when`` as a protobuf Timestamp."""
    ts = Timestamp()
    ts.FromDatetime(when)
    return ts


def refuse_locked(account: Account | None) -> None:
    """PERMISSION_DENIED, reason ACCOUNT_LOCKED, for an account an operator locked."""
    if account is not None and account.locked:
        raise PermissionDenied(
            f"the account {account.username!r} is locked; ask the card room's operator",
            reason="ACCOUNT_LOCKED",
        )


def refuse_closed(view: table_pb2.TableView) -> None:
    """FAILED_PRECONDITION, reason TABLE_CLOSED, for a table an operator closed (or is closing
    after the hand in play): nobody sits down there."""
    if view.closed or view.closing:
        raise FailedPrecondition(
            f"{view.table_id} is closed: nobody may sit down there", reason="TABLE_CLOSED"
        )
