"""The demo's dealer's choice table keeps dealing (issue #16, "the demo that stays alive"):
`riverboat up` as an operator runs it, its DemoBots playing, watched from outside.

One more player sits down beside the bots, through the public API: a "fickle" player who plays
their hands but, when called to deal, sits out (before choosing, or right after) and comes
back a while later, as a person who walks away from the table would. The deal must pass to the
next seat and the table go on dealing (docs/games.md, "Sitting out").

The oracle, from an observer's Watch stream alone, with the rules' own timings: between hands,
when the view shows a table that can deal (two or more seated players with chips who do not
sit out), the next update comes within the pause (the next dealer called, or the hand
committed and dealt), or, while a dealer chooses, within the dealer's clock; a hand in play
moves within the action clock and a time bank. Each with a margin for a loaded machine. The
table deals hand after hand, and at the end `riverboat audit` (as the auditor's NATS identity)
finds every log clean.

Small in ``make test`` (a minute of play); under ``make soak`` it watches for two hours.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from riverboat.client import (
    LobbyClient,
    TableClient,
    next_move,
    random_chooser,
    random_picker,
    watch_until,
)
from riverboat.v1 import (
    lobby_pb2,
    lobby_pb2_grpc,
    settlement_pb2,
    settlement_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)
from tests.battery import size
from tests.e2e._upkit import ENV, free_ports, issuer, reap, riverboat, seated, up_command

#: The demo's bots at each table.
BOTS = 3
#: Seconds the table is watched.
WATCH = size(60, 2 * 3600)
PAUSE = 0.5
#: Slack over the table's own clocks for a loaded 2-core machine.
MARGIN = 15.0
#: The demo table's time bank (OpenTable's default), which a slow turn may run on.
TIME_BANK = 60
#: How long the fickle player stays away once they sat out.
AWAY = 30.0


@dataclass
class Watched:
    """What the observer and the fickle player saw."""

    hands: set[str] = field(default_factory=set)
    updates: int = 0
    passed_over: int = 0
    longest_between_hands: float = 0.0
    stalls: list[str] = field(default_factory=list)


def can_deal(view: table_pb2.TableView) -> bool:
    """The oracle's own reading of the view: no hand in play, and one could start."""
    ready = [s for s in view.seats if s.player and s.stack > 0 and not s.sitting_out]
    return not view.hand_in_progress and len(ready) >= 2


def due_within(view: table_pb2.TableView) -> float | None:
    """Seconds within which the next update must come after ``view`` (None: nothing is due)."""
    if view.hand_in_progress:
        return view.action_seconds + TIME_BANK + MARGIN
    if not can_deal(view):
        return None
    dealer = next((s for s in view.seats if s.seat == view.dealer), None)
    if view.choosing_game and dealer is not None and dealer.stack and not dealer.sitting_out:
        return view.action_seconds + MARGIN  # the dealer chooses, or their clock does
    # The next dealer is called (a dealer who sits out is passed over), or the hand chosen
    # is committed and dealt.
    return PAUSE + MARGIN


async def observe(
    stub: table_pb2_grpc.TableServiceStub, table_id: str, token: str, seconds: float, seen: Watched
) -> None:
    """Watch the table as an observer for ``seconds``; a stall ends the watch."""
    stream = stub.Watch(
        table_pb2.WatchRequest(table_id=table_id),
        metadata=(("authorization", f"Bearer {token}"),),
    )
    end = time.monotonic() + seconds
    view: table_pb2.TableView | None = None
    try:
        while (left := end - time.monotonic()) > 0:
            due = due_within(view) if view is not None else None
            started = time.monotonic()
            try:
                reply = await asyncio.wait_for(stream.read(), min(due or left, left))
            except TimeoutError:
                if due is not None and view is not None and time.monotonic() < end:
                    seen.stalls.append(
                        f"nothing for {due:.1f}s after version {view.version} (hand in progress "
                        f"{view.hand_in_progress}, choosing {view.choosing_game}, seats "
                        f"{[(s.player, s.stack, s.sitting_out) for s in view.seats]})"
                    )
                    return
                continue
            if reply is grpc.aio.EOF:  # type: ignore[attr-defined]
                seen.stalls.append("the watch stream ended")
                return
            if view is not None and due is not None and not view.hand_in_progress:
                seen.longest_between_hands = max(
                    seen.longest_between_hands, time.monotonic() - started
                )
            seen.updates += 1
            if reply.HasField("view"):
                view = reply.view
                if view.hand_in_progress:
                    seen.hands.add(view.hand_id)
    finally:
        stream.cancel()


