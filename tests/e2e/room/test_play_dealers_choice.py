"""``riverboat play`` in a pseudo-terminal at a dealer's choice table, against a bot.

The room is real (NATS, dealer, table, settlement and lobby services as child processes). Ann
types into ``riverboat play`` as a person would: she deals first, lists the games (``g``, with
the limits the table lets the dealer declare), asks for limits outside them (refused, the
bounds named), chooses five-card draw at $1/$3 (``g draw limits=1/3``: the rounds are bet at
$1, then $3) and throws two cards away by position (``d 1 2``); the bot deals next and chooses
Seven Twenty-Seven, where Ann stands on the offers and declares. The screen is read: her own
cards, the bot's hidden until shown, the draw, the bot's declaration sealed ("declared") until
both are in, then revealed, named for the halves (27, 7), and each hand's result.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import sys
import time

import grpc
import pexpect

from riverboat.cli.play.text import HIDDEN, card_label
from riverboat.client import LobbyClient, Move, TableClient, play_bot, random_picker
from riverboat.v1 import events_pb2, settlement_pb2, settlement_pb2_grpc, table_pb2
from tests.e2e.room._settled import Settled
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_play_terminal import (
    REPO,
    TURN,
    Screen,
    calling_station,
    plain,
    settled,  # noqa: F401  (the fixture, used by name)
)
from tests.terminal import spawn_in_pty

BOT_GAME = "seven_twenty_seven"


def bot_picker() -> object:
    """As dealer the bot chooses Seven Twenty-Seven; every other move is random but legal."""
    plain_pick = random_picker(random.Random(7))

    def pick(view: table_pb2.TableView) -> Move:
        if any(a.action == "choose_game" for a in view.legal_actions):
            return Move("choose_game", choice=BOT_GAME)
        return plain_pick(view)

    return pick


def rows(text: str, player: str) -> list[str]:
    """The table rows of ``player`` drawn so far."""
    return [line for line in text.splitlines() if "│" in line and f" {player} " in line]


async def test_a_person_deals_draw_and_declares_in_seven_twenty_seven(
    room: Room,
    settled: Settled,  # noqa: F811
) -> None:
    started = time.monotonic()
    lobby, settlement_address = settled.lobby, settled.settlement.address
    async with (
        grpc.aio.insecure_channel(lobby.address) as lobby_channel,
        grpc.aio.insecure_channel(room.table_address) as table_channel,
        grpc.aio.insecure_channel(settlement_address) as settlement_channel,
    ):
        boss = LobbyClient(lobby_channel)
        await boss.login("boss", "boss-password")
        # The players agree the dealer may declare $1-$3 small bets, $2-$10 big.
        table = await boss.create_table(
            "dealers_choice",
            "Friday",
            request_id="pty-dc",
            rules=events_pb2.DealersChoiceRules(
                min_small_bet=100, max_small_bet=300, min_big_bet=200, max_big_bet=1000
            ),
        )
        cashier = settlement_pb2_grpc.SettlementServiceStub(settlement_channel)  # type: ignore[no-untyped-call]
        operator_md = (("authorization", f"Bearer {room.token('boss', 'operator')}"),)
        # Money goes only to accounts the lobby registered: the bot now, ann once she has
        # signed up at the prompts.
        await LobbyClient(lobby_channel).register("bot", "correct horse")

        async def fund(player: str) -> None:
            await cashier.Deposit(
                settlement_pb2.DepositRequest(player=player, amount=50_000, external_ref="d1"),
                metadata=operator_md,
            )

        await fund("bot")
        bot_seen: dict[str, set[str]] = {}  # hand id -> every face-down card the bot held
        bot_hole: dict[str, set[str]] = {}  # hand id -> those it holds last (shown down)

        def remember_hole_cards(update: table_pb2.WatchResponse) -> None:
            for seat in update.view.seats:
                if seat.player == "bot" and update.view.hand_in_progress:
                    hole = {c.card for c in seat.cards if c.card and not c.face_up}
                    bot_seen.setdefault(update.view.hand_id, set()).update(hole)
                    bot_hole[update.view.hand_id] = hole

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
                "--user",
                "ann",
                "--password",
                "correct horse",
                "--register",
            ],
            env,
        )
        screen = Screen(child)
        stop = asyncio.Event()
        bot: asyncio.Future[object] | None = None
        try:
            await screen.expect("lobby> ")
            await fund("ann")
            # Ann sits first (seat 1), so the first dealer called is her.
            screen.send("j 1 100")
            await screen.expect(r"You sit in seat 1 at Friday with \$100\.00")
            bot_lobby = LobbyClient(lobby_channel, room.token("bot"))
            await bot_lobby.join(table.table_id, 10_000, request_id="bot-join")
            bot = asyncio.ensure_future(
                play_bot(
                    TableClient(table_channel, room.token("bot"), "bot"),
                    table.table_id,
                    calling_station,
                    stop=stop,
                    on_update=remember_hole_cards,
                    pick=bot_picker(),  # type: ignore[arg-type]
                )
            )

            # --- hand 1: Ann deals and chooses draw -------------------------------------
            await screen.expect(r"Your turn[^\n]*g GAME choose the game")
            assert "You are choosing the game (dealer, seat 1)." in screen.text
            screen.send("g")  # the games, a line each
            await screen.expect(r"g GAME \? lists a game's options")
            await screen.expect(r"YOUR TURN[^>\n]*> ")
            assert "Five-card draw" in screen.text and "Seven Twenty-Seven" in screen.text
            screen.send("g draw ?")  # one game's options
            await screen.expect(r"Five-card draw: g draw \[option=value")
            await screen.expect(r"YOUR TURN[^>\n]*> ")
            assert re.search(r"draws +1 +1 / 2", screen.text)
            bounds_said = "small bet $1.00 to $3.00, big bet $2.00 to $10.00"
            listed = " ".join(screen.text.split())
            assert f"Limits you may declare for the deal (limits=S/B): {bounds_said}." in listed
            screen.send("g draw limits=5/10")
            await screen.expect(
                re.escape(
                    f"This table lets the dealer declare {bounds_said} (the big bet at least "
                    "the small); not $5.00/$10.00."
                )
            )
            screen.send("g draw limits=1/3")
            await screen.expect(re.escape("You choose Five-card draw, limits $1.00/$3.00."))
            ann = TableClient(table_channel, room.token("ann"), "ann")
            thrown: list[str] = []
            bets: list[str] = []  # Ann's turn lines in the betting rounds
            hand_id = ""
            before_showdown = ""
            while True:
                index = await screen.expect(TURN, r"Hand over\.[^\n]*\n")
                if index == 1:
                    break
                line = plain(screen.child.match.group(1))  # type: ignore[union-attr]
                if "d CARDS draw" in line:
                    view = await ann.view(table.table_id)
                    hand_id = view.hand_id
                    me = next(s for s in view.seats if s.seat == view.viewer_seat)
                    mine = " ".join(f"[{card_label(c.card)}]" for c in me.cards)
                    assert mine in screen.text  # her five cards, face down, in brackets
                    assert rows(screen.text, "bot")[-1].count(HIDDEN) == 5
                    thrown = [me.cards[0].card, me.cards[1].card]
                    await screen.expect(r"Your cards: [^\n]*5 ")
                    screen.send("d 1 2")
                    await screen.expect(r"You throw away [^\n]* and draw 2\.")
                    assert " ".join(card_label(c) for c in thrown) in screen.text
                else:
                    bets.append(line)
                    screen.send("c")
                before_showdown = screen.text
            # The declared limits: $1 before the draw, $3 in the last round (the bot checks).
            assert any("b bet $1.00" in line for line in bets), bets
            assert any("b bet $3.00" in line for line in bets), bets
            assert "Game: Five-card draw · dealer you" in screen.text
            assert "hand " in screen.text and "round 1" in screen.text
            assert re.search(r"bot shows .*: ", screen.text)
            assert re.search(
                r"Hand over\. (You (won|lost) \$\d+\.\d\d|You broke even)", screen.text
            )
            assert thrown and hand_id
            for card in bot_seen[hand_id]:  # drawn away too: never on screen before
                assert card_label(card) not in before_showdown
            for card in bot_hole[hand_id]:
                assert card_label(card) in screen.text

            # --- hand 2: the bot deals Seven Twenty-Seven; Ann declares ------------------
            await screen.expect(r"bot chooses Seven Twenty-Seven")
            sealed_seen = False
            while True:
                index = await screen.expect(TURN, r"Hand over\.[^\n]*\n")
                if index == 1:
                    break
                line = plain(screen.child.match.group(1))  # type: ignore[union-attr]
                if "dec " in line:
                    # The bot declares at once: its declaration is sealed until Ann's is in.
                    await screen.expect(r"bot declares \(sealed\)\.")
                    screen.send("s")
                    await screen.expect(r"Declared[^\n]*\n(?:[^\n]*\n)*?[^\n]* bot [^\n]*declared")
                    sealed_seen = True
                    screen.send("dec high")
                    # Named for the half it claims, as the exports name it: 7-27's 27.
                    await screen.expect(r"You declare 27 \(sealed until everyone has\)\.")
                    await screen.expect(r"Declarations: [^\n]*\.")
                elif "stand" in line and "take" in line:
                    screen.send("stand")
                else:
                    screen.send("c")
            assert sealed_seen
            await screen.expect(r"╰[^\n]*\n")  # the table drawn after the showdown
            revealed = re.search(
                r"Declarations: (?:bot (\w+), you 27|you 27, bot (\w+))\.", screen.text
            )
            assert revealed is not None
            said = revealed.group(1) or revealed.group(2)
            after = screen.text[screen.text.index("Declarations: ") :]
            assert said in rows(after, "bot")[-1]  # the redrawn table shows it, unsealed
            # Hers too, named as the sentence named it, also once the hand is over.
            assert "27" in rows(after, "ann")[-1] and "high" not in rows(after, "ann")[-1]
            assert "Game: Seven Twenty-Seven · dealer bot" in screen.text

            # Ann deals again: leave before the deal, then quit.
            await screen.expect(r"Your turn[^\n]*g GAME")
            screen.send("l")
            await screen.expect(r"Back in the lobby")
            await screen.expect("lobby> ")
            screen.send("q")
            await screen.expect(pexpect.EOF)
            assert await asyncio.to_thread(process.wait, 10) == 0
            assert "Traceback" not in screen.text
        finally:
            print(
                f"\n{screen.text}\n(dealer's choice play test: {time.monotonic() - started:.1f} s)"
            )
            if process.poll() is None:
                process.kill()
            child.close()
            stop.set()
            if bot is not None:
                await bot
