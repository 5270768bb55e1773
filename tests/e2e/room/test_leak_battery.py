"""The leak battery through the real services (issue #12): random hands of every game of the
registry, with every option, played by clients built on the ``riverboat.v1`` protos alone
against a real nats-server and the dealer and table services as processes. Every message every
player and an observer received (Watch, Act replies, GetTableView, errors), every line of the
services' logs, and every player's hand-history export is checked against what that viewer may
know, worked out from the raw table log by the oracle (``tests/leak/oracle.py``).

The battery's size is size(440, 100000) hands in all: the share that fits through the
services in ``make test`` here (:data:`SERVICE_HANDS`), the rest through the service's own view
builder in process with the same oracle (``tests/unit/table/test_leak_battery.py``).
"""

from __future__ import annotations

import asyncio
import random
import re
import tomllib
from collections import defaultdict
from pathlib import Path

import grpc
import pytest

from riverboat.client import TableClient
from riverboat.engine import events as ev
from riverboat.engine.cards import parse_card
from riverboat.history.pokerstars import table_code
from riverboat.v1 import table_pb2
from tests.battery import size
from tests.e2e.room._play import read_log
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_audit_room import cli, export_when_revealed
from tests.leak.bots import Player, Received
from tests.leak.inprocess import games_in_registry, option_plan
from tests.leak.oracle import Checker, Report, Truth

#: Hands through the real services: small in make test, full under make soak.
SERVICE_HANDS = size(40, 4000)

#: (table, variant, players, share of the hands).
TABLES = (
    ("leak-a", "dealers_choice", 4, 0.4),
    ("leak-b", "dealers_choice", 3, 0.4),
    ("leak-c", "seven_card_stud_hi_lo", 3, 0.2),
)


def _streams(room: Room) -> tuple[str, str]:
    args = room.table.args
    return args[args.index("--stream") + 1], args[args.index("--subject-prefix") + 1]


async def _play_table(
    room: Room,
    operator: TableClient,
    table_id: str,
    variant: str,
    players: int,
    hands: int,
    seed: int,
) -> Received:
    await operator.create_table(table_id, variant=variant, action_seconds=30)
    for k in range(1, players + 1):
        await operator.seat(table_id, k, f"{table_id}-p{k}", 500_000)  # nobody goes broke
    received = Received()
    rng = random.Random(seed)
    plan = option_plan()
    start = rng.randrange(len(plan))
    games = iter(plan[start:] + plan * 1000)  # shared by the table's players (the dealer turns)
    stop = asyncio.Event()
    async with grpc.aio.insecure_channel(room.table_address) as channel:
        viewers = [
            Player(
                channel,
                (("authorization", f"Bearer {room.token('leak-observer', 'auditor')}"),),
                table_id,
                0,
                random.Random(rng.random()),
                games,
                received,
            )
        ]
        viewers += [
            Player(
                channel,
                (("authorization", f"Bearer {room.token(f'{table_id}-p{k}')}"),),
                table_id,
                k,
                random.Random(rng.random()),
                games,
                received,
            )
            for k in range(1, players + 1)
        ]
        tasks = [asyncio.ensure_future(v.play(stop)) for v in viewers]
        try:
            for _ in range(hands * 600):
                if len(received.hands_ended) >= hands or any(t.done() for t in tasks):
                    break
                await asyncio.sleep(0.05)
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        for t in tasks:
            if t.done() and not t.cancelled() and t.exception() is not None:
                raise t.exception()  # type: ignore[misc]
        # Every viewer reads the whole table once more, replayed from the log.
        last = int(
            (
                await viewers[0].stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=table_id), metadata=viewers[0].metadata
                )
            ).view.version
        )
        await asyncio.wait_for(asyncio.gather(*(v.replay(last) for v in viewers)), 120)
    assert len(received.hands_ended) >= hands, f"{table_id}: {len(received.hands_ended)} hands"
    return received


