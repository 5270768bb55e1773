"""``riverboat history export`` on a room that really played: each player's export shows only
what that player saw, the auditor's everything, in both formats."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from riverboat.audit import read_archive
from riverboat.cli.app import run
from riverboat.client import TableClient
from riverboat.history import hand_number, hands_from_archive
from tests.e2e.room._play import play_hands, setup_table
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_audit_room import export_when_revealed
from tests.unit.history._cards import dealt_cards, forbidden_cards, hand_cards, text_cards

TABLE = "t-history"


async def cli(*argv: str) -> int:
    return await asyncio.to_thread(run, list(argv))


async def test_exports_of_a_played_room(room: Room, operator: TableClient, tmp_path: Path) -> None:
    players = await setup_table(operator, TABLE, 3, stack=4_000)
    await play_hands(room, TABLE, players, hands=6, seed=3)
    archive_path = tmp_path / "room.rba.gz"
    await export_when_revealed(room, archive_path)
    hands = [h for h in hands_from_archive(read_archive(archive_path)) if h.finished]
    assert len(hands) >= 6

    full = tmp_path / "all.phhs"
    assert await cli("history", "export", str(archive_path), "-o", str(full)) == 0
    doc = tomllib.loads(full.read_text())
    assert {h.hand_id for h in hands} <= set(doc)
    for hand in hands:
        assert dealt_cards(hand.events) <= hand_cards(doc[hand.hand_id])
        assert doc[hand.hand_id]["variant"] == "F7S/8"
    # Hand numbers count the table's hands (the ids are log versions and jump).
    dealt = sorted(hands_from_archive(read_archive(archive_path)), key=lambda h: h.first_version)
    assert [doc[h.hand_id]["hand"] for h in dealt if h.hand_id in doc][:3] == [1, 2, 3]
    assert [h.hand_id for h in dealt[:3]] != ["1", "2", "3"]
    second = tmp_path / "second.phh"
    assert (
        await cli("history", "export", str(archive_path), "--hand", f"{TABLE}#2", "-o", str(second))
        == 0
    )
    assert tomllib.loads(second.read_text())["_hand_id"] == dealt[1].hand_id

    for player in players:
        phh = tmp_path / f"{player}.phhs"
        text = tmp_path / f"{player}.txt"
        assert (
            await cli("history", "export", str(archive_path), "--player", player, "-o", str(phh))
            == 0
        )
        assert (
            await cli(
                "history",
                "export",
                str(archive_path),
                "--player",
                player,
                "--format",
                "pokerstars",
                "-o",
                str(text),
            )
            == 0
        )
        mine = tomllib.loads(phh.read_text())
        written = text.read_text()
        for hand in hands:
            seat = hand.seat_of(player)
            if seat is None:
                assert hand.hand_id not in mine
                continue
            forbidden = forbidden_cards(hand.events, seat)
            assert not hand_cards(mine[hand.hand_id]) & forbidden
            block = written.split(f"PokerStars Hand #{hand_number(hand)}:")[1].split(
                "PokerStars Hand #"
            )[0]
            assert not text_cards(block) & forbidden
