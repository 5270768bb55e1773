"""Waiting lists: joining and leaving one, and the offers of free seats to the first in line
(every lobby instance runs them; the table aggregate's version makes one of them win each
change).
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from riverboat.eventstore import ConcurrencyError
from riverboat.services.common.auth import current_identity
from riverboat.services.common.errors import (
    Aborted,
    FailedPrecondition,
    NotFound,
)
from riverboat.services.lobby.part import (
    LobbyContext,
    LobbyPart,
    refuse_closed,
    refuse_locked,
    stamp,
)
from riverboat.v1 import lobby_pb2

log = structlog.get_logger("riverboat.lobby")

__all__ = ["MAX_WAITING", "WaitingLists"]

#: Players one table's waiting list holds at most.
MAX_WAITING = 50


class WaitingLists(LobbyPart):
    """JoinWaitingList, LeaveWaitingList, GetWaitingList and the offer rounds."""

    def __init__(self, context: LobbyContext, *, seat_offer_seconds: float) -> None:
        super().__init__(context)
        self.seat_offer_seconds = seat_offer_seconds

    # --- waiting lists -----------------------------------------------------------------------

    def waiting_pb(self, table_id: str) -> lobby_pb2.WaitingList:
        out = lobby_pb2.WaitingList(table_id=table_id)
        for entry in self.lobby.state.waiting_list(table_id):
            item = lobby_pb2.Waiting(player=entry.player, offered_seat=entry.offered_seat)
            if entry.joined_at is not None:
                item.joined_at.CopyFrom(stamp(entry.joined_at))
            if entry.offer_expires_at is not None:
                item.offer_expires_at.CopyFrom(stamp(entry.offer_expires_at))
            out.waiting.append(item)
        return out

    def offer_for(self, table_id: str, player: str) -> int:
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

    async def record(
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
                    table_id=table_id, player=player, seat=seat, expires_at=stamp(expires)
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
        refuse_locked(self.lobby.state.accounts.get(player))
        if self.lobby.state.waiting_entry(table.table_id, player) is None:
            line = self.lobby.state.waiting_list(table.table_id)
            view, _ = await self._view(table.table_id)
            refuse_closed(view)
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
            await self._refuse_excluded(player)  # a self-excluded player may not wait either
            for _ in range(3):  # another lobby may change the list at the same moment
                try:
                    await self.record(table.table_id, player)
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
            waiting_list=self.waiting_pb(table.table_id), position=position
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
                await self.record(request.table_id, player, "left")
        self.seats_changed.set()  # an offer they held goes to the next
        return lobby_pb2.LeaveWaitingListResponse(waiting_list=self.waiting_pb(request.table_id))

    async def GetWaitingList(
        self, request: lobby_pb2.GetWaitingListRequest, context: Any
    ) -> lobby_pb2.GetWaitingListResponse:
        """A table's waiting list."""
        if request.table_id not in self.lobby.state.tables:
            raise NotFound(f"no table {request.table_id!r}")
        return lobby_pb2.GetWaitingListResponse(waiting_list=self.waiting_pb(request.table_id))

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
                await self.record(table_id, entry.player, "table_closed")
            return
        for entry in list(self.lobby.state.waiting_list(table_id)):
            if entry.offer_expires_at is not None and entry.offer_expires_at <= now:
                await self.record(table_id, entry.player, "offer_expired")
                log.info("seat_offer_expired", player_id=entry.player, table_id=table_id)
        line = self.lobby.state.waiting_list(table_id)
        if not line:
            return
        seated = {s.player for s in view.seats}
        for entry in [w for w in line if w.player in seated]:  # sat down some other way
            await self.record(table_id, entry.player, "seated")
        line = self.lobby.state.waiting_list(table_id)
        held = {s.seat for s in view.seats} | {w.offered_seat for w in line if w.offered_seat}
        free = [n for n in range(1, table.options.max_players + 1) if n not in held]
        expires = now + timedelta(seconds=self.seat_offer_seconds)
        for entry, seat in zip([w for w in line if not w.offered_seat], free, strict=False):
            await self.record(table_id, entry.player, seat=seat, expires=expires)
            log.info("seat_offered", player_id=entry.player, table_id=table_id, seat=seat)
