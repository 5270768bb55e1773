"""The ``riverboat.v1.TableService`` gRPC servicer.

Errors map to precise statuses and plain sentences, never a traceback: INVALID_ARGUMENT for
malformed requests, FAILED_PRECONDITION for illegal moves (with the engine's reason), ABORTED
for a lost concurrency race, NOT_FOUND, ALREADY_EXISTS, UNAUTHENTICATED and PERMISSION_DENIED.
Nothing is written when a request is refused. A log that does not answer (a NATS outage) is
UNAVAILABLE with "retry with the same request id" (:func:`~riverboat.services.common.log_error`):
the retry returns the original result if the change landed after all.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, NoReturn

import grpc
import structlog

from riverboat.engine.cards import parse_card
from riverboat.engine.commands import Act
from riverboat.engine.errors import EngineError, InvalidCommand, InvalidOptions
from riverboat.engine.game_options import RULE_BOOK
from riverboat.engine.money import amount_problem
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.eventstore import ConcurrencyError, EventStoreError
from riverboat.idempotency import RequestClash, RequestKey, fingerprint
from riverboat.services.common.auth import current_caller, current_identity
from riverboat.services.common.errors import (
    Aborted,
    AlreadyExists,
    InvalidArgument,
    MessageOutcomes,
    NotFound,
    OutOfRange,
    PermissionDenied,
    ServiceError,
    Unavailable,
    error_for_code,
    log_error,
)
from riverboat.services.common.limits import admit_message
from riverboat.services.common.validation import check_request
from riverboat.services.table.dealer_client import DealerUnavailable
from riverboat.services.table.histories import HandHistories
from riverboat.services.table.mailbox import Mailbox
from riverboat.services.table.registry import TableRegistry
from riverboat.services.table.runner import (
    WATCH_BACKLOG,
    Deciding,
    LeaseNotHeld,
    Submitted,
    TableRunner,
    Update,
)
from riverboat.services.table.viewpb import TableViews, struct_to_dict
from riverboat.settingscodec import options_from_pb, rules_from_pb, time_bank_from_pb
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import COMMIT_SEED, DEALERS_CHOICE, SEED, TableError
from riverboat.table.events import DEFAULT_TIME_BANK, AnyEvent
from riverboat.table.views import viewer_seat
from riverboat.v1 import table_pb2, table_pb2_grpc

log = structlog.get_logger("riverboat.table")

Ctx = grpc.aio.ServicerContext[Any, Any]

#: Who may call what; everything else (views, watching) is open to any valid token.
RULES = {
    "OpenTable": {"operator", "service"},
    "SeatPlayer": {"operator", "service"},
    "UnseatPlayer": {"operator", "service"},
    "CloseTable": {"operator", "service"},
    "PauseTable": {"operator", "service"},
    "ResumeTable": {"operator", "service"},
    "Act": {"player"},
    "Play": {"player"},
    "SitOut": {"player"},
    "SitIn": {"player"},
    "ListHands": {"player", "operator", "auditor"},
    "GetHandHistory": {"player", "operator", "auditor"},
}
#: The actions of Play streams, recorded and logged as calls of their own.
_PLAY_ACTS = MessageOutcomes("/riverboat.v1.TableService/Play", "Act", quiet=True)

_STATUS = {
    "not_found": grpc.StatusCode.NOT_FOUND,
    "already_exists": grpc.StatusCode.ALREADY_EXISTS,
    "invalid": grpc.StatusCode.INVALID_ARGUMENT,
    "precondition": grpc.StatusCode.FAILED_PRECONDITION,
}


def _viewer() -> str | None:
    """The caller's player id when a player calls; operators and auditors watch as observers."""
    identity = current_identity()
    return identity.subject if identity.role == "player" else None


async def _fail(
    context: Ctx, code: grpc.StatusCode, msg: str, *, field: str | None = None
) -> NoReturn:
    # Through the one error mapping (common.errors), which also caps echoed input.
    raise error_for_code(code, msg, field=field)


def _refused(code: grpc.StatusCode, exc: EngineError) -> ServiceError:
    """A command the engine or the table refused: its rule is the reason (upper-cased, as
    ErrorInfo reasons are) and, as written, the ``rule`` metadata."""
    return error_for_code(code, exc.message, reason=exc.rule.upper(), metadata={"rule": exc.rule})


