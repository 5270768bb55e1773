"""``riverboat admin``: the operator's commands over the room's public gRPC API.

Tables through the lobby (``tables``, ``create-table``); money through the settlement service
(``deposit``, ``withdraw``, ``balance``, ``ledger``, ``rake-report``). Each command needs an
operator's (or, for the read-only ones, an auditor's) token: ``--token``, a login with
``--user`` (the password asked when missing), ``$RIVERBOAT_TOKEN``, the file ``riverboat admin
login --save`` wrote for this lobby (``var/admin@LOBBY.token``), else a login asked for. ``login``
prints an ``export RIVERBOAT_TOKEN=...`` line and writes nothing to disk unless ``--save`` is
given.

Amounts are dollars (``50``, ``12.50``) or cents with a trailing ``c`` (``1250c``).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import re
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import grpc
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from riverboat.cli.clientkit import (
    AMOUNT_RULE,
    TOKEN_FILE_PATTERN,
    AmountError,
    add_address_flags,
    error_sentence,
    money,
    parse_amount,
    token_info,
)
from riverboat.cli.play.render import table_status
from riverboat.cli.play.text import SHORT_VARIANTS, variant_name
from riverboat.client import LobbyClient, TableClient
from riverboat.table.events import DEFAULT_TIME_BANK, TimeBankPolicy
from riverboat.v1 import events_pb2, lobby_pb2, settlement_pb2, settlement_pb2_grpc

T = TypeVar("T")

#: The limits' names on the command line and in the API (settlement's LimitKind).
LIMIT_KINDS = {
    "deposit-day": settlement_pb2.LIMIT_KIND_DEPOSIT_DAY,
    "deposit-week": settlement_pb2.LIMIT_KIND_DEPOSIT_WEEK,
    "buy-in-day": settlement_pb2.LIMIT_KIND_BUY_IN_DAY,
    "buy-in-week": settlement_pb2.LIMIT_KIND_BUY_IN_WEEK,
}
_LIMIT_NAMES = {number: name for name, number in LIMIT_KINDS.items()}
CALL_TIMEOUT = 20.0
PIPED_WIDTH = 200
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SLUG = re.compile(r"[^A-Za-z0-9]+")


def token_file(args: argparse.Namespace) -> Path:
    """The file a token for this lobby is saved to and read from: ``--token-file``, else
    ``var/admin@LOBBY.token``."""
    given: Path | None = getattr(args, "token_file", None)
    return given if given is not None else Path(TOKEN_FILE_PATTERN.format(lobby=args.lobby))


class Refused(Exception):
    """A command that cannot go on; the message is the sentence to print."""


def register(groups: Any) -> None:
    """Add ``admin`` and its subcommands."""
    common = argparse.ArgumentParser(add_help=False)
    add_address_flags(common)
    who = common.add_argument_group(
        "credentials (first found: --token, --user, $RIVERBOAT_TOKEN, the file)"
    )
    who.add_argument("--token", help="an operator's bearer token")
    who.add_argument(
        "--token-file",
        type=Path,
        help=f"a token saved by `login --save` (default {TOKEN_FILE_PATTERN}, LOBBY the --lobby "
        "address)",
    )
    who.add_argument(
        "--user", help="log in as this operator (before $RIVERBOAT_TOKEN; asked if none is found)"
    )
    who.add_argument("--password", help="the password (asked if missing)")

    admin = groups.add_parser(
        "admin",
        help="operator commands: tables, deposits, withdrawals, balances, rake",
        description=f"The operator's commands over the gRPC API. Money: {AMOUNT_RULE}.",
    )
    sub = admin.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")

    login = sub.add_parser("login", parents=[common], help="log in; print an export line")
    login.add_argument(
        "--save",
        nargs="?",
        const="",
        metavar="PATH",
        help=f"also write the token to a file, mode 0600 (default {TOKEN_FILE_PATTERN}, the "
        "file the other commands to that lobby read)",
    )
    login.set_defaults(handler=_run(cmd_login))

    tables = sub.add_parser("tables", parents=[common], help="list the tables")
    tables.set_defaults(handler=_run(cmd_tables))

    create = sub.add_parser("create-table", parents=[common], help="open a table")
    create.add_argument("--template", choices=("pacific", "dealers_choice"), default="pacific")
    create.add_argument("--name", required=True, help="the name players see")
    create.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a table option (docs/engine.md); money options in cents, "
        "e.g. --set small_bet=500",
    )
    create.add_argument("--action-seconds", type=int, default=0, help="seconds per decision (30)")
    bank = create.add_argument_group(
        "time bank (any of them: the others keep the template's, "
        f"{_policy_text(DEFAULT_TIME_BANK)})"
    )
    bank.add_argument(
        "--time-bank", type=int, metavar="SECONDS", help="each player's reserve (0: no time bank)"
    )
    bank.add_argument(
        "--time-bank-topup",
        metavar="SECONDS/HANDS",
        help="seconds added every so many hands, e.g. 10/10 (0: never)",
    )
    bank.add_argument(
        "--protect-hands",
        type=int,
        metavar="N",
        help="a player whose connection dropped gets the time bank once per N hands (0: never)",
    )
    declare = create.add_argument_group(
        "dealer's choice: the limits a dealer may declare for one deal (default: only the "
        "table's own)"
    )
    declare.add_argument("--declare-small", metavar="MIN-MAX", help="small bet, e.g. 1-5")
    declare.add_argument("--declare-big", metavar="MIN-MAX", help="big bet, e.g. 2-10")
    create.add_argument(
        "--id",
        dest="request_id",
        help="request id (the table id is TEMPLATE-ID); default: from the name, so running "
        "the same command twice opens one table",
    )
    create.set_defaults(handler=_run(cmd_create_table))

    for name, what in (("deposit", "credit"), ("withdraw", "pay out from")):
        move = sub.add_parser(name, parents=[common], help=f"{what} a player's wallet")
        move.add_argument("player")
        move.add_argument("amount", help=AMOUNT_RULE)
        move.add_argument(
            "--ref",
            required=True,
            help="the cashier's reference (payment id): repeating it does nothing twice",
        )
        move.set_defaults(handler=_run(cmd_deposit if name == "deposit" else cmd_withdraw))

    balance = sub.add_parser("balance", parents=[common], help="a player's wallet")
    balance.add_argument("player")
    balance.set_defaults(handler=_run(cmd_balance))

    rake = sub.add_parser("rake-report", parents=[common], help="rake by table, game and day")
    rake.add_argument("--from", dest="from_day", help="first day, YYYY-MM-DD UTC (today)")
    rake.add_argument("--to", dest="to_day", help="last day, inclusive (the --from day)")
    rake.add_argument("--table", dest="table_id", default="", help="one table only")
    rake.set_defaults(handler=_run(cmd_rake_report))

    waiting = sub.add_parser("waiting", parents=[common], help="a table's waiting list")
    waiting.add_argument("table_id")
    waiting.set_defaults(handler=_run(cmd_waiting))

    players = sub.add_parser("players", parents=[common], help="player accounts and wallets")
    players.set_defaults(handler=_run(cmd_players))

    lock = sub.add_parser("lock", parents=[common], help="lock an account (no login, no buy-in)")
    lock.add_argument("username")
    lock.add_argument("--reason", default="", help="why (kept in the lobby's log)")
    lock.set_defaults(handler=_run(cmd_lock))

    unlock = sub.add_parser("unlock", parents=[common], help="unlock an account")
    unlock.add_argument("username")
    unlock.set_defaults(handler=_run(cmd_unlock))

    reset = sub.add_parser("reset-password", parents=[common], help="give an account a password")
    reset.add_argument("username")
    reset.add_argument("--new-password", help="the new password (asked if missing, not echoed)")
    reset.set_defaults(handler=_run(cmd_reset_password))

    limits = sub.add_parser("limits", parents=[common], help="a player's responsible-gaming limits")
    limits.add_argument("player")
    limits.set_defaults(handler=_run(cmd_limits))

    set_limit = sub.add_parser("set-limit", parents=[common], help="set a deposit or buy-in limit")
    set_limit.add_argument("player")
    set_limit.add_argument("kind", choices=tuple(LIMIT_KINDS))
    set_limit.add_argument("amount", help=f"{AMOUNT_RULE}; 'none' removes the limit")
    set_limit.set_defaults(handler=_run(cmd_set_limit))

    exclude = sub.add_parser("self-exclude", parents=[common], help="exclude a player for days")
    exclude.add_argument("player")
    exclude.add_argument("--days", type=int, required=True, help="1-3650 days from now")
    exclude.set_defaults(handler=_run(cmd_self_exclude))

    close = sub.add_parser(
        "close-table", parents=[common], help="close a table after the hand in play, for good"
    )
    close.add_argument("table_id")
    close.add_argument("--reason", default="", help="why (kept in the table's log)")
    close.add_argument("--id", dest="request_id", help="request id (default: a fresh one)")
    close.set_defaults(handler=_run(cmd_close_table))

    pause = sub.add_parser("pause", parents=[common], help="stop dealing after the hand in play")
    pause.add_argument("table_id")
    pause.add_argument("--reason", default="", help="why (kept in the table's log)")
    pause.add_argument("--id", dest="request_id", help="request id (default: a fresh one)")
    pause.set_defaults(handler=_run(cmd_pause))

    resume = sub.add_parser("resume", parents=[common], help="deal again at a paused table")
    resume.add_argument("table_id")
    resume.add_argument("--id", dest="request_id", help="request id (default: a fresh one)")
    resume.set_defaults(handler=_run(cmd_resume))

    move = sub.add_parser(
        "move-player", parents=[common], help="move a player and their chips to another table"
    )
    move.add_argument("player")
    move.add_argument("from_table")
    move.add_argument("to_table")
    move.add_argument("--seat", type=int, default=0, help="the seat there (the first free one)")
    move.add_argument(
        "--id", dest="request_id", help="request id (default: a fresh one; repeat one to retry)"
    )
    move.set_defaults(handler=_run(cmd_move_player))

    ledger = sub.add_parser("ledger", parents=[common], help="postings of one ledger account")
    ledger.add_argument("account", help='e.g. "wallet:ann", "rake", "cashier", "table:T:ann"')
    ledger.add_argument("--limit", type=int, default=50, help="at most this many (50)")
    ledger.set_defaults(handler=_run(cmd_ledger))


# --- plumbing --------------------------------------------------------------------------------


class Admin:
    """Channels, stubs and the token of one command."""

    def __init__(self, args: argparse.Namespace, console: Console) -> None:
        self.args = args
        self.console = console
        self.lobby_channel = grpc.aio.insecure_channel(args.lobby)
        self.settlement_channel = grpc.aio.insecure_channel(args.settlement)
        self.lobby = LobbyClient(self.lobby_channel)
        self.settlement = settlement_pb2_grpc.SettlementServiceStub(self.settlement_channel)  # type: ignore[no-untyped-call]
        self.token = ""
        self.table_channel: grpc.aio.Channel | None = None
        self.table_address = ""

    async def close(self) -> None:
        """Close the channels."""
        await self.lobby_channel.close(None)
        await self.settlement_channel.close(None)
        if self.table_channel is not None:
            await self.table_channel.close(None)

    async def table(self, table_id: str) -> tuple[lobby_pb2.LobbyTable, TableClient]:
        """The table as the lobby lists it, and a client of the table service that owns it
        (the lobby gives its address; a redirect is followed)."""
        listed = await self.lobby_call(self.lobby.get_table(table_id))
        if not listed.owner_address:
            raise Refused(f"No table service owns {table_id} now; try again shortly.")
        self.table_address = listed.owner_address
        self.table_channel = grpc.aio.insecure_channel(listed.owner_address)
        return listed, TableClient(self.table_channel, self.token, "admin")

    def table_call(self, call: Awaitable[T]) -> Awaitable[T]:
        """A table-service RPC."""
        return self.call("table service", self.table_address, call)

    def say(self, text: str) -> None:
        """One sentence on standard output, never wrapped (scripts read it)."""
        self.console.print(text, markup=False, soft_wrap=True)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The bearer token for the settlement service."""
        return (("authorization", f"Bearer {self.token}"),)

    async def call(self, service: str, address: str, call: Awaitable[T]) -> T:
        """Await one RPC; a refusal becomes :class:`Refused` with a sentence."""
        try:
            return await asyncio.wait_for(call, CALL_TIMEOUT)
        except grpc.aio.AioRpcError as exc:
            raise Refused(error_sentence(exc, service, address)) from None
        except TimeoutError:
            raise Refused(f"The {service} at {address} did not answer in time.") from None

    def lobby_call(self, call: Awaitable[T]) -> Awaitable[T]:
        """A lobby RPC."""
        return self.call("lobby", self.args.lobby, call)

    def settlement_call(self, call: Awaitable[T]) -> Awaitable[T]:
        """A settlement RPC."""
        return self.call("settlement service", self.args.settlement, call)

    async def login(self) -> lobby_pb2.LoginResponse:
        """Log in with --user/--password, asking for what is missing."""
        user = self.args.user or _ask("operator username: ")
        password = (
            self.args.password
            or os.environ.get("RIVERBOAT_PASSWORD")
            or getpass.getpass("password: ")
        )
        reply = await self.lobby_call(self.lobby.login(user, password))
        self.token = reply.token
        self.lobby.token = reply.token
        return reply

    async def authenticate(self) -> None:
        """A token from ``--token``, a login with ``--user``, the environment, the lobby's saved
        file, or a login asked for. A flag typed on this command line wins over what the shell
        carries (``$RIVERBOAT_TOKEN`` from an earlier ``eval "$(riverboat admin login)"``)."""
        token = self.args.token
        if not token and self.args.user:
            if os.environ.get("RIVERBOAT_TOKEN"):
                _note(f"--user {self.args.user} logs in; $RIVERBOAT_TOKEN is not used.")
            await self.login()
            return
        token = token or os.environ.get("RIVERBOAT_TOKEN", "")
        saved = token_file(self.args)
        if not token and saved.is_file():
            token = saved.read_text().strip()
        if not token:
            await self.login()
            return
        try:
            info = token_info(token)
        except ValueError as exc:
            raise Refused(f"{exc}.") from None
        if info.expires < datetime.now(UTC).timestamp():
            raise Refused("The token has expired; run `riverboat admin login` again.")
        self.token = token
        self.lobby.token = token


