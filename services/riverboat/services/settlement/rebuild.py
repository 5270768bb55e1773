"""Rebuild the ledger from the logs: drop every table, migrate, replay both streams.

The replay reads each stream in order with batched direct gets (stateless on the server,
bounded by the stream's last sequence when the rebuild starts) and applies the records with
the same code the live consumers use, many records per transaction. Wallet reactions to table
events are not repeated: they are in the wallet log already (a cash-out whose wallet credit
never got written is credited by the running service's sweeper).

Stop the settlement service while rebuilding: it writes to the same tables.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import nats.js.errors
from nats.aio.client import Client as NATS
from sqlalchemy import Engine

from riverboat.eventstore._direct import iter_subject
from riverboat.eventstore.jetstream import HEADER_VERSION
from riverboat.ledger import Ledger, Outcome, Violation, canonical_dump, digest
from riverboat.ledger.migrate import current_revision, downgrade_all, upgrade
from riverboat.ledger.projection import TABLES, WALLETS
from riverboat.services.settlement.config import SettlementConfig

__all__ = ["RebuildError", "RebuildResult", "ledger_digest", "rebuild"]

Progress = Callable[[int], None]


class RebuildError(RuntimeError):
    """The logs could not be replayed (a gap, a duplicate or a record that does not apply)."""


@dataclass(slots=True)
class RebuildResult:
    """What a rebuild did."""

    records: dict[str, int] = field(default_factory=dict)
    before: str | None = None  # digest of the ledger before (None: there was none)
    after: str = ""
    violations: list[Violation] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def total(self) -> int:
        """Records replayed."""
        return sum(self.records.values())


def ledger_digest(engine: Engine) -> str | None:
    """The canonical dump's digest, or None if the database has no ledger yet."""
    if current_revision(engine) is None:
        return None
    with engine.connect() as conn:
        return digest(canonical_dump(conn))


async def count_records(nc: NATS, config: SettlementConfig) -> int:
    """Messages in both streams (the progress bar's total)."""
    js = nc.jetstream(timeout=config.nats_timeout)
    total = 0
    for stream in (config.wallets_stream, config.tables_stream):
        try:
            info = await js.stream_info(stream)
        except nats.js.errors.NotFoundError:
            continue
        total += int(info.state.messages)
    return total


async def rebuild(
    engine: Engine,
    nc: NATS,
    config: SettlementConfig,
    *,
    progress: Progress | None = None,
    batch: int = 500,
) -> RebuildResult:
    """Drop the ledger and replay the wallet and table streams into it."""
    started = time.monotonic()
    result = RebuildResult()
    result.before = await asyncio.to_thread(ledger_digest, engine)
    await asyncio.to_thread(downgrade_all, engine)
    await asyncio.to_thread(upgrade, engine)
    ledger = Ledger(engine)
    js = nc.jetstream(timeout=config.nats_timeout)
    for source, stream, prefix in (
        (WALLETS, config.wallets_stream, config.wallets_prefix),
        (TABLES, config.tables_stream, config.tables_prefix),
    ):
        result.records[source] = 0
        try:
            info = await js.stream_info(stream)
        except nats.js.errors.NotFoundError:
            continue  # no such log yet: nothing to replay
        if not info.state.messages:
            continue
        pending: list[tuple[str, int, bytes]] = []
        async for msg in iter_subject(
            nc,
            api_prefix="$JS.API",
            stream=stream,
            subject=f"{prefix}.>",
            start_seq=int(info.state.first_seq),
            up_to_seq=int(info.state.last_seq),
            batch=256,
            timeout=config.nats_timeout,
        ):
            headers = msg.headers or {}
            subject = headers.get("Nats-Subject", "")
            version = headers.get(HEADER_VERSION, "")
            if not subject.startswith(prefix + ".") or not version.isdigit():
                raise RebuildError(f"{stream}: a message that is not a log record ({subject!r})")
            pending.append((subject[len(prefix) + 1 :], int(version), msg.data or b""))
            if len(pending) >= batch:
                result.violations += await asyncio.to_thread(_apply, ledger, source, pending)
                _advance(result, source, len(pending), progress)
                pending = []
        if pending:
            result.violations += await asyncio.to_thread(_apply, ledger, source, pending)
            _advance(result, source, len(pending), progress)
    after = await asyncio.to_thread(ledger_digest, engine)
    assert after is not None
    result.after = after
    result.seconds = time.monotonic() - started
    return result


def _advance(result: RebuildResult, source: str, count: int, progress: Progress | None) -> None:
    result.records[source] += count
    if progress is not None:
        progress(count)


def _apply(ledger: Ledger, source: str, records: list[tuple[str, int, bytes]]) -> list[Violation]:
    """Apply records in one transaction; every one must apply (the ledger started empty)."""
    violations: list[Violation] = []
    with ledger.writer() as writer:
        apply = writer.apply_table_record if source == TABLES else writer.apply_wallet_record
        for aggregate_id, version, payload in records:
            outcome = apply(aggregate_id, version, payload)
            if outcome.outcome not in (Outcome.APPLIED, Outcome.SKIPPED):
                raise RebuildError(
                    f"{source} {aggregate_id} version {version}: {outcome.outcome.value} "
                    f"(ledger at {outcome.position})"
                )
            violations.extend(outcome.violations)
    return violations