@pytest.mark.battery
@pytest.mark.timeout(1800)
async def test_no_viewer_learns_anything_hidden_through_the_real_services(
    room: Room, operator: TableClient, tmp_path: Path
) -> None:
    targets = {t: max(2, round(SERVICE_HANDS * share)) for t, _, _, share in TABLES}
    played = await asyncio.gather(
        *(
            _play_table(room, operator, t, variant, n, targets[t], seed)
            for seed, (t, variant, n, _) in enumerate(TABLES)
        )
    )
    report = Report()
    truths: dict[str, Truth] = {}
    probes = 0
    for (table_id, _, _, _), received in zip(TABLES, played, strict=True):
        assert received.trouble == [], received.trouble[:5]
        truth = truths[table_id] = Truth(await read_log(room.nats_url, *_streams(room), table_id))
        checker = Checker(truth, report)
        for seat, where, message in received.messages:
            if isinstance(message, table_pb2.WatchResponse):
                checker.update(seat, message, f"{table_id} {where}")
            elif isinstance(message, table_pb2.TableView):
                checker.view(seat, message, f"{table_id} {where}")
        probes += _check_refusals(checker, truth, received, table_id)
    # Every game of the registry went through the services (stud hi/lo on both kinds of table).
    games: defaultdict[str, int] = defaultdict(int)
    for received in played:
        for game, count in received.games.items():
            games[game] += count
    assert set(games) == games_in_registry(), dict(games)

    # The services' own log files: no card value on any line.
    checker = Checker(Truth(), report)
    for name in ("table.log", "dealer.log"):
        checker.log_text(name, (room.var / name).read_text())

    await _check_exports(room, tmp_path, truths, report)

    hands = sum(len(r.hands_ended) for r in played)
    print(
        f"\nleak battery (services): {hands} hands {dict(games)}; checked {report.events} events,"
        f" {report.views} views, {report.rows} rows, {report.cards} cards, {report.errors} errors,"
        f" {report.log_lines} log lines, {report.exports} hand exports, {probes} probes;"
        f" leaks {len(report.leaks)}"
    )
    assert report.leaks == [], "\n".join(report.leaks[:20])
    assert hands >= SERVICE_HANDS and probes > 0 and report.exports > 0


def _check_refusals(checker: Checker, truth: Truth, received: Received, table_id: str) -> int:
    """Every error names no card but the request's own, and a probe's error reads the same
    whoever holds the card it named (someone else, nobody yet, or face up for all)."""
    texts: dict[str, set[str]] = defaultdict(set)
    places: dict[str, set[str]] = defaultdict(set)
    for r in received.refusals:
        masked = checker.error(r.seat, r.named, r.details, f"{table_id} act")
        if not r.foreign:
            continue
        facts = truth.at(r.version)
        card = parse_card(r.foreign)
        if card in facts.public_cards:
            where = "public"
        elif any(card in {c for c, _ in row} for s, row in facts.held.items() if s != r.seat):
            where = "another player's"
        else:
            where = "nobody's"
        texts[r.action].add(f"{r.code}: {masked}")
        places[r.action].add(where)
    for action, found in texts.items():
        assert len(found) == 1, (
            f"{table_id}: {action} probes naming {sorted(places[action])} cards read "
            f"differently: {found}"
        )
    return sum(1 for r in received.refusals if r.foreign)


_CARD = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][cdhs](?![0-9A-Za-z])")


async def _check_exports(
    room: Room, tmp_path: Path, truths: dict[str, Truth], report: Report
) -> None:
    """Each player's export, in both formats: only what they saw (``riverboat history``)."""
    archive = tmp_path / "room.rba.gz"
    await export_when_revealed(room, archive)
    checker = Checker(Truth(), report)
    for table_id, truth in truths.items():
        checker.truth = truth
        started = {
            e.hand_id: e for batch in truth.batches for e in batch if isinstance(e, ev.HandStarted)
        }
        names = {s.player: s.seat for e in started.values() for s in e.seats}
        for player, seat in sorted(names.items()):
            phh = tmp_path / f"{player}.phhs"
            text = tmp_path / f"{player}.txt"
            base = ["history", "export", str(archive), "--player", player, "--table", table_id]
            assert await cli(*base, "-o", str(phh)) == 0
            assert await cli(*base, "--format", "pokerstars", "-o", str(text)) == 0
            doc = tomllib.loads(phh.read_text())
            for hand_id, hand in doc.items():
                lines = [*hand.get("actions", []), *(str(p) for p in hand.get("_passes", []))]
                checker.export_text(hand_id, seat, "\n".join(lines), {}, f"{player}.phhs")
            # PokerStars hand numbers end with the table's hand number (docs/hand-history.md):
            # back to the hand ids, numbered in the order the log deals them.
            by_number = {
                str(table_code(table_id) * 10**7 + n): h for n, h in enumerate(started, start=1)
            }
            for block in text.read_text().split("PokerStars Hand #")[1:]:
                number = block.split(":", 1)[0]
                hand_id = by_number.get(number, number)
                checker.export_text(hand_id, seat, block, names, f"{player}.txt")
