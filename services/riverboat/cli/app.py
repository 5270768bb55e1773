"""Argument parsing and dispatch for the ``riverboat`` command."""

from __future__ import annotations

import argparse

from riverboat.cli import (
    admin_cmd,
    audit_cmd,
    dealer_cmd,
    engine_cmd,
    history_cmd,
    play_cmd,
    room_cmd,
    settlement_cmd,
    up_cmd,
)


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
    play_cmd.register(groups)
    admin_cmd.register(groups)
    settlement_cmd.register(groups)
    return parser


def run(argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen command; returns the exit status."""
    args = build_parser().parse_args(argv)
    status: int = args.handler(args)
    return status
