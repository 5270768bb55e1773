"""``riverboat verify`` checks the cards against the logged lock (docs/shuffle.md II.5): a
session file recorded from a real table's Watch stream, then tampered with from outside (the
logged ``SeedsLocked`` edited or deleted, the views' copy of the lock made to disagree), must
fail with a line that says what is wrong; the file as recorded verifies."""

from __future__ import annotations

from collections.abc import Callable
from hashlib import sha256
from pathlib import Path

import pytest
from google.protobuf import json_format

from riverboat.cli.app import run as cli_run
from riverboat.v1 import events_pb2, table_pb2
from tests.unit.table.crv1kit import Crv1Dealer, dealt_hand, messages_to

pytestmark = pytest.mark.timeout(60)

#: Seat 1 saves its session; seats 1 and 2 send seeds, seat 3's seed is derived (drawn).
VIEWER, CLIENT, DRAWN = 1, 2, 3

Edit = Callable[[list[table_pb2.WatchResponse]], list[table_pb2.WatchResponse]]


async def _session() -> list[table_pb2.WatchResponse]:
    """What a ``riverboat play --save`` of seat 1 holds once the first hand is dealt."""
    runner = await dealt_hand(Crv1Dealer(), committing=(1, 2), revealing=(1, 2))
    try:
        return await messages_to(runner, VIEWER)
    finally:
        await runner.close()


def _verify(tmp_path: Path, messages: list[table_pb2.WatchResponse]) -> int:
    saved = tmp_path / "session.jsonl"
    lines = [json_format.MessageToJson(m, indent=None) for m in messages]
    saved.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cli_run(["verify", str(saved)])


def _lock_message(messages: list[table_pb2.WatchResponse]) -> int:
    return next(
        i
        for i, m in enumerate(messages)
        if any(e.WhichOneof("payload") == "seeds_locked" for e in m.events)
    )


def _flip(seed: events_pb2.LockedSeed) -> None:
    raw = bytearray(seed.seed)
    raw[17] ^= 0x08  # one bit
    seed.seed = bytes(raw)


def _logged(messages: list[table_pb2.WatchResponse], seat: int) -> table_pb2.WatchResponse:
    """The message holding the logged lock, with one bit of ``seat``'s seed flipped in it."""
    edited = table_pb2.WatchResponse()
    edited.CopyFrom(messages[_lock_message(messages)])
    lock = next(e.seeds_locked for e in edited.events if e.HasField("seeds_locked"))
    _flip(next(s for s in lock.seeds if s.seat == seat))
    return edited


async def test_the_session_as_recorded_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _verify(tmp_path, await _session()) == 0
    assert "All 5 cards verified in 1 hands." in capsys.readouterr().out


@pytest.mark.parametrize(
    ("seat", "why"),
    [
        (CLIENT, f"seat {CLIENT}'s seed in the lock is not the seed its client committed to"),
        (DRAWN, f"seat {DRAWN}'s seed is marked drawn but is not the seed the commitment fixes"),
    ],
)
async def test_one_flipped_bit_in_another_seats_logged_seed_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seat: int, why: str
) -> None:
    messages = await _session()
    at = _lock_message(messages)
    messages[at] = _logged(messages, seat)
    assert _verify(tmp_path, messages) == 1
    out = capsys.readouterr().out
    assert f"the view's locked seeds are not the logged SeedsLocked (seat {seat} differs)" in out
    assert why in out
    assert "PROOF(S) FAILED" in out and "All " not in out


async def test_a_deleted_seeds_locked_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    messages = await _session()
    del messages[_lock_message(messages)]
    assert _verify(tmp_path, messages) == 1
    out = capsys.readouterr().out
    assert "the log holds no SeedsLocked for the hand before its deal" in out
    # Every card fails: there is no order to check its position against.
    assert "0 cards verified" in out and "the log holds no lock for this hand" in out


async def test_a_views_copy_that_disagrees_with_the_log_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    messages = await _session()
    last = messages[-1]
    _flip(next(s for s in last.view.locked_seeds if s.seat == CLIENT))
    assert _verify(tmp_path, messages) == 1
    out = capsys.readouterr().out
    assert f"the view's locked seeds are not the logged SeedsLocked (seat {CLIENT} differs)" in out
    # The cards are checked against the logged lock, and hold.
    assert "1 PROOF(S) FAILED; 5 cards verified." in out


async def test_a_lock_edited_in_the_log_and_the_view_alike_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    messages = await _session()
    at = _lock_message(messages)
    messages[at] = _logged(messages, CLIENT)
    _flip(next(s for s in messages[-1].view.locked_seeds if s.seat == CLIENT))
    assert _verify(tmp_path, messages) == 1
    out = capsys.readouterr().out
    assert f"seat {CLIENT}'s seed in the lock is not the seed its client committed to" in out
    assert "locked seeds put position" in out  # and the cards, dealt in another order


async def test_a_session_begun_after_the_lock_is_checked_against_the_views_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A player who began watching after the lock has no logged one: the views' copy is used,
    and the output says so."""
    messages = await _session()
    assert _verify(tmp_path, messages[_lock_message(messages) + 1 :]) == 0
    out = capsys.readouterr().out
    assert "All 5 cards verified in 1 hands." in out
    assert "the file begins after this hand's lock" in out


async def test_a_fault_in_the_dealers_crv1_code_is_caught_by_the_verifier(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verifier is an independent oracle: a dealer whose CRV1 library lets the client
    seeds count for nothing (the mix key made of C and R alone) deals an order its players'
    own check does not reproduce, because that check is not the dealer's code."""
    from riverboat.shuffle import crv1 as dealers

    monkeypatch.setattr(dealers, "mix_key", lambda hand_id, c, r, seeds: sha256(c + r).digest())
    messages = await _session()
    assert _verify(tmp_path, messages) == 1
    assert "but the locked seeds put position" in capsys.readouterr().out