async def fickle(client: TableClient, table_id: str, stop: asyncio.Event, seen: Watched) -> None:
    """Play every hand; when called to deal, sit out (before choosing or right after) and
    come back :data:`AWAY` seconds later."""
    rng = random.Random(16)
    choose, pick = random_chooser(rng), random_picker(rng)
    back_at: float | None = None
    acted: set[int] = set()
    async for update in watch_until(client, table_id, stop, idle=5.0):
        if back_at is not None and time.monotonic() >= back_at:
            back_at = None
            await client.sit_in(table_id, request_id=f"fickle-in-{update.version}")
        if not update.HasField("view") or back_at is not None:
            continue
        view = update.view
        if not view.legal_actions or view.version in acted:
            continue
        acted.add(view.version)
        names = {a.action for a in view.legal_actions}
        move = next_move(view, choose, pick)
        with contextlib.suppress(grpc.aio.AioRpcError):  # the clock may beat us to it
            if move is not None and ("choose_game" not in names or rng.random() < 0.5):
                await client.act(
                    table_id,
                    view.hand_id,
                    view.viewer_seat,
                    move.action,
                    move.amount,
                    request_id=f"fickle-{view.version}",
                    cards=move.cards,
                    choice=move.choice,
                    options=move.options,
                )
            if "choose_game" in names:
                await client.sit_out(table_id, request_id=f"fickle-out-{view.version}")
                seen.passed_over += 1
                back_at = time.monotonic() + AWAY


async def sit_down(var: Path, ports: list[int], table_id: str) -> str:
    """Register the fickle player, fund them and seat them at the table (as a person would,
    the operator depositing for them); their token."""
    lobby = f"127.0.0.1:{ports[0]}"
    operator = (("authorization", f"Bearer {issuer(var).issue('boss', 'operator')}"),)
    async with (
        grpc.aio.insecure_channel(lobby) as lobby_channel,
        grpc.aio.insecure_channel(f"127.0.0.1:{ports[3]}") as money_channel,
    ):
        player = LobbyClient(lobby_channel)
        player_id = await player.register("fickle", "fickle-password")
        await player.login("fickle", "fickle-password")
        listed = (await player.stub.GetTable(
            lobby_pb2.GetTableRequest(table_id=table_id), metadata=player.metadata
        )).table  # fmt: skip
        money = settlement_pb2_grpc.SettlementServiceStub(money_channel)  # type: ignore[no-untyped-call]
        await money.Deposit(
            settlement_pb2.DepositRequest(
                player=player_id, amount=50 * listed.min_buy_in, external_ref="fickle"
            ),
            metadata=operator,
        )
        await player.join(table_id, 10 * listed.min_buy_in, request_id="fickle-join")
        assert player.token is not None
        return player.token


async def watch(var: Path, ports: list[int], table_id: str, seconds: float) -> Watched:
    """The observer's watch, with the fickle player at the table meanwhile."""
    seen = Watched()
    player = await sit_down(var, ports, table_id)
    stop = asyncio.Event()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{ports[1]}") as channel:
        client = TableClient(channel, player, "fickle")
        playing = asyncio.create_task(fickle(client, table_id, stop, seen))
        try:
            stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            token = issuer(var).issue("watcher", "operator")
            await observe(stub, table_id, token, seconds, seen)
        finally:
            stop.set()
            await playing
    return seen


def _choice_table(var: Path, lobby: str, bots: int) -> str:
    """The demo's dealer's choice table, once all its bots sit there (a seat the lobby
    offers the fickle player is then not one a bot is taking)."""
    token = issuer(var).issue("test", "operator")
    deadline = time.monotonic() + 90
    with grpc.insecure_channel(lobby) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        while True:
            tables = stub.ListTables(
                lobby_pb2.ListTablesRequest(), metadata=(("authorization", f"Bearer {token}"),)
            ).tables
            table = next(t for t in tables if t.template == "dealers_choice")
            if len(table.seats) >= bots:
                return str(table.table_id)
            assert time.monotonic() < deadline, "the demo's bots never all sat down"
            time.sleep(0.2)


@pytest.mark.battery
@pytest.mark.timeout(WATCH + 600)
def test_the_dealers_choice_demo_table_keeps_dealing(tmp_path: Path) -> None:
    ports = free_ports()
    var = tmp_path / "var"
    output = tmp_path / "up.out"
    command = up_command(var, ports, "--bots", str(BOTS), "--hand-pause", str(PAUSE), "--quiet")
    with output.open("w") as sink:
        up = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=tmp_path, env=ENV)
    lobby = f"127.0.0.1:{ports[0]}"
    try:
        seated(var, lobby)
        table_id = _choice_table(var, lobby, BOTS)
        seen = asyncio.run(watch(var, ports, table_id, WATCH))
        print(
            f"\ndemo dealer's choice table: {len(seen.hands)} hands in {WATCH}s, "
            f"{seen.updates} updates, the fickle dealer sat out {seen.passed_over} times, "
            f"longest wait between hands for the next step {seen.longest_between_hands:.1f}s"
        )
        assert seen.stalls == [], seen.stalls
        assert len(seen.hands) >= max(3, WATCH // 20), seen
        assert seen.passed_over > 0, "the fickle player was never called to deal"
        password = str(var / "nats-auth" / "auditor.password")
        audit = subprocess.run(
            riverboat(
                "audit",
                "--nats",
                f"nats://127.0.0.1:{ports[4]}",
                "--nats-user",
                "auditor",
                "--nats-password-file",
                password,
            ),
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
            check=False,
        )
        assert audit.returncode == 0 and "RESULT: OK" in audit.stdout, audit.stdout[-3000:]
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(timeout=60)
        assert reap(tmp_path) == [], "no service or nats-server is left running"
