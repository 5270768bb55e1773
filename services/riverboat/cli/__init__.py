"""The ``riverboat`` command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``riverboat`` command."""
    from riverboat.cli.app import run

    try:
        return run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        sys.stderr.close()
        return 0
