"""CRV1 through the table runner and its views (fake ports, time moved by hand): a player's
own :class:`CardChecker` verifies every card it is shown, catches a dealer that changed one
card after committing, and an observer is shown no proof of a hidden card."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from google.protobuf import json_format

from riverboat.cli.app import run as cli_run
from riverboat.engine.cards import card_str
from riverboat.engine.options import pacific_options
from riverboat.eventstore import InMemoryEventStore
from riverboat.proofcheck import CardChecker, Verdict
from riverboat.services.table.config import TableConfig
from riverboat.services.table.dealer_client import Commitment
from riverboat.services.table.runner import TableRunner
from riverboat.services.table.viewpb import TableViews
from riverboat.shuffle import crv1
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent
from riverboat.v1 import table_pb2
from tests.unit.table.fakes import CountingDealer, ManualClock, SwitchLease, settle

pytestmark = pytest.mark.timeout(60)

PAUSE = 2.0


class Crv1Dealer(CountingDealer):
    """An honest CRV1 dealer (the real scheme), or one that swaps the card at dealing index
    ``cheat`` for another after committing (keeping the position's salt and path)."""

    def __init__(self, cheat: int | None = None) -> None:
        super().__init__()
        self.cheat = cheat

    def _seed(self, hand_id: str) -> bytes:
        return hashlib.sha256(hand_id.encode()).digest()

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        self._call("commit_hand")
        commit = crv1.commit_deck(hand_id, self._seed(hand_id))
        return Commitment("CRV1", commit.commitment, 52, commit.root)

    async def get_dealt(
        self,
        table_id: str,
        hand_id: str,
        log_sequence: int,
        seeds: Sequence[tuple[int, str, bytes, int]],
    ) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        self._call("get_dealt")
        locked = [crv1.ClientSeed(s, p, x, crv1.SeedOrigin(o)) for s, p, x, o in seeds]
        hand = crv1.derive_hand(hand_id, self._seed(hand_id), locked)
        cards = list(hand.dealt())
        openings = [hand.commit.opening(j) for j in hand.order]
        if self.cheat is not None:
            i = self.cheat
            other = cards[-1]  # the bottom card, never dealt in a short hand
            cards[i], cards[-1] = other, cards[i]
            good = openings[i]
            openings[i] = crv1.Opening(good.position, other, good.salt, good.path)
        return tuple(cards), tuple(o.to_bytes() for o in openings)


def _seat(seat: int) -> Callable[[TableState], list[AnyEvent]]:
    return lambda s: table.seat_player(s, seat=seat, player=f"p{seat}", stack=1000)


async def _dealt(dealer: Crv1Dealer, *, seed_from: int = 0) -> TableRunner:
    """A table of three with its first hand dealt; ``seed_from``: a seat whose client sends
    its own seed in the seed window."""
    clock = ManualClock()
    runner = await TableRunner.load(
        "t1", InMemoryEventStore(), dealer, TableConfig(hand_pause=PAUSE), clock=clock,
        lease=SwitchLease(),
    )  # fmt: skip
    await runner.submit(
        lambda s: table.create_table(
            s, name="t1", variant="seven_card_stud_hi_lo", options=pacific_options(),
            action_seconds=30,
        ),
        request_id="open",
        actor="op",
    )  # fmt: skip
    for seat in (1, 2, 3):
        await runner.submit(_seat(seat), request_id=f"seat-{seat}", actor="op")
    await clock.advance(PAUSE)  # the pause: then the commitment, and the seed window opens
    pending = runner.state.pending
    assert pending is not None and runner.state.needs_seeds and runner.state.hand is None
    if seed_from:
        await runner.submit(
            lambda s: table.send_seed(
                s, seat=seed_from, player=f"p{seed_from}", hand_id=pending.hand_id,
                seed=b"\x5a" * 32,
            ),
            request_id="my-seed",
            actor=f"p{seed_from}",
        )  # fmt: skip
    await clock.advance(TableConfig().seed_window)
    await settle()
    assert runner.state.hand is not None
    return runner


def _check(runner: TableRunner, seat: int) -> list[object]:
    views = TableViews("t1")
    views.proofs = runner.proofs
    view = views.view(runner.state, runner.version, seat)
    return CardChecker().view(view)  # type: ignore[return-value]


async def test_every_card_a_player_sees_verifies() -> None:
    runner = await _dealt(Crv1Dealer(), seed_from=2)
    locked = runner.state.locked
    assert locked is not None
    # Seat 2's client sent its seed; the others sent none and had one drawn for them.
    assert [(seat, origin) for seat, _, _, origin in locked.seeds] == [(1, 1), (2, 0), (3, 1)]
    assert locked.seeds[1][2] == b"\x5a" * 32
    for seat in (1, 2, 3):
        checks = _check(runner, seat)
        # Stud's third street: two down cards of their own, one up card of each player.
        assert len(checks) == 2 + 3
        assert all(c.verdict is Verdict.VERIFIED for c in checks), checks  # type: ignore[attr-defined]
    await runner.close()


async def test_an_observer_gets_only_the_up_cards_proofs() -> None:
    runner = await _dealt(Crv1Dealer())
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
    runner = await _dealt(Crv1Dealer(cheat=index))
    hand = runner.state.hand
    assert hand is not None and runner.deck is not None
    changed = card_str(runner.deck[index])
    holder = next(
        seat
        for seat, row in zip(hand.seats, hand.cards, strict=True)
        if changed in {card_str(c) for c in row}
    )
    failures = [c for c in _check(runner, holder) if c.verdict is Verdict.FAILED]  # type: ignore[attr-defined]
    assert [f.card for f in failures] == [changed]  # type: ignore[attr-defined]
    await runner.close()


async def test_riverboat_verify_checks_a_saved_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = await _dealt(Crv1Dealer())
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
