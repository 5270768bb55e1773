"""Every kind of corruption is detected and named, down to the event (synthetic room)."""

from __future__ import annotations

import json
import random

import pytest

from riverboat.audit import Archive, AuditReport, Check, HandStatus, verify_archive
from riverboat.audit.synthetic import play_archive
from riverboat.engine.cards import card_str
from riverboat.v1 import events_pb2 as pb
from tests.unit.audit._tamper import (
    batch_of,
    edit_event,
    find,
    rechain,
    renumber_stream,
    table_messages,
    with_batch,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def pristine() -> Archive:
    return play_archive(tables=2, hands=25, seed=7)


@pytest.fixture
def archive(pristine: Archive) -> Archive:
    """A private copy to corrupt."""
    return Archive(pristine.manifest, list(pristine.messages))


def audit(archive: Archive) -> AuditReport:
    return verify_archive(archive)


def only(report: AuditReport, check: Check) -> list:  # type: ignore[type-arg]
    return [v for v in report.all_violations if v.check == check]


def test_a_clean_room_verifies(archive: Archive) -> None:
    report = audit(archive)
    assert report.ok, report.summary_lines()
    assert len(report.hands) == 50
    assert all(h.status == HandStatus.VERIFIED for h in report.hands)
    assert sum(h.rake for h in report.hands) > 0


def test_a_swapped_card_is_named_at_its_event(archive: Archive) -> None:
    # The 5th face-down card dealt at t1 becomes a card nobody was dealt in that hand.
    position = find(archive, "t1", "card_dealt", 4, lambda e: not e.face_up)
    dealt = {e.card_dealt.card for e in batch_of(archive.messages[position[0]]).events}
    replacement = next(card_str(c) for c in range(52) if card_str(c) not in dealt)

    def swap(env: pb.EventEnvelope) -> None:
        env.card_dealt.card = replacement

    edit_event(archive, position, swap)
    naive = audit(archive)
    altered = only(naive, Check.EVENT_ALTERED)
    assert len(altered) == 1 and altered[0].at.index == position[1]
    rechain(archive, "t1")
    report = audit(archive)
    cards = only(report, Check.CARD_MISMATCH)
    assert len(cards) == 1
    at = cards[0].at
    assert at is not None and at.event == "CardDealt" and at.index == position[1]
    assert at.stream_sequence == archive.messages[position[0]].sequence
    assert f"dealt {replacement}" in cards[0].message
    assert not only(report, Check.HASH_CHAIN) and not only(report, Check.EVENT_ALTERED)
    assert [h.status for h in report.hands].count(HandStatus.FAILED) == 1


def test_an_inserted_illegal_action_is_named(archive: Archive) -> None:
    # Copy an action message and replay it right after itself: the same seat acts twice.
    i, _ = find(archive, "t2", "action_taken", 3)
    copy = archive.messages[i]
    archive.messages.insert(i + 1, copy._replace(headers=dict(copy.headers)))
    rechain(archive, "t2", renumber=True)
    renumber_stream(archive)
    report = audit(archive)
    illegal = only(report, Check.ILLEGAL_ACTION)
    assert len(illegal) == 1, report.summary_lines()
    at = illegal[0].at
    assert at is not None and at.event == "ActionTaken"
    assert at.version == int(archive.messages[i + 1].headers["Rb-Version"])
    assert "refused by the rules" in illegal[0].message


def test_a_rake_one_cent_off_is_named(archive: Archive) -> None:
    i, j = find(archive, "t1", "rake_taken", 0, lambda r: r.amount > 0)
    batch = batch_of(archive.messages[i])
    rake = batch.events[j].rake_taken
    rake.amount += 1
    rake.from_pots[0] += 1
    # Keep the books balanced: the first pot pays one cent less to its first winner, whose
    # final stack is one cent lower. Only the rake rule is broken.
    award = next(e.pot_awarded for e in batch.events if e.WhichOneof("payload") == "pot_awarded")
    award.amount -= 1
    award.shares[0].amount -= 1
    winner = award.shares[0].seat
    ended = next(e.hand_ended for e in batch.events if e.WhichOneof("payload") == "hand_ended")
    next(s for s in ended.stacks if s.seat == winner).amount -= 1
    archive.messages[i] = with_batch(archive.messages[i], batch)
    rechain(archive, "t1")
    report = audit(archive)
    rakes = only(report, Check.RAKE)
    assert len(rakes) == 1
    assert rakes[0].at is not None and rakes[0].at.event == "RakeTaken"
    # Violations are read by people: amounts in dollars ($1.52), worked out here on their own.
    said, rule = (f"${c // 100:,}.{c % 100:02d}" for c in (rake.amount, rake.amount - 1))
    assert f"rake {said} but the table's rule gives {rule}" in rakes[0].message
    assert not only(report, Check.CHIPS)  # the arithmetic itself still adds up
    assert only(report, Check.REPLAY_MISMATCH)  # and the engine gives another rake


def test_a_seed_that_does_not_match_its_commitment(archive: Archive) -> None:
    k = next(i for i, m in enumerate(archive.messages) if m.stream == "RB_AUDIT")
    record = json.loads(archive.messages[k].data)
    seed = bytearray.fromhex(record["seed"])
    seed[0] ^= 1
    record["seed"] = seed.hex()
    archive.messages[k] = archive.messages[k]._replace(data=json.dumps(record).encode())
    report = audit(archive)
    mismatches = only(report, Check.SEED_MISMATCH)
    assert len(mismatches) == 1
    assert mismatches[0].hand_id == record["hand_id"]
    assert mismatches[0].at is not None and mismatches[0].at.event == "HandCommitted"
    assert not only(report, Check.CARD_MISMATCH)


def test_reports_name_a_hand_by_its_number_at_the_table(archive: Archive) -> None:
    # The seed of a later hand of t2 no longer matches its commitment.
    records = [
        (k, json.loads(m.data))
        for k, m in enumerate(archive.messages)
        if m.stream == "RB_AUDIT" and json.loads(m.data)["table_id"] == "t2"
    ]
    k, record = records[6]
    record["seed"] = ("00" if record["seed"][:2] != "00" else "01") + record["seed"][2:]
    archive.messages[k] = archive.messages[k]._replace(data=json.dumps(record).encode())
    report = audit(archive)
    [bad] = only(report, Check.SEED_MISMATCH)
    # People read the hand's number at its table (the hands dealt at t2 up to and including
    # this one, counted here from the log), with its id.
    number = 0
    for i in table_messages(archive, "t2"):
        kinds = [env.WhichOneof("payload") for env in batch_of(archive.messages[i]).events]
        number += kinds.count("hand_started")
        if any(env.hand_started.hand_id == record["hand_id"]
               for env in batch_of(archive.messages[i]).events):  # fmt: skip
            break
    assert bad.hand_id == record["hand_id"] and bad.hand_number == number > 1
    assert f"hand #{number} ({record['hand_id']}) at table t2" in str(bad)
    [failed] = [h for h in report.hands if h.status == HandStatus.FAILED]
    assert (failed.number, failed.hand_id) == (number, record["hand_id"])
    assert f"hand #{number} ({record['hand_id']})" in "\n".join(report.summary_lines())
    assert report.to_json()["violations"][0]["hand_number"] == number


def test_a_deleted_message_is_named(archive: Archive) -> None:
    i, _ = find(archive, "t1", "action_taken", 10)
    gone = archive.messages.pop(i)
    report = audit(archive)
    removed = only(report, Check.EVENT_REMOVED)
    assert len(removed) == 1
    version = int(gone.headers["Rb-Version"])
    assert f"version {version} missing" in removed[0].message
    assert removed[0].at is not None and removed[0].at.version == version + 1
    assert only(report, Check.ARCHIVE)  # the stream sequence is gone from the archive too


def test_a_deleted_event_inside_a_message_is_named(archive: Archive) -> None:
    i, j = find(archive, "t2", "card_dealt", 7)
    batch = batch_of(archive.messages[i])
    del batch.events[j]
    archive.messages[i] = with_batch(archive.messages[i], batch)
    report = audit(archive)
    removed = only(report, Check.EVENT_REMOVED)
    assert removed and removed[0].at is not None
    assert removed[0].at.stream_sequence == archive.messages[i].sequence
    assert removed[0].at.index == j


def test_two_swapped_messages_are_named(archive: Archive) -> None:
    i, _ = find(archive, "t1", "action_taken", 20)
    a, b = archive.messages[i], archive.messages[i + 1]
    assert a.subject == b.subject
    # Swap what the two stream positions hold.
    archive.messages[i] = b._replace(sequence=a.sequence)
    archive.messages[i + 1] = a._replace(sequence=b.sequence)
    report = audit(archive)
    reordered = only(report, Check.EVENTS_REORDERED)
    swapped = [v for v in reordered if "swapped" in v.message]
    assert len(swapped) == 1, report.summary_lines()
    # Named at the first position, holding the later message, and naming the other one.
    at = swapped[0].at
    assert at is not None and at.stream_sequence == a.sequence
    assert at.version == int(b.headers["Rb-Version"])
    assert f"stream seq {b.sequence}" in swapped[0].message
    assert not only(report, Check.EVENT_REMOVED)


def test_two_swapped_events_inside_a_message_are_named(archive: Archive) -> None:
    i, j = find(archive, "t2", "card_dealt", 0)
    batch = batch_of(archive.messages[i])
    first, second = pb.EventEnvelope(), pb.EventEnvelope()
    first.CopyFrom(batch.events[j])
    second.CopyFrom(batch.events[j + 1])
    batch.events[j].CopyFrom(second)
    batch.events[j + 1].CopyFrom(first)
    archive.messages[i] = with_batch(archive.messages[i], batch)
    report = audit(archive)
    reordered = only(report, Check.EVENTS_REORDERED)
    assert len(reordered) == 1
    assert reordered[0].at is not None and reordered[0].at.index == j
    assert "swapped" in reordered[0].message


def test_a_hand_dealt_without_its_commitment(archive: Archive) -> None:
    i, _ = find(archive, "t1", "hand_committed", 3)
    archive.messages.pop(i)
    rechain(archive, "t1", renumber=True)
    renumber_stream(archive)
    report = audit(archive)
    order = only(report, Check.COMMITMENT_ORDER)
    assert len(order) == 1 and order[0].at is not None and order[0].at.event == "HandStarted"


def test_a_seed_never_revealed(archive: Archive) -> None:
    k = next(i for i, m in enumerate(archive.messages) if m.stream == "RB_AUDIT")
    hand = json.loads(archive.messages.pop(k).data)["hand_id"]
    report = audit(archive)
    missing = only(report, Check.SEED_MISSING)
    assert [v.hand_id for v in missing] == [hand]


def test_a_damaged_archive_file_is_reported(archive: Archive, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import gzip

    from riverboat.audit import read_archive, write_archive

    path = tmp_path / "room.rba.gz"
    write_archive(path, archive)
    assert audit(read_archive(path)).ok
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    path.write_bytes(gzip.compress(b"".join(lines[:-5])))  # truncated
    report = audit(read_archive(path))
    assert any("truncated" in v.message for v in only(report, Check.ARCHIVE))


def test_an_archive_round_trip_is_exact(archive: Archive, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from riverboat.audit import read_archive, write_archive

    path = tmp_path / "a.gz"
    write_archive(path, archive)
    again = read_archive(path)
    assert again.messages == archive.messages and not again.problems
    assert again.manifest.streams == archive.manifest.streams


def test_a_short_refund_of_a_voided_hand_is_named() -> None:
    archive = play_archive(tables=1, hands=4, seed=2, void_share=1.0)
    clean = audit(archive)
    assert clean.ok and clean.count(HandStatus.VOIDED) == 4
    position = find(archive, "t1", "hand_voided", 1, lambda v: len(v.refunds) > 0)

    def shorten(env: pb.EventEnvelope) -> None:
        env.hand_voided.refunds[0].amount -= 1

    edit_event(archive, position, shorten)
    rechain(archive, "t1")
    report = audit(archive)
    chips = only(report, Check.CHIPS)
    assert len(chips) == 1 and "voided hand refunds" in chips[0].message
    assert chips[0].at is not None and chips[0].at.event == "HandVoided"
    assert only(report, Check.REPLAY_MISMATCH)  # the table's rule refunds every cent


@pytest.mark.slow
def test_any_flipped_bit_is_caught_and_located(pristine: Archive) -> None:
    # Research test matrix F4: flip one bit anywhere in a stored table-log message.
    rng = random.Random(4)
    table_log = [i for i, m in enumerate(pristine.messages) if m.stream == "RB_TABLES"]
    for _ in range(40):
        archive = Archive(pristine.manifest, list(pristine.messages))
        i = rng.choice(table_log)
        data = bytearray(archive.messages[i].data)
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        archive.messages[i] = archive.messages[i]._replace(data=bytes(data))
        report = audit(archive)
        assert not report.ok
        located = {v.at.stream_sequence for v in report.all_violations if v.at is not None}
        assert archive.messages[i].sequence in located, report.summary_lines()
