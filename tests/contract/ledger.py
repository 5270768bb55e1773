"""The ledger contract: balanced postings, exactly-once application of redelivered records,
replay-order independence, and invariants that catch tampering.

:class:`LedgerContract` is abstract: a ``Test...`` subclass provides the ``engine`` fixture (a
migrated, empty ledger database). SQLite runs it in ``tests/contract/test_ledger.py`` (no
server); PostgreSQL in ``tests/integration/settlement/test_ledger_postgres_contract.py``.

The logs come from a simulated room played by the real table aggregate and engine
(``tests/unit/ledger/_sim.py``): two tables, buy-ins, a voided hand, cash-outs, a withdrawal.
"""

from __future__ import annotations

import functools
import random
from collections import defaultdict

import pytest
from sqlalchemy import Engine, select, update

from riverboat.ledger import Ledger, Outcome, canonical_dump, check_ledger
from riverboat.ledger.migrate import downgrade_all, upgrade
from riverboat.ledger.models import Account, PostingLine
from riverboat.ledger.queries import rake_report
from tests.integration.settlement._kit import expected_rake
from tests.unit.ledger._sim import TABLES, Record, Room, standard_room


@functools.cache
def _standard_room() -> Room:
    """One simulated room per process (tests only read it): simulating it takes seconds."""
    return standard_room(seed=7, hands=4)


def apply(ledger: Ledger, record: Record) -> Outcome:
    fn = ledger.apply_table_record if record.source == TABLES else ledger.apply_wallet_record
    result = fn(record.aggregate_id, record.version, record.payload)
    assert not result.violations, result.violations
    return result.outcome


def dump(engine: Engine) -> str:
    with engine.connect() as conn:
        return canonical_dump(conn)


def reset(engine: Engine) -> None:
    downgrade_all(engine)
    upgrade(engine)


class LedgerContract:
    """What the ledger promises on every database; subclasses provide ``engine``."""

    @pytest.fixture
    def room(self) -> Room:
        return _standard_room()

    def test_postings_balance_and_match_what_the_hands_imply(
        self, engine: Engine, room: Room
    ) -> None:
        ledger = Ledger(engine)
        outcomes = {apply(ledger, r) for r in room.records}
        # A table record that moves no money (a card, a check) is skipped, not applied.
        assert outcomes == {Outcome.APPLIED, Outcome.SKIPPED}
        with engine.connect() as conn:
            report = check_ledger(conn)
            assert report.ok, report.render()
            assert report.postings > 100
            assert report.deposits == 100_000 and report.withdrawals == 1_500
            wallets = dict(
                conn.execute(
                    select(Account.player, Account.balance).where(Account.kind == "wallet")
                ).all()
            )
            assert wallets == {p: s.balance for p, s in room.wallets.items()}
            rows = rake_report(conn)
        assert rows == expected_rake(room)
        assert len({r.day for r in rows}) == 2  # the room plays across midnight UTC
        assert sum(r.rake for r in rows) == report.totals["rake"] > 0

    def test_redelivery_two_to_five_times_leaves_the_ledger_identical(
        self, engine: Engine, room: Room
    ) -> None:
        ledger = Ledger(engine)
        for record in room.records:
            apply(ledger, record)
        once = dump(engine)

        # Every record again, 1-4 more times, in a shuffled order: all no-ops.
        rng = random.Random(3)
        repeats = [r for r in room.records for _ in range(rng.randint(1, 4))]
        rng.shuffle(repeats)
        assert {apply(ledger, r) for r in repeats} == {Outcome.DUPLICATE, Outcome.SKIPPED}
        assert dump(engine) == once

        # From empty: each record delivered 2-5 times, out of order; a record that arrives before
        # its predecessor is refused (a gap) until the predecessor came, as the consumer does.
        reset(engine)
        ledger = Ledger(engine)  # knowing nothing of the records skipped before
        deliveries = [r for r in room.records for _ in range(rng.randint(2, 5))]
        rng.shuffle(deliveries)
        by_aggregate: dict[tuple[str, str], dict[int, Record]] = defaultdict(dict)
        for record in room.records:
            by_aggregate[(record.source, record.aggregate_id)][record.version] = record
        outcomes: dict[Outcome, int] = defaultdict(int)
        for record in deliveries:
            outcome = apply(ledger, record)
            outcomes[outcome] += 1
            if outcome is Outcome.GAP:  # fill from "the log", then apply this one
                log = by_aggregate[(record.source, record.aggregate_id)]
                for version in range(1, record.version + 1):
                    apply(ledger, log[version])
        repeated = outcomes[Outcome.DUPLICATE] + outcomes[Outcome.SKIPPED]
        assert outcomes[Outcome.GAP] > 0 and repeated > len(room.records)
        assert dump(engine) == once

    def test_replay_in_another_order_gives_the_same_bytes(self, engine: Engine, room: Room) -> None:
        ledger = Ledger(engine)
        for record in room.records:  # live order: wallets and tables interleaved
            apply(ledger, record)
        live = dump(engine)
        reset(engine)
        # Rebuild order: every wallet record, then every table record, many per transaction.
        ordered = sorted(room.records, key=lambda r: r.source != "wallets")
        with ledger.writer() as writer:
            for record in ordered:
                fn = (
                    writer.apply_table_record
                    if record.source == TABLES
                    else writer.apply_wallet_record
                )
                assert fn(record.aggregate_id, record.version, record.payload).outcome in (
                    Outcome.APPLIED,
                    Outcome.SKIPPED,
                )
        assert dump(engine) == live

    def test_the_check_catches_a_tampered_ledger(self, engine: Engine, room: Room) -> None:
        ledger = Ledger(engine)
        for record in room.records:
            apply(ledger, record)
        with engine.begin() as conn:
            line = conn.scalar(select(PostingLine.id).order_by(PostingLine.id.desc()).limit(1))
            conn.execute(
                update(PostingLine)
                .where(PostingLine.id == line)
                .values(amount=PostingLine.amount + 1)
            )
            conn.execute(
                update(Account)
                .where(Account.name == "wallet:cy")
                .values(balance=Account.balance - 7)
            )
        with engine.connect() as conn:
            report = check_ledger(conn)
        failed = {v.check for v in report.violations}
        assert {
            "postings_balance",
            "balances_match_lines",
            "conservation",
            "wallets_match_logs",
        } <= failed
        text = report.render("test")
        assert "FAIL  postings_balance" in text and "invariants FAILED" in text
        assert "wallet:cy is 14993 in the ledger" in text or "wallet:cy" in text

    def test_a_hand_that_does_not_add_up_is_reported_with_its_ids(
        self, engine: Engine, room: Room
    ) -> None:
        ledger = Ledger(engine)
        first_end = next(
            i
            for i, r in enumerate(room.records)
            if r.source == TABLES and any(type(e).__name__ == "HandEnded" for e in r.events)
        )
        for record in room.records[:first_end]:
            apply(ledger, record)
        ended = room.records[first_end]
        with engine.begin() as conn:  # a chip appears on a stack from nowhere
            conn.execute(
                update(Account)
                .where(Account.name == f"table:{ended.aggregate_id}:ann")
                .values(balance=Account.balance + 1)
            )
        result = ledger.apply_table_record(ended.aggregate_id, ended.version, ended.payload)
        assert result.outcome is Outcome.APPLIED
        broken = {(v.check, v.table_id) for v in result.violations}
        assert ("stack_matches_table", ended.aggregate_id) in broken
        assert ("conservation", ended.aggregate_id) in broken
        assert all(v.hand_id for v in result.violations)
