"""Sitting down, standing up and being moved: the handlers of ``JoinTable``, ``LeaveTable`` and
``MovePlayer``, over the seating saga (:mod:`riverboat.lobby.seating`) and its ports
(:mod:`riverboat.services.lobby.ports`).

The handlers check what the request says and choose the seat (the waiting list's offers are
the lobby's), before anything is written; the saga then runs the steps and their compensation.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from riverboat.eventstore import ConcurrencyError
from riverboat.handtext import dollars
from riverboat.idempotency import RequestClash, RequestKey, derived_id
from riverboat.lobby.seating import MoveIncomplete, Seating
from riverboat.lobby.state import (
    Join,
    ListedTable,
    LobbyRuleError,
    check_move,
)
from riverboat.services.common.auth import current_caller, current_identity
from riverboat.services.common.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ServiceError,
)
from riverboat.services.lobby.part import (
    RULE_KIND,
    LobbyContext,
    LobbyPart,
    refuse_closed,
    refuse_locked,
)
from riverboat.services.lobby.waiting import WaitingLists
from riverboat.v1 import lobby_pb2

log = structlog.get_logger("riverboat.lobby")

__all__ = ["JOIN_GRACE_SECONDS", "Seats"]

#: A buy-in still "started" after this long was interrupted (its lobby crashed): resolve it.
JOIN_GRACE_SECONDS = 60.0


class Seats(LobbyPart):
    """JoinTable, LeaveTable, MovePlayer, and the recovery of interrupted buy-ins."""

    def __init__(self, context: LobbyContext, seating: Seating, waiting: WaitingLists) -> None:
        super().__init__(context)
        self.seating = seating
        self.waiting = waiting

    # --- buying in and leaving -------------------------------------------------------------

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Any
    ) -> lobby_pb2.JoinTableResponse:
        """Reserve the buy-in from the wallet, then sit down; undone if seating fails."""
        player = current_identity().subject
        request_id = request.request_id
        refuse_locked(self.lobby.state.accounts.get(player))
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
        refuse_closed(view)
        taken = {s.seat for s in view.seats}
        if any(s.player == player for s in view.seats):
            raise FailedPrecondition(f"you already sit at {table.table_id}")
        offered = self.waiting.offer_for(table.table_id, player) if known is None else 0
        seat = request.seat or offered
        seat = seat or next((n for n in range(1, seats + 1) if n not in taken), 0)
        if seat == 0 or len(taken) >= table.options.max_players:
            raise FailedPrecondition("the table is full")
        if seat in taken:
            raise FailedPrecondition(f"seat {seat} is taken")
        join = Join(reference, player, table.table_id, seat, request.buy_in)
        if known is None:
            # Settlement judges funds and limits before anything is written.
            seated = await self.seating.join(join)
        else:  # a retry of a join left started: the saga resumes
            seated = await self.seating.buy_in(join)
        log.info("player_joined", player_id=player, table_id=table.table_id, seat=seat)
        if self.lobby.state.waiting_entry(table.table_id, player) is not None:
            with contextlib.suppress(ConcurrencyError):
                await self.waiting.record(table.table_id, player, "seated")
        return lobby_pb2.JoinTableResponse(
            seat=seat,
            stack=request.buy_in,
            balance=seated.balance,
            owner_address=self.tables.owner_address(table.table_id) or seated.owner_address,
        )

    async def resolve_pending_joins(self, older_than: float = JOIN_GRACE_SECONDS) -> None:
        """Finish or undo buy-ins a crash interrupted: seated -> completed, else released.

        Only those started ``older_than`` seconds ago or more: a younger one may still be
        under way on another lobby instance (a live join takes three calls of at most 10 s).
        """
        since = datetime.now(UTC) - timedelta(seconds=older_than)
        pending = self.lobby.state.pending_joins(started_before=since)
        for join, exc in await self.seating.recover(pending):
            # The table service may not be up yet: tried again next round.
            log.warning("join_unresolved", reference=join.reference, reason=str(exc))

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Any
    ) -> lobby_pb2.LeaveTableResponse:
        """Stand up; the chips return to the wallet when the seat is free (settlement)."""
        player = current_identity().subject
        request_id = request.request_id
        if request.table_id not in self.lobby.state.tables:
            raise NotFound(f"no table {request.table_id!r}")
        try:
            # The request id, with the player in it, is kept in the table's log: a retry gets
            # the original answer, even once the player has gone, and nobody else's leave is
            # ever taken for theirs.
            left = await self.seating.leave(
                request.table_id,
                player,
                derived_id("leave", player, request_id, readable=player),
            )
        except NotFound:
            raise FailedPrecondition(f"you do not sit at {request.table_id}") from None
        log.info(
            "player_leaving", player_id=player, table_id=request.table_id, pending=left.pending
        )
        return lobby_pb2.LeaveTableResponse(pending=left.pending, stack=left.stack)

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
            raise RULE_KIND[exc.kind](str(exc), reason=reason) from None
        try:
            if known is None:
                seat = await self._target_seat(request, target)
                await self._refuse_excluded(player)  # not seated anew by a move
                await self._refuse_no_chips(source.table_id, player)
                try:
                    seated = await self.seating.move(
                        Join(reference, player, target.table_id, seat, 0), source=source.table_id
                    )
                except NotFound:  # the table answers NOT_FOUND for a player not seated
                    raise FailedPrecondition(
                        f"{player} does not sit at {source.table_id}", reason="NOT_SEATED"
                    ) from None
            else:  # a retry of a move interrupted after the player left: the same seat and chips
                seated = await self.seating.resume_move(known, source=source.table_id)
        except MoveIncomplete as exc:
            if not isinstance(exc.cause, ServiceError):
                raise exc.cause from None
            raise FailedPrecondition(
                f"{player} left {source.table_id} with {dollars(exc.stack)}, but "
                f"{target.table_id} could not seat them ({exc.cause}): the chips are in their "
                "wallet",
                reason="MOVE_INCOMPLETE",
            ) from None
        log.info(
            "player_moved",
            player_id=player,
            from_table=source.table_id,
            to_table=target.table_id,
            seat=seated.seat,
            stack=seated.stack,
            by=current_caller(),
        )
        return await self._moved(target.table_id, seated.seat, seated.stack)

    async def _target_seat(self, request: lobby_pb2.MovePlayerRequest, target: ListedTable) -> int:
        """The seat a move takes at ``target``, checked before anything is written."""
        player = request.player
        there, _ = await self._view(target.table_id)
        refuse_closed(there)
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

    async def _refuse_no_chips(self, table_id: str, player: str) -> None:
        """FAILED_PRECONDITION, reason NO_CHIPS, for a player seated without chips."""
        here, _ = await self._view(table_id)
        mine = next((s for s in here.seats if s.player == player), None)
        if mine is not None and mine.stack <= 0:
            raise FailedPrecondition(
                f"{player} has no chips at {table_id}: nothing to move", reason="NO_CHIPS"
            )

    async def _moved(self, table_id: str, seat: int, stack: int) -> lobby_pb2.MovePlayerResponse:
        owner = self.tables.owner_address(table_id) or (await self._view(table_id))[1]
        return lobby_pb2.MovePlayerResponse(
            to_table_id=table_id, seat=seat, stack=stack, owner_address=owner
        )