class TableService(table_pb2_grpc.TableServiceServicer):
    """Serves tables from a :class:`TableRegistry`."""

    def __init__(self, registry: TableRegistry) -> None:
        self.registry = registry
        self._views: dict[str, TableViews] = {}
        self.histories = HandHistories(registry.store)

    # --- helpers ---------------------------------------------------------------------------

    async def _runner(self, context: Ctx, table_id: str, *, create: bool = False) -> TableRunner:
        try:
            runner = await self.registry.get(table_id, create=create)
        except EventStoreError as exc:  # the table is read from the log on first use
            raise log_error(exc, "the table") from None
        if runner is None:
            raise NotFound(
                f"no table {table_id}", reason="NO_TABLE", metadata={"table_id": table_id}
            )
        return runner

    def _table_views(self, runner: TableRunner) -> TableViews:
        views = self._views.get(runner.table_id)
        if views is None:
            views = self._views[runner.table_id] = TableViews(runner.table_id)
        views.proofs = runner.proofs
        views.deal_indices = runner.deal_indices
        return views

    def _view(self, runner: TableRunner, viewer: str | None) -> table_pb2.TableView:
        """The table now as ``viewer`` sees it (shared message: copy, never change)."""
        seat = viewer_seat(runner.state, viewer)
        return self._table_views(runner).view(runner.state, runner.version, seat)

    async def _run(
        self,
        context: Ctx,
        runner: TableRunner,
        decide: Deciding,
        *,
        request_id: str,
        actor: str,
        kind: str,
        request: Any,
        hand_action: bool = False,
    ) -> Submitted:
        """Submit ``decide`` as ``actor``'s ``kind`` command with ``request``'s id and
        fingerprint (riverboat.idempotency); refusals become their statuses."""
        fp = fingerprint(request)
        try:
            if hand_action:
                done = await runner.act(
                    decide, request_id=request_id, actor=actor, kind=kind, fingerprint=fp
                )
            else:
                done = await runner.submit(
                    decide, request_id=request_id, actor=actor, kind=kind, fingerprint=fp
                )
        except RequestClash as exc:
            raise AlreadyExists(exc.message, reason=exc.reason) from None
        except TableError as exc:
            raise _refused(_STATUS[exc.kind], exc) from None
        except (InvalidCommand, InvalidOptions) as exc:
            raise _refused(grpc.StatusCode.INVALID_ARGUMENT, exc) from None
        except EngineError as exc:  # IllegalAction and the rest: the rules forbid it now
            raise _refused(grpc.StatusCode.FAILED_PRECONDITION, exc) from None
        except ConcurrencyError:
            raise Aborted(
                "the table changed while your request was decided; look and retry",
                reason="TABLE_CHANGED",
            ) from None
        except EventStoreError as exc:
            raise log_error(exc, "your request") from None
        except DealerUnavailable:
            raise Unavailable("the dealer is not reachable", reason="DEALER_UNAVAILABLE") from None
        except LeaseNotHeld:
            # The table changed hands while this call waited: its new owner answers.
            raise await self._moved(runner.table_id) from None
        return done

    async def _moved(self, table_id: str) -> ServiceError:
        return await self.registry.redirect(table_id) or Unavailable(
            f"table {table_id} is not served here", reason="NO_OWNER"
        )

    # --- operator RPCs ---------------------------------------------------------------------

    async def OpenTable(
        self, request: table_pb2.OpenTableRequest, context: Ctx
    ) -> table_pb2.OpenTableResponse:
        """Open a table."""
        request_id = request.request_id
        variant = request.variant or "seven_card_stud_hi_lo"
        try:
            if request.HasField("options"):
                options = options_from_pb(request.options, new_table=True)
            else:
                options = (
                    dealers_choice_options() if variant == DEALERS_CHOICE else pacific_options()
                )
            rules = (
                rules_from_pb(request.dealers_choice, edition=RULE_BOOK)
                if request.HasField("dealers_choice")
                else None
            )
            time_bank = (
                time_bank_from_pb(request.time_bank)
                if request.HasField("time_bank")
                else DEFAULT_TIME_BANK
            )
        except InvalidOptions as exc:
            raise _refused(grpc.StatusCode.INVALID_ARGUMENT, exc) from None
        except ValueError as exc:
            await _fail(context, grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        runner = await self._runner(context, request.table_id, create=True)
        try:
            done = await self._run(
                context,
                runner,
                lambda s: table.create_table(
                    s,
                    name=request.name or request.table_id,
                    variant=variant,
                    options=options,
                    action_seconds=request.action_seconds or 30,
                    rules=rules,
                    time_bank=time_bank,
                ),
                request_id=request_id,
                actor=current_caller(),
                kind="open",
                request=request,
            )
        except BaseException:
            await self.registry.forget_unopened(request.table_id)
            raise
        return table_pb2.OpenTableResponse(table_id=request.table_id, version=done.version)

    async def SeatPlayer(
        self, request: table_pb2.SeatPlayerRequest, context: Ctx
    ) -> table_pb2.SeatPlayerResponse:
        """Seat a player with chips."""
        request_id = request.request_id
        runner = await self._runner(context, request.table_id)
        done = await self._run(
            context,
            runner,
            lambda s: table.seat_player(
                s,
                seat=request.seat,
                player=request.player,
                stack=request.stack,
                buy_in_reference=request.buy_in_reference,
            ),
            request_id=request_id,
            actor=current_caller(),
            kind="seat",
            request=request,
        )
        return table_pb2.SeatPlayerResponse(version=done.version)

    async def UnseatPlayer(
        self, request: table_pb2.UnseatPlayerRequest, context: Ctx
    ) -> table_pb2.UnseatPlayerResponse:
        """Take a player off the table (after the hand they are in)."""
        request_id = request.request_id
        runner = await self._runner(context, request.table_id)
        done = await self._run(
            context,
            runner,
            lambda s: table.unseat_player(
                s, seat=request.seat, player=request.player, between_hands=request.between_hands
            ),
            request_id=request_id,
            actor=current_caller(),
            kind="unseat",
            request=request,
        )
        if done.left is not None:  # the batch that took them off: the original answer
            pending, stack = done.left
            return table_pb2.UnseatPlayerResponse(
                version=done.version, pending=pending, stack=stack
            )
        # Nothing written: they were leaving already.
        seat = (
            runner.state.seat_of(request.player)
            if request.player
            else runner.state.seat_at(request.seat)
        )
        return table_pb2.UnseatPlayerResponse(
            version=done.version,
            pending=seat is not None,
            stack=seat.stack if seat is not None else 0,
        )

    async def CloseTable(
        self, request: table_pb2.CloseTableRequest, context: Ctx
    ) -> table_pb2.CloseTableResponse:
        """Close the table now, or after the hand in play (docs/admin.md)."""
        by = current_caller()
        version, view = await self._operator_command(
            context,
            request,
            lambda s: table.close_table(s, by=by, reason=request.reason),
            "close",
        )
        return table_pb2.CloseTableResponse(version=version, view=view)

    async def PauseTable(
        self, request: table_pb2.PauseTableRequest, context: Ctx
    ) -> table_pb2.PauseTableResponse:
        """Pause dealing: the hand in play finishes, no new one starts until resumed."""
        by = current_caller()
        version, view = await self._operator_command(
            context,
            request,
            lambda s: table.pause_dealing(s, by=by, reason=request.reason),
            "pause",
        )
        return table_pb2.PauseTableResponse(version=version, view=view)

    async def ResumeTable(
        self, request: table_pb2.ResumeTableRequest, context: Ctx
    ) -> table_pb2.ResumeTableResponse:
        """Resume dealing after a pause."""
        by = current_caller()
        version, view = await self._operator_command(
            context, request, lambda s: table.resume_dealing(s, by=by), "resume"
        )
        return table_pb2.ResumeTableResponse(version=version, view=view)

    async def _operator_command(
        self,
        context: Ctx,
        request: table_pb2.CloseTableRequest
        | table_pb2.PauseTableRequest
        | table_pb2.ResumeTableRequest,
        decide: Callable[[Any], list[AnyEvent]],
        kind: str,
    ) -> tuple[int, table_pb2.TableView]:
        """Run an operator's table control; the new version and the table as observers see
        it."""
        request_id = request.request_id
        runner = await self._runner(context, request.table_id)
        done = await self._run(
            context,
            runner,
            decide,
            request_id=request_id,
            actor=current_caller(),
            kind=kind,
            request=request,
        )
        log.info(
            f"table_{kind}", table_id=runner.table_id, by=current_caller(), version=done.version
        )
        return done.version, self._view(runner, None)

    # --- player RPCs -----------------------------------------------------------------------

    async def Act(self, request: table_pb2.ActRequest, context: Ctx) -> bytes:
        """A player's action. Answers an ``ActResponse`` already encoded (its view is the
        bytes the seat's watchers are sent: services/table/wire.py sends them as they are)."""
        player = current_identity().subject
        runner, version = await self._act(request, context, player)
        seat = viewer_seat(runner.state, player)
        views = self._table_views(runner)
        return views.act_bytes(runner.state, runner.version, seat, version)

    async def _act(
        self, request: table_pb2.ActRequest, context: Ctx, player: str
    ) -> tuple[TableRunner, int]:
        """Decide and record ``player``'s action (or find the one a retry names): the table
        and its version after it. Raises the :class:`ServiceError` that refuses it."""
        request_id = request.request_id
        if not request.action:
            await _fail(
                context, grpc.StatusCode.INVALID_ARGUMENT, "action is required", field="action"
            )
        if not request.hand_id and request.action != choice.CHOOSE_GAME:
            # Without it a move meant for a hand that just ended would land in the next one.
            raise InvalidArgument(
                "hand_id is required: the hand you act in (the view's hand_id)",
                reason="HAND_ID_REQUIRED",
                field="hand_id",
            )
        runner = await self._runner(context, request.table_id)
        try:
            # A retry is answered before anything else is checked: the seat may be gone.
            known = runner.recall(RequestKey("act", player, request_id), fingerprint(request))
        except RequestClash as exc:
            raise AlreadyExists(exc.message, reason=exc.reason) from None
        if known is not None:
            return runner, known.version
        seat = runner.state.seat_at(request.seat)
        hand = runner.state.hand
        in_hand = hand is not None and request.seat in hand.seats
        owner = (seat.player if seat is not None else None) or (
            hand.players[hand.seats.index(request.seat)] if hand is not None and in_hand else None
        )
        if owner is None:
            raise NotFound(f"nobody sits at seat {request.seat}", reason="SEAT_EMPTY")
        if owner != player:
            raise PermissionDenied(f"seat {request.seat} is not yours", reason="NOT_YOUR_SEAT")
        decide = await self._act_decider(context, runner, request)
        done = await self._run(
            context,
            runner,
            decide,
            request_id=request_id,
            actor=player,
            kind="act",
            request=request,
            hand_action=True,
        )
        return runner, done.version

    async def _act_decider(
        self, context: Ctx, runner: TableRunner, request: table_pb2.ActRequest
    ) -> Deciding:
        """What an ``Act`` request asks the table to decide: the dealer's choice of game, or
        an action in the hand (with its cards and declaration)."""
        if request.amount:
            problem = amount_problem(request.amount, "amount")
            if problem:
                raise InvalidArgument(problem, reason="BAD_AMOUNT", field="amount")
        try:
            cards = tuple(parse_card(c) for c in request.cards)
        except ValueError as exc:
            raise InvalidArgument(f"bad card: {exc}", reason="BAD_CARD", field="cards") from None
        if request.action in (COMMIT_SEED, SEED):
            # CRV1 (docs/shuffle.md II.4): the caller's commitment to its client seed for the
            # committed hand, then the seed itself once the commitments are locked.
            player = current_identity().subject
            if request.action == COMMIT_SEED:
                digest = bytes(request.seed_commitment)
                return lambda s: table.commit_seed(
                    s, seat=request.seat, player=player, hand_id=request.hand_id, commitment=digest
                )
            seed = bytes(request.client_seed)
            return lambda s: table.send_seed(
                s, seat=request.seat, player=player, hand_id=request.hand_id, seed=seed
            )
        if request.action == choice.CHOOSE_GAME:
            if not request.choice:
                await _fail(
                    context,
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "choose_game needs a choice",
                    field="choice",
                )
            options = struct_to_dict(request.options) if request.HasField("options") else None
            return lambda s: choice.choose_game(
                s,
                seat=request.seat,
                game=request.choice,
                options=options,
                small_bet=request.small_bet,
                big_bet=request.big_bet,
            )
        command = Act(
            request.seat, request.action, request.amount or None, cards, request.choice or None
        )
        return lambda s: table.decide_act(
            s,
            command,
            runner.deck or (),
            request.hand_id,
            bank_used=runner.bank_used(request.seat),
        )

    async def SitOut(
        self, request: table_pb2.SitOutRequest, context: Ctx
    ) -> table_pb2.SitOutResponse:
        """The calling player sits out from the next hand."""
        version, view = await self._own_seat(context, request, table.sit_out, "sit_out")
        return table_pb2.SitOutResponse(version=version, view=view)

    async def SitIn(self, request: table_pb2.SitInRequest, context: Ctx) -> table_pb2.SitInResponse:
        """The calling player, sitting out, is dealt in from the next hand."""
        version, view = await self._own_seat(context, request, table.sit_in, "sit_in")
        return table_pb2.SitInResponse(version=version, view=view)

    async def _own_seat(
        self,
        context: Ctx,
        request: table_pb2.SitOutRequest | table_pb2.SitInRequest,
        decide: Callable[..., list[AnyEvent]],
        kind: str,
    ) -> tuple[int, table_pb2.TableView]:
        """Run ``decide`` on the caller's own seat; the new version and the caller's view."""
        player = current_identity().subject
        request_id = request.request_id
        runner = await self._runner(context, request.table_id)
        done = await self._run(
            context,
            runner,
            lambda s: decide(s, player=player),
            request_id=request_id,
            actor=player,
            kind=kind,
            request=request,
        )
        return done.version, self._view(runner, player)

    async def GetTableView(
        self, request: table_pb2.GetTableViewRequest, context: Ctx
    ) -> table_pb2.GetTableViewResponse:
        """The table as the caller may see it."""
        runner = await self._runner(context, request.table_id)
        return table_pb2.GetTableViewResponse(view=self._view(runner, _viewer()))

    async def Watch(
        self, request: table_pb2.WatchRequest, context: Ctx
    ) -> AsyncIterator[table_pb2.WatchResponse | bytes]:
        """Stream the table's updates as the caller may see them (the live ones as bytes
        encoded once per version and seat)."""
        runner = await self._runner(context, request.table_id)
        self._check_after(runner, request.after_version)
        viewer = _viewer()
        queue = runner.watch(viewer)  # subscribe first, then replay: nothing falls in between
        try:
            sent = request.after_version
            async for update in self._replay(runner, viewer, sent):
                yield update
                sent = update.version
            while True:
                item = await queue.get()
                if item is None:
                    await self._stream_ended(runner)
                    return
                if item.version <= sent:
                    continue
                # Behind the table (updates queued up), only the newest carries the view.
                yield self._encoded(runner, viewer, item)
                sent = item.version
        finally:
            runner.unwatch(queue)

    @staticmethod
    def _check_after(runner: TableRunner, after_version: int) -> None:
        if after_version > runner.version:
            raise OutOfRange(
                f"after_version {after_version} is past the table's version {runner.version}",
                reason="VERSION_AHEAD",
            )

    async def _replay(
        self, runner: TableRunner, viewer: str | None, after: int
    ) -> AsyncIterator[table_pb2.WatchResponse]:
        """What a stream opened after version ``after`` must send before the live updates:
        the records since (read from the log), or with ``after`` 0 the view now."""
        sent = after
        if sent >= runner.version:
            return
        if after:
            try:
                records = await runner.store.read(runner.table_id, sent + 1)
            except EventStoreError as exc:
                raise log_error(exc, "the replay") from None
            for record in records:
                if record.version > runner.version:
                    break
                yield self._update(runner, viewer, Update.from_record(record))
                sent = record.version
        if sent < runner.version:
            yield table_pb2.WatchResponse(version=runner.version, view=self._view(runner, viewer))

    async def _stream_ended(self, runner: TableRunner) -> None:
        """The table closed a stream: handed over, the stream ends with the redirect to the new
        owner (else it just ends: the table is gone, or the watcher fell too far behind)."""
        if self.registry.known(runner.table_id) is not runner and runner.closed:
            raise await self._moved(runner.table_id)

    async def Play(
        self, requests: AsyncIterator[table_pb2.PlayRequest], context: Ctx
    ) -> AsyncIterator[table_pb2.PlayResponse | bytes]:
        """A player's seat on one stream: the table's updates out, actions in, each answered
        by its outcome (docs/table-service.md#play)."""
        opening = await anext(aiter(requests), None)
        if opening is None:
            return  # the client closed before naming a table
        if opening.WhichOneof("kind") != "watch":
            raise InvalidArgument(
                "a Play stream starts with watch: the table to follow",
                reason="PLAY_NEEDS_WATCH",
                field="watch",
            )
        check_request(opening)
        watch = opening.watch
        runner = await self._runner(context, watch.table_id)
        self._check_after(runner, watch.after_version)
        viewer = _viewer()
        mailbox: Mailbox[Update | table_pb2.ActOutcome | ServiceError | None]
        mailbox = Mailbox(WATCH_BACKLOG)
        runner.subscribe(mailbox, viewer)  # first, then replay: nothing falls in between
        actions = asyncio.ensure_future(self._play_actions(requests, context, runner, mailbox))
        try:
            sent = watch.after_version
            async for update in self._replay(runner, viewer, sent):
                yield table_pb2.PlayResponse(update=update)
                sent = update.version
            while True:
                item = await mailbox.get()
                if item is None:
                    await self._stream_ended(runner)
                    return
                if isinstance(item, table_pb2.ActOutcome):
                    yield table_pb2.PlayResponse(outcome=item)
                    continue
                if isinstance(item, ServiceError):
                    raise item  # the request stream broke (bytes that are no message)
                if item.version <= sent:
                    continue
                yield self._encoded(runner, viewer, item, play=True)
                sent = item.version
        finally:
            actions.cancel()
            runner.unwatch(mailbox)

    async def _play_actions(
        self,
        requests: AsyncIterator[table_pb2.PlayRequest],
        context: Ctx,
        runner: TableRunner,
        mailbox: Mailbox[Update | table_pb2.ActOutcome | ServiceError | None],
    ) -> None:
        """Decide each action of a Play stream in turn; its outcome follows the updates it
        made on the stream (a refusal's status is the one Act would have answered)."""
        player = current_identity().subject
        try:
            async for message in requests:
                mailbox.force(await self._play_action(message, context, runner, player))
        except ServiceError as exc:  # reading the stream: it ends with this status
            mailbox.force(exc)

    async def _play_action(
        self,
        message: table_pb2.PlayRequest,
        context: Ctx,
        runner: TableRunner,
        player: str,
    ) -> table_pb2.ActOutcome:
        """One action of a Play stream, decided: its outcome."""
        started = time.perf_counter()
        act = message.act
        outcome = table_pb2.ActOutcome(request_id=act.request_id)
        try:
            if message.WhichOneof("kind") != "act":
                raise InvalidArgument(
                    "after the first message a Play stream sends actions only",
                    reason="PLAY_ACT_EXPECTED",
                    field="act",
                )
            check_request(message)
            if act.table_id != runner.table_id:
                raise InvalidArgument(
                    f"this stream plays table {runner.table_id}, not {act.table_id}",
                    reason="OTHER_TABLE",
                    field="act.table_id",
                )
            admit_message("Act")
            _, outcome.version = await self._act(act, context, player)
            _PLAY_ACTS.accepted(started)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # every refusal is this action's outcome, not the stream's
            outcome.error.CopyFrom(_PLAY_ACTS.refused(exc, started))
        return outcome

    def _update(
        self, runner: TableRunner, viewer: str | None, update: Update
    ) -> table_pb2.WatchResponse:
        """``update`` as ``viewer`` sees it, with the view when it is the newest; built once per
        version and seat for every watcher of that seat."""
        seat = viewer_seat(runner.state, viewer)
        return self._table_views(runner).update(runner.state, runner.version, seat, update)

    def _encoded(
        self, runner: TableRunner, viewer: str | None, update: Update, *, play: bool = False
    ) -> bytes:
        """:meth:`_update` encoded (as a ``PlayResponse`` with ``play``): the same bytes for
        every watcher of the seat at the table's newest version."""
        seat = viewer_seat(runner.state, viewer)
        views = self._table_views(runner)
        if play:
            return views.play_bytes(runner.state, runner.version, seat, update)
        return views.update_bytes(runner.state, runner.version, seat, update)

    # --- hand histories (services/table/histories.py) -------------------------------------

    async def ListHands(
        self, request: table_pb2.ListHandsRequest, context: Ctx
    ) -> table_pb2.ListHandsResponse:
        """The hands over at a table, newest first, as the caller may see them."""
        return await self.histories.list_hands(request)

    async def GetHandHistory(
        self, request: table_pb2.GetHandHistoryRequest, context: Ctx
    ) -> table_pb2.GetHandHistoryResponse:
        """One hand that is over, as the caller may see it."""
        return await self.histories.get_hand_history(request)
