"""ListHands and GetHandHistory through the real table service, by a client that knows only the
protos (``riverboat.v1`` stubs and a bearer token).

Oracles, from what each seat was shown live, never from the history code:

* **No leak**: every card in a player's history of a hand (its events, its text, its PHH) is
  a card that player's Watch stream showed them during that hand, from the update that
  started it to the one that ended it.
* **Nothing missing**: the player's own cards from their Watch stream are in their history;
  the operator's history of the hand holds every player's own cards (each seen by its owner),
  and an auditor's is the operator's (complete histories for both roles).
* **Lists**: a player's ListHands is exactly the hands their stream saw start and end with
  them dealt in (among the hands their stream saw whole), newest first; paged, the pages are
  the unpaged list.

The oracle is shown to catch a planted leak (``plants/``: ``history-leak``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from riverboat.client import TableClient
from riverboat.v1 import table_pb2, table_pb2_grpc
from tests.e2e.room._crashkit import PLANTS_DIR
from tests.e2e.room._play import play_hands, setup_table
from tests.e2e.room.conftest import Room

TABLE = "t-hist"
_CARD = re.compile(r"[2-9TJQKA][cdhs]")


def cards_in(message: Message) -> set[str]:
    """Every card a message holds: any string field (repeated or not) that is a card."""
    found: set[str] = set()
    for desc, value in message.ListFields():
        values = value if desc.is_repeated else [value]
        for v in values:
            if isinstance(v, Message):
                found |= cards_in(v)
            elif isinstance(v, str) and _CARD.fullmatch(v):
                found.add(v)
    return found


def cards_in_text(text: str) -> set[str]:
    """Cards in PokerStars-style text: inside brackets ("[Qs 6s] 9h" writes each in [...])."""
    found: set[str] = set()
    for group in re.findall(r"\[([^\]]*)\]", text):
        found |= {c for c in group.split() if _CARD.fullmatch(c)}
    return found


def cards_in_phh(phh: str) -> set[str]:
    """Cards in PHH actions: ``d dh p1 Qs6s9h``, ``p2 sm JdTh...``, ``d db 4c``."""
    found: set[str] = set()
    for line in re.findall(r'"((?:d dh p\d+|d db|p\d+ sm) [^"]*)"', phh):
        dealt = line.rsplit(" ", 1)[1]
        found |= {dealt[i : i + 2] for i in range(0, len(dealt), 2)} - {"??"}
    return found


class Seen:
    """What one seat's Watch stream showed, hand by hand (hands seen from start to end)."""

    def __init__(self, updates: Iterable[table_pb2.WatchResponse], seat: int) -> None:
        self.cards: dict[str, set[str]] = {}
        self.own: dict[str, set[str]] = {}
        self.dealt_in: set[str] = set()
        self.order: list[str] = []
        self.numbers: dict[str, int] = {}  # hand id -> the number the views gave it
        current: str | None = None
        for update in updates:
            if update.HasField("view") and update.view.hand_id and update.view.hand_number:
                self.numbers[update.view.hand_id] = update.view.hand_number
            for env in update.events:
                kind = env.WhichOneof("payload")
                if kind == "hand_started":
                    current = env.hand_started.hand_id
                    self.cards[current], self.own[current] = set(), set()
                    if seat in [s.seat for s in env.hand_started.seats]:
                        self.dealt_in.add(current)
            if current is None:
                continue
            self.cards[current] |= cards_in(update)
            for env in update.events:
                if env.WhichOneof("payload") == "card_dealt" and env.card_dealt.seat == seat:
                    self.own[current].add(env.card_dealt.card)
            if any(e.WhichOneof("payload") in ("hand_ended", "hand_voided") for e in update.events):
                self.order.append(current)
                current = None
        for unfinished in set(self.cards) - set(self.order):
            del self.cards[unfinished]
            del self.own[unfinished]


def _stub(channel: grpc.Channel) -> Any:
    return table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]


def _auth(room: Room, subject: str, role: str = "player") -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {room.token(subject, role)}"),)


def _all_hands(stub: Any, auth: Any, size: int, player: str = "") -> list[str]:
    ids: list[str] = []
    token = ""
    while True:
        page = stub.ListHands(
            table_pb2.ListHandsRequest(
                table_id=TABLE, page_size=size, page_token=token, player=player
            ),
            metadata=auth,
        )
        ids += [h.hand_id for h in page.hands]
        token = page.next_page_token
        if not token:
            return ids


def _leaks(stub: Any, room: Room, name: str, seen: Seen) -> list[str]:
    """Cards the player's history shows that their stream never showed them, per hand."""
    found = []
    auth = _auth(room, name)
    for hand_id in seen.order:
        if hand_id not in seen.dealt_in:
            continue
        got = stub.GetHandHistory(
            table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=hand_id), metadata=auth
        )
        history = cards_in(got) | cards_in_text(got.text) | cards_in_phh(got.phh)
        extra = history - seen.cards[hand_id]
        if extra:
            found.append(f"{name} {hand_id}: {sorted(extra)}")
    return found


