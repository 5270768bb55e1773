"""From log records to effects: wallet reactions first, then the ledger, in order per aggregate.

A table record is handled in two steps:

A record that moves no money (most of a hand: cards, checks, folds, seeds; see
:mod:`riverboat.ledger.moneyfilter`) is only noted as seen: it is neither decoded nor sent to
the database. The others are handled in two steps:

1. *React*: a ``PlayerSeated`` with a buy-in reference records the seating on the player's
   wallet (``BuyInSeated``), and a ``PlayerLeft`` credits the chips (``CashedOut``). Both are
   wallet commands keyed by the table event's id, so doing them again is a no-op.
2. *Project*: the record's postings are applied to the ledger (one transaction, with its
   processed-event row).

Reacting before projecting means a crash in between leaves nothing undone: the redelivered
record reacts again (a no-op) and is projected. If a record arrives after a newer one of the
same aggregate was delivered (a redelivery after a failure), the ledger reports a gap and the
missing records are read back from the log and applied first.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

import structlog
from google.protobuf.message import DecodeError

from riverboat import retrying
from riverboat.eventcodec import CodecError, event_from_pb
from riverboat.eventstore import EventStore
from riverboat.ledger import queries
from riverboat.ledger.moneyfilter import moves_money
from riverboat.ledger.projection import TABLES, WALLETS
from riverboat.ledger.store import ApplyResult, Outcome
from riverboat.ledger.wallet import decide_cash_out, decide_seat
from riverboat.services.settlement.consumers import Delivery
from riverboat.services.settlement.database import Database
from riverboat.services.settlement.wallets import WalletBook
from riverboat.table.events import AnyEvent, PlayerLeft, PlayerSeated
from riverboat.v1 import events_pb2

__all__ = ["CatchUpTimeout", "Projector"]

_log = structlog.get_logger("riverboat.settlement.projector")

#: The envelope payloads :meth:`Projector._react_to` acts on (``PlayerSeated``, ``PlayerLeft``).
_REACTING = frozenset({"player_seated", "player_left"})


class CatchUpTimeout(Exception):
    """The ledger did not reach a table's latest record in time."""


