"""CRV1 through the table runner and its views (fake ports, time moved by hand): a player's
own :class:`CardChecker` verifies every card it is shown, catches a dealer that changed one
card after committing, and an observer is shown no proof of a hidden card."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from riverboat.cli.app import run as cli_run
from riverboat.engine.cards import card_str
from riverboat.proofcheck import CardCheck, CardChecker, Verdict
from riverboat.services.common.errors import ServiceError
from riverboat.services.table.runner import TableRunner
from riverboat.services.table.viewpb import TableViews
from riverboat.shuffle import crv1
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent
from riverboat.v1 import table_pb2
from tests.unit.table.crv1kit import (
    PAUSE,
    WINDOW,
    Crv1Dealer,
    client_seed,
    commit_seed,
    dealt_hand,
    messages_to,
    opened,
    reveal_seed,
)
from tests.unit.table.fakes import settle

pytestmark = pytest.mark.timeout(60)


async def _check(runner: TableRunner, seat: int) -> list[CardCheck]:
    """Seat ``seat``'s own checks of everything it was sent."""
    checker = CardChecker()
    for message in await messages_to(runner, seat):
        checker.update(message)
    return checker.checks


def _cards(checks: list[CardCheck]) -> list[CardCheck]:
    return [c for c in checks if c.card]


async def test_every_card_a_player_sees_verifies() -> None:
    runner = await dealt_hand(Crv1Dealer(), committing=(1, 2), revealing=(2,))
    locked, pending = runner.state.locked, runner.state.pending
    assert locked is not None and pending is None
    commit = crv1.commit_deck(locked.hand_id, hashlib.sha256(locked.hand_id.encode()).digest())
    # Seat 2's client committed and revealed; seat 1 committed but never revealed; seat 3 sent
    # nothing. Theirs are the seats' derived seeds, which only C and R decide.
    assert [(seat, origin) for seat, _, _, origin in locked.seeds] == [(1, 1), (2, 0), (3, 1)]
    assert locked.seeds[1][2] == client_seed(2)
    for seat in (1, 3):
        drawn = crv1.drawn_seed(locked.hand_id, commit.commitment, commit.root, seat)
        assert locked.seeds[seat - 1][2] == drawn
    for seat in (1, 2, 3):
        checks = await _check(runner, seat)
        # Stud's third street: two down cards of their own, one up card of each player,
        # each at the place in the deal the seat counted itself.
        cards = _cards(checks)
        assert len(cards) == 2 + 3 and all(c.witnessed for c in cards)
        assert all(c.verdict is Verdict.VERIFIED for c in cards), checks
        # A seat whose seed was drawn is told so; the one whose seed counted is not.
        notices = [c for c in checks if c.verdict is Verdict.NOTICE]
        assert len(notices) == (seat != 2), notices
        assert all("seed locked for your seat was drawn" in n.reason for n in notices)
    await runner.close()


async def test_an_observer_gets_only_the_up_cards_proofs() -> None:
    runner = await dealt_hand(Crv1Dealer())
    views = TableViews("t1")
    views.proofs = runner.proofs
    view = views.view(runner.state, runner.version, 0)
    hand = runner.state.hand
    assert hand is not None
    down = {
        card_str(c)
        for row, ups in zip(hand.cards, hand.face_up, strict=True)
        for c, up in zip(row, ups, strict=True)
        if not up
    }
    assert len(view.proofs) == 3 and len(down) >= 6
    # No opening of a hidden card: the proofs name up cards only, and no opening's card byte
    # is a hidden card.
    for proof in view.proofs:
        assert proof.card not in down
        assert card_str(crv1.Opening.from_bytes(proof.opening).card) == proof.card
    await runner.close()


@pytest.mark.parametrize("index", [0, 1, 2, 5, 8])
async def test_a_dealer_that_changes_one_card_is_caught_by_its_receiver(index: int) -> None:
    runner = await dealt_hand(Crv1Dealer(cheat=index))
    hand = runner.state.hand
    assert hand is not None and runner.deck is not None
    changed = card_str(runner.deck[index])
    holder = next(
        seat
        for seat, row in zip(hand.seats, hand.cards, strict=True)
        if changed in {card_str(c) for c in row}
    )
    failures = [c for c in await _check(runner, holder) if c.verdict is Verdict.FAILED]
    assert [f.card for f in failures] == [changed]
    await runner.close()


async def test_riverboat_verify_checks_a_saved_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = await dealt_hand(Crv1Dealer())
    views = TableViews("t1")
    views.proofs = runner.proofs
    view = views.view(runner.state, runner.version, 1)
    saved = tmp_path / "session.jsonl"
    saved.write_text(json_format.MessageToJson(view, indent=None) + "\n", encoding="utf-8")
    assert cli_run(["verify", str(saved)]) == 0
    assert "All 5 cards verified in 1 hands." in capsys.readouterr().out
    # One flipped bit in one opening's salt: that card, and only it, fails.
    bad = table_pb2.TableView()
    bad.CopyFrom(view)
    raw = bytearray(bad.proofs[0].opening)
    raw[10] ^= 0x04
    bad.proofs[0].opening = bytes(raw)
    saved.write_text(json_format.MessageToJson(bad, indent=None) + "\n", encoding="utf-8")
    assert cli_run(["verify", str(saved)]) == 1
    out = capsys.readouterr().out
    assert f"PROOF FAILED for {bad.proofs[0].card}" in out and "1 PROOF(S) FAILED" in out
    await runner.close()


