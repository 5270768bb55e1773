"""``ListHands`` and ``GetHandHistory``: the hands of a table, as the caller may see them.

The table service serves hand histories because it holds the tables' logs, and a hand's
history is nothing but a stretch of its table's log: no other service has to copy the cards
(the lobby and settlement never see a hidden card, and should not start to). Any instance
answers for any table, owner or not: it reads the log from the event store, so a history
never waits for an ownership hand-over and never disturbs the table's owner.

What a caller sees is the exports' rule (``riverboat.history``): a player, the hands they were
dealt into, through :func:`riverboat.history.visible_events` (the engine's redaction, the same
one the table applies to what it sends them live); operators and auditors, every card, but
only of hands that are over. A hand still in play is listed by nobody and refused to everyone
(``FAILED_PRECONDITION``, reason ``HAND_IN_PROGRESS``). Every read of a hand with every card
(the auditor's perspective) is logged, ``hole_cards_read`` at warning, with who read which
hand (docs/security.md).

Each table's hands are read once and kept; later calls read only the records appended since.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

import structlog
from google.protobuf.timestamp_pb2 import Timestamp

from riverboat import paging
from riverboat.audit.tablelog import LoggedMessage
from riverboat.engine.events import HandStarted
from riverboat.eventcodec import event_to_pb
from riverboat.eventstore import EventStore, EventStoreError
from riverboat.history import AUDITOR, HandLog, Perspective, to_phh, to_pokerstars, visible_events
from riverboat.history.hands import hands_from_log, log_from_records, table_name_of
from riverboat.history.pokerstars import TABLE_HAND_DIGITS, hand_number, table_hand_number
from riverboat.services.common.auth import current_identity
from riverboat.services.common.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    log_error,
)
from riverboat.v1 import table_pb2

__all__ = ["DEFAULT_HAND_PAGE", "MAX_HAND_PAGE", "HandHistories"]

_log = structlog.get_logger("riverboat.table.histories")

DEFAULT_HAND_PAGE = 20
MAX_HAND_PAGE = 100


@dataclass
class _Table:
    """One table's hands read so far."""

    name: str = ""
    upto: int = 0  # the last log version read
    over: list[HandLog] = field(default_factory=list)  # hands that are over, in log order
    ids: set[str] = field(default_factory=set)
    numbers: dict[str, int] = field(default_factory=dict)  # hand id -> number, every hand dealt
    pending: list[LoggedMessage] = field(default_factory=list)  # since the last hand over
    current: HandLog | None = None  # the hand in play, if any
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class HandHistories:
    """The two RPCs' logic over an event store (the table service's)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._tables: dict[str, _Table] = {}

    async def _read(self, table_id: str) -> _Table:
        """The table's hands, brought up to the log's end."""
        table = self._tables.setdefault(table_id, _Table())
        async with table.lock:
            try:
                records = await self.store.read(table_id, table.upto + 1)
            except EventStoreError as exc:
                raise log_error(exc, "the table's log") from None
            if not records and table.upto == 0:
                self._tables.pop(table_id, None)
                raise NotFound(f"no table {table_id}")
            if records:
                log = log_from_records(table_id, records)
                table.name = table.name or table_name_of(log)
                table.pending.extend(log)
                for message in log:  # numbered as the table's fold numbers them
                    for logged in message.events:
                        if isinstance(logged.event, HandStarted):
                            table.numbers[logged.event.hand_id] = len(table.numbers) + 1
                table.upto = records[-1].version
                table.current = None
                cut = 0
                for scanned in hands_from_log(table_id, table.pending, table.name):
                    hand = replace(scanned, number=table.numbers.get(scanned.hand_id, 0))
                    if not (hand.finished or hand.voided):
                        table.current = hand
                    elif hand.hand_id not in table.ids:
                        table.over.append(hand)
                        table.ids.add(hand.hand_id)
                        cut = hand.last_version
                if cut:
                    # The message that ends a hand may also commit the next one: kept.
                    table.pending = [m for m in table.pending if m.version >= cut]
        return table

    async def list_hands(self, request: table_pb2.ListHandsRequest) -> table_pb2.ListHandsResponse:
        """A page of the hands over, newest first (a player: theirs only)."""
        player = _whose(request.player)
        page = paging.page_request(
            "ListHands",
            {"table_id": request.table_id, "player": player},
            page_size_requested=request.page_size,
            page_token=request.page_token,
            default=DEFAULT_HAND_PAGE,
            maximum=MAX_HAND_PAGE,
        )
        table = await self._read(_table_id(request.table_id))
        # The cursor is the first log version of the next page's first hand.
        below = page.cursor
        if below is not None and not isinstance(below, int):
            raise InvalidArgument(
                "page_token is not one this service gave out", reason=paging.REASON_BAD_PAGE_TOKEN
            )
        chosen: list[HandLog] = []
        following: int | None = None
        for hand in reversed(table.over):
            if below is not None and hand.first_version > below:
                continue
            if player and hand.seat_of(player) is None:
                continue
            if len(chosen) == page.size:
                following = hand.first_version
                break
            chosen.append(hand)
        return table_pb2.ListHandsResponse(
            hands=[_summary(h) for h in chosen], next_page_token=page.next_token(following)
        )

    async def get_hand_history(
        self, request: table_pb2.GetHandHistoryRequest
    ) -> table_pb2.GetHandHistoryResponse:
        """One hand that is over, as the caller may see it."""
        if not request.hand_id:
            raise InvalidArgument("hand_id is required", reason="HAND_ID_REQUIRED")
        table = await self._read(_table_id(request.table_id))
        hand = _find(request.table_id, table, request.hand_id)
        identity = current_identity()
        perspective = AUDITOR
        if identity.role == "player":
            perspective = Perspective(identity.subject)
            if hand is not None and hand.seat_of(identity.subject) is None:
                # Not "no such hand": the id is public (views and Watch name it).
                raise PermissionDenied(
                    f"you were not dealt into hand {request.hand_id}", reason="NOT_IN_HAND"
                )
        if hand is None:
            raise NotFound(f"no hand {request.hand_id} at table {request.table_id}")
        if not (hand.finished or hand.voided):
            raise FailedPrecondition(
                f"hand {hand.hand_id} is still in play; its history is there once it is over",
                reason="HAND_IN_PROGRESS",
            )
        if perspective is AUDITOR:
            # The superuser's read: every hole card of a hand, so who read which is logged,
            # at warning so that a service logging warnings only still keeps it.
            _log.warning(
                "hole_cards_read",
                reader=identity.subject,
                role=identity.role,
                table_id=request.table_id,
                hand_id=hand.hand_id,
            )
        events = visible_events(hand, perspective)
        assert events is not None  # a player's own hand
        envelopes = [event_to_pb(e, m) for e, m in zip(events, hand.metas, strict=True)]
        return table_pb2.GetHandHistoryResponse(
            hand=_summary(hand),
            perspective=perspective.label,
            events=envelopes,
            text=to_pokerstars(hand, perspective) or "",
            phh=to_phh(hand, perspective) or "",
        )


def _find(table_id: str, table: _Table, hand_id: str) -> HandLog | None:
    """The hand named by its id, its number (decimal text) or its PokerStars hand number."""
    if hand_id.isascii() and hand_id.isdigit():
        number = int(hand_id)
        if number >= 10**TABLE_HAND_DIGITS:  # no table deals that many: a PokerStars number
            number = table_hand_number(table_id, number) or 0
        hand_id = next((h for h, n in table.numbers.items() if n == number), "")
    if table.current is not None and table.current.hand_id == hand_id:
        return table.current
    if hand_id not in table.ids:
        return None
    return next(h for h in reversed(table.over) if h.hand_id == hand_id)


def _whose(player: str) -> str:
    """Whose hands a ListHands lists: a player's own; anyone's for operators and auditors."""
    identity = current_identity()
    if identity.role != "player":
        return player
    if player and player != identity.subject:
        raise PermissionDenied("players may list only their own hands", reason="NOT_YOURS")
    return identity.subject


def _table_id(table_id: str) -> str:
    if not table_id:
        raise InvalidArgument("table_id is required", reason="TABLE_ID_REQUIRED")
    return table_id


def _summary(hand: HandLog) -> table_pb2.HandSummary:
    started = hand.started
    totals = hand.totals()
    when = Timestamp()
    if hand.started_at is not None:
        when.FromDatetime(hand.started_at)
    return table_pb2.HandSummary(
        table_id=hand.table_id,
        hand_id=hand.hand_id,
        game=started.variant,
        started_at=when if hand.started_at is not None else None,
        button=started.button,
        players=[
            table_pb2.HandPlayer(
                seat=s.seat,
                player=s.player,
                starting_stack=s.stack,
                final_stack=totals.final_stacks.get(s.seat, s.stack),
            )
            for s in started.seats
        ],
        paid_out=totals.paid_out,
        rake=totals.rake,
        voided=hand.voided,
        first_version=hand.first_version,
        last_version=hand.last_version,
        hand_number=hand.number,
        pokerstars_number=hand_number(hand),
    )
