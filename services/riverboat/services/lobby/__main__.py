"""``python -m riverboat.services.lobby``: run the lobby (see ``--help``)."""

from __future__ import annotations

import argparse

from riverboat.services.common.startup import run_main
from riverboat.services.lobby.config import LobbyConfig, add_arguments
from riverboat.services.lobby.server import serve

PROG = "riverboat-lobby"


def build_parser() -> argparse.ArgumentParser:
    """The lobby's command line (flags over RIVERBOAT_* environment over defaults)."""
    parser = argparse.ArgumentParser(prog=PROG, description="Riverboat lobby")
    add_arguments(parser)
    return parser


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run until SIGTERM/SIGINT; exit status 2 (one line, no traceback) for bad settings."""
    return run_main(PROG, "lobby", build_parser(), argv, LobbyConfig.from_namespace, serve)


if __name__ == "__main__":
    raise SystemExit(main())
