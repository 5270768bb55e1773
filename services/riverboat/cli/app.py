"""Argument parsing and dispatch for the ``riverboat`` command."""

from __future__ import annotations

import argparse

from riverboat.cli import (
    admin_cmd,
    audit_cmd,
    dealer_cmd,
    engine_cmd,
    history_cmd,
    room_cmd,
    settlement_cmd,
    up_cmd,
    verify_cmd,
)
from riverboat.cli.play import session as play_session


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree."""
    parser = argparse.ArgumentParser(prog="riverboat", description="Riverboat card room")
    groups = parser.add_subparsers(dest="group", required=True, metavar="COMMAND")
    engine_cmd.register(groups)
    dealer_cmd.register(groups)
    room_cmd.register(groups)
    up_cmd.register(groups)
    audit_cmd.register(groups)
    history_cmd.register(groups)
    play_session.register(groups)
    admin_cmd.register(groups)
    settlement_cmd.register(groups)
    verify_cmd.register(groups)
    return parser


#: Commands whose flags belong to the service they start: everything after them is handed over
#: as it is (argparse's REMAINDER would refuse a first argument that looks like a flag, so
#: ``riverboat table serve --address ...`` is dispatched before parsing).
PASSTHROUGH = {
    ("lobby", "serve"): "riverboat.services.lobby.__main__",
    ("table", "serve"): "riverboat.services.table.__main__",
}


def run(argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen command; returns the exit status."""
    module = PASSTHROUGH.get((argv[0], argv[1])) if len(argv) >= 2 else None
    if module is not None:
        import importlib

        rest = argv[2:]
        main = importlib.import_module(module).main
        code: int = main(rest[1:] if rest[:1] == ["--"] else rest)
        return code
    args = build_parser().parse_args(argv)
    status: int = args.handler(args)
    return status
