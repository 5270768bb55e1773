"""The NATS OUTAGE BATTERY: kill -9 the room's nats-server under bot load, at varied moments
and for varied lengths, and restart it on the same port and store. Throughout:

* every ``Act`` either succeeds or answers UNAVAILABLE with "retry with the same request id"
  (and a machine-readable reason); the bots retry with the same request id, and the retry
  returns the original result: the version the raw log holds that request id at, exactly once;
* health of the dealer, table, settlement and lobby follows the connection (NOT_SERVING during each
  outage, SERVING after it);
* no table stalls: after each restart every table's log grows again within a bounded wait,
  and no gap in any table's log is longer than the longest outage plus that bound;
* afterwards ``riverboat audit`` over the streams is clean, and the books are exact: every
  chip bought in is on the table or raked (computed from the raw log's events alone).

Outages: ``size(2, 50)`` (``make test`` / ``make soak``). The oracles are shown to fail on
planted faults at the end (a doubled request, chips that vanish, a stall).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

import grpc
import pytest

from riverboat.client import TableClient, next_move, random_chooser, random_picker, watch_until
from riverboat.services.common.errors import (
    REASON_LOG_UNAVAILABLE,
    REASON_OUTCOME_UNKNOWN,
    RETRY_SAME_REQUEST,
)
from tests.battery import size
from tests.e2e.room._outage import (
    OutageRoom,
    chips_on_the_books,
    is_request,
    longest_gaps,
    outage_room,
    read_records,
    reason,
    request_ids_once,
    wait_health,
)
from tests.e2e.room._play import setup_table
from tests.e2e.room.test_audit_room import cli, export_when_revealed, stream_flags

OUTAGES = size(2, 50)
TABLES = ("t-outage-a", "t-outage-b")
PLAYERS = 3
#: Bounded wait for "progress resumes" after a restart (not a speed test: a busy machine).
RESUME = 20.0
#: A clock far longer than any outage, so a table that resumes does so by itself, not by it.
ACTION_SECONDS = 60


@dataclass
class Acts:
    """What the bots' ``Act`` calls got."""

    ok: int = 0
    unavailable: int = 0
    #: (request id, version answered) of acts that succeeded only after UNAVAILABLE.
    retried: list[tuple[str, str, int]] = field(default_factory=list)
    #: Anything else: a status or a message the battery forbids.
    bad: list[str] = field(default_factory=list)


@pytest.fixture
def outage(tmp_path: Path) -> Iterator[OutageRoom]:
    yield from outage_room(tmp_path)


async def _act(client: TableClient, table_id: str, view: object, move: object, rid: str) -> int:
    reply = await client.act(
        table_id,
        view.hand_id,  # type: ignore[attr-defined]
        view.viewer_seat,  # type: ignore[attr-defined]
        move.action,  # type: ignore[attr-defined]
        move.amount,  # type: ignore[attr-defined]
        request_id=rid,
        cards=move.cards,  # type: ignore[attr-defined]
        choice=move.choice,  # type: ignore[attr-defined]
        options=move.options,  # type: ignore[attr-defined]
        timeout=60,
    )
    return int(reply.version)


async def _act_until_answered(
    client: TableClient, table_id: str, view: object, move: object, rid: str, acts: Acts
) -> int | None:
    """Send the move; on UNAVAILABLE retry with the same request id until it is answered."""
    refused = False
    for _ in range(600):
        try:
            version = await _act(client, table_id, view, move, rid)
        except grpc.aio.AioRpcError as exc:
            details, why = exc.details() or "", reason(exc)
            if exc.code() is grpc.StatusCode.UNAVAILABLE:
                acts.unavailable += 1
                if RETRY_SAME_REQUEST not in details or why not in {
                    REASON_LOG_UNAVAILABLE,
                    REASON_OUTCOME_UNKNOWN,
                }:
                    acts.bad.append(f"{rid}: UNAVAILABLE {details!r} reason {why!r}")
                    return None
                refused = True
                await asyncio.sleep(0.2)
                continue
            acts.bad.append(f"{rid}: {exc.code().name} {details!r} reason {why!r}")
            return None
        acts.ok += 1
        if refused:
            acts.retried.append((table_id, rid, version))
        return version
    acts.bad.append(f"{rid}: still UNAVAILABLE after 600 retries")
    return None


async def _bot(
    client: TableClient, table_id: str, stop: asyncio.Event, acts: Acts, rng: random.Random
) -> None:
    """Watch the table and act on each turn (a client that knows only the protos)."""
    choose, pick = random_chooser(rng), random_picker(rng)
    acted: set[tuple[str, int]] = set()
    acted_version = after = 0
    while not stop.is_set():
        try:
            async for update in watch_until(client, table_id, stop, after=after, idle=5.0):
                after = update.version
                if not update.HasField("view"):
                    continue
                view = update.view
                key = (view.hand_id, view.version)
                if not view.legal_actions or key in acted or view.version < acted_version:
                    continue
                acted.add(key)
                move = next_move(view, choose, pick)
                if move is None:
                    continue
                rid = f"{client.player}-{view.hand_id}-{view.version}"
                version = await _act_until_answered(client, table_id, view, move, rid, acts)
                acted_version = max(acted_version, version or 0)
        except grpc.aio.AioRpcError:
            if stop.is_set():
                break
            await asyncio.sleep(0.2)  # resume the stream from `after`