class Projector:
    """Applies wallet and table records; also sweeps cash-outs and waits for catch-up.

    Args:
        db: the ledger.
        wallets: wallet commands (for the reactions to table events).
        wallet_log: the wallet logs (to fill gaps).
        table_log: the table logs (to fill gaps and to know a table's latest version).
    """

    def __init__(
        self, db: Database, wallets: WalletBook, wallet_log: EventStore, table_log: EventStore
    ) -> None:
        self._db = db
        self._wallets = wallets
        self._logs = {WALLETS: wallet_log, TABLES: table_log}
        self.violations = 0  # invariant violations seen (also logged)
        self.skipped = 0  # table records that moved no money: noted, not applied

    async def on_wallet_record(self, delivery: Delivery) -> None:
        """Handler of the wallet consumer."""
        await self._apply(WALLETS, delivery.aggregate_id, delivery.version, delivery.payload)

    async def on_table_record(self, delivery: Delivery) -> None:
        """Handler of the table consumer."""
        if not moves_money(delivery.payload):
            self._db.ledger.unmoved.note(delivery.aggregate_id, delivery.version)
            self.skipped += 1
            return
        await self._react(delivery.payload)
        await self._apply(TABLES, delivery.aggregate_id, delivery.version, delivery.payload)

    async def on_table_records(self, deliveries: Sequence[Delivery]) -> int:
        """Batch handler of the table consumer: the records that move money in one transaction.

        Returns:
            How many of ``deliveries``, from the first, took effect (the consumer hands the rest
            to :meth:`on_table_record` one by one: a gap to fill, say).
        """
        ledger = self._db.ledger
        money: list[int] = []  # indexes of the deliveries to apply
        for index, delivery in enumerate(deliveries):
            if moves_money(delivery.payload):
                money.append(index)
            else:
                ledger.unmoved.note(delivery.aggregate_id, delivery.version)
                self.skipped += 1
        if not money:
            return len(deliveries)
        for index in money:  # reactions first, as one by one (they are idempotent)
            await self._react(deliveries[index].payload)
        records = [
            (deliveries[i].aggregate_id, deliveries[i].version, deliveries[i].payload)
            for i in money
        ]
        results = await self._db.run(ledger.apply_table_records, records)
        for index, result in zip(money, results, strict=False):
            self._report(TABLES, deliveries[index].aggregate_id, result)
            if result.outcome is Outcome.GAP:
                return index
        return len(deliveries)

    async def sweep_cash_outs(self) -> int:
        """Credit every cash-out the ledger shows in transit (normally none); how many."""
        pending = await self._db.read(queries.pending_cash_outs)
        for item in pending:
            decide = functools.partial(
                decide_cash_out,
                table_id=item.table_id,
                amount=item.amount,
                table_event_id=item.table_event_id,
            )
            await self._wallets.execute(item.player, decide, f"cashout:{item.table_event_id}")
        if pending:
            _log.info("cash_outs_swept", count=len(pending))
        return len(pending)

    async def wait_for_table(self, table_id: str, timeout: float) -> None:
        """Return once the ledger has applied every record that moves money the table's log
        holds now (the ledger's position stops at the last of them).

        Raises:
            CatchUpTimeout: not within ``timeout`` seconds.
        """
        latest = await self._logs[TABLES].last_version(table_id)
        ledger = self._db.ledger

        async def caught_up() -> None:
            applied = await self._db.run(ledger.position, TABLES, table_id)
            seen = ledger.unmoved.seen_through(table_id, applied)
            if seen < latest and await self._money_between(table_id, seen + 1, latest):
                raise CatchUpTimeout(f"the ledger is behind table {table_id}'s log")

        await retrying.call(
            caught_up,
            replace(retrying.CATCH_UP, total=timeout),
            transient=lambda exc: isinstance(exc, CatchUpTimeout),
        )

    # -- internals ----------------------------------------------------------------------------

    async def _money_between(self, table_id: str, first: int, last: int) -> bool:
        """Whether a record ``first..last`` of the table's log moves money (read back: the
        records were skipped by another replica, or before a restart)."""
        records = self._logs[TABLES].iter_records(table_id, first)
        try:
            async for record in records:
                if record.version > last:
                    return False
                if moves_money(record.payload):
                    return True
                self._db.ledger.unmoved.note(table_id, record.version)
            return False
        finally:
            close = getattr(records, "aclose", None)
            if close is not None:
                await close()

    async def _react(self, payload: bytes) -> None:
        # Only seatings and leavings react, and most records (a hand's actions and cards) hold
        # neither: their envelopes are looked at by kind and never decoded here.
        try:
            batch = events_pb2.EventBatch.FromString(payload)
        except DecodeError as exc:
            raise CodecError(f"not an EventBatch: {exc}") from None
        for envelope in batch.events:
            if envelope.WhichOneof("payload") in _REACTING:
                event, meta = event_from_pb(envelope)
                await self._react_to(event, meta.event_id, meta.aggregate_id)

    async def _react_to(self, event: AnyEvent, event_id: str, table_id: str) -> None:
        if isinstance(event, PlayerSeated) and event.buy_in_reference:
            seat = functools.partial(
                decide_seat,
                reference=event.buy_in_reference,
                table_id=table_id,
                seated=event.stack,
                table_event_id=event_id,
            )
            decision = await self._wallets.execute(event.player, seat, f"seat:{event_id}")
            if decision.events and decision.events[0].wallet_delta:  # type: ignore[union-attr]
                _log.warning(
                    "buy_in_settled_with_wallet",
                    player=event.player,
                    table_id=table_id,
                    reference=event.buy_in_reference,
                    seated=event.stack,
                    wallet_delta=decision.events[0].wallet_delta,  # type: ignore[union-attr]
                )
        elif isinstance(event, PlayerLeft) and event.stack > 0:
            cash_out = functools.partial(
                decide_cash_out, table_id=table_id, amount=event.stack, table_event_id=event_id
            )
            await self._wallets.execute(event.player, cash_out, f"cashout:{event_id}")

    async def _apply(self, source: str, aggregate_id: str, version: int, payload: bytes) -> None:
        result = await self._apply_once(source, aggregate_id, version, payload)
        if result.outcome is Outcome.GAP:
            await self._fill(source, aggregate_id, result.position + 1, version - 1)
            result = await self._apply_once(source, aggregate_id, version, payload)
            if result.outcome is Outcome.GAP:
                raise RuntimeError(
                    f"{source} {aggregate_id}: still missing records before {version} "
                    f"(ledger at {result.position})"
                )

    async def _apply_once(
        self, source: str, aggregate_id: str, version: int, payload: bytes
    ) -> ApplyResult:
        ledger = self._db.ledger
        apply = ledger.apply_table_record if source == TABLES else ledger.apply_wallet_record
        result = await self._db.run(apply, aggregate_id, version, payload)
        self._report(source, aggregate_id, result)
        return result

    def _report(self, source: str, aggregate_id: str, result: ApplyResult) -> None:
        """Count and log the invariants a record broke."""
        for violation in result.violations:
            self.violations += 1
            _log.error(
                "ledger_invariant_violated",
                check=violation.check,
                table_id=violation.table_id,
                hand_id=violation.hand_id,
                detail=violation.message,
                source=source,
                aggregate_id=aggregate_id,
                version=result.position,
            )

    async def _fill(self, source: str, aggregate_id: str, first: int, last: int) -> None:
        """Apply the records ``first..last`` of an aggregate, read back from its log."""
        _log.info("filling_gap", source=source, aggregate_id=aggregate_id, first=first, last=last)
        records = self._logs[source].iter_records(aggregate_id, first)
        try:
            async for record in records:
                if record.version > last:
                    break
                if source == TABLES:
                    await self._react(record.payload)
                await self._apply_once(source, aggregate_id, record.version, record.payload)
        finally:
            # Stopping early must end the read's subscription now, not at garbage collection.
            close = getattr(records, "aclose", None)
            if close is not None:
                await close()