def _dealt_to(messages: list[table_pb2.WatchResponse], seat: int) -> list[tuple[int, str]]:
    """(0-based dealing index, card) of each CardDealt to ``seat``, counted from the events."""
    out, index = [], 0
    for message in messages:
        for env in message.events:
            if env.WhichOneof("payload") == "card_dealt":
                if env.card_dealt.seat == seat:
                    out.append((index, env.card_dealt.card))
                index += 1
    return out


async def test_a_saved_watch_stream_is_verified_with_the_deal_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = await dealt_hand(Crv1Dealer(), committing=(1, 2, 3), revealing=(1, 2, 3))
    saved = tmp_path / "session.jsonl"
    lines = [json_format.MessageToJson(m, indent=None) for m in await messages_to(runner, 1)]
    saved.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli_run(["verify", str(saved)]) == 0
    assert "All 5 cards verified in 1 hands." in capsys.readouterr().out
    # The file read again with one of seat 1's own cards said to be another card of the deal.
    first, _ = _dealt_to(await messages_to(runner, 1), 1)[0]
    last = json_format.Parse(lines[-1], table_pb2.WatchResponse())
    mine = next(p for p in last.view.proofs if p.deal_index == first + 1)
    mine.deal_index = first + 2
    saved.write_text("\n".join([*lines[:-1], json_format.MessageToJson(last, indent=None)]))
    assert cli_run(["verify", str(saved)]) == 1
    assert "but its proof names card" in capsys.readouterr().out
    await runner.close()


async def test_the_seed_phases_exist_without_a_pause() -> None:
    """With no pause between hands a client still has the shortest window to seed in (the
    table cannot make every seed drawn by dealing at once)."""
    runner, clock = await opened(Crv1Dealer(), pause=0.0)
    least = runner.config.min_seed_window
    assert least > 0
    await clock.advance(0)  # the commitment, at once
    assert runner.state.seed_phase == "commit" and runner.state.hand is None
    await clock.advance(least * 0.9)
    assert runner.state.seed_phase == "commit"  # still open
    await commit_seed(runner, 2)
    await clock.advance(least)
    assert runner.state.seed_phase == "reveal"
    await reveal_seed(runner, 2)  # the only one committed: the lock and the deal follow at once
    await settle()
    locked = runner.state.locked
    assert runner.state.hand is not None and locked is not None
    assert [(seat, origin) for seat, _, _, origin in locked.seeds] == [(1, 1), (2, 0), (3, 1)]
    await runner.close()


async def _refusal(runner: TableRunner, decide: Callable[[TableState], list[AnyEvent]]) -> Any:
    """The gRPC status the table service gives ``decide``'s refusal (nothing written)."""
    from riverboat.services.table.service import TableService

    version = runner.version
    with pytest.raises(ServiceError) as caught:
        # Only _run is used, through the service's own refusal mapping; it needs no registry.
        service = TableService(SimpleNamespace(store=runner.store))  # type: ignore[arg-type]
        await service._run(
            None,  # type: ignore[arg-type]
            runner,
            decide,
            request_id="late",
            actor="p1",
            kind="act",
            request=table_pb2.ActRequest(request_id="late"),
        )
    assert runner.version == version  # a refused seed writes nothing
    return caught.value