def _note(text: str) -> None:
    """A note on standard error (standard output stays the command's answer)."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(text, markup=False)


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip()
    except EOFError:
        raise Refused("No username given (use --user).") from None


Command = Callable[[Admin], Awaitable[int]]


def _run(command: Command) -> Callable[[argparse.Namespace], int]:
    """An argparse handler running ``command`` with an authenticated :class:`Admin`."""

    def handler(args: argparse.Namespace) -> int:
        # Piped into a file or a script, tables keep their full width instead of 80 columns.
        piped = not sys.stdout.isatty() and "COLUMNS" not in os.environ
        console = Console(highlight=False, width=PIPED_WIDTH if piped else None)

        async def main() -> int:
            admin = Admin(args, console)
            try:
                if command is not cmd_login:
                    await admin.authenticate()
                return await command(admin)
            finally:
                await admin.close()

        try:
            return asyncio.run(main())
        except Refused as exc:
            Console(stderr=True, highlight=False, soft_wrap=True).print(
                f"riverboat admin: {exc}", markup=False
            )
            return 1

    return handler


def _amount(text: str) -> int:
    try:
        amount = parse_amount(text)
    except AmountError as exc:
        raise Refused(f"{exc}.") from None
    if amount <= 0:
        raise Refused("The amount must be more than $0.00.")
    return amount


def parse_override(text: str) -> tuple[str, Any]:
    """``"small_bet=500"`` -> ``("small_bet", 500)``: integers, decimals, true/false, else text.

    >>> parse_override("small_bet=500"), parse_override("uncap_heads_up=false")
    (('small_bet', 500), ('uncap_heads_up', False))
    """
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise Refused(f"--set wants KEY=VALUE, not {text!r}.")
    value = value.strip()
    lowered = value.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    for kind in (int, float):
        try:
            return key, kind(value)
        except ValueError:
            pass
    return key, value


def default_request_id(name: str) -> str:
    """A request id from a table's name: ``"Pacific $5/$10"`` -> ``"pacific-5-10"``."""
    slug = _SLUG.sub("-", name.lower()).strip("-")[:48]
    return slug or "table"


