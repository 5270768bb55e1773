"""A read of a finished hand with every hole card (GetHandHistory from the auditor's
perspective: operators and auditors) is logged with who read which hand; a player's read of
their own hand, which shows no other player's hidden card, is not (docs/security.md)."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import pytest
from structlog.testing import capture_logs

from riverboat.auth import Identity
from riverboat.engine.commands import Act
from riverboat.engine.games import moves, waiting_for
from riverboat.services.common.auth import acting_as
from riverboat.services.table.histories import HandHistories
from riverboat.services.table.runner import TableRunner
from riverboat.table import aggregate as table
from riverboat.v1 import table_pb2
from tests.unit.table.crv1kit import Crv1Dealer, dealt_hand

pytestmark = pytest.mark.timeout(60)


async def _finished_hand() -> tuple[TableRunner, str]:
    """A table of three whose first hand ended (folds until one player is left)."""
    runner = await dealt_hand(Crv1Dealer())
    hand = runner.state.hand
    assert hand is not None
    hand_id = hand.hand_id
    for k in range(8):
        hand = runner.state.hand
        if hand is None or hand.hand_id != hand_id or hand.finished:
            return runner, hand_id
        seat = waiting_for(hand)[0]
        names = {m.action: m for m in moves(hand, seat)}
        move = names.get("fold") or next(names[n] for n in ("bring_in", "check") if n in names)
        act = Act(seat, move.action, move.to[0] if move.to else 0)
        await runner.act(
            lambda s, act=act: table.act(s, act, runner.deck or ()),  # type: ignore[misc]
            request_id=f"move-{k}",
            actor=f"p{seat}",
        )
    raise AssertionError("the hand did not end")


def _reads(logs: list[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [entry for entry in logs if entry.get("event") == "hole_cards_read"]


async def test_an_operators_read_of_every_hole_card_is_logged_with_who_and_which_hand() -> None:
    runner, hand_id = await _finished_hand()
    histories = HandHistories(runner.store)
    request = table_pb2.GetHandHistoryRequest(table_id="t1", hand_id=hand_id)
    with acting_as(Identity("boss", "operator")), capture_logs() as logs:
        history = await histories.get_hand_history(request)
    assert history.perspective == "auditor"
    [read] = _reads(logs)
    assert read["reader"] == "boss" and read["role"] == "operator"
    assert read["log_level"] == "warning"  # kept by a service that logs warnings only
    assert (read["table_id"], read["hand_id"]) == ("t1", hand_id)
    # A player's own history holds no one else's hidden card: no such line.
    with acting_as(Identity("p1", "player")), capture_logs() as logs:
        mine = await histories.get_hand_history(request)
    assert mine.perspective == "player:p1" and not _reads(logs)
    await runner.close()
