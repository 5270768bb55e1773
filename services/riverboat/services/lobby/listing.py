"""The list of tables: opening one (``CreateTable``) and describing them (``ListTables``,
``GetTable``), each with what its table service shows (seats, closed, paused) and its owner.
"""

from __future__ import annotations

import asyncio
import bisect
from datetime import UTC
from typing import Any

import structlog
from google.protobuf.json_format import MessageToDict

from riverboat import paging
from riverboat.engine.errors import InvalidOptions
from riverboat.engine.game_options import RULE_BOOK
from riverboat.engine.money import MAX_AMOUNT, amount_problem
from riverboat.engine.session import DealersChoiceRules
from riverboat.idempotency import RequestClash, RequestKey, derived_id, fingerprint
from riverboat.lobby.state import (
    MIN_BUY_IN_SMALL_BETS,
    ListedTable,
    LobbyRuleError,
    template_options,
    template_rules,
    template_time_bank,
)
from riverboat.services.common.auth import current_caller
from riverboat.services.common.errors import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
)
from riverboat.services.lobby.part import (
    RULE_KIND,
    LobbyContext,
    LobbyPart,
    stamp,
)
from riverboat.services.lobby.remote import passed_on
from riverboat.services.lobby.waiting import WaitingLists
from riverboat.settingscodec import (
    options_to_pb,
    rules_from_pb,
    rules_to_pb,
    time_bank_from_pb,
    time_bank_to_pb,
)
from riverboat.v1 import events_pb2, lobby_pb2, table_pb2

log = structlog.get_logger("riverboat.lobby")

__all__ = ["DEFAULT_TABLE_PAGE", "MAX_TABLE_PAGE", "TableListing"]

DEFAULT_TABLE_PAGE = 20
MAX_TABLE_PAGE = 100


class TableListing(LobbyPart):
    """CreateTable, ListTables and GetTable."""

    def __init__(self, context: LobbyContext, waiting: WaitingLists) -> None:
        super().__init__(context)
        self.waiting = waiting

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
        asker = current_caller()
        key = RequestKey("create_table", asker, request_id)
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
        await passed_on(
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
                    request_id=derived_id("lobby", asker, request_id),
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
            created_at=stamp(table.created_at),
            # The lease's word, else whoever answered for the table (the owner, redirect
            # followed; a lone table service without leases).
            owner_address=self.tables.owner_address(table.table_id) or answered,
            waiting_list=self.waiting.waiting_pb(table.table_id),
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


def _rule_error(exc: LobbyRuleError) -> Exception:
    return RULE_KIND[exc.kind](str(exc))


def _table_key(table: ListedTable) -> str:
    """A table's place in creation order, as a page cursor (sorts as tables_in_order does)."""
    return f"{table.created_at.astimezone(UTC):%Y%m%dT%H%M%S.%f}|{table.table_id}"


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
