"""``riverboat history export``: hands as PHH or PokerStars-style text (docs/hand-history.md).

Reads the same sources as ``riverboat audit`` (an archive file or the streams over NATS). By
default the export is the auditor's (every card); ``--player NAME`` makes that player's export:
only their hands, only what they saw.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from riverboat.cli.audit_cmd import EXIT_OK, EXIT_USAGE, add_source_arguments, load


def register(groups: Any) -> None:
    """Add the ``history`` command group."""
    history = groups.add_parser("history", help="hand histories (PHH, PokerStars-style text)")
    sub = history.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    export = sub.add_parser(
        "export",
        help="write hands as PHH or PokerStars-style text",
        description="Export finished hands from an audit archive or the live streams.",
    )
    export.add_argument("source", nargs="?", metavar="FILE", help="an audit archive")
    add_source_arguments(export)
    export.add_argument(
        "--format", choices=("phh", "pokerstars"), default="phh", help="output format"
    )
    export.add_argument(
        "--player", metavar="NAME", help="that player's export (their hands, their view)"
    )
    export.add_argument("--table", action="append", default=[], help="only this table (repeat)")
    export.add_argument("--hand", action="append", default=[], help="only this hand (repeat)")
    export.add_argument(
        "--unfinished", action="store_true", help="also hands still in play when read"
    )
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    export.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    export.set_defaults(handler=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    """Write the chosen hands in the chosen format."""
    archive = load(args, show_progress=not args.no_progress)
    if isinstance(archive, int):
        return archive
    from riverboat.history import (
        Perspective,
        hands_from_archive,
        to_phh,
        to_phhs,
        to_pokerstars_all,
    )

    hands = [
        h
        for h in hands_from_archive(archive, tables=args.table)
        if (not args.hand or h.hand_id in args.hand) and (args.unfinished or h.finished or h.voided)
    ]
    perspective = Perspective(args.player)
    try:
        if args.format == "pokerstars":
            text = to_pokerstars_all(hands, perspective)
        elif len(hands) == 1:
            text = to_phh(hands[0], perspective) or ""
        else:
            text = to_phhs(hands, perspective)
    except KeyError as exc:  # a variant without a PHH code
        print(f"riverboat history: no PHH code for variant {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        count = text.count("PokerStars Hand #") if args.format == "pokerstars" else len(hands)
        print(f"wrote {count} hand(s) to {args.output}", file=sys.stderr)
    return EXIT_OK
