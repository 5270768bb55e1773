"""Settlement's player names are checked by the rule written in settlement.proto, the one gate
(a client reads it where it reads the API): printable, no spaces, at most 64 characters. A name
that breaks it is INVALID_ARGUMENT, reason INVALID_REQUEST, with a BadRequest naming ``player``,
before any handler runs; the handlers no longer repeat the check."""

from __future__ import annotations

import pytest
from google.protobuf.message import Message

from riverboat.services.common.errors import InvalidArgument
from riverboat.services.common.validation import REASON_INVALID_REQUEST, check_request
from riverboat.v1 import settlement_pb2 as pb

BAD_NAMES = ["a b", "\tann", "ann ", "x\x00y", "zero\u200bwidth", "p" * 65]


def _requests(player: str) -> list[Message]:
    return [
        pb.DepositRequest(player=player, amount=100, external_ref="d1"),
        pb.WithdrawRequest(player=player, amount=100, external_ref="w1"),
        pb.GetBalanceRequest(player=player),
        pb.ReserveBuyInRequest(player=player, table_id="t1", amount=100, reference="r1"),
        pb.ReleaseBuyInRequest(player=player, reference="r1"),
        pb.SetLimitRequest(player=player, amount=100),
        pb.SelfExcludeRequest(player=player, days=1),
        pb.GetLimitsRequest(player=player),
    ]


@pytest.mark.parametrize("player", BAD_NAMES)
def test_a_bad_player_name_is_refused_by_the_proto_rule(player: str) -> None:
    for request in _requests(player):
        with pytest.raises(InvalidArgument) as refused:
            check_request(request)
        assert refused.value.reason == REASON_INVALID_REQUEST, type(request).__name__
        assert [field for field, _ in refused.value.violations] == ["player"]


@pytest.mark.parametrize("player", ["ann", "bot-1", "José", "p" * 64])
def test_a_good_player_name_passes(player: str) -> None:
    for request in _requests(player):
        check_request(request)