async def test_hand_histories_show_each_player_only_what_they_saw(
    room: Room, operator: TableClient
) -> None:
    players = await setup_table(operator, TABLE, 3)
    received: dict[str, list[table_pb2.WatchResponse]] = {}
    await play_hands(room, TABLE, players, hands=4, received=received)
    seen = {name: Seen(received[name], seat) for seat, name in enumerate(players, start=1)}
    with grpc.insecure_channel(room.table_address) as channel:
        stub = _stub(channel)
        boss = _auth(room, "boss", "operator")
        auditor = _auth(room, "auditor-1", "auditor")
        every = _all_hands(stub, boss, 100)
        assert len(every) >= 3
        # Auditors list every hand as operators do, in pages too, and anyone's on request.
        assert _all_hands(stub, auditor, 100) == every == _all_hands(stub, auditor, 2)
        for name in players:
            whole = seen[name].order
            mine = _all_hands(stub, _auth(room, name), 100)
            # Newest first; of the hands the stream saw whole, exactly those dealt to them.
            watched = [h for h in reversed(whole) if h in seen[name].dealt_in]
            assert [h for h in mine if h in whole] == watched
            assert set(mine) <= set(every)
            for size in (1, 2, 3):
                assert _all_hands(stub, _auth(room, name), size) == mine
            assert _all_hands(stub, boss, 2, player=name) == mine
            assert _all_hands(stub, auditor, 2, player=name) == mine
            with pytest.raises(grpc.RpcError) as err:
                stub.ListHands(
                    table_pb2.ListHandsRequest(table_id=TABLE, player="someone-else"),
                    metadata=_auth(room, name),
                )
            assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED

        # Hand numbers: as the views numbered them; a hand is found by its number too.
        numbers = {**seen[players[0]].numbers, **seen[players[1]].numbers}
        listed = stub.ListHands(
            table_pb2.ListHandsRequest(table_id=TABLE, page_size=100), metadata=boss
        ).hands
        compared = 0
        for summary in listed:
            if summary.hand_id in numbers:
                assert summary.hand_number == numbers[summary.hand_id], summary.hand_id
                compared += 1
            by_number = stub.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=str(summary.hand_number)),
                metadata=boss,
            )
            assert by_number.hand.hand_id == summary.hand_id
            # The PokerStars number: the table's number in its last seven digits, the text's
            # header, and a name of the hand as good as its id.
            ps = summary.pokerstars_number
            assert ps % 10**7 == summary.hand_number and len(str(ps)) == 15
            assert by_number.text.startswith(f"PokerStars Hand #{ps}:  ")
            by_ps = stub.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=str(ps)), metadata=boss
            )
            assert by_ps.hand.hand_id == summary.hand_id
        assert compared >= 2
        assert len({h.pokerstars_number // 10**7 for h in listed}) == 1  # one table, one code
        assert [h.hand_number for h in listed] == sorted(
            (h.hand_number for h in listed), reverse=True
        )

        # No leak, nothing missing (own cards; every hole card for the operator).
        for name in players:
            assert _leaks(stub, room, name, seen[name]) == []
        checked = 0
        for hand_id in seen[players[0]].order:
            full = stub.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=hand_id), metadata=boss
            )
            assert full.perspective == "auditor"
            everyone = cards_in(full) & cards_in_text(full.text) & cards_in_phh(full.phh)
            # An auditor reads the same complete history as the operator.
            audited = stub.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=hand_id),
                metadata=auditor,
            )
            assert audited.perspective == "auditor"
            assert (audited.text, audited.phh, audited.hand) == (full.text, full.phh, full.hand)
            assert list(audited.events) == list(full.events)
            for name in players:
                if hand_id not in seen[name].dealt_in or hand_id not in seen[name].own:
                    continue
                own = seen[name].own[hand_id] - {""}
                assert own and own <= everyone, (name, hand_id)
                mine = stub.GetHandHistory(
                    table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=hand_id),
                    metadata=_auth(room, name),
                )
                assert mine.perspective == f"player:{name}"
                assert own <= cards_in(mine) & cards_in_text(mine.text) & cards_in_phh(mine.phh)
                checked += 1
        assert checked >= 3

        # Refusals: unknown hand, a hand someone was not dealt into, bad tokens, no table.
        def code(call: Any, request: Message, auth: Any) -> grpc.StatusCode:
            with pytest.raises(grpc.RpcError) as err:
                call(request, metadata=auth)
            return err.value.code()

        nope = table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id="t-hist-nope")
        assert code(stub.GetHandHistory, nope, boss) == grpc.StatusCode.NOT_FOUND
        # A PokerStars number of another table (another code, the same last digits).
        foreign = str(listed[0].pokerstars_number + 10**7)
        elsewhere = table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=foreign)
        assert code(stub.GetHandHistory, elsewhere, auditor) == grpc.StatusCode.NOT_FOUND
        outsider = _auth(room, "outsider")
        first = table_pb2.GetHandHistoryRequest(table_id=TABLE, hand_id=every[0])
        assert code(stub.GetHandHistory, first, outsider) == grpc.StatusCode.PERMISSION_DENIED
        assert _all_hands(stub, outsider, 10) == []
        page = stub.ListHands(
            table_pb2.ListHandsRequest(table_id=TABLE, page_size=1), metadata=boss
        )
        other = table_pb2.ListHandsRequest(
            table_id=TABLE, page_token=page.next_page_token, player=players[0]
        )
        assert code(stub.ListHands, other, boss) == grpc.StatusCode.INVALID_ARGUMENT
        altered = table_pb2.ListHandsRequest(table_id=TABLE, page_token=page.next_page_token[:-1])
        assert code(stub.ListHands, altered, boss) == grpc.StatusCode.INVALID_ARGUMENT
        missing = table_pb2.ListHandsRequest(table_id="no-such-table")
        assert code(stub.ListHands, missing, boss) == grpc.StatusCode.NOT_FOUND

    # The oracle catches a planted leak: the table service restarted with one.
    room.table.env = {
        **(room.table.env or {}),
        "RB_PLANT": "history-leak",
        "PYTHONPATH": str(PLANTS_DIR),
    }
    room.restart_table()
    with grpc.insecure_channel(room.table_address) as channel:
        leaks = [
            leak for name in players for leak in _leaks(_stub(channel), room, name, seen[name])
        ]
    assert leaks, "the planted leak went unnoticed"
