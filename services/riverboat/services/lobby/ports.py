"""The seating saga's ports (:mod:`riverboat.lobby.seating`) over the real services: the
wallets at the settlement service, the tables at their owners, the journal in the lobby's log.

Each adapter only translates: the owner of a rule decides it and its refusal is passed on
with its status and details (:func:`~riverboat.services.lobby.remote.passed_on`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog

from riverboat.lobby.seating import Unseated
from riverboat.lobby.state import Join
from riverboat.services.lobby.log import Lobby
from riverboat.services.lobby.owners import TableServices
from riverboat.services.lobby.remote import passed_on
from riverboat.v1 import lobby_pb2, settlement_pb2, settlement_pb2_grpc, table_pb2

__all__ = ["LogJournal", "SettlementWallets", "TableSeats", "table_view"]

log = structlog.get_logger("riverboat.lobby")

Metadata = Sequence[tuple[str, str]]
#: Seconds each step of the saga may take (a live buy-in is three such calls at most).
STEP_SECONDS = 10


class SettlementWallets:
    """:class:`~riverboat.lobby.seating.Wallets` at the settlement service."""

    def __init__(self, settlement: settlement_pb2_grpc.SettlementServiceStub, metadata: Metadata):
        self.settlement = settlement
        self.metadata = tuple(metadata)

    async def reserve(
        self, player: str, table_id: str, amount: int, reference: str, *, moved_from: str
    ) -> int:
        """``ReserveBuyIn``; the wallet's balance after."""
        reserved = await passed_on(
            self.settlement.ReserveBuyIn(
                settlement_pb2.ReserveBuyInRequest(
                    player=player,
                    table_id=table_id,
                    amount=amount,
                    reference=reference,
                    moved_from=moved_from,
                ),
                metadata=self.metadata,
                timeout=STEP_SECONDS,
            )
        )
        return int(reserved.balance)

    async def check(self, player: str, table_id: str, amount: int, reference: str) -> None:
        """``ReserveBuyIn`` with ``validate_only``: settlement's refusal (funds, limits,
        self-exclusion), passed on as it said it; nothing is reserved."""
        await passed_on(
            self.settlement.ReserveBuyIn(
                settlement_pb2.ReserveBuyInRequest(
                    player=player,
                    table_id=table_id,
                    amount=amount,
                    reference=reference,
                    validate_only=True,
                ),
                metadata=self.metadata,
                timeout=STEP_SECONDS,
            )
        )

    async def release(self, player: str, reference: str, reason: str) -> None:
        """``ReleaseBuyIn``."""
        await passed_on(
            self.settlement.ReleaseBuyIn(
                settlement_pb2.ReleaseBuyInRequest(
                    player=player, reference=reference, reason=reason
                ),
                metadata=self.metadata,
                timeout=STEP_SECONDS,
            )
        )


async def table_view(
    tables: TableServices, table_id: str, metadata: Metadata
) -> tuple[table_pb2.TableView, str]:
    """The table's view, and the address of its owner (the instance that answered)."""
    reply, address = await passed_on(
        tables.call(
            table_id,
            "GetTableView",
            table_pb2.GetTableViewRequest(table_id=table_id),
            metadata=metadata,
            timeout=5,
        )
    )
    view: table_pb2.TableView = reply.view
    return view, str(address)


class TableSeats:
    """:class:`~riverboat.lobby.seating.Tables` at each table's owner.

    ``seats_changed`` is set after every stand-up: a seat may be free for the waiting list.
    """

    def __init__(
        self, tables: TableServices, metadata: Metadata, seats_changed: asyncio.Event
    ) -> None:
        self.tables = tables
        self.metadata = tuple(metadata)
        self.seats_changed = seats_changed

    async def seat(self, table_id: str, seat: int, player: str, stack: int, reference: str) -> str:
        """``SeatPlayer`` with the buy-in's reference (which the table's ``PlayerSeated``
        carries, for the ledger); the owner's address."""
        _, owner = await passed_on(
            self.tables.call(
                table_id,
                "SeatPlayer",
                table_pb2.SeatPlayerRequest(
                    table_id=table_id,
                    seat=seat,
                    player=player,
                    stack=stack,
                    request_id=reference,
                    buy_in_reference=reference,
                ),
                metadata=self.metadata,
                timeout=STEP_SECONDS,
            )
        )
        return str(owner)

    async def unseat(
        self, table_id: str, player: str, request_id: str, *, between_hands: bool
    ) -> Unseated:
        """``UnseatPlayer`` by name (the table finds the seat itself, seat 0), keeping the
        request id in its log: a retry gets the original answer, even once the player left."""
        reply, _ = await passed_on(
            self.tables.call(
                table_id,
                "UnseatPlayer",
                table_pb2.UnseatPlayerRequest(
                    table_id=table_id,
                    seat=0,
                    player=player,
                    request_id=request_id,
                    between_hands=between_hands,
                ),
                metadata=self.metadata,
                timeout=STEP_SECONDS,
            )
        )
        self.seats_changed.set()
        return Unseated(pending=bool(reply.pending), stack=int(reply.stack))

    async def seat_of(self, table_id: str, player: str) -> int | None:
        """The player's seat in the table's view (None: not seated)."""
        view, _ = await table_view(self.tables, table_id, self.metadata)
        return next((s.seat for s in view.seats if s.player == player), None)


class LogJournal:
    """:class:`~riverboat.lobby.seating.Journal` in the lobby's log, one ``join-<reference>``
    aggregate per buy-in; each record's request id is the reference and its step, so a record
    repeated (a retry, another lobby recovering it) is one record."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def started(self, join: Join) -> None:
        """``JoinStarted``."""
        await self.lobby.record(
            join.reference,
            lobby_pb2.LobbyEvent(
                request_id=f"{join.reference}-start",
                join_started=lobby_pb2.JoinStarted(
                    reference=join.reference,
                    player=join.player,
                    table_id=join.table_id,
                    seat=join.seat,
                    buy_in=join.buy_in,
                ),
            ),
        )

    async def completed(self, reference: str, seat: int) -> None:
        """``JoinCompleted``."""
        await self.lobby.record(
            reference,
            lobby_pb2.LobbyEvent(
                request_id=f"{reference}-done",
                join_completed=lobby_pb2.JoinCompleted(reference=reference, seat=seat),
            ),
        )

    async def failed(self, reference: str, reason: str) -> None:
        """``JoinFailed``."""
        await self.lobby.record(
            reference,
            lobby_pb2.LobbyEvent(
                request_id=f"{reference}-failed",
                join_failed=lobby_pb2.JoinFailed(reference=reference, reason=reason),
            ),
        )
        join = self.lobby.state.joins[reference]
        log.warning("join_failed", player_id=join.player, table_id=join.table_id, reason=reason)
