"""``riverboat dealer serve``: run the dealer (as ``python -m riverboat.services.dealer`` does)."""

from __future__ import annotations

import argparse
from typing import Any

from riverboat.services.dealer.config import add_arguments


def register(groups: Any) -> None:
    """Add the ``dealer`` command group."""
    dealer = groups.add_parser("dealer", help="the dealer service (committed, sealed decks)")
    sub = dealer.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    serve = sub.add_parser(
        "serve",
        help="run the dealer's gRPC server until SIGTERM or Ctrl-C",
        description="Serve riverboat.v1.DealerService (see docs/dealer-service.md).",
    )
    add_arguments(serve)
    serve.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the dealer; exit 0 after a clean shutdown, 1 if it cannot start, 2 on bad settings."""
    # Imported here: gRPC and NATS are only needed when the dealer actually runs.
    from riverboat.services.dealer.server import run

    return run(args)
