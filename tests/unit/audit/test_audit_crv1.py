"""The audit's CRV1 checks (docs/shuffle.md II.8), each named on a log bent the one way it is
about: a card dealt before the lock, a lock that never came, a Merkle root the revealed seed
does not give, a client's seed relabelled as drawn (or a drawn one as a client's), a drawn seed
the table chose. Synthetic CRV1 rooms, written as the services write them; the oracle is the
rule each bent log breaks."""

from __future__ import annotations

import pytest

from riverboat.audit import Archive, AuditReport, Check, HandStatus, verify_archive
from riverboat.audit.synthetic import play_archive
from riverboat.v1 import events_pb2 as pb
from tests.unit.audit._tamper import (
    batch_of,
    edit_event,
    find,
    rechain,
    renumber_stream,
    table_messages,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def pristine() -> Archive:
    return play_archive(tables=1, hands=12, seed=21, scheme="CRV1", dealers_choice=True)


@pytest.fixture
def archive(pristine: Archive) -> Archive:
    return Archive(pristine.manifest, list(pristine.messages))


def _checks(report: AuditReport) -> dict[Check, list[str]]:
    out: dict[Check, list[str]] = {}
    for v in report.all_violations:
        out.setdefault(v.check, []).append(v.message)
    return out


def _lock_of(archive: Archive, nth: int = 2) -> tuple[int, pb.SeedsLocked]:
    i, j = find(archive, "t1", "seeds_locked", nth)
    return i, batch_of(archive.messages[i]).events[j].seeds_locked


def test_a_clean_crv1_room_verifies(archive: Archive) -> None:
    report = verify_archive(archive)
    assert report.ok, report.summary_lines()
    assert len(report.hands) == 12
    assert all(h.status in (HandStatus.VERIFIED, HandStatus.VOIDED) for h in report.hands)
    # The room has both kinds of seed: revealed by clients, and derived.
    origins = {
        s.origin
        for i in table_messages(archive, "t1")
        for env in batch_of(archive.messages[i]).events
        if env.WhichOneof("payload") == "seeds_locked"
        for s in env.seeds_locked.seeds
    }
    assert origins == {0, 1}


def test_a_card_dealt_before_the_lock(archive: Archive) -> None:
    i, _ = _lock_of(archive)
    deal, _ = find(archive, "t1", "hand_started", 2)
    assert deal == i + 1
    archive.messages[i], archive.messages[deal] = archive.messages[deal], archive.messages[i]
    rechain(archive, "t1", renumber=True)
    renumber_stream(archive)
    checks = _checks(verify_archive(archive))
    assert "a card was dealt before the seeds were locked" in checks[Check.COMMITMENT_ORDER]


def test_a_lock_that_never_came(archive: Archive) -> None:
    i, lock = _lock_of(archive)
    archive.messages.pop(i)
    rechain(archive, "t1", renumber=True)
    renumber_stream(archive)
    report = verify_archive(archive)
    checks = _checks(report)
    assert (
        "cards were dealt but the client seeds were never locked" in checks[Check.COMMITMENT_ORDER]
    )
    assert lock.hand_id in {h.hand_id for h in report.hands if h.status is HandStatus.FAILED}


def test_a_merkle_root_the_seed_does_not_give(archive: Archive) -> None:
    position = find(archive, "t1", "hand_committed", 2)
    edit_event(archive, position, lambda e: setattr(e.hand_committed, "merkle_root", b"\x01" * 32))
    rechain(archive, "t1")
    checks = _checks(verify_archive(archive))
    assert any("Merkle root" in m for m in checks[Check.SEED_MISMATCH]), checks


@pytest.mark.parametrize("origin", [0, 1])
def test_a_seed_relabelled(archive: Archive, origin: int) -> None:
    """A client's seed relabelled drawn, or a drawn seed relabelled a client's."""
    i, j = find(archive, "t1", "seeds_locked", 0, lambda m: {s.origin for s in m.seeds} == {0, 1})
    lock = batch_of(archive.messages[i]).events[j].seeds_locked
    k = next(n for n, s in enumerate(lock.seeds) if s.origin == origin)

    def relabel(env: pb.EventEnvelope) -> None:
        env.seeds_locked.seeds[k].origin = 1 - origin

    edit_event(archive, (i, j), relabel)
    rechain(archive, "t1")
    checks = _checks(verify_archive(archive))
    said = "is marked drawn, but it is not the seed" if origin == 0 else "has no locked commitment"
    assert any(said in m for m in checks[Check.CLIENT_SEEDS]), checks
    assert Check.REPLAY_MISMATCH in checks  # the rules' own lock differs too


def test_a_drawn_seed_the_table_chose(archive: Archive) -> None:
    i, j = find(archive, "t1", "seeds_locked", 0, lambda m: any(s.origin for s in m.seeds))
    lock = batch_of(archive.messages[i]).events[j].seeds_locked
    k = next(n for n, s in enumerate(lock.seeds) if s.origin == 1)
    edit_event(archive, (i, j), lambda e: setattr(e.seeds_locked.seeds[k], "seed", b"\x07" * 32))
    rechain(archive, "t1")
    checks = _checks(verify_archive(archive))
    seat = lock.seeds[k].seat
    assert any(f"seat {seat}'s seed is marked drawn" in m for m in checks[Check.CLIENT_SEEDS])
