"""``riverboat bots`` (bots that play real hands through the gRPC API), ``riverboat table ...``
and ``riverboat lobby serve``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

import grpc

from riverboat import eventloop
from riverboat.auth import TokenIssuer, TokenKeyError, load_token_key
from riverboat.cli.clientkit import DEFAULT_TABLE, service_address
from riverboat.cli.up_cmd import narrator
from riverboat.client import BotStats, TableClient, play_bot, random_chooser

DEMO_TABLE = "demo-stud"


def register(groups: Any) -> None:
    """Add ``up``, ``bots`` and ``table``."""
    bots = groups.add_parser("bots", help="seat bots that play through the gRPC API")
    bots.add_argument("--table-address", default=service_address("table", DEFAULT_TABLE))
    bots.add_argument("--tables", type=int, default=1)
    bots.add_argument("--seats", type=int, default=4)
    bots.add_argument("--stack", type=int, default=20_000, help="chips each bot sits with")
    bots.add_argument("--seconds", type=float, default=0, help="stop after this long (0: never)")
    bots.add_argument("--seed", type=int, default=None)
    bots.set_defaults(handler=cmd_bots)

    lobby = groups.add_parser("lobby", help="the lobby service")
    lobby_sub = lobby.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    lobby_serve = lobby_sub.add_parser("serve", help="run the lobby in the foreground")
    lobby_serve.add_argument("args", nargs=argparse.REMAINDER, help="flags of the lobby")
    lobby_serve.set_defaults(handler=cmd_lobby_serve)

    table = groups.add_parser("table", help="the table service")
    sub = table.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    serve = sub.add_parser("serve", help="run the table service in the foreground")
    serve.add_argument("args", nargs=argparse.REMAINDER, help="flags of the table service")
    serve.set_defaults(handler=cmd_table_serve)
    view = sub.add_parser("view", help="print a table as a player (or an observer) sees it")
    view.add_argument("table_id")
    view.add_argument("--token", help="bearer token (default: an operator's, as an observer)")
    view.add_argument("--table-address", default=service_address("table", DEFAULT_TABLE))
    view.set_defaults(handler=cmd_table_view)
    watch = sub.add_parser("watch", help="follow a table's updates as JSON lines")
    watch.add_argument("table_id")
    watch.add_argument("--token", help="bearer token (default: an operator's, as an observer)")
    watch.add_argument("--after", type=int, default=0, help="resume after this version")
    watch.add_argument("--table-address", default=service_address("table", DEFAULT_TABLE))
    watch.set_defaults(handler=cmd_table_watch)


def cmd_lobby_serve(args: argparse.Namespace) -> int:
    """Run the lobby (same flags as ``python -m riverboat.services.lobby``)."""
    from riverboat.services.lobby.__main__ import main

    return main(args.args)


def cmd_table_serve(args: argparse.Namespace) -> int:
    """Run the table service (same flags as ``python -m riverboat.services.table``)."""
    from riverboat.services.table.__main__ import main

    return main(args.args)


def _issuer(var: str = "var") -> TokenIssuer:
    """The room's token issuer: the operator's own tools run next to the key."""
    try:
        return TokenIssuer(load_token_key(Path(var) / "token.key"))
    except TokenKeyError as exc:
        print(f"riverboat: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _token(args: argparse.Namespace) -> str:
    token: str | None = args.token or os.environ.get("RIVERBOAT_TOKEN")
    return token or _issuer().issue("operator", "operator", ttl=3600)


def _rpc_error(exc: grpc.aio.AioRpcError) -> int:
    print(f"riverboat: {exc.code().name}: {exc.details()}", file=sys.stderr)
    return 2


def cmd_table_view(args: argparse.Namespace) -> int:
    """Print the table view as JSON."""
    from google.protobuf.json_format import MessageToJson

    async def main() -> str:
        async with grpc.aio.insecure_channel(args.table_address) as channel:
            view = await TableClient(channel, _token(args)).view(args.table_id)
            return MessageToJson(view, indent=2)

    try:
        print(asyncio.run(main()))
    except grpc.aio.AioRpcError as exc:
        return _rpc_error(exc)
    return 0


def cmd_table_watch(args: argparse.Namespace) -> int:
    """Print each update as one JSON line until Ctrl-C."""
    from google.protobuf.json_format import MessageToJson

    async def main() -> None:
        async with grpc.aio.insecure_channel(args.table_address) as channel:
            client = TableClient(channel, _token(args))
            async for update in client.watch(args.table_id, args.after):
                print(MessageToJson(update, indent=None), flush=True)

    try:
        asyncio.run(main())
    except grpc.aio.AioRpcError as exc:
        return _rpc_error(exc)
    return 0


async def _run_bots(
    channel: grpc.aio.Channel,
    tables: list[str],
    seats: int,
    stack: int,
    stop: asyncio.Event,
    *,
    seed: int | None,
    issuer: TokenIssuer,
    narrate: bool = False,
) -> list[BotStats]:
    rng = random.Random(seed)
    operator = TableClient(channel, issuer.issue("operator", "operator"))
    tasks = []
    for table_id in tables:
        view = await operator.view(table_id)
        taken = {s.seat for s in view.seats}
        for k in range(1, seats + 1):
            player = f"bot-{table_id}-{k}"
            if not any(s.player == player for s in view.seats):
                free = next(n for n in range(1, 11) if n not in taken)
                taken.add(free)
                await operator.seat(table_id, free, player, stack)
            bot = TableClient(channel, issuer.issue(player, "player"), player)
            printer = narrator() if narrate and k == 1 else None
            tasks.append(
                asyncio.ensure_future(
                    play_bot(
                        bot,
                        table_id,
                        random_chooser(random.Random(rng.random())),
                        stop=stop,
                        on_update=printer,
                        think=0.3 if narrate else 0.0,
                    )
                )
            )
    if not tasks:
        await stop.wait()
        return []
    return list(await asyncio.gather(*tasks))


def cmd_bots(args: argparse.Namespace) -> int:
    """Seat bots at N tables (creating them if needed) and let them play."""

    async def main() -> list[BotStats]:
        async with grpc.aio.insecure_channel(args.table_address) as channel:
            issuer = _issuer()
            operator = TableClient(channel, issuer.issue("operator", "operator"))
            tables = [f"bots-{n}" for n in range(1, args.tables + 1)]
            for table_id in tables:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await operator.create_table(table_id)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            if args.seconds:
                loop.call_later(args.seconds, stop.set)
            print(
                f"{args.tables} table(s) x {args.seats} bots at {args.table_address}; "
                "Ctrl-C to stop"
            )
            return await _run_bots(
                channel, tables, args.seats, args.stack, stop, seed=args.seed, issuer=issuer
            )

    stats = eventloop.run(main())
    actions = sum(s.actions for s in stats)
    hands = len({h for s in stats for h in s.hands_seen})
    print(f"bots acted {actions} times in {hands} hands")
    return 0
