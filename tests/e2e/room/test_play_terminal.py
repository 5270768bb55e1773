"""``riverboat play`` in a pseudo-terminal plays a hand to the end against a bot.

The room is real (NATS, dealer, table service and lobby as child processes); the player types
into ``riverboat play`` through pexpect exactly as a person would: register at the prompt, buy
in, answer each "YOUR TURN" until the hand is over, leave, quit. The test reads the screen: the
player's own cards are drawn, the bot's hole cards are hidden (and none of them appears anywhere
on screen) until the showdown shows them, and the pot and the result are printed; watching the
table again after leaving raises no proof alarm.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pexpect
import pytest
from pexpect.fdpexpect import fdspawn

from riverboat.cli.play.text import HIDDEN, card_label
from riverboat.client import LobbyClient, TableClient, play_bot
from riverboat.engine.betting import LegalAction
from riverboat.handtext import money
from riverboat.v1 import settlement_pb2, settlement_pb2_grpc, table_pb2
from tests.e2e.room._settled import Settled, settled_lobby
from tests.e2e.room.conftest import Room
from tests.terminal import spawn_in_pty

# Colours and cursor codes, and the cursor saved and put back (\x1b7, \x1b8) around the
# countdown the prompt shows on our turn.
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[78]")
ERASED = re.compile(r"[^\n]*\r\x1b\[2K")  # a prompt the client erased to print above it
_SGR = r"(?:\x1b\[[0-9;]*m)*"  # colour codes between the words of the turn line
# "(30 s)", "(30 s, time bank 60 s)" or "(on your time bank: 45 s)" before the choices.
TURN = rf"Your turn{_SGR} \([^)\n]*\d+ s\): {_SGR}([^\n│]*)"
REPO = Path(__file__).resolve().parents[3]


def plain(text: str) -> str:
    """The screen's text: erased prompts gone, without colours and cursor codes."""
    return ANSI.sub("", ERASED.sub("", text)).replace("\r", "")


def calling_station(legal: list[LegalAction]) -> tuple[str, int]:
    """The bot never folds and never raises, so the hand reaches the showdown."""
    by_name = {a.action: a for a in legal}
    for name in ("check", "call", "bring_in"):
        if name in by_name:
            return name, by_name[name].to[0]
    return legal[0].action, legal[0].to[0]


def move(screen: Screen) -> str:
    """Bring in when that is the choice, else check or call (from the turn line on screen)."""
    match = screen.child.match
    assert isinstance(match, re.Match)
    return "i" if "i bring in" in plain(match.group(1)) else "c"


class Screen:
    """A ``riverboat play`` child and everything it printed (the transcript)."""

    def __init__(self, child: fdspawn[str]) -> None:
        self.child = child
        self.seen = ""

    async def expect(self, *patterns: object, timeout: float = 20) -> int:
        """Wait for one of ``patterns`` (regexes); return its index."""
        try:
            index: int = await asyncio.to_thread(
                lambda: self.child.expect(list(patterns), timeout)  # type: ignore[arg-type]
            )
        except (pexpect.TIMEOUT, pexpect.EOF) as exc:
            tail = plain(self.seen + str(self.child.before))[-3000:]
            raise AssertionError(
                f"no {patterns} on screen ({type(exc).__name__}):\n{tail}"
            ) from None
        self.seen += str(self.child.before) + str(self.child.after)
        return index

    def send(self, line: str) -> None:
        self.child.sendline(line)

    @property
    def text(self) -> str:
        return plain(self.seen)


@pytest.fixture
async def settled(room: Room) -> AsyncIterator[Settled]:
    """The lobby with the settlement service to buy in from."""
    async with settled_lobby(room) as services:
        yield services