async def _versions(outage: OutageRoom) -> dict[str, int]:
    return {t: len(await read_records(outage.nats.url, t)) for t in TABLES}


async def _progress_resumes(outage: OutageRoom, since: dict[str, int]) -> None:
    """Every table's log grows past ``since`` within :data:`RESUME` seconds."""
    now = since
    for _ in range(int(RESUME / 0.25)):
        now = await _versions(outage)
        if all(now[t] > since[t] for t in TABLES):
            return
        await asyncio.sleep(0.25)
    stalled = [t for t in TABLES if now[t] <= since[t]]
    raise AssertionError(f"tables {stalled} stalled: no record {RESUME:g} s after NATS came back")


@pytest.mark.battery
@pytest.mark.timeout(size(300, 3600))
async def test_nats_outage_battery(
    outage: OutageRoom, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(20261201)
    acts = Acts()
    stop = asyncio.Event()
    outages: list[float] = []
    async with grpc.aio.insecure_channel(outage.room.table_address) as channel:
        operator = outage.room.client(channel, "operator", "operator")
        # Deep stacks: nobody goes broke, so every table keeps dealing.
        seated = {
            t: await setup_table(
                operator, t, PLAYERS, stack=1_000_000, action_seconds=ACTION_SECONDS
            )
            for t in TABLES
        }
        bots = [
            asyncio.ensure_future(
                _bot(outage.room.client(channel, p), t, stop, acts, random.Random(rng.random()))
            )
            for t, players in seated.items()
            for p in players
        ]
        try:
            for _ in range(OUTAGES):
                await asyncio.sleep(rng.uniform(0.3, 3.0))  # a varied moment of play
                outage.kill_nats()
                down = time.monotonic()
                await wait_health(outage.services, "NOT_SERVING")
                await asyncio.sleep(rng.uniform(0.0, 2.5))  # a varied length
                outage.restart_nats()
                outages.append(time.monotonic() - down)
                since = await _versions(outage)
                await wait_health(outage.services, "SERVING")
                await _progress_resumes(outage, since)
            await asyncio.sleep(1.0)
        finally:
            stop.set()
            await asyncio.gather(*bots)

    assert not acts.bad, acts.bad[:10]
    assert acts.ok > 0
    logs = {t: await read_records(outage.nats.url, t) for t in TABLES}
    # A retried act's answer is the original: the one version the log holds its request id at.
    for table_id, rid, version in acts.retried:
        stored = [r.version for r in logs[table_id] if is_request(r.request_id, rid)]
        assert stored == [version], (rid, stored, version)
    for table_id, records in logs.items():
        request_ids_once(records)
        bought, on_table, raked = chips_on_the_books(records)
        assert bought == on_table + raked == PLAYERS * 1_000_000, table_id
        assert longest_gaps(records)[0] <= max(outages) + RESUME, table_id

    # The auditor's replay of every stream is clean.
    await export_when_revealed(outage.room, tmp_path / "room.rba.gz")
    capsys.readouterr()
    flags = stream_flags(outage.room)
    assert await cli("audit", "--nats", outage.nats.url, *flags, "--no-progress") == 0
    assert "RESULT: OK" in capsys.readouterr().out

    with capsys.disabled():
        gaps = {t: round(longest_gaps(r)[0], 2) for t, r in logs.items()}
        print(
            f"\noutage battery: {OUTAGES} outages ({min(outages):.1f}-{max(outages):.1f} s), "
            f"{acts.ok} acts answered, {acts.unavailable} UNAVAILABLE, "
            f"{len(acts.retried)} retried to their original, records "
            f"{ {t: len(r) for t, r in logs.items()} }, longest gap per table {gaps} s"
        )

    # The oracles can fail: planted faults in a copy of the real log are caught.
    records = logs[TABLES[0]]
    doubled = [*records, replace(records[-1], version=records[-1].version + 1)]
    with pytest.raises(AssertionError, match="stored at versions"):
        request_ids_once(doubled)
    # A seat's buy-in missing from the log: chips appear from nowhere at the first deal.
    with pytest.raises(AssertionError, match="dealt in with"):
        chips_on_the_books([r for r in records if r.version != 2])
    # A stall planted after the last record is longer than the bound.
    stalled = [*records[:-1], replace(records[-1], recorded_at=records[-2].recorded_at)]
    stalled.append(
        replace(
            records[-1],
            version=records[-1].version + 1,
            recorded_at=records[-2].recorded_at + timedelta(seconds=max(outages) + RESUME + 5),
        )
    )
    assert longest_gaps(stalled)[0] > max(outages) + RESUME
