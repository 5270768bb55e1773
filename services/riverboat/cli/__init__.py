"""The ``riverboat`` command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``riverboat`` command."""
    from riverboat.cli.app import run

    return run(sys.argv[1:] if argv is None else argv)
