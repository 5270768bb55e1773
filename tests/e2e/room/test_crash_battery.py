"""Battery: kill -9 at every event boundary of a scripted hand of each game family.

For each family (stud hi/lo; draw with a reshuffle; Anaconda's pass and roll; Chicago's
declarations) one scripted hand is played in a reference room without a crash, then in a crash
room dealt the same deck (the reference hand's sealed seed, see ``_crashkit``), where the chosen
service (table, dealer or settlement) is killed with SIGKILL as soon as each chosen event batch
of the hand is in the table's log, and restarted before the script goes on.

Oracles, none of them the code under test (``_crashkit.hand_differences``):

- the crash room's table log equals the reference's, batch for batch and event for event (the
  hand's results, every card, the leavers' stacks);
- every card dealt is the one the revealed seed says (RBS1 deck, then each reshuffle of the
  discards the log asked for), derived here from the seed alone;
- the hand's seed reached the auditors' stream without anyone asking for it;
- the settlement ledger (SQLite, rows without ids or times) equals the reference's, row for row.

Sizes (``tests.battery.size``): in ``make test`` the table service is killed after six batches
spread over the stud hand and one sampled batch of each other family, the dealer and
settlement after one sampled batch per family; under ``make soak`` every batch of every family
for each service. ``test_the_oracles_catch_a_planted_bug`` plants recovery bugs in the restarted
processes and shows each is reported.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import nats
import pytest

from riverboat.natsserver import NatsServer
from tests.battery import size
from tests.e2e.room._crashkit import (
    FAMILIES,
    PLANTS,
    SERVICES,
    CrashRoom,
    Family,
    Run,
    hand_differences,
    play_scripted,
    spread,
)

EVERY = 10**6
#: Batches of the stud hand the table service is killed after in ``make test``.
STUD_SAMPLE = 6


def _boundaries(service: str, family: Family, ref: Run) -> list[int]:
    """The hand's log versions to kill after: all of them, or a spread sample."""
    versions = list(range(ref.setup_versions + 1, ref.last_version + 1))
    # make test: the table after STUD_SAMPLE batches spread over the stud hand (its first
    # betting round to its showdown), one batch elsewhere; make soak: every batch.
    sampled = service == "table" and family.name == "stud"
    count = size(STUD_SAMPLE if sampled else 1, EVERY)
    return list(spread(versions, count))


async def _battery(
    nats_server: NatsServer,
    tmp_path: Path,
    service: str,
    families: list[Family],
    choose: dict[str, list[int]] | None = None,
    plant: tuple[str, str] | None = None,
) -> tuple[list[str], list[str]]:
    """Reference runs, then crash runs; the differences found and a line per family."""
    tag = uuid.uuid4().hex[:8].upper()
    ref = CrashRoom(nats_server.url, tmp_path / "ref", f"CR{tag}")
    crash: CrashRoom | None = None
    nc = await nats.connect(nats_server.url)
    found: list[str] = []
    report: list[str] = []
    try:
        await ref.start()
        crash = CrashRoom(nats_server.url, tmp_path / "crash", f"CX{tag}", key=ref.key)
        # The uninterrupted runs, all at once (one table each), while the crash room starts.
        refs, _ = await asyncio.gather(
            asyncio.gather(*(play_scripted(ref, f, f"{f.name}-{service}") for f in families)),
            crash.start(),
        )
        if plant is not None:
            planted, bug = plant
            crash.plant_bug(planted, bug)  # in the process as it restarts after a kill
            if planted != service:  # not killed in the run: restarted with the bug now
                await asyncio.to_thread(crash.process(planted).stop)
                await asyncio.to_thread(crash.process(planted).start)
        for family, expected in zip(families, refs, strict=True):
            table_id, hand_id = expected.table_id, expected.hand_id
            record = await ref.sealed_seed(nc, table_id, hand_id)
            await crash.plant_seed(nc, table_id, hand_id, record)
            chosen = (choose or {}).get(family.name) or _boundaries(service, family, expected)
            run = await play_scripted(
                crash, family, table_id, service=service, kill_after=set(chosen).__contains__
            )
            assert run.killed_after, f"{family.name}: no kill happened"
            report.append(f"{family.name}: killed after {run.killed_after} of {sorted(chosen)}")
            found += await hand_differences(ref, crash, nc, expected, run)
        if await crash.ledger() != await ref.ledger():
            found.append("the ledger differs from the uninterrupted run's")
    finally:
        await nc.close()
        if crash is not None:
            await crash.stop()
        await ref.stop()
    return found, report


@pytest.mark.battery
@pytest.mark.timeout(size(600, 7200))
@pytest.mark.parametrize("service", SERVICES)
async def test_kill_9_after_every_event_resumes_the_same_hand_and_ledger(
    nats_server: NatsServer, tmp_path: Path, service: str
) -> None:
    found, report = await _battery(nats_server, tmp_path, service, list(FAMILIES.values()))
    print(f"crash battery ({service}): " + "; ".join(report))
    assert found == []


@pytest.mark.slow
@pytest.mark.parametrize(("service", "planted", "bug", "expected"), PLANTS)
async def test_the_oracles_catch_a_planted_bug(
    nats_server: NatsServer,
    tmp_path: Path,
    service: str,
    planted: str,
    bug: str,
    expected: list[str],
) -> None:
    """A restarted process with a recovery bug planted in it: each oracle that should see the
    bug reports it (the kill lands after the stud hand's first betting action)."""
    found, _ = await _battery(
        nats_server, tmp_path, service, [FAMILIES["stud"]], {"stud": [8]}, (planted, bug)
    )
    for what in expected:
        assert any(what in line for line in found), (what, found)