def _when(text: str) -> str:
    """An ISO time as ``2026-11-30 07:00:57`` (UTC), or as given if it is not one."""
    try:
        return datetime.fromisoformat(text).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return text


def _day(text: str | None, fallback: str) -> str:
    if not text:
        return fallback
    if not _DAY.fullmatch(text):
        raise Refused(f"{text!r} is not a day; write YYYY-MM-DD.")
    return text


# --- commands --------------------------------------------------------------------------------


async def cmd_login(admin: Admin) -> int:
    """Print an ``export RIVERBOAT_TOKEN=...`` line (and save the token with --save)."""
    reply = await admin.login()
    expires = reply.expires_at.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M UTC")
    note = Console(stderr=True, highlight=False, soft_wrap=True)
    note.print(f"Logged in as {reply.player_id} ({reply.role}) until {expires}.", markup=False)
    if reply.role not in ("operator", "auditor"):
        note.print("Note: this is not an operator account; admin commands will be refused.")
    if admin.args.save is not None:
        save = Path(admin.args.save) if admin.args.save else token_file(admin.args)
        save.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(save, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(reply.token + "\n")
        where = (
            f"admin commands to the lobby at {admin.args.lobby} read it from there"
            if save == token_file(admin.args)
            else f"admin commands read it with --token-file {save}"
        )
        note.print(f"Saved to {save}; {where}.", markup=False)
    print(f"export RIVERBOAT_TOKEN={reply.token}")
    return 0


async def cmd_tables(admin: Admin) -> int:
    """Every table with its stakes and who sits there."""
    tables: list[lobby_pb2.LobbyTable] = []
    page = ""
    while True:
        reply = await admin.lobby_call(admin.lobby.list_tables(100, page))
        tables.extend(reply.tables)
        page = reply.next_page_token
        if not page:
            break
    if not tables:
        admin.say("No tables yet; open one with `riverboat admin create-table`.")
        return 0
    grid = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    # The template is the table id's first word (TEMPLATE-ID): no column of its own.
    grid.add_column("Table", overflow="fold", min_width=20)
    grid.add_column("Game (stakes, buy-in)", no_wrap=True)
    grid.add_column("Clock", no_wrap=True)
    grid.add_column("Players")
    waits = any(t.waiting_list.waiting for t in tables)
    if waits:  # the column only when someone waits: the usual listing stays as it was
        grid.add_column("Waiting")
    controlled = any(table_status(t) for t in tables)
    if controlled:  # likewise only when an operator closed or paused a table
        grid.add_column("Status", no_wrap=True)
    for t in tables:
        grid.add_row(
            Text(t.table_id, style="bold").append(f"\n{t.name}", style="default"),
            f"{SHORT_VARIANTS.get(t.variant, variant_name(t.variant))}\n"
            f"{money(t.small_bet)}/{money(t.big_bet)}"
            + f"\n{money(t.min_buy_in)}-{money(t.max_buy_in)}"
            + _declared_lines(t),
            _clock_cell(t),
            "\n".join(
                [f"{len(t.seats)}/{t.max_players} seated"]
                + [f"{s.seat}: {s.player} {money(s.stack)}" for s in t.seats]
            ),
            *(["\n".join(waiting_text(w) for w in t.waiting_list.waiting)] if waits else []),
            *([table_status(t)] if controlled else []),
        )
    admin.console.print(grid)
    return 0


def _policy_text(policy: TimeBankPolicy | events_pb2.TimeBankPolicy) -> str:
    """``"time bank 60 s, 10 s more every 10 hands, disconnect protection once per 10 hands"``."""
    if not policy.seconds:
        return "no time bank"
    text = f"time bank {policy.seconds} s"
    if policy.topup_seconds and policy.topup_hands:
        text += f", {policy.topup_seconds} s more every {policy.topup_hands} hands"
    if policy.protect_hands:
        text += f", disconnect protection once per {policy.protect_hands} hands"
    return text


def _clock_cell(table: lobby_pb2.LobbyTable) -> str:
    """The ``Clock`` column: seconds a decision, then the time bank in short."""
    tb = table.time_bank
    lines = [f"{table.action_seconds} s" + (f", bank {tb.seconds} s" if tb.seconds else "")]
    if tb.seconds and tb.topup_seconds and tb.topup_hands:
        lines.append(f"+{tb.topup_seconds} s/{tb.topup_hands} hands")
    if tb.seconds and tb.protect_hands:
        lines.append(f"protect/{tb.protect_hands} hands")
    return "\n".join(lines)


def _declarable(table: lobby_pb2.LobbyTable) -> tuple[str, str] | None:
    """The small and big bets a dealer's choice dealer may declare, ``("$1.00-$5.00",
    "$2.00-$10.00")``, when they allow more than the table's own; else None."""
    r = table.dealers_choice
    bounds = (r.min_small_bet, r.max_small_bet, r.min_big_bet, r.max_big_bet)
    own = (table.small_bet, table.small_bet, table.big_bet, table.big_bet)
    if not table.HasField("dealers_choice") or bounds == own:
        return None
    return f"{money(bounds[0])}-{money(bounds[1])}", f"{money(bounds[2])}-{money(bounds[3])}"


def _declared_lines(table: lobby_pb2.LobbyTable) -> str:
    """The ``Game`` column's lines on the limits a dealer may declare (when there are any)."""
    limits = _declarable(table)
    return f"\ndeclare {limits[0]}\n  / {limits[1]}" if limits else ""


def _bounds(text: str | None, flag: str) -> tuple[int, int]:
    """``"1-5"`` -> ``(100, 500)`` (amounts as people type them); ``(0, 0)`` for None."""
    if text is None:
        return 0, 0
    low, sep, high = text.partition("-")
    if not sep:
        raise Refused(f"{flag} wants MIN-MAX, e.g. 1-5, not {text!r}.")
    return _amount(low), _amount(high)


def _time_bank_asked(args: argparse.Namespace) -> events_pb2.TimeBankPolicy | None:
    """The time bank the flags ask for (the template's for any not given), or None."""
    if args.time_bank is None and args.time_bank_topup is None and args.protect_hands is None:
        return None
    base = DEFAULT_TIME_BANK
    topup = (base.topup_seconds, base.topup_hands)
    if args.time_bank_topup is not None:
        seconds, _, hands = args.time_bank_topup.partition("/")
        try:
            topup = (0, 0) if seconds.strip() in ("0", "none") else (int(seconds), int(hands))
        except ValueError:
            raise Refused(
                f"--time-bank-topup wants SECONDS/HANDS, e.g. 10/10, not {args.time_bank_topup!r}."
            ) from None
    return events_pb2.TimeBankPolicy(
        seconds=base.seconds if args.time_bank is None else args.time_bank,
        topup_seconds=topup[0],
        topup_hands=topup[1],
        protect_hands=base.protect_hands if args.protect_hands is None else args.protect_hands,
    )


async def cmd_create_table(admin: Admin) -> int:
    """Open a table from a template with overrides."""
    args = admin.args
    overrides = dict(parse_override(text) for text in args.overrides)
    request_id = args.request_id or default_request_id(args.name)
    rules = None
    if args.declare_small is not None or args.declare_big is not None:
        small = _bounds(args.declare_small, "--declare-small")
        big = _bounds(args.declare_big, "--declare-big")
        rules = events_pb2.DealersChoiceRules(
            min_small_bet=small[0], max_small_bet=small[1], min_big_bet=big[0], max_big_bet=big[1]
        )
    table = await admin.lobby_call(
        admin.lobby.create_table(
            args.template,
            args.name,
            request_id=request_id,
            overrides=overrides or None,
            action_seconds=args.action_seconds,
            time_bank=_time_bank_asked(args),
            rules=rules,
        )
    )
    admin.say(
        f"Table {table.table_id} ({table.name}): {variant_name(table.variant)} "
        f"{money(table.small_bet)}/{money(table.big_bet)}, buy-in "
        f"{money(table.min_buy_in)}-{money(table.max_buy_in)}, up to {table.max_players} players."
    )
    declared = ""
    if table.HasField("dealers_choice"):
        limits = _declarable(table)
        declared = (
            f"; the dealer may declare a small bet of {limits[0]} and a big bet of {limits[1]}"
            if limits
            else "; the dealer declares no other limits"
        )
    admin.say(
        f"Clock {table.action_seconds} s a decision; {_policy_text(table.time_bank)}{declared}."
    )
    return 0


async def cmd_deposit(admin: Admin) -> int:
    """Credit a wallet from the cashier."""
    args = admin.args
    amount = _amount(args.amount)
    reply = await admin.settlement_call(
        admin.settlement.Deposit(
            settlement_pb2.DepositRequest(player=args.player, amount=amount, external_ref=args.ref),
            metadata=admin.metadata,
        )
    )
    if reply.duplicate:
        admin.say(
            f"Deposit {args.ref} was already recorded; nothing changed. "
            f"{args.player}'s wallet: {money(reply.balance)}."
        )
    else:
        admin.say(
            f"Deposited {money(amount)} to {args.player} (ref {args.ref}); "
            f"wallet now {money(reply.balance)}."
        )
    return 0


async def cmd_withdraw(admin: Admin) -> int:
    """Pay out from a wallet to the cashier."""
    args = admin.args
    amount = _amount(args.amount)
    reply = await admin.settlement_call(
        admin.settlement.Withdraw(
            settlement_pb2.WithdrawRequest(
                player=args.player, amount=amount, external_ref=args.ref
            ),
            metadata=admin.metadata,
        )
    )
    if reply.duplicate:
        admin.say(
            f"Withdrawal {args.ref} was already recorded; nothing changed. "
            f"{args.player}'s wallet: {money(reply.balance)}."
        )
    else:
        admin.say(
            f"Paid {money(amount)} out of {args.player}'s wallet (ref {args.ref}); "
            f"wallet now {money(reply.balance)}."
        )
    return 0


async def cmd_balance(admin: Admin) -> int:
    """A wallet, the chips being seated and the chips at tables."""
    reply = await admin.settlement_call(
        admin.settlement.GetBalance(
            settlement_pb2.GetBalanceRequest(player=admin.args.player), metadata=admin.metadata
        )
    )
    grid = Table(header_style="bold", title=f"{reply.player or admin.args.player}")
    for column in ("Wallet", "Being seated", "At tables", "Total"):
        grid.add_column(column, justify="right")
    grid.add_row(
        money(reply.balance),
        money(reply.reserved),
        money(reply.at_tables),
        money(reply.balance + reply.reserved + reply.at_tables),
    )
    admin.console.print(grid)
    return 0


async def cmd_rake_report(admin: Admin) -> int:
    """Rake by table, game and day."""
    args = admin.args
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    first = _day(args.from_day, today)
    last = _day(args.to_day, first)
    if last < first:
        raise Refused(f"--to {last} is before --from {first}.")
    reply = await admin.settlement_call(
        admin.settlement.GetRakeReport(
            settlement_pb2.GetRakeReportRequest(
                from_day=first, to_day=last, table_id=args.table_id
            ),
            metadata=admin.metadata,
        )
    )
    span = first if first == last else f"{first} to {last}"
    grid = Table(
        header_style="bold", title=f"Rake {span}" + (f", {args.table_id}" if args.table_id else "")
    )
    grid.add_column("Day")
    grid.add_column("Table")
    grid.add_column("Game")
    grid.add_column("Hands", justify="right")
    grid.add_column("Rake", justify="right")
    for row in reply.rows:
        grid.add_row(
            row.day, row.table_id, variant_name(row.variant), str(row.hands), money(row.rake)
        )
    grid.add_section()
    grid.add_row("Total", "", "", str(sum(r.hands for r in reply.rows)), money(reply.total_rake))
    admin.console.print(grid)
    return 0


async def cmd_ledger(admin: Admin) -> int:
    """An account's postings, newest first."""
    args = admin.args
    entries: list[settlement_pb2.LedgerEntry] = []
    page = ""
    while len(entries) < args.limit:
        reply = await admin.settlement_call(
            admin.settlement.ListLedgerEntries(
                settlement_pb2.ListLedgerEntriesRequest(
                    account=args.account,
                    page_size=min(100, args.limit - len(entries)),
                    page_token=page,
                ),
                metadata=admin.metadata,
            )
        )
        entries.extend(reply.entries)
        page = reply.next_page_token
        if not page:
            break
    if not entries:
        admin.say(f"No postings on {args.account}.")
        return 0
    grid = Table(header_style="bold", title=f"Ledger {args.account} (newest first)")
    grid.add_column("Posting", justify="right")
    grid.add_column("When")
    grid.add_column("Kind")
    grid.add_column("Reference", overflow="fold")
    grid.add_column("Amount", justify="right")
    grid.add_column("Balance", justify="right")
    for e in entries[: args.limit]:
        grid.add_row(
            str(e.posting_id),
            _when(e.occurred_at),
            e.kind,
            e.reference,
            money(e.amount),
            money(e.balance_after),
        )
    admin.console.print(grid)
    if page:
        shown = "posting" if args.limit == 1 else f"{args.limit} postings"
        admin.say(
            f"The newest {shown}; {args.account} has older ones "
            f"(--limit {args.limit * 2} lists twice as many)."
        )
    return 0


async def cmd_players(admin: Admin) -> int:
    """Every player account, locked or not, with its wallet."""
    players: list[lobby_pb2.PlayerAccount] = []
    page = ""
    while True:
        reply = await admin.lobby_call(admin.lobby.list_players(100, page))
        players.extend(reply.players)
        page = reply.next_page_token
        if not page:
            break
    if not players:
        admin.say("No player accounts yet.")
        return 0
    grid = Table(header_style="bold", title="Players")
    grid.add_column("Player")
    grid.add_column("Status")
    for column in ("Wallet", "Being seated", "At tables", "Total"):
        grid.add_column(column, justify="right")
    for p in players:
        status = "active"
        if p.locked:
            why = f": {p.locked_reason}" if p.locked_reason else ""
            status = f"locked by {p.locked_by}{why}"
        grid.add_row(
            p.username,
            status,
            money(p.balance),
            money(p.reserved),
            money(p.at_tables),
            money(p.balance + p.reserved + p.at_tables),
        )
    admin.console.print(grid)
    return 0


async def cmd_lock(admin: Admin) -> int:
    """Lock an account."""
    account = await admin.lobby_call(
        admin.lobby.lock_account(admin.args.username, admin.args.reason)
    )
    when = account.locked_at.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M UTC")
    admin.say(
        f"{account.username} is locked (by {account.locked_by}, {when}); they cannot log in "
        "or buy in until `riverboat admin unlock`."
    )
    return 0


async def cmd_unlock(admin: Admin) -> int:
    """Unlock an account."""
    account = await admin.lobby_call(admin.lobby.unlock_account(admin.args.username))
    admin.say(f"{account.username} is unlocked; they may log in and buy in again.")
    return 0


async def cmd_reset_password(admin: Admin) -> int:
    """Give an account a new password."""
    password = admin.args.new_password or getpass.getpass(
        f"new password for {admin.args.username}: "
    )
    account = await admin.lobby_call(admin.lobby.reset_password(admin.args.username, password))
    admin.say(f"{account.username} has a new password; the old one no longer logs in.")
    return 0


def _stamp_text(stamp: Any) -> str:
    return str(stamp.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M UTC"))


def show_limits(admin: Admin, limits: settlement_pb2.Limits) -> None:
    """A player's limits as a table, and the exclusion if one is in force."""
    grid = Table(header_style="bold", title=f"Limits of {limits.player}")
    grid.add_column("Limit")
    for column in ("Amount", "Used", "Left"):
        grid.add_column(column, justify="right")
    grid.add_column("Pending")
    for limit in limits.limits:
        pending = ""
        if limit.has_pending:
            amount = money(limit.pending_amount) if limit.pending_amount else "none"
            pending = f"{amount} from {_stamp_text(limit.pending_from)}"
        grid.add_row(
            _LIMIT_NAMES.get(limit.kind, str(limit.kind)),
            money(limit.amount) if limit.amount else "none",
            money(limit.used),
            money(limit.remaining) if limit.remaining >= 0 else "",
            pending,
        )
    admin.console.print(grid)
    if limits.HasField("excluded_until"):
        admin.say(f"Self-excluded until {_stamp_text(limits.excluded_until)}.")


async def cmd_limits(admin: Admin) -> int:
    """A player's limits, what they used and what waits for its cooling-off."""
    reply = await admin.settlement_call(
        admin.settlement.GetLimits(
            settlement_pb2.GetLimitsRequest(player=admin.args.player), metadata=admin.metadata
        )
    )
    show_limits(admin, reply.limits)
    return 0


async def cmd_set_limit(admin: Admin) -> int:
    """Set one limit: lower at once, higher after the cooling-off."""
    args = admin.args
    amount = 0 if args.amount.lower() == "none" else _amount(args.amount)
    reply = await admin.settlement_call(
        admin.settlement.SetLimit(
            settlement_pb2.SetLimitRequest(
                player=args.player, kind=LIMIT_KINDS[args.kind], amount=amount
            ),
            metadata=admin.metadata,
        )
    )
    limit = next(x for x in reply.limits.limits if x.kind == LIMIT_KINDS[args.kind])
    wanted = money(amount) if amount else "none"
    if limit.has_pending and limit.pending_amount == amount:
        admin.say(
            f"{args.player}'s {args.kind} limit becomes {wanted} on "
            f"{_stamp_text(limit.pending_from)} (a higher limit waits "
            f"{reply.limits.cooling_off_seconds // 3600} hours); until then it stays "
            f"{money(limit.amount) if limit.amount else 'none'}."
        )
    else:
        admin.say(f"{args.player}'s {args.kind} limit is {wanted} from now.")
        if amount and limit.amount == amount and limit.used >= amount:
            # A lower limit applies even below what was used (it protects the player); the
            # operator must know it blocks at once, not discover it at the next refusal.
            deposit = args.kind.startswith("deposit")
            window = "24 hours" if args.kind.endswith("day") else "7 days"
            admin.say(
                f"{args.player} already {'deposited' if deposit else 'bought in for'} "
                f"{money(limit.used)} in the last {window}, "
                f"{'more than' if limit.used > amount else 'all of'} the new limit: no further "
                f"{'deposits' if deposit else 'buy-ins'} until enough of that is older than "
                f"{window} (`riverboat admin limits {args.player}` shows what is left)."
            )
    return 0


async def cmd_self_exclude(admin: Admin) -> int:
    """Exclude a player from deposits and buy-ins."""
    reply = await admin.settlement_call(
        admin.settlement.SelfExclude(
            settlement_pb2.SelfExcludeRequest(player=admin.args.player, days=admin.args.days),
            metadata=admin.metadata,
        )
    )
    until = _stamp_text(reply.limits.excluded_until)
    admin.say(
        f"{admin.args.player} is self-excluded until {until}: no deposits or buy-ins before then."
    )
    return 0


def waiting_text(entry: lobby_pb2.Waiting) -> str:
    """``"2. dan"``-style line of one waiting player (with the seat offered, until when)."""
    if not entry.offered_seat:
        return entry.player
    until = entry.offer_expires_at.ToDatetime(tzinfo=UTC).strftime("%H:%M:%S")
    return f"{entry.player} (seat {entry.offered_seat} offered until {until} UTC)"


async def cmd_waiting(admin: Admin) -> int:
    """A table's waiting list, first in line first."""
    listed = await admin.lobby_call(admin.lobby.waiting_list(admin.args.table_id))
    if not listed.waiting:
        admin.say(f"Nobody waits for a seat at {admin.args.table_id}.")
        return 0
    grid = Table(header_style="bold", title=f"Waiting list of {admin.args.table_id}")
    grid.add_column("#", justify="right")
    grid.add_column("Player")
    grid.add_column("Since")
    grid.add_column("Offer")
    for n, entry in enumerate(listed.waiting, 1):
        offer = ""
        if entry.offered_seat:
            until = entry.offer_expires_at.ToDatetime(tzinfo=UTC).strftime("%H:%M:%S UTC")
            offer = f"seat {entry.offered_seat} until {until}"
        grid.add_row(
            str(n),
            entry.player,
            entry.joined_at.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%S"),
            offer,
        )
    admin.console.print(grid)
    return 0


def _request_id(admin: Admin, what: str) -> str:
    return str(admin.args.request_id or f"admin-{what}-{uuid.uuid4().hex[:12]}")


async def cmd_close_table(admin: Admin) -> int:
    """Close a table: now between hands (its players cashed out), else after the hand."""
    args = admin.args
    listed, client = await admin.table(args.table_id)
    reply = await admin.table_call(
        client.close_table(
            args.table_id, request_id=_request_id(admin, "close"), reason=args.reason
        )
    )
    view = reply.view
    if view.closed and listed.closed:
        admin.say(f"Table {args.table_id} was already closed; nothing changed.")
    elif view.closed:
        left = ", ".join(f"{s.player} with {money(s.stack)}" for s in listed.seats)
        admin.say(
            f"Table {args.table_id} is closed. "
            + (f"Left and cashed out to their wallets: {left}." if left else "Nobody sat there.")
        )
    else:
        admin.say(
            f"Table {args.table_id} closes after the hand in play (#{view.hand_number}): no new "
            "hand is dealt; then its players leave, cashed out to their wallets."
        )
    return 0


async def cmd_pause(admin: Admin) -> int:
    """Pause dealing at a table after the hand in play."""
    args = admin.args
    listed, client = await admin.table(args.table_id)
    reply = await admin.table_call(
        client.pause_table(
            args.table_id, request_id=_request_id(admin, "pause"), reason=args.reason
        )
    )
    if listed.paused:
        admin.say(f"Dealing was already paused at {args.table_id}; nothing changed.")
    elif reply.view.hand_in_progress:
        admin.say(
            f"Dealing pauses at {args.table_id} after the hand in play "
            f"(#{reply.view.hand_number}); `riverboat admin resume {args.table_id}` deals again."
        )
    else:
        admin.say(
            f"Dealing is paused at {args.table_id}; `riverboat admin resume {args.table_id}` "
            "deals again."
        )
    return 0


async def cmd_resume(admin: Admin) -> int:
    """Deal again at a paused table."""
    args = admin.args
    listed, client = await admin.table(args.table_id)
    await admin.table_call(
        client.resume_table(args.table_id, request_id=_request_id(admin, "resume"))
    )
    if not listed.paused:
        admin.say(f"Dealing was not paused at {args.table_id}; nothing changed.")
    else:
        admin.say(f"Dealing resumes at {args.table_id}.")
    return 0


async def cmd_move_player(admin: Admin) -> int:
    """Move a player, with their chips, to another table of the same game and stakes."""
    args = admin.args
    reply = await admin.lobby_call(
        admin.lobby.move_player(
            args.player,
            args.from_table,
            args.to_table,
            request_id=_request_id(admin, "move"),
            seat=args.seat,
        )
    )
    admin.say(
        f"Moved {args.player} from {args.from_table} to {reply.to_table_id}, seat {reply.seat}, "
        f"with {money(reply.stack)}."
    )
    return 0
