"""The ``riverboat play`` session: signing in, the lobby's commands, following a table
(``TableService.Watch``) and sending moves, with standard input read without blocking the event
loop (:class:`~riverboat.cli.play.reader.LineReader`) so updates print while the prompt waits."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import sys
import termios
import time
import uuid
from collections.abc import Awaitable
from typing import Any, TextIO, TypeVar

import grpc
from google.protobuf import json_format
from rich.console import Console, RenderableType
from rich.text import Text

from riverboat.cli.clientkit import (
    AMOUNT_RULE,
    AmountError,
    add_address_flags,
    error_sentence,
    money,
    parse_amount,
    token_info,
)
from riverboat.cli.play.checks import CheckNotes
from riverboat.cli.play.clock import TurnClock
from riverboat.cli.play.commands import ACTION_WORDS, ActionError, choose_move
from riverboat.cli.play.narrate import Narrator
from riverboat.cli.play.reader import LineReader
from riverboat.cli.play.render import (
    games_table,
    hands_table,
    help_table,
    lobby_table,
    table_panel,
)
from riverboat.cli.play.text import my_seat, owes_move
from riverboat.client import ClientSeeds, LobbyClient, TableClient
from riverboat.proofcheck import CardChecker
from riverboat.v1 import lobby_pb2, settlement_pb2, settlement_pb2_grpc, table_pb2

T = TypeVar("T")

CALL_TIMEOUT = 15.0  # seconds for one unary call: a person is waiting
PROMPT_LOBBY = "lobby> "


def request_id() -> str:
    """A fresh idempotency key for one JoinTable, LeaveTable or Act."""
    return f"play-{uuid.uuid4().hex[:24]}"


def register(groups: Any) -> None:
    """Add ``play``."""
    play = groups.add_parser(
        "play",
        help="sit down and play from this terminal",
        description=(
            "Log in (or register), pick a table, buy in and play. Commands are short: "
            "c call/check, b/r bet/raise, f fold, l leave, h help. Money: " + AMOUNT_RULE + "."
        ),
    )
    add_address_flags(play, table=True)
    play.add_argument("--user", help="your username (asked if missing)")
    play.add_argument(
        "--password",
        help="your password (asked if missing; $RIVERBOAT_PASSWORD also works)",
    )
    play.add_argument("--register", action="store_true", help="create the account first")
    play.add_argument(
        "--token",
        help="a bearer token instead of logging in ($RIVERBOAT_TOKEN, unless --user or "
        "--register is given)",
    )
    play.add_argument(
        "--save",
        metavar="FILE",
        help="append every table view received to FILE (JSON lines), for riverboat verify",
    )
    play.set_defaults(handler=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    """Run the client until the player quits."""
    console = Console(highlight=False)
    try:
        return asyncio.run(PlaySession(args, console).run())
    except KeyboardInterrupt:
        console.print("\nBye.")
        return 130


class PlaySession:
    """One person at the terminal: signed in to the lobby, at most one table at a time."""

    def __init__(self, args: argparse.Namespace, console: Console, stdin: TextIO | None = None):
        self.args = args
        self.console = console
        self.stdin = stdin or sys.stdin
        self.reader = LineReader(self.stdin)
        self.echoes = self.stdin.isatty()  # a terminal echoes what is typed; a pipe does not
        self.player = ""
        self.token = ""
        self.lobby: LobbyClient | None = None
        self.tables: TableClient | None = None
        self.settlement: settlement_pb2_grpc.SettlementServiceStub | None = None
        self.listed: list[lobby_pb2.LobbyTable] = []
        self.hands_listed: list[table_pb2.HandSummary] = []
        self.table_id = ""
        self.left_table = ""  # the table last followed: `hands` in the lobby lists its hands
        self.view: table_pb2.TableView | None = None
        self.narrator = Narrator("")
        self.recent: collections.deque[str] = collections.deque(maxlen=4)
        self.watcher: asyncio.Task[None] | None = None
        self.prompt = ""  # the prompt on screen now
        self.question: str | None = None  # a question asked instead of the command prompt
        self.waiting = False  # a line is being read
        self.prompt_shown = False
        self.was_my_turn = False
        self.quit_warned = False
        #: CRV1: this player's own check of every card it is shown (docs/shuffle.md II.5),
        #: one per stream, and the seeds its client sends (II.4), one per player and table for
        #: the whole session: a table watched again must still know the seeds sent to it.
        self.checker = CardChecker()
        self.check_notes = CheckNotes()
        self.seeds: ClientSeeds | None = None
        self.own_seeds: dict[tuple[str, str], ClientSeeds] = {}
        self.turn_clock = TurnClock()  # the seconds left to move, counted down on screen
        self.ticker: asyncio.Task[None] | None = None
        self.saved: TextIO | None = None
        self.seeding: set[asyncio.Task[None]] = set()

    # --- output ----------------------------------------------------------------------------

    def show(self, *items: RenderableType) -> None:
        """Print above the prompt, then put the prompt back."""
        if self.prompt_shown:
            # Start on a clean line: the prompt (and anything half typed) is redrawn after.
            self.console.file.write("\r\x1b[2K" if self.console.is_terminal else "\n")
            self.prompt_shown = False
        for item in items:
            self.console.print(item)
        self._show_prompt()

    def say(self, text: str, style: str = "") -> None:
        """One plain sentence."""
        self.show(Text(text, style=style))

    def fail(self, text: str) -> None:
        """A refusal or problem, as a sentence."""
        self.show(Text(text, style="bold red"))

    def _show_prompt(self) -> None:
        if self.waiting and not self.prompt_shown:
            self.prompt = self.question if self.question is not None else self._prompt_text()
            self.console.print(self.prompt, end="", markup=False, highlight=False)
            self.console.file.flush()
            self.prompt_shown = True

    def _prompt_text(self) -> str:
        """``lobby> ``, ``TABLE> ``, or ``TABLE YOUR TURN 23 s> `` when the table waits for us."""
        if not self.table_id:
            return PROMPT_LOBBY
        if self.my_turn():
            assert self.view is not None
            left = self.turn_clock.left(self.view.viewer_seat)
            # Two places for the seconds: rewritten in place, the prompt must keep its length.
            return f"{self.table_id} YOUR TURN{'' if left is None else f' {left:2d} s'}> "
        return f"{self.table_id}> "

    async def _tick(self) -> None:
        """Count the action clock down on the prompt, once a second while it is ours: the
        prompt is rewritten where it stands (the cursor saved and put back), so a command half
        typed after it stays as it is."""
        while True:
            await asyncio.sleep(1 - time.monotonic() % 1)
            self._refresh_prompt()

    def _refresh_prompt(self) -> None:
        """Draw the prompt again if what it says has changed: in place when it keeps its length
        on a terminal, else on a fresh line."""
        if not self.prompt_shown or self.question is not None or not self.reader.queue.empty():
            return  # (a line waiting to be read: Enter moved the cursor off the prompt's line)
        prompt = self._prompt_text()
        if prompt == self.prompt:
            return
        if len(prompt) != len(self.prompt) or not self.console.is_terminal:
            self.show()
            return
        self.prompt = prompt
        self.console.file.write(f"\x1b7\r{prompt}\x1b8")
        self.console.file.flush()

    async def ask(self, question: str | None = None, *, secret: bool = False) -> str | None:
        """Read a line after ``question`` (or the command prompt); no echo when ``secret``."""
        saved = None
        if secret and self.stdin.isatty():
            fd = self.stdin.fileno()
            saved = termios.tcgetattr(fd)
            quiet = list(saved)
            quiet[3] &= ~termios.ECHO
            # TCSADRAIN, not TCSAFLUSH: keep anything already typed ahead.
            termios.tcsetattr(fd, termios.TCSADRAIN, quiet)
        try:
            self.question, self.waiting, self.prompt_shown = question, True, False
            self._show_prompt()
            line = await self.reader.readline()
        finally:
            self.waiting = self.prompt_shown = False
            if saved is not None:
                termios.tcsetattr(self.stdin.fileno(), termios.TCSADRAIN, saved)
        if secret or not self.echoes:
            self.console.print()  # the Enter was not echoed: end the prompt's line
        return line

    # --- calls -----------------------------------------------------------------------------

    async def call(self, service: str, address: str, call: Awaitable[T]) -> T | None:
        """Await one RPC; on refusal print it as a sentence and return None."""
        try:
            return await asyncio.wait_for(call, CALL_TIMEOUT)
        except grpc.aio.AioRpcError as exc:
            self.fail(error_sentence(exc, service, address))
        except TimeoutError:
            self.fail(f"The {service} at {address} did not answer in time; try again.")
        return None

    def _lobby_call(self, call: Awaitable[T]) -> Awaitable[T | None]:
        return self.call("lobby", self.args.lobby, call)

    def _table_call(self, call: Awaitable[T]) -> Awaitable[T | None]:
        return self.call("table service", self.args.table, call)

    # --- the session -----------------------------------------------------------------------

    async def run(self) -> int:
        """Sign in, then read commands until ``q`` or the end of input."""
        self.reader.start()
        if getattr(self.args, "save", None):
            self.saved = open(self.args.save, "a", encoding="utf-8")  # noqa: SIM115 - closed below
        channels = [
            grpc.aio.insecure_channel(self.args.lobby),
            grpc.aio.insecure_channel(self.args.table),
            grpc.aio.insecure_channel(self.args.settlement),
        ]
        try:
            self.lobby = LobbyClient(channels[0])
            if not await self.sign_in():
                return 1
            self.tables = TableClient(channels[1], self.token, self.player)
            self.settlement = settlement_pb2_grpc.SettlementServiceStub(channels[2])  # type: ignore[no-untyped-call]
            self.say(f"Signed in as {self.player}. Type h for help.", "bold")
            if self.console.is_terminal:  # a pipe or a file gets no cursor codes
                self.ticker = asyncio.ensure_future(self._tick())
            await self.list_tables()
            seated = [t for t in self.listed if any(s.player == self.player for s in t.seats)]
            if seated:
                self.say(f"You sit at {seated[0].table_id}; back at the table.")
                await self.attach(seated[0].table_id)
            while True:
                line = await self.ask()
                if line is None:
                    self.console.print("Bye.")
                    return 0
                if not await self.handle(line.strip()):
                    return 0
        finally:
            if self.ticker is not None:
                self.ticker.cancel()
            if self.watcher is not None:
                self.watcher.cancel()
                with contextlib.suppress(BaseException):
                    await self.watcher
            self.reader.close()
            if self.tables is not None:
                await self.tables.close()  # the channels to owners it opened
            for channel in channels:
                await channel.close(None)
            if self.saved is not None:
                self.saved.close()

    async def sign_in(self) -> bool:
        """A token: given, or from logging in (registering first when asked or agreed)."""
        assert self.lobby is not None
        token = self.args.token or self._environment_token()
        if token:
            try:
                info = token_info(token)
            except ValueError as exc:
                self.fail(f"{exc}.")
                return False
            if info.expires < time.time():
                self.fail("That token has expired; log in again (unset RIVERBOAT_TOKEN).")
                return False
            self.token, self.player = token, info.subject
            self.lobby.token = token
            return True
        user = self.args.user
        password = self.args.password or os.environ.get("RIVERBOAT_PASSWORD")
        register = self.args.register
        typed = False  # the password came from the prompt: a new account's is asked twice
        while True:
            if not user:
                user = (await self.ask("username: ") or "").strip()
                if not user:
                    return False
            if not password:
                password = await self.ask("password: ", secret=True)
                if password is None:
                    return False
                typed = True
            if register and typed:
                typed = False  # asked once for each password typed
                if not await self._confirm(password):
                    password = None
                    continue
            if register:
                made = await self._lobby_call(self.lobby.register(user, password))
                if made is None:
                    user = password = None
                    register = False
                    continue
                self.say(f"Welcome, {user}: your account is ready.", "bold green")
            try:
                reply = await asyncio.wait_for(self.lobby.login(user, password), CALL_TIMEOUT)
            except grpc.aio.AioRpcError as exc:
                self.fail(error_sentence(exc, "lobby", self.args.lobby))
                if exc.code() != grpc.StatusCode.UNAUTHENTICATED:
                    return False
                answer = await self.ask(f"Register a new account as {user}? [y/N] ")
                if answer is None:
                    return False
                if answer.strip().lower() in ("y", "yes"):
                    register = True
                else:
                    user = password = None
                continue
            except TimeoutError:
                self.fail(f"The lobby at {self.args.lobby} did not answer in time.")
                return False
            self.token, self.player = reply.token, reply.player_id
            if reply.role != "player":
                self.say(
                    f"{user} is {article(reply.role)} {reply.role} account: you can watch "
                    "tables but not sit down (operators use `riverboat admin`)."
                )
            return True

    def _environment_token(self) -> str:
        """``$RIVERBOAT_TOKEN``, unless ``--user`` or ``--register`` asks for a login of its own:
        a flag typed on this command line wins over what the shell carries (an operator's
        ``eval "$(riverboat admin login ...)"`` must not turn ``--register --user bob`` into
        the operator); the player is told the variable was not used."""
        token = os.environ.get("RIVERBOAT_TOKEN", "")
        if not token or not (self.args.user or self.args.register):
            return token
        try:
            holder = f" (it signs in {token_info(token).subject})"
        except ValueError:
            holder = ""
        flag = f"--user {self.args.user}" if self.args.user else "--register"
        self.say(f"$RIVERBOAT_TOKEN{holder} is not used: {flag} logs in instead.")
        return ""

    async def _confirm(self, password: str) -> bool:
        """A new account's password typed again; False (and why) when the two differ."""
        again = await self.ask("password again: ", secret=True)
        if again == password:
            return True
        self.fail("The passwords differ; type it again.")
        return False

    async def handle(self, line: str) -> bool:
        """Run one command; False to quit."""
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        if word in ("q", "quit", "exit"):
            return self.quit()
        self.quit_warned = False
        if word in ("", "s", "show"):
            if self.view is not None:
                halves = self.narrator.halves()
                clock = self.turn_clock
                self.show(table_panel(self.view, list(self.recent), self.player, halves, clock))
            elif not word:
                self._show_prompt()
            else:
                self.say("You are not at a table; t lists them.")
        elif word in ("h", "help", "?"):
            self.show(help_table())
        elif word in ("t", "tables"):
            await self.list_tables()
        elif word in ("j", "join"):
            await self.join(rest)
        elif word in ("w", "watch"):
            await self.watch(rest)
        elif word == "wait":
            await self.wait(rest)
        elif word == "unwait":
            await self.unwait(rest)
        elif word in ("l", "leave"):
            await self.leave()
        elif word in ("so", "sitout", "sit-out", "out"):
            await self.sit(out=True)
        elif word in ("si", "sitin", "sit-in", "back"):
            await self.sit(out=False)
        elif word in ("bal", "balance", "wallet"):
            await self.balance()
        elif word in ("hands", "history"):
            await self.last_hands(rest)
        elif word == "hand":
            await self.one_hand(rest)
        elif word in ACTION_WORDS:
            await self.act(word, rest)
        else:
            self.fail(f"Unknown command {word!r}; h lists the commands.")
        return True

    def quit(self) -> bool:
        if self.seated() and not self.quit_warned:
            self.quit_warned = True
            self.say(
                f"You still sit at {self.table_id}: your chips stay there and the clock checks "
                "or folds for you. l leaves the table first; q again quits anyway."
            )
            return True
        self.console.print("Bye.")
        return False

    # --- the lobby -------------------------------------------------------------------------

    async def list_tables(self) -> None:
        """Every table, numbered."""
        assert self.lobby is not None
        tables: list[lobby_pb2.LobbyTable] = []
        page_token = ""
        for _ in range(20):  # at most 2,000 tables: enough for a terminal
            reply = await self._lobby_call(self.lobby.list_tables(100, page_token))
            if reply is None:
                return
            tables.extend(reply.tables)
            page_token = reply.next_page_token
            if not page_token:
                break
        self.listed = tables
        self._learn_owners(tables)
        if not tables:
            self.say("No tables yet: an operator opens them with `riverboat admin create-table`.")
            return
        self.show(
            lobby_table(tables, self.player),
            Text("j TABLE BUY-IN sits down (for example: j 1 40), w TABLE watches.", style="dim"),
        )

    def _learn_owners(self, tables: list[lobby_pb2.LobbyTable]) -> None:
        """Send each table's calls to its owner, as the lobby names it (a table-service
        instance that does not own a table redirects anyway: this saves the round trip)."""
        if self.tables is not None:
            for table in tables:
                self.tables.set_owner(table.table_id, table.owner_address)

    def _table_ref(self, text: str) -> str | None:
        """A table id from its number in the last list or its id."""
        if not text:
            self.fail("Which table? Give its number in the list (t) or its id.")
            return None
        if text.isdigit() and 1 <= int(text) <= len(self.listed):
            return self.listed[int(text) - 1].table_id
        return text

    async def join(self, rest: str) -> None:
        """``j TABLE [BUY-IN]``: buy in (the table's minimum by default) and sit down."""
        assert self.lobby is not None and self.tables is not None
        ref, _, amount_text = rest.partition(" ")
        table_id = self._table_ref(ref)
        if table_id is None:
            return
        table = await self._lobby_call(self.lobby.get_table(table_id))
        if table is None:
            return
        self._learn_owners([table])
        if any(s.player == self.player for s in table.seats):
            self.say(f"You already sit at {table_id}; back at the table.")
            await self.attach(table_id)
            return
        try:
            buy_in = parse_amount(amount_text) if amount_text.strip() else table.min_buy_in
        except AmountError as exc:
            self.fail(f"{exc}.")
            return
        if not table.min_buy_in <= buy_in <= table.max_buy_in:
            self.fail(
                f"Buy in for {money(table.min_buy_in)} to {money(table.max_buy_in)} at {table_id}."
            )
            return
        reply = await self._lobby_call(self.lobby.join(table_id, buy_in, request_id=request_id()))
        if reply is None:
            return
        self.tables.set_owner(table_id, reply.owner_address or table.owner_address)
        self.say(
            f"You sit in seat {reply.seat} at {table.name} with {money(reply.stack)}; "
            f"{money(reply.balance)} left in your wallet.",
            "bold green",
        )
        await self.attach(table_id)

    async def watch(self, rest: str) -> None:
        """``w TABLE``: follow a table without sitting down."""
        table_id = self._table_ref(rest.strip())
        if table_id is not None:
            await self.attach(table_id)

    async def wait(self, rest: str) -> None:
        """``wait TABLE``: join a full table's waiting list."""
        assert self.lobby is not None
        table_id = self._table_ref(rest.strip())
        if table_id is None:
            return
        reply = await self._lobby_call(self.lobby.join_waiting_list(table_id))
        if reply is not None:
            self.say(
                f"You are number {reply.position} on the waiting list of {table_id}. When a "
                f"seat is offered to you (t shows it, with its deadline), j {rest.strip()} "
                "takes it."
            )

    async def unwait(self, rest: str) -> None:
        """``unwait TABLE``: leave a waiting list."""
        assert self.lobby is not None
        table_id = self._table_ref(rest.strip())
        if table_id is None:
            return
        if await self._lobby_call(self.lobby.leave_waiting_list(table_id)) is not None:
            self.say(f"You are off the waiting list of {table_id}.")

    async def leave(self) -> None:
        """Stand up: now, or when the hand you are in ends; the chips go to the wallet."""
        assert self.lobby is not None
        view = self.view
        if not self.table_id:
            self.say("You are not at a table.")
            return
        if view is None or not self.seated():
            self.detach()
            self.say("Stopped watching; back in the lobby.")
            return
        reply = await self._lobby_call(self.lobby.leave(self.table_id, request_id=request_id()))
        # Nothing to print: the watch narrates LeaveRequested ("You will leave when this hand
        # ends") or PlayerLeft ("You stood up with $40.90").
        del reply

    async def sit(self, *, out: bool) -> None:
        """``so`` / ``si``: sit out from the next hand, or be dealt in again."""
        assert self.tables is not None
        view = self.view
        if not self.table_id or view is None or not self.seated():
            self.say("You do not sit at a table.")
            return
        mine = next((s for s in view.seats if s.player == self.player), None)
        if mine is not None and mine.sitting_out == out:
            self.say("You sit out already." if out else "You are dealt in already.")
            return
        call = (
            self.tables.sit_out(self.table_id, request_id=request_id())
            if out
            else self.tables.sit_in(self.table_id, request_id=request_id())
        )
        # Nothing to print on success: the watch narrates PlayerSatOut / PlayerSatIn.
        await self._table_call(call)

    async def balance(self) -> None:
        """The wallet, from the settlement service."""
        assert self.settlement is not None
        reply = await self.call(
            "settlement service",
            self.args.settlement,
            self.settlement.GetBalance(
                settlement_pb2.GetBalanceRequest(player=self.player),
                metadata=(("authorization", f"Bearer {self.token}"),),
            ),
        )
        if reply is not None:
            self.say(
                f"Wallet {money(reply.balance)}, at tables {money(reply.at_tables)}"
                + (f", being seated {money(reply.reserved)}" if reply.reserved else "")
                + "."
            )

    # --- hand histories --------------------------------------------------------------------

    def _history_table(self, command: str) -> str | None:
        """The table ``hands``/``hand`` read: the one followed, else (in the lobby) the one
        last left; None, and why, when there is neither."""
        if self.table_id:
            return self.table_id
        if self.left_table:
            return self.left_table
        self.say(f"Join or watch a table first (j or w); {command} there.")
        return None

    async def last_hands(self, rest: str) -> None:
        """``hands [N]``: the last N (default 5) hands you played at this table (in the lobby:
        the table you left), newest first, by their numbers (``hand 12`` shows #12)."""
        assert self.tables is not None
        table_id = self._history_table("hands lists your hands")
        if table_id is None:
            return
        count = 5
        if rest:
            if not rest.isdigit() or not 1 <= int(rest) <= 100:
                self.fail("hands N: N is 1 to 100.")
                return
            count = int(rest)
        reply = await self._table_call(self.tables.list_hands(table_id, count))
        if reply is None:
            return
        self.hands_listed = list(reply.hands)
        if not self.hands_listed:
            self.say(f"No hands of yours at {table_id} are over yet.")
            return
        where = "" if table_id == self.table_id else f" at {table_id}, the table you left"
        newest = self.hands_listed[0].hand_number or self.hands_listed[0].hand_id
        self.show(
            hands_table(self.hands_listed, self.player),
            Text(
                f"hand N shows one of them{where}: N from the # column (hand {newest} "
                "shows the newest).",
                style="dim",
            ),
        )

    async def one_hand(self, rest: str) -> None:
        """``hand N|ID``: one hand as you saw it (the hand history's text); N its number."""
        assert self.tables is not None
        table_id = self._history_table("hand N shows one of your hands")
        if table_id is None:
            return
        if not rest:
            self.fail("Which hand? Give its number (hands lists them) or its id.")
            return
        # The table service takes the hand's number ("12", "#12" on screen) or its id.
        reply = await self._table_call(self.tables.hand_history(table_id, rest.lstrip("#")))
        if reply is not None:
            self.console.print(Text(reply.text.rstrip()))

    # --- at a table ------------------------------------------------------------------------

    def seated(self) -> bool:
        """Whether this player sits at the table followed (by name: a view's viewer_seat still
        names the seat of the hand just left until the next hand)."""
        v = self.view
        return v is not None and any(s.player == self.player for s in v.seats)

    def my_turn(self) -> bool:
        """Whether the latest view waits for this player."""
        v = self.view
        return v is not None and self.seated() and owes_move(v)

    async def attach(self, table_id: str) -> None:
        """Follow ``table_id``: its updates print as they come."""
        assert self.tables is not None
        view = await self._table_call(self.tables.view(table_id))
        if view is None:
            return
        self.detach()
        self.table_id = table_id
        self.view = view
        seeds = self.own_seeds.get((self.player, table_id))
        if seeds is None:
            seeds = self.own_seeds[(self.player, table_id)] = ClientSeeds(self.tables, table_id)
        seeds.client = self.tables
        self.seeds = seeds
        self.checker = seeds.fresh_checker()
        self.check_notes = CheckNotes()
        self.turn_clock.see(view)
        first = table_pb2.WatchResponse(version=view.version, view=view)
        proofs = self._proof_lines(first)
        self.narrator = Narrator(self.player)
        self.recent.clear()
        self.was_my_turn = False
        self.watcher = asyncio.ensure_future(self._watch(table_id, view.version))
        self.show(self._panel(view), *proofs)
        self.was_my_turn = self.my_turn()

    def _panel(self, view: table_pb2.TableView) -> RenderableType:
        return table_panel(
            view, player=self.player, halves=self.narrator.halves(), clock=self.turn_clock
        )

    def detach(self) -> None:
        """Stop following the table."""
        if self.watcher is not None and self.watcher is not asyncio.current_task():
            self.watcher.cancel()
        self.watcher = None
        self.left_table = self.table_id or self.left_table
        self.table_id = ""
        self.view = None

    async def _watch(self, table_id: str, after: int) -> None:
        assert self.tables is not None
        failures = 0
        while True:
            try:
                async for update in self.tables.watch(table_id, after):
                    if failures:
                        self.say("Reconnected to the table service.", "bold")
                    failures = 0
                    after = update.version
                    if not self._on_update(update):
                        return
            except grpc.aio.AioRpcError as exc:
                if exc.code() in (
                    grpc.StatusCode.NOT_FOUND,
                    grpc.StatusCode.PERMISSION_DENIED,
                    grpc.StatusCode.UNAUTHENTICATED,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    self.fail(error_sentence(exc, "table service", self.args.table))
                    self.detach()
                    return
                failures += 1
                if failures == 1:
                    stays = " (your seat and chips stay at the table)" if self.seated() else ""
                    lost = self.tables.owner(table_id) or self.args.table
                    self.fail(f"Lost the table service at {lost}; reconnecting{stays}...")
                await self._relearn_owner(table_id)
            # The stream ended (a restart, a network blip): resume after the last version seen.
            await asyncio.sleep(min(5.0, 0.25 * 2**failures))

    async def _relearn_owner(self, table_id: str) -> None:
        """Ask the lobby which instance owns the table now: the one we called may be gone
        (stopped or dead) with its tables moved to another, and a dead instance redirects
        nobody. Left as it is when the lobby does not answer."""
        if self.lobby is None or self.tables is None:
            return
        try:
            table = await self.lobby.get_table(table_id)
        except grpc.aio.AioRpcError:
            return
        if table.owner_address:
            self.tables.set_owner(table_id, table.owner_address)

    def _proof_lines(self, update: table_pb2.WatchResponse) -> list[RenderableType]:
        """Check every new card proof and the hand's seeds (CRV1), and send this client's
        seed commitment or seed when one is due: the lines to show."""
        if self.saved is not None:
            self.saved.write(json_format.MessageToJson(update, indent=None) + "\n")
            self.saved.flush()
        checks = self.checker.update(update)
        seeds = self.seeds
        if update.HasField("view") and seeds is not None and self.seated():
            due = seeds.claim(update.view)
            if due is not None:
                task = asyncio.ensure_future(self._send_seed(seeds, *due))
                self.seeding.add(task)
                task.add_done_callback(self.seeding.discard)
        return self.check_notes.lines(checks)

    async def _send_seed(self, seeds: ClientSeeds, action: str, hand_id: str, seat: int) -> None:
        """Send one seed Act; show what its answer settles (a seed drawn, a failure)."""
        lines = self.check_notes.lines(await seeds.send(action, hand_id, seat))
        if lines and seeds is self.seeds and self.table_id == seeds.table_id:
            self.show(*lines)

    def _on_update(self, update: table_pb2.WatchResponse) -> bool:
        """Print one update; False once the player has left the table."""
        proofs = self._proof_lines(update)
        view = update.view if update.HasField("view") else self.view
        digest = self.narrator.feed(update.events, view)
        if digest.new_hand:
            self.recent.clear()
        self.recent.extend(digest.actions)
        self.view = view
        if view is not None:
            self.turn_clock.see(view)
        items: list[RenderableType] = [*digest.lines, *proofs]
        if digest.left_with is not None:
            table_id = self.table_id
            self.detach()
            self.show(*items, Text(f"Back in the lobby (you left {table_id}); t lists tables."))
            return False
        if view is None:
            self.show(*items)
            return True
        me = my_seat(view)
        playing = me is not None and me.in_hand and not me.folded
        turn = self.my_turn()
        redraw = (
            (turn and (not self.was_my_turn or bool(digest.actions) or digest.new_street))
            or (digest.new_street and playing and not turn)
            or digest.showdown
            or (digest.new_hand and me is None)
        )
        self.was_my_turn = turn
        if redraw:
            items.append(self._panel(view))
        if digest.hand_ended and me is not None and me.stack == 0 and not view.hand_in_progress:
            items.append(Text("You are out of chips: l leaves the table.", style="bold"))
        if items:
            self.show(*items)
        else:
            self._refresh_prompt()
        return True

    async def act(self, word: str, rest: str) -> None:
        """Send the move a command stands for, if it is legal now."""
        assert self.tables is not None
        view = self.view
        if view is None:
            self.say("You are not at a table: t lists them, j TABLE BUY-IN sits down.")
            return
        choosing = any(a.action == "choose_game" for a in view.legal_actions)
        asks = not rest or rest.endswith("?")  # g: the games; g GAME ?: its options
        if word in ("g", "game") and asks and choosing and my_seat(view) is not None:
            try:  # the list to choose from, not a refusal
                self.show(games_table(view, rest.rstrip("?").strip()))
            except ActionError as exc:
                self.fail(str(exc))
            return
        try:
            move = choose_move(word, rest, view)
        except ActionError as exc:
            self.fail(str(exc))
            return
        reply = await self._table_call(
            self.tables.act(
                self.table_id,
                view.hand_id,
                view.viewer_seat,
                move.action,
                move.amount,
                request_id=request_id(),
                cards=move.cards,
                choice=move.choice,
                options=move.options,
                small_bet=move.small_bet,
                big_bet=move.big_bet,
            )
        )
        # The reply's view is at least as new as the last update: the prompt must not go on
        # saying "YOUR TURN" until the watch catches up.
        current = self.view
        if reply is not None and current is not None and reply.view.version > current.version:
            self.view = reply.view
            self.turn_clock.see(reply.view)
            self.was_my_turn = self.my_turn()


def article(word: str) -> str:
    """``"an"`` before a vowel, else ``"a"``: "an operator", "a service"."""
    return "an" if word[:1].lower() in tuple("aeiou") else "a"
