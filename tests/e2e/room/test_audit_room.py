"""The audit on a room that really played: bots over gRPC, the dealer's real seeds.

``riverboat audit export`` archives the streams, ``riverboat audit`` verifies the archive and
the live streams, and corrupted copies of the real archive are caught and named.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import grpc
import pytest

from riverboat.audit import Check, HandStatus, read_archive, verify_archive, write_archive
from riverboat.cli.app import run
from riverboat.client import TableClient, play_bot, random_chooser, random_picker
from riverboat.v1 import table_pb2
from tests.e2e.room._play import play_hands, setup_table
from tests.e2e.room.conftest import Room
from tests.unit.audit._tamper import batch_of, edit_event, find, rechain

TABLES = ("t-audit-a", "t-audit-b")


def stream_flags(room: Room) -> list[str]:
    """The room's private stream names, as audit flags."""
    args = room.table.args
    stream = args[args.index("--stream") + 1]
    tag = stream.removeprefix("RB_TABLES_")
    return [
        "--tables-stream",
        stream,
        "--tables-prefix",
        args[args.index("--subject-prefix") + 1],
        "--seeds-stream",
        f"RB_AUDIT_{tag}",
        "--seeds-prefix",
        f"rb.audit{tag.lower()}",
    ]


async def cli(*argv: str) -> int:
    """``riverboat ...`` in-process (it runs its own event loop, so in a thread)."""
    return await asyncio.to_thread(run, list(argv))


async def export_when_revealed(room: Room, path: Path) -> None:
    """Export until every finished hand's seed is in the archive (reveals are asynchronous,
    and a reveal the dealer refused is tried again after retrying.SEED_REVEAL's pause, up to
    30 s: the wait outlasts a few of those)."""
    deadline = asyncio.get_running_loop().time() + 90
    while asyncio.get_running_loop().time() < deadline:
        assert (
            await cli(
                "audit", "export", "--nats", room.nats_url, "-o", str(path), *stream_flags(room)
            )
            == 0
        )
        report = verify_archive(read_archive(path))
        if not any(v.check == Check.SEED_MISSING for v in report.all_violations):
            return
        await asyncio.sleep(0.2)
    raise AssertionError("seeds were never all revealed")


