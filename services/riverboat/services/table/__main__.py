"""``python -m riverboat.services.table``: run the table service (see ``--help``)."""

from __future__ import annotations

import argparse

from riverboat.services.common.startup import run_main
from riverboat.services.table.config import TableConfig, add_arguments
from riverboat.services.table.server import serve

PROG = "riverboat-table"


def build_parser() -> argparse.ArgumentParser:
    """The table service's command line (flags over RIVERBOAT_* environment over defaults)."""
    parser = argparse.ArgumentParser(prog=PROG, description="Riverboat table service")
    add_arguments(parser)
    return parser


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run until SIGTERM/SIGINT; exit status 2 (one line, no traceback) for bad settings."""
    return run_main(PROG, "table", build_parser(), argv, TableConfig.from_namespace, serve)


if __name__ == "__main__":
    raise SystemExit(main())
