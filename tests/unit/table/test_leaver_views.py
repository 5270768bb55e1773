"""A player who leaves as the hand ends leaves its showdown provable (issue "Every edge",
item 2): ``HandShown``, ``HandEnded`` and ``PlayerLeft`` come in one batch, and the view after
it still holds the proofs of the cards the leaver showed, for every other player and observer
(their own checker verifies them). And whoever sits down in the leaver's seat afterwards is
shown nothing of the leaver's cards. CRV1 through the runner and its views, over the fakes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from riverboat.engine.cards import card_str
from riverboat.engine.commands import Act
from riverboat.engine.events import HandEnded, HandShown
from riverboat.engine.games import moves, waiting_for
from riverboat.engine.state import HandState
from riverboat.eventcodec import decode_batch
from riverboat.proofcheck import CardChecker, Verdict
from riverboat.services.table.runner import TableRunner
from riverboat.services.table.viewpb import TableViews
from riverboat.table import aggregate as table
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent, PlayerLeft
from riverboat.table.views import viewer_seat
from tests.unit.table.crv1kit import Crv1Dealer, dealt_hand, messages_to
from tests.unit.table.fakes import settle

pytestmark = pytest.mark.timeout(60)

LEAVER = 2


def _acting(runner: TableRunner, seat: int, action: str) -> Callable[[TableState], list[AnyEvent]]:
    """``seat``'s ``action``, decided on the table as it is then, with the hand's deck."""
    return lambda s: table.act(s, Act(seat, action), runner.deck or ())


async def _play(runner: TableRunner, leave_now: Callable[[HandState], bool]) -> None:
    """Everyone checks, else calls; seat LEAVER asks to leave once ``leave_now`` says so (the
    table then plays their turns: check when free, else fold)."""
    asked = False
    for _ in range(200):
        hand = runner.state.hand
        assert hand is not None
        if hand.finished:
            return
        if not asked and leave_now(hand):
            asked = True
            await runner.submit(
                lambda s: table.unseat_player(s, seat=LEAVER, player=f"p{LEAVER}"),
                request_id="leave",
                actor=f"p{LEAVER}",
                kind="unseat",
            )
            await settle()
            continue
        seat = waiting_for(hand)[0]
        assert seat != LEAVER or not asked, "the table waits for the leaver"
        names = [m.action for m in moves(hand, seat)]
        action = next((a for a in ("check", "call") if a in names), names[0])
        await runner.act(
            _acting(runner, seat, action),
            request_id=f"act-{runner.version}",
            actor=f"p{seat}",
        )
        await settle()
    raise AssertionError("the hand never ended")


async def _last_batch(runner: TableRunner) -> list[AnyEvent]:
    records = await runner.store.read("t1")
    return [e for e, _ in decode_batch(records[-1].payload)]


async def test_the_leavers_shown_cards_stay_proved_to_every_other_viewer() -> None:
    runner = await dealt_hand(Crv1Dealer())
    # They ask to leave once the bets are level after third street: they check to the end.
    await _play(runner, lambda hand: hand.street > 3 and not any(hand.street_bets))
    last = await _last_batch(runner)
    kinds = [type(e) for e in last]
    assert HandShown in kinds and HandEnded in kinds and PlayerLeft in kinds
    shown = next(e for e in last if isinstance(e, HandShown) and e.seat == LEAVER)
    assert runner.state.seat_at(LEAVER) is None  # gone from the table
    theirs = {card_str(c) for c in shown.cards}
    for seat in (0, 1, 3):  # an observer and the players who stayed
        messages = await messages_to(runner, seat)
        final = messages[-1].view
        assert LEAVER not in {s.seat for s in final.seats}
        assert theirs <= {p.card for p in final.proofs}, (seat, theirs)
        checker = CardChecker()
        for message in messages:
            checker.update(message)
        assert checker.failures == []
        verified = {c.card for c in checker.checks if c.verdict is Verdict.VERIFIED}
        assert theirs <= verified, (seat, theirs - verified)
    await runner.close()


async def test_whoever_sits_in_a_leavers_seat_sees_none_of_their_cards() -> None:
    runner = await dealt_hand(Crv1Dealer())
    # They ask to leave facing the bring-in: the table folds for them; the hand goes on.
    await _play(runner, lambda hand: hand.to_act is not None and any(hand.street_bets))
    hand = runner.state.hand
    assert hand is not None and hand.finished
    i = hand.seats.index(LEAVER)
    assert hand.folded[i]
    hidden = {card_str(c) for c, up in zip(hand.cards[i], hand.face_up[i], strict=True) if not up}
    await runner.submit(
        lambda s: table.seat_player(s, seat=LEAVER, player="newcomer", stack=500),
        request_id="newcomer",
        actor="op",
    )
    views = TableViews("t1")
    views.proofs, views.deal_indices = runner.proofs, runner.deal_indices
    for seat in (viewer_seat(runner.state, "newcomer"), viewer_seat(runner.state, "p2"), 0):
        view = views.view(runner.state, runner.version, seat)
        row = next((s for s in view.seats if s.seat == LEAVER), None)
        assert row is not None and row.player == "newcomer"
        assert [c.card for c in row.cards] == [], seat  # none of the leaver's cards
        assert not row.in_hand and not row.folded
        assert hidden.isdisjoint(p.card for p in view.proofs), seat
    # The leaver is an observer now that their seat is someone else's.
    assert viewer_seat(runner.state, "p2") == 0
    await runner.close()
