"""``riverboat play`` follows a table to its new owner: two table-service instances, the
player's client given instance a (``--table``, as the lobby is) at a table a owns; a stops
(SIGTERM) mid-session and hands the table to b, the instance nobody named. Once a is gone the
only way to b is the redirect a answered with while handing over (its Watch stream ends with
NOT_OWNER naming b): a client that does not follow it is left calling a dead address. The
player plays a hand before and a hand after, typing into a pseudo-terminal as a person would.
Oracles: the leases say who owned the table at each moment (a, then b), and the screen shows a
turn answered and a hand ended on each side of the hand-over, with no error printed."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from riverboat.client import LobbyClient, TableClient, play_bot
from riverboat.natsserver import NatsServer
from riverboat.services.launcher import ServiceProcess
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc
from tests.e2e.room._settled import register, settlement_process
from tests.e2e.room.conftest import Room, _lobby
from tests.e2e.room.test_owners import Pair, _driver, _pair, _tag
from tests.e2e.room.test_play_terminal import REPO, TURN, Screen, calling_station, move
from tests.terminal import spawn_in_pty

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def two_instances(
    nats_server: NatsServer, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Pair, ServiceProcess, ServiceProcess]]:
    """(the dealer and instances a and b, the lobby, settlement); the lobby is told of a."""
    with _pair(nats_server.url, tmp_path, _tag(request)) as pair:
        room = Room(nats_server.url, pair.dealer, pair.instances["a"], tmp_path, pair.issuer)
        settlement = settlement_process(room)
        settlement.start()
        lobby = _lobby(
            nats_server.url, tmp_path, pair.instances["a"].address, settlement.address, pair.tag
        )
        try:
            lobby.start()
            yield pair, lobby, settlement
        finally:
            lobby.stop()
            settlement.stop()


async def _play_to_the_end_of_a_hand(screen: Screen) -> int:
    """Answer every turn until a hand ends; how many turns were answered."""
    turns = 0
    while True:
        if await screen.expect(TURN, r"Hand over\.[^\n]*\n", timeout=60) == 1:
            return turns
        screen.send(move(screen))
        turns += 1


async def test_riverboat_play_follows_the_table_to_its_owner_and_through_a_hand_over(
    two_instances: tuple[Pair, ServiceProcess, ServiceProcess],
) -> None:
    pair, lobby, settlement = two_instances
    a = pair.instances["a"]
    await register(lobby.address, ["bot"])
    async with (
        _driver(pair) as driver,
        grpc.aio.insecure_channel(lobby.address) as lobby_channel,
        # The bot's calls go through b: it must not depend on what is tested here.
        grpc.aio.insecure_channel(pair.instances["b"].address) as table_channel,
        grpc.aio.insecure_channel(settlement.address) as settlement_channel,
    ):
        boss = LobbyClient(lobby_channel, pair.issuer.issue("boss", "operator"))
        made = [
            await boss.create_table("pacific", f"Redirect {n}", request_id=f"rd-{n}")
            for n in range(2)
        ]
        # New tables go to the least-loaded instance: one each. The player's is a's.
        leases = await driver.leases.all()
        on_a = [n for n, t in enumerate(made) if leases[t.table_id].holder.instance == "a"]
        assert len(on_a) == 1, {t: lease.holder.instance for t, lease in leases.items()}
        table = made[on_a[0]]
        cashier = settlement_pb2_grpc.SettlementServiceStub(settlement_channel)  # type: ignore[no-untyped-call]
        operator_md = (("authorization", f"Bearer {pair.issuer.issue('boss', 'operator')}"),)

        async def fund(player: str) -> None:
            await cashier.Deposit(
                settlement_pb2.DepositRequest(player=player, amount=10_000, external_ref="d1"),
                metadata=operator_md,
            )

        await fund("bot")
        bot_token = pair.issuer.issue("bot", "player")
        await LobbyClient(lobby_channel, bot_token).join(table.table_id, 5_000, request_id="bj")
        stop = asyncio.Event()
        # The bot starts at the owner the lobby names (a) and follows the table after.
        bot_client = TableClient(table_channel, bot_token, "bot")
        bot_client.set_owner(table.table_id, (await boss.get_table(table.table_id)).owner_address)
        bot = asyncio.ensure_future(
            play_bot(
                bot_client,
                table.table_id,
                calling_station,
                stop=stop,
            )
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_TOKEN")}
        env.update(TERM="xterm-256color", PYTHONPATH=str(REPO))
        process, child = spawn_in_pty(
            [sys.executable, "-m", "riverboat.cli", "play", "--lobby", lobby.address,
             "--table", a.address, "--settlement", settlement.address],
            env,
        )  # fmt: skip
        screen = Screen(child)
        try:
            await screen.expect("username: ")
            screen.send("ann")
            await screen.expect("password: ")
            screen.send("correct horse")
            await screen.expect(r"Register a new account as ann\? \[y/N\] ")
            screen.send("y")
            await screen.expect("password again: ")  # a new account's password, twice
            screen.send("correct horse")
            await screen.expect("lobby> ")
            await fund("ann")
            screen.send(f"j {on_a[0] + 1} 40")
            await screen.expect(r"You sit in seat \d+ at Redirect \d with \$40\.00")

            # A hand at a.
            assert await _play_to_the_end_of_a_hand(screen) >= 1
            owner = await driver.leases.get(table.table_id)
            assert owner is not None and owner.holder.instance == "a"

            # a stops: it hands the table to b between hands and exits; ann plays on.
            await asyncio.to_thread(a.stop, 60)
            assert a.process is not None and a.process.returncode == 0
            owner = await driver.leases.get(table.table_id)
            assert owner is not None and owner.holder.instance == "b"
            shown = len(screen.text)
            turns = 0
            for _ in range(3):  # a hand already under way when b stopped may need no move
                turns += await _play_to_the_end_of_a_hand(screen)
                if turns:
                    break
            assert turns >= 1, "no turn answered after the hand-over"
            after = screen.text[shown:]
            assert "Traceback" not in screen.text and "FAILED_PRECONDITION" not in after
            assert "NOT_OWNER" not in after and "unavailable" not in after.lower()
            screen.send("q")
        finally:
            stop.set()
            await bot
            if process.poll() is None:
                process.terminate()
            await asyncio.to_thread(process.wait, 10)
