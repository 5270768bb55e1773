"""The audit's own building blocks: its RBS1, its pot and rake arithmetic, the seed records."""

from __future__ import annotations

import json

from riverboat.audit import rbs1
from riverboat.audit.archive import StoredMessage
from riverboat.audit.money import expected_rake, half_even, side_pots
from riverboat.audit.report import Check
from riverboat.audit.seeds import parse_reveals
from riverboat.engine.cards import card_str
from riverboat.engine.options import pacific_options
from riverboat.shuffle.vectors import load_vectors


def test_the_auditors_rbs1_matches_every_known_answer_vector() -> None:
    vectors = load_vectors()
    assert len(vectors) >= 5
    for v in vectors:
        assert rbs1.commitment(v.hand_id, v.seed) == v.commitment
        assert rbs1.deck(v.hand_id, v.seed) == v.deck, v.comment
        assert sorted(rbs1.deck(v.hand_id, v.seed)) == list(range(52))


def test_half_even_and_the_pacific_rake() -> None:
    assert [half_even(n, 10) for n in (24, 25, 26, 35)] == [2, 2, 3, 4]
    options = pacific_options().to_dict()  # 5%, caps $1 (2-3), $2 (4-5), $3 (6+)
    assert expected_rake(1_000, options, players=4, last_street=3) == 0  # ended on 3rd street
    assert expected_rake(1_000, options, players=4, last_street=4) == 50
    assert expected_rake(1_010, options, players=4, last_street=7) == 50  # 50.5 -> 50
    assert expected_rake(1_030, options, players=4, last_street=7) == 52  # 51.5 -> 52
    assert expected_rake(10_000, options, players=3, last_street=7) == 100  # capped
    assert expected_rake(10_000, options, players=6, last_street=7) == 300


def test_side_pots_from_contributions() -> None:
    # Seat 4 folded after putting in 100; seat 1 all in for 50; seats 2 and 3 in for 300.
    pots = side_pots({1: 50, 2: 300, 3: 300, 4: 100}, folded={4})
    assert pots == [(200, frozenset({1, 2, 3})), (550, frozenset({2, 3}))]


def _record(subject: str, **fields: str) -> StoredMessage:
    body = {"type": "riverboat.audit.SeedRevealed/1", "scheme": "RBS1", "revealed_at": "x"}
    body.update(fields)
    return StoredMessage("RB_AUDIT", 1, subject, "", {}, json.dumps(body).encode())


def test_seed_records_that_lie_about_their_hand_are_reported() -> None:
    good = _record(
        "rb.audit.seeds.t1.t1-2",
        table_id="t1",
        hand_id="t1-2",
        seed="00" * 32,
        commitment="11" * 32,
    )
    moved = _record(
        "rb.audit.seeds.t1.t1-9",
        table_id="t1",
        hand_id="t1-2",
        seed="00" * 32,
        commitment="11" * 32,
    )
    broken = StoredMessage("RB_AUDIT", 3, "rb.audit.seeds.t1.t1-3", "", {}, b"{not json")
    reveals, problems = parse_reveals([good, moved, broken], "rb.audit.seeds")
    assert list(reveals) == [("t1", "t1-2")]
    assert [p.check for p in problems] == [Check.SEED_RECORD, Check.SEED_RECORD]
    assert "stored under" in problems[0].message and "malformed" in problems[1].message
    assert card_str(rbs1.deck("t1-2", bytes(32))[0])  # any hand id and seed derive a deck


def test_the_audit_decodes_every_event_as_the_codec_does() -> None:
    from riverboat.audit.synthetic import play_archive
    from riverboat.audit.tablelog import decode_log
    from riverboat.eventcodec import decode_batch

    archive = play_archive(tables=1, hands=12, seed=9, void_share=0.2, leave_share=0.3)
    messages = list(archive.of_stream("tables"))
    log, problems = decode_log("t", messages)
    assert not problems
    kinds = {type(e.event).__name__ for m in log for e in m.events}
    for m, logged in zip(messages, log, strict=True):
        assert [e.event for e in logged.events] == [e for e, _ in decode_batch(m.data)]
    assert {"HandStarted", "CardDealt", "ActionTaken", "PotAwarded", "HandEnded"} <= kinds
    assert {"TableCreated", "PlayerSeated", "HandCommitted", "HandVoided"} <= kinds


def test_the_codec_has_a_decoder_for_every_payload_kind() -> None:
    # One table of decoders serves the audit, the table service's rebuild and every reader:
    # a kind the envelope can hold but the table lacks would be an undecodable event.
    from riverboat import eventschema
    from riverboat.v1 import events_pb2 as pb

    oneof = pb.EventEnvelope.DESCRIPTOR.oneofs_by_name["payload"]
    assert {f.name for f in oneof.fields} == set(eventschema.DECODERS)
