"""The audit on dealer's choice tables: every game, the dealer's call and choice, riding pots,
reshuffles of a draw's discards (RBS1 section 5a), and corruptions of those named."""

from __future__ import annotations

from collections import Counter

import pytest

from riverboat.audit import Archive, AuditReport, Check, verify_archive
from riverboat.audit import replay as replay_module
from riverboat.audit.synthetic import play_archive
from riverboat.audit.tablelog import decode_log
from riverboat.audit.verify import split_tables
from riverboat.engine.cards import card_str
from riverboat.engine.commands import StartHand
from riverboat.engine.game import step
from riverboat.table import aggregate
from riverboat.table.aggregate import TableState
from riverboat.v1 import events_pb2 as pb
from tests.unit.audit._tamper import batch_of, edit_event, find, rechain


@pytest.fixture(scope="module")
def pristine() -> Archive:
    # Seven players and two draws: the stub runs out, so the dealer reshuffles.
    return play_archive(tables=2, hands=40, seed=4, players=7, dealers_choice=True)


@pytest.fixture
def archive(pristine: Archive) -> Archive:
    return Archive(pristine.manifest, list(pristine.messages))


def kinds(archive: Archive) -> Counter[str]:
    out: Counter[str] = Counter()
    for table_id, messages in split_tables(archive).items():
        log, _ = decode_log(table_id, messages)
        out.update(type(e.event).__name__ for m in log for e in m.events)
    return out


def only(report: AuditReport, check: Check) -> list:  # type: ignore[type-arg]
    return [v for v in report.all_violations if v.check == check]


def test_a_dealers_choice_room_verifies(archive: Archive) -> None:
    report = verify_archive(archive)
    assert report.ok, report.summary_lines()
    seen = kinds(archive)
    for kind in (
        "DealerUp",
        "GameChosen",
        "GameOptionsSet",
        "CardsPassed",
        "CardsDiscarded",
        "DeclarationsRevealed",
        "OfferAnswered",
        "CardPaymentPosted",
        "TableRowDealt",
        "DiscardsReshuffled",
        "PotCarriedOver",
    ):
        assert seen[kind] > 0, kind


def test_the_audits_deal_is_the_tables(pristine: Archive, monkeypatch: pytest.MonkeyPatch) -> None:
    # The replay builds the deal itself (to get the hand's state with its events); it must be
    # exactly what aggregate.deal_hand decides, on stud and dealer's choice tables alike.
    original = replay_module.start_command
    checked = 0

    def checked_start(table: TableState, deck: tuple[int, ...]) -> StartHand | None:
        nonlocal checked
        command = original(table, deck)
        if command is not None:
            assert step(None, command)[0] == aggregate.deal_hand(table, deck)
            checked += 1
        return command

    monkeypatch.setattr(replay_module, "start_command", checked_start)
    stud = play_archive(tables=1, hands=15, seed=6)
    assert verify_archive(pristine).ok and verify_archive(stud).ok
    assert checked >= 90


def test_a_card_from_a_reshuffled_stub_swapped_is_named(archive: Archive) -> None:
    i, j = find(archive, "t1", "discards_reshuffled", 0)
    batch = batch_of(archive.messages[i])
    k = next(n for n in range(j, len(batch.events)) if batch.events[n].HasField("card_dealt"))
    real = batch.events[k].card_dealt.card
    fake = next(card_str(c) for c in range(52) if card_str(c) != real)

    def swap(env: pb.EventEnvelope) -> None:
        env.card_dealt.card = fake

    edit_event(archive, (i, k), swap)
    rechain(archive, "t1")
    report = verify_archive(archive)
    named = [v for v in only(report, Check.CARD_MISMATCH) if v.message.startswith("deck position")]
    assert len(named) == 1 and named[0].at is not None and named[0].at.index == k
    position = int(named[0].message.split()[2].rstrip(":"))
    assert position >= 52  # from the reshuffled stub, past the 52-card deck
    assert f"the committed deck has {real}" in named[0].message


def test_a_changed_game_choice_is_named(archive: Archive) -> None:
    position = find(archive, "t2", "game_chosen", 3, lambda g: not g.by_clock)
    original = batch_of(archive.messages[position[0]]).events[position[1]].game_chosen.game
    other = "woolworth" if original != "woolworth" else "chicago"

    def change(env: pb.EventEnvelope) -> None:
        env.game_chosen.game = other

    edit_event(archive, position, change)
    rechain(archive, "t2")
    report = verify_archive(archive)
    assert not report.ok
    located = {v.at.stream_sequence for v in report.all_violations if v.at is not None}
    assert archive.messages[position[0]].sequence in located, report.summary_lines()