async def test_a_seed_after_the_lock_is_refused_with_seeds_locked() -> None:
    runner = await dealt_hand(Crv1Dealer(), committing=(1,), revealing=(1,))
    hand = runner.state.hand
    assert hand is not None and runner.state.locked is not None
    late = await _refusal(
        runner,
        lambda s: table.send_seed(s, seat=1, player="p1", hand_id=hand.hand_id, seed=b"\x07" * 32),
    )
    assert (late.code, late.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEEDS_LOCKED")
    also = await _refusal(
        runner,
        lambda s: table.commit_seed(
            s, seat=1, player="p1", hand_id=hand.hand_id, commitment=b"\x07" * 32
        ),
    )
    assert (also.code, also.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEEDS_LOCKED")
    await runner.close()


async def test_a_commitment_after_the_commit_phase_and_a_seed_not_committed_are_refused() -> None:
    runner, clock = await opened(Crv1Dealer())
    await clock.advance(PAUSE)
    await commit_seed(runner, 1)
    await commit_seed(runner, 2)
    hand_id = runner.state.pending.hand_id  # type: ignore[union-attr]
    early = await _refusal(
        runner, lambda s: table.send_seed(s, seat=1, player="p1", hand_id=hand_id, seed=b"1" * 32)
    )
    assert early.reason == "NOT_SEEDING"  # a seed before the commitments are locked
    await clock.advance(WINDOW)
    assert runner.state.seed_phase == "reveal"
    late = await _refusal(
        runner,
        lambda s: table.commit_seed(s, seat=3, player="p3", hand_id=hand_id, commitment=b"3" * 32),
    )
    assert (late.code, late.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEEDS_LOCKED")
    other = await _refusal(
        runner, lambda s: table.send_seed(s, seat=1, player="p1", hand_id=hand_id, seed=b"9" * 32)
    )
    assert (other.code, other.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SEED_MISMATCH")
    none = await _refusal(
        runner, lambda s: table.send_seed(s, seat=3, player="p3", hand_id=hand_id, seed=b"3" * 32)
    )
    assert (none.code, none.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_COMMITTED")
    await runner.close()


async def test_a_commitment_changed_after_the_seeds_fails_the_players_check() -> None:
    runner = await dealt_hand(Crv1Dealer(), committing=(1,), revealing=(1,))
    messages = await messages_to(runner, 1)
    checker = CardChecker()
    for message in messages[:-1]:
        checker.update(message)
    # The table shows the hand under another root than the one committed before the seeds
    # (the proofs then opening against it: a deck changed after the client seeded).
    last = messages[-1]
    other = crv1.commit_deck(last.view.hand_id, b"\x01" * 32)
    last.view.merkle_root, last.view.commitment = other.root, other.commitment
    failures = [c for c in checker.update(last) if c.verdict is Verdict.FAILED]
    assert any("the hand's commitment changed" in f.reason for f in failures), failures
    await runner.close()


def _tampered_lock(message: table_pb2.WatchResponse, seat: int, seed: bytes, origin: int) -> None:
    for env in message.events:
        if env.WhichOneof("payload") == "seeds_locked":
            for entry in env.seeds_locked.seeds:
                if entry.seat == seat:
                    entry.seed, entry.origin = seed, origin
    for entry in message.view.locked_seeds:
        if entry.seat == seat:
            entry.seed, entry.origin = seed, origin


@pytest.mark.parametrize(
    ("seat", "seed", "origin", "says"),
    [
        (1, b"\x42" * 32, 0, "a seed as yours that you did not send"),
        (1, None, 1, "lock marks your seat's seed drawn"),
        (3, b"\x42" * 32, 1, "seat 3's seed is marked drawn but is not the seed"),
    ],
)
async def test_a_lock_the_table_bent_fails_the_players_check(
    seat: int, seed: bytes | None, origin: int, says: str
) -> None:
    """Seat 1's client committed to and revealed its seed; the lock it is shown drops or
    replaces that seed, or holds a drawn seed the table chose."""
    runner = await dealt_hand(Crv1Dealer(), committing=(1,), revealing=(1,))
    hand = runner.state.hand
    assert hand is not None
    checker = CardChecker()
    checker.committing(hand.hand_id, 1, client_seed(1))
    checker.commit_accepted(hand.hand_id)
    checker.revealing(hand.hand_id)
    checker.reveal_accepted(hand.hand_id)
    honest = CardChecker()
    for message in await messages_to(runner, 1):
        honest.update(message)
        _tampered_lock(message, seat, seed or client_seed(1), origin)
        checker.update(message)
    assert honest.failures == []
    assert any(says in f.reason for f in checker.failures), checker.failures
    await runner.close()


async def test_a_card_handed_out_of_its_place_in_the_deal_fails() -> None:
    """The table gives seat 1, in the place of a card dealt to it, another card of the deck
    with that card's own (true) proof: the opening is good, but the place is not seat 1's."""
    runner = await dealt_hand(Crv1Dealer(), committing=(1,), revealing=(1,))
    hand, locked = runner.state.hand, runner.state.locked
    assert hand is not None and locked is not None
    seed = hashlib.sha256(hand.hand_id.encode()).digest()
    dealt = crv1.derive_hand(
        hand.hand_id,
        seed,
        [crv1.ClientSeed(s, p, x, crv1.SeedOrigin(o)) for s, p, x, o in locked.seeds],
    )
    messages = await messages_to(runner, 1)
    # Put card 40 of the deal (never dealt) in the place of seat 1's first card.
    first, mine = _dealt_to(messages, 1)[0]
    other = card_str(dealt.dealt()[39])
    for message in messages:
        for env in message.events:
            if env.WhichOneof("payload") == "card_dealt" and env.card_dealt.card == mine:
                env.card_dealt.card = other
        for s in message.view.seats:
            for c in s.cards:
                if c.card == mine:
                    c.card = other
        for p in message.view.proofs:
            if p.card == mine:
                p.card, p.deal_index = other, 40
                p.opening = dealt.commit.opening(dealt.order[39]).to_bytes()
    checker = CardChecker()
    for message in messages:
        checker.update(message)
    [failure] = checker.failures
    assert failure.card == other and f"dealt as card {first + 1} of the deal" in failure.reason
    await runner.close()
