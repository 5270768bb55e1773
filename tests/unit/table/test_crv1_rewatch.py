"""A player's own seed in the lock, checked by a client that watches the table again.

A re-watch starts a new stream and a fresh :class:`CardChecker` (the new stream's count starts
afresh), but what the client sent outlives the stream: the checkers of one player at one table
share its :class:`SentSeeds`. A client that sent no seed for the hand itself (an earlier process
did) cannot check its own seed: it says so, and does not fail. A lock that replaces a seed the
client knows it sent still fails. Nor does a new client commit over a commitment an earlier
one made for the hand (it could not reveal that seed).
"""

from __future__ import annotations

import pytest

from riverboat.client import ClientSeeds
from riverboat.proofcheck import CardChecker, Verdict
from riverboat.sentseeds import SentSeeds
from riverboat.table.aggregate import TableState
from riverboat.v1 import table_pb2
from tests.unit.table.crv1kit import Crv1Dealer, client_seed, dealt_hand, messages_to

pytestmark = pytest.mark.timeout(60)


def _sent_by(sent: SentSeeds, state: TableState) -> str:
    """Seat 1's client committed to and revealed its seed, noted in ``sent`` by the checker
    that followed the hand's stream: the hand's id."""
    hand = state.hand
    assert hand is not None
    first = CardChecker(sent)
    first.committing(hand.hand_id, 1, client_seed(1))
    first.commit_accepted(hand.hand_id)
    first.revealing(hand.hand_id)
    first.reveal_accepted(hand.hand_id)
    return hand.hand_id


def _rewatch(messages: list[table_pb2.WatchResponse]) -> table_pb2.WatchResponse:
    """What a client watching the table again starts from: the view now, alone."""
    view = messages[-1].view
    return table_pb2.WatchResponse(version=view.version, view=view)


async def test_a_rewatch_knows_the_seed_the_client_sent() -> None:
    runner = await dealt_hand(Crv1Dealer(), committing=(1,), revealing=(1,))
    sent = SentSeeds()
    _sent_by(sent, runner.state)
    messages = await messages_to(runner, 1)
    again = CardChecker(sent)
    checks = again.update(_rewatch(messages))
    assert again.failures == [], again.failures
    assert not [c for c in checks if c.verdict in (Verdict.NOTICE, Verdict.UNCHECKED)]
    assert [c for c in checks if c.card and c.verdict is Verdict.VERIFIED]
    await runner.close()


async def test_a_client_that_did_not_send_the_seed_says_it_cannot_check_it() -> None:
    """A new process of the player (nothing sent by it) re-watches the hand its earlier process
    seeded: the seed in the lock is beyond its check; the cards still verify."""
    runner = await dealt_hand(Crv1Dealer(), committing=(1,), revealing=(1,))
    messages = await messages_to(runner, 1)
    fresh = SentSeeds()
    fresh.sender = True  # a client that sends seeds, but sent none for this hand
    checker = CardChecker(fresh)
    checks = checker.update(_rewatch(messages))
    assert checker.failures == [], checker.failures
    [unchecked] = [c for c in checks if c.verdict is Verdict.UNCHECKED]
    assert unchecked.hand_id == messages[-1].view.hand_id
    assert "cannot check your own seed" in unchecked.line()
    assert [c for c in checks if c.card and c.verdict is Verdict.VERIFIED]
    await runner.close()


async def test_a_rewatch_still_fails_a_lock_that_replaced_the_seed_sent() -> None:
    runner = await dealt_hand(Crv1Dealer(), committing=(1,), revealing=(1,))
    sent = SentSeeds()
    _sent_by(sent, runner.state)
    update = _rewatch(await messages_to(runner, 1))
    for entry in update.view.locked_seeds:
        if entry.seat == 1:
            entry.seed = b"\x42" * 32
    again = CardChecker(sent)
    again.update(update)
    assert any(
        "the lock holds a seed as yours that you did not send" in f.reason for f in again.failures
    ), again.failures
    await runner.close()


def test_a_new_client_does_not_commit_over_an_earlier_ones_commitment() -> None:
    def commit_phase(mine: bytes) -> table_pb2.TableView:
        return table_pb2.TableView(
            hand_id="",
            viewer_seat=1,
            seats=[table_pb2.SeatView(seat=1, player="p1", stack=100)],
            seeding=table_pb2.SeedRound(hand_id="h1", phase="commit", my_commitment=mine),
        )

    seeds = ClientSeeds(None, "t1", CardChecker())  # type: ignore[arg-type]
    assert seeds.due(commit_phase(b"")) == ("commit_seed", "h1", 1)
    assert seeds.due(commit_phase(b"\x07" * 32)) is None