async def test_play_a_hand_in_a_terminal(room: Room, settled: Settled) -> None:
    started = time.monotonic()
    lobby, settlement_address = settled.lobby, settled.settlement.address
    async with (
        grpc.aio.insecure_channel(lobby.address) as lobby_channel,
        grpc.aio.insecure_channel(room.table_address) as table_channel,
        grpc.aio.insecure_channel(settlement_address) as settlement_channel,
    ):
        boss = LobbyClient(lobby_channel)
        await boss.login("boss", "boss-password")
        table = await boss.create_table("pacific", "Pacific $1/$2", request_id="pty")
        cashier = settlement_pb2_grpc.SettlementServiceStub(settlement_channel)  # type: ignore[no-untyped-call]
        operator_md = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
        # Money goes only to accounts the lobby registered: the bot now, ann once she has
        # signed up at the prompts.
        await LobbyClient(lobby_channel).register("bot", "correct horse")

        async def fund(player: str) -> None:
            await cashier.Deposit(
                settlement_pb2.DepositRequest(player=player, amount=10_000, external_ref="d1"),
                metadata=operator_md,
            )

        await fund("bot")

        # The bot sits down first and plays through the same API, never folding.
        bot_lobby = LobbyClient(lobby_channel, room.token("bot"))
        await bot_lobby.join(table.table_id, 20_000 // 4, request_id="bot-join")
        bot_hole: dict[str, set[str]] = {}  # hand id -> the bot's face-down cards

        def remember_hole_cards(update: table_pb2.WatchResponse) -> None:
            for seat in update.view.seats:
                if seat.player == "bot":
                    bot_hole.setdefault(update.view.hand_id, set()).update(
                        c.card for c in seat.cards if c.card and not c.face_up
                    )

        stop = asyncio.Event()
        bot = asyncio.ensure_future(
            play_bot(
                TableClient(table_channel, room.token("bot"), "bot"),
                table.table_id,
                calling_station,
                stop=stop,
                on_update=remember_hole_cards,
            )
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_TOKEN")}
        env.update(TERM="xterm-256color", PYTHONPATH=str(REPO))
        process, child = spawn_in_pty(
            [
                sys.executable,
                "-m",
                "riverboat.cli",
                "play",
                "--lobby",
                lobby.address,
                "--table",
                room.table_address,
                "--settlement",
                settlement_address,
            ],
            env,
        )
        screen = Screen(child)
        try:
            # Sign up at the prompts: the login fails, the client offers to register.
            await screen.expect("username: ")
            screen.send("ann")
            await screen.expect("password: ")
            screen.send("correct horse")
            await screen.expect(r"Register a new account as ann\? \[y/N\] ")
            screen.send("y")
            await screen.expect("password again: ")  # a new account's password, twice
            screen.send("correct horse")
            await screen.expect("Welcome, ann")
            await screen.expect("lobby> ")
            await fund("ann")
            assert table.table_id in screen.text and "Pacific $1/$2" in screen.text

            screen.send("j 1 40")
            await screen.expect(r"You sit in seat \d+ at Pacific \$1/\$2 with \$40\.00")

            ann = TableClient(table_channel, room.token("ann"), "ann")
            first_turn = True
            hand_id = ""
            while True:
                index = await screen.expect(TURN, r"Hand over\.[^\n]*\n")
                if index == 1:
                    break
                pending = move(screen)
                view = await ann.view(table.table_id)
                hand_id = hand_id or view.hand_id
                if first_turn:
                    first_turn = False
                    me = next(s for s in view.seats if s.seat == view.viewer_seat)
                    mine = " ".join(
                        card_label(c.card) if c.face_up else f"[{card_label(c.card)}]"
                        for c in me.cards
                    )
                    assert mine in screen.text  # own cards, the down ones in brackets
                    bot_row = [
                        line for line in screen.text.splitlines() if "│" in line and " bot " in line
                    ][-1]
                    assert bot_row.count(HIDDEN) == 2  # the bot's two down cards
                    assert "Pot $" in screen.text
                    # The action clock counts down on the prompt, rewritten where it stands
                    # (the cursor saved and put back) once a second.
                    await screen.expect(r"\x1b7\r[^\n\x1b]*YOUR TURN +(\d+) s> \x1b8")
                    match = screen.child.match
                    assert isinstance(match, re.Match)
                    assert int(match.group(1)) < view.action_seconds
                before_showdown = screen.text
                screen.send(pending)
            result = screen.text.splitlines()
            assert any(
                re.match(r"Hand over\. You (won|lost) \$\d+\.\d\d|Hand over\. You broke even", line)
                for line in result
            )
            assert re.search(r"bot shows .*: ", screen.text)
            assert re.search(r"(win|wins) the main pot of \$\d+\.\d\d|Main pot of \$", screen.text)
            # Hole cards: never on screen before the showdown, every one of them after it.
            # (the bot may already hold the next hand's cards: only this hand's count)
            assert len(bot_hole[hand_id]) == 3
            for card in bot_hole[hand_id]:
                assert card_label(card) not in before_showdown
                assert card_label(card) in screen.text

            # Hands are named by their number at the table.
            assert "· hand #1 ·" in screen.text and f"hand {hand_id}" not in screen.text
            # Sit out and back in; the watch tells both. "s" then draws the table again, turn
            # line included (a turn that came meanwhile was printed before the sentences).
            screen.send("so")
            await screen.expect(r"You sit out; si sits you in again\.")
            screen.send("si")
            await screen.expect(r"You are dealt in again from the next hand\.")
            screen.send("s")

            # Leave from inside the next hand (the leave waits for its end), then quit. Not in
            # the moment between hands: a leave that lands after the table service committed
            # the next deck but before it dealt leaves the table stuck (a table service bug).
            await screen.expect(TURN)
            pending_move = move(screen)
            screen.send("l")
            await screen.expect("You will leave when this hand ends")
            screen.send(pending_move)
            while True:
                index = await screen.expect(TURN, r"Back in the lobby")
                if index == 1:
                    break
                screen.send(move(screen))
            left = re.search(
                r"You stood up with \$(\d+)\.(\d\d); it goes back to your wallet", screen.text
            )
            assert left is not None
            cashed_out = int(left.group(1)) * 100 + int(left.group(2))
            await screen.expect("lobby> ")
            # Back in the lobby, `hands` lists the table just left, each hand by its own number
            # (the one `hand N` takes: hand_id is #1), never a row count beside it.
            screen.send("hands")
            await screen.expect("Last hands")
            await screen.expect(r"the table you left: N from the # column")
            listed = re.search(rf"^\s*(\d+)\s+{re.escape(hand_id)}\s", screen.text, re.M)
            assert listed is not None and listed.group(1) == "1", screen.text[-3000:]
            screen.send("hand 1")
            await screen.expect(r"PokerStars Hand #\d+:")
            await screen.expect("lobby> ")
            # The last hands, from the table service's hand histories: watching the table,
            # `hands` lists the first hand, and `hand ID` prints it as ann saw it (her own
            # cards, and the bot's, shown at the showdown).
            screen.send("w 1")
            await screen.expect(f"{table.table_id}> ")
            # Watching again checks the hand afresh, but still knows the seed ann's client
            # sent for it: no false alarm over her own seed.
            assert "PROOF FAILED" not in screen.text
            screen.send("hands")
            await screen.expect("Last hands")
            await screen.expect("hand N shows one of them")
            assert hand_id in screen.text
            shown_before = len(screen.text)
            screen.send(f"hand {hand_id}")
            await screen.expect(r"PokerStars Hand #\d+:")
            await screen.expect(r"\*\*\* SUMMARY \*\*\*")
            await screen.expect(f"{table.table_id}> ")
            history = screen.text[shown_before:]
            assert "Dealt to ann" in history
            for card in bot_hole[hand_id]:
                assert card in history  # the showdown showed them
            screen.send("l")
            await screen.expect("Stopped watching; back in the lobby.")
            await screen.expect("lobby> ")
            # The chips reach the wallet once settlement has read the table's log.
            wallet = 10_000 - 4_000 + cashed_out
            for _ in range(50):
                screen.send("bal")
                await screen.expect(r"Wallet \$[\d.]+, at tables \$[\d.]+\.")
                if screen.text.rstrip().endswith(f"Wallet {money(wallet)}, at tables $0.00."):
                    break
                await asyncio.sleep(0.2)
            else:
                raise AssertionError(f"the wallet never showed {money(wallet)}")
            await screen.expect("lobby> ")
            screen.send("q")
            await screen.expect(pexpect.EOF)
            assert await asyncio.to_thread(process.wait, 10) == 0
            assert "Traceback" not in screen.text
        finally:
            if process.poll() is None:
                process.kill()
            child.close()
            stop.set()
            await bot
    print(f"\n{screen.text}\n(play test took {time.monotonic() - started:.1f} s)")