@pytest.mark.timeout(120)
async def test_a_played_room_verifies_and_its_corrupted_copies_do_not(
    room: Room, operator: TableClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Deep enough that nobody goes broke before 20 hands (a busted table deals no more).
    seated = [await setup_table(operator, t, 4, stack=20_000) for t in TABLES]
    games = zip(TABLES, seated, strict=True)
    await asyncio.gather(
        *(play_hands(room, t, p, hands=20, seed=k) for k, (t, p) in enumerate(games))
    )
    path = tmp_path / "room.rba.gz"
    await export_when_revealed(room, path)
    capsys.readouterr()

    # The archive verifies, hand by hand, and so do the live streams.
    assert await cli("audit", str(path), "--json", "--jobs", "2", "--no-progress") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    assert report["summary"]["tables"] == 2
    verified = [h for h in report["hands"] if h["status"] == "verified"]
    assert len(verified) >= 40
    assert {h["status"] for h in report["hands"]} <= {"verified", "in_progress"}
    assert await cli("audit", "--nats", room.nats_url, *stream_flags(room), "--no-progress") == 0
    assert "RESULT: OK" in capsys.readouterr().out

    # A card swapped in a real hand (and the chain forged to match) is named at its event.
    archive = read_archive(path)
    position = find(archive, TABLES[0], "card_dealt", 2)
    real = batch_of(archive.messages[position[0]]).events[position[1]].card_dealt.card
    fake = "2c" if real != "2c" else "3c"

    def swap(env):  # type: ignore[no-untyped-def]
        env.card_dealt.card = fake

    edit_event(archive, position, swap)
    rechain(archive, TABLES[0])
    forged = tmp_path / "forged.rba.gz"
    write_archive(forged, archive)
    assert await cli("audit", str(forged), "--json", "--no-progress") == 1
    bad = json.loads(capsys.readouterr().out)
    named = [
        v
        for v in bad["violations"]
        if v["check"] == "card_mismatch" and v["message"].startswith("deck position")
    ]
    assert len(named) == 1 and named[0]["at"]["index"] == position[1]
    assert f"dealt {fake}, the committed deck has {real}" in named[0]["message"]
    assert named[0]["at"]["stream_sequence"] == archive.messages[position[0]].sequence
    failed = [h for h in bad["hands"] if h["status"] == HandStatus.FAILED]
    assert len(failed) == 1

    # A message deleted from the real archive.
    archive = read_archive(path)
    i, _ = find(archive, TABLES[1], "action_taken", 5)
    archive.messages.pop(i)
    write_archive(forged, archive)
    assert await cli("audit", str(forged), "--no-progress") == 1
    text = capsys.readouterr().out
    assert "[event_removed]" in text and "RESULT: FAILED" in text


@pytest.mark.timeout(120)
async def test_a_played_dealers_choice_room_verifies(
    room: Room, operator: TableClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = "t-audit-dc"
    await operator.create_table(table, variant="dealers_choice", action_seconds=5)
    players = [f"{table}-p{k}" for k in range(1, 5)]
    for k, name in enumerate(players, start=1):
        # Deep stacks: random bots busting one another before the twelfth hand end the game
        # (a table with one player holding chips deals no more) and the wait below times out.
        await operator.seat(table, k, name, 1_000_000)
    ended = 0
    stop = asyncio.Event()

    def count(update: table_pb2.WatchResponse) -> None:
        nonlocal ended
        ended += sum(env.WhichOneof("payload") == "hand_ended" for env in update.events)
        if ended >= 12 * len(players):  # every bot sees every hand end
            stop.set()

    rng = random.Random(5)
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        bots = [
            asyncio.ensure_future(
                play_bot(
                    room.client(channel, name),
                    table,
                    random_chooser(random.Random(rng.random())),
                    stop=stop,
                    on_update=count,
                    pick=random_picker(random.Random(rng.random())),
                )
            )
            for name in players
        ]
        try:
            await asyncio.wait_for(stop.wait(), 90)
        finally:
            stop.set()
            stats = await asyncio.gather(*bots)
    # Every card each bot was shown, over every game the dealers chose, proved to it (CRV1).
    assert [f for s in stats for f in s.proof_failures] == []
    assert sum(s.cards_verified for s in stats) >= 12 * len(players) * 2
    assert sum(s.seeds_sent for s in stats) > 0
    path = tmp_path / "dc.rba.gz"
    await export_when_revealed(room, path)
    capsys.readouterr()
    assert await cli("audit", str(path), "--json", "--no-progress") == 0
    report = json.loads(capsys.readouterr().out)
    verified = [h for h in report["hands"] if h["status"] == "verified"]
    assert len(verified) >= 12
    assert len({h["variant"] for h in verified}) >= 4  # the dealers chose several games


@pytest.mark.timeout(120)
async def test_chain_heads_go_through_the_publish_command_and_check_the_live_log(
    room: Room, operator: TableClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``riverboat audit heads --publish-command`` end to end: the publisher reads the live
    streams, signs each table's head, appends the line to its file and pipes it to the
    command (here a stand-in for a timestamping service: a shell appending to another file);
    the audit checks the live log against the copy the command received."""
    table = "t-heads"
    players = await setup_table(operator, table, 3)
    await play_hands(room, table, players, hands=2)
    heads, received, key = tmp_path / "heads.jsonl", tmp_path / "tsa.jsonl", tmp_path / "heads.key"
    publish = [
        "audit",
        "heads",
        "--nats",
        room.nats_url,
        *stream_flags(room),
        "--heads",
        str(heads),
        "--heads-key",
        str(key),
        "--interval",
        "0.2",
    ]
    command = f"cat >> {received}"
    assert await cli(*publish, "--times", "2", "--publish-command", command) == 0
    lines = received.read_text().splitlines()
    assert len(lines) == 2 and lines == heads.read_text().splitlines()
    assert all(f'"{table}"' in line for line in lines)
    capsys.readouterr()
    check = ["audit", "--nats", room.nats_url, *stream_flags(room), "--no-progress"]
    assert await cli(*check, "--heads", str(received), "--heads-key", str(key)) == 0
    out = capsys.readouterr().out
    assert "heads       2 signed publications checked" in out and "RESULT: OK" in out
    # A service that refuses the line: the publisher says so and fails (its own file keeps it).
    assert await cli(*publish, "--times", "1", "--publish-command", "cat > /dev/null; exit 3") == 1
    assert "exited 3" in capsys.readouterr().err
    assert len(heads.read_text().splitlines()) == 3
    # A received line whose head was changed no longer carries the publisher's signature.
    forged = received.read_text()
    first = json.loads(lines[0])
    head = first["heads"][table]["head"]
    received.write_text(forged.replace(head, ("0" if head[0] != "0" else "1") + head[1:], 1))
    assert await cli(*check, "--heads", str(received), "--heads-key", str(key)) == 1
    assert "not signed by the publisher's key" in capsys.readouterr().out
