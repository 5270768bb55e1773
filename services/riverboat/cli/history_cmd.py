"""``riverboat history export``: hands as PHH or PokerStars-style text (docs/hand-history.md).

Reads the same sources as ``riverboat audit`` (an archive file or the streams over NATS). By
default the export is the auditor's (every card); ``--player NAME`` makes that player's export:
only their hands, only what they saw.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from riverboat.cli.audit_cmd import EXIT_OK, EXIT_USAGE, add_source_arguments, load
from riverboat.cli.progress import ProgressBar, progress_bar


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
    export.add_argument(
        "--hand",
        action="append",
        default=[],
        help="only this hand, by id, PokerStars hand number or TABLE#N (the table's Nth hand;"
        " N alone with one --table) (repeat)",
    )
    export.add_argument(
        "--unfinished", action="store_true", help="also hands still in play when read"
    )
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    export.add_argument(
        "--split-into",
        type=Path,
        metavar="DIR",
        help="pokerstars: one file per table and day in DIR, named as PokerStars names them",
    )
    export.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    export.set_defaults(handler=cmd_export)


def _counted(hands: Iterable[Any], bar: ProgressBar) -> Iterator[Any]:
    """The hands, advancing the bar as each is taken (the exports render one at a time)."""
    for hand in hands:
        yield hand
        bar.advance()


def _fail(message: str) -> int:
    print(f"riverboat history: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_export(args: argparse.Namespace) -> int:
    """Write the chosen hands in the chosen format."""
    if args.split_into is not None and (args.format != "pokerstars" or args.output is not None):
        return _fail("--split-into writes PokerStars files: give --format pokerstars, not -o")
    archive = load(args, show_progress=not args.no_progress)
    if isinstance(archive, int):
        return archive
    from riverboat.history import (
        Perspective,
        hand_number,
        hands_from_archive,
        pokerstars_files,
        to_phh,
        to_phhs,
        to_pokerstars_all,
    )

    wanted = set(args.hand)

    def named(h: Any) -> bool:
        names = {h.hand_id, str(hand_number(h)), f"{h.table_id}#{h.number}"}
        if len(args.table) == 1:
            names |= {str(h.number), f"#{h.number}"}  # the table's own numbers
        return bool(names & wanted)

    hands = [
        h
        for h in hands_from_archive(archive, tables=args.table)
        if (not wanted or named(h)) and (args.unfinished or h.finished or h.voided)
    ]
    perspective = Perspective(args.player)
    files: dict[str, str] = {}
    text = ""
    try:
        with progress_bar("exporting hands", enabled=not args.no_progress, total=len(hands)) as bar:
            chosen = _counted(hands, bar)
            if args.split_into is not None:
                files = pokerstars_files(chosen, perspective)
            elif args.format == "pokerstars":
                text = to_pokerstars_all(chosen, perspective)
            elif len(hands) == 1:
                text = to_phh(hands[0], perspective) or ""
            else:
                text = to_phhs(chosen, perspective)
    except KeyError as exc:  # a variant without a PHH code
        return _fail(f"no PHH code for variant {exc}")
    except ValueError as exc:  # two hands sharing a PokerStars hand number
        return _fail(str(exc))
    if args.player:  # a player's export holds only the hands they were dealt into
        hands = [h for h in hands if h.seat_of(args.player) is not None]
    if args.split_into is not None:
        return _write_files(args.split_into, files, hands)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {_written(hands)} to {args.output}", file=sys.stderr)
    return EXIT_OK


def _written(hands: list[Any]) -> str:
    """The hands written, named by their numbers at their tables (with the ids of a few):
    ``"3 hands: t1 #4 (t1-40), #5 (t1-49); t2 #1 (t2-5)"``, ``"40 hands: t1 #1-#40"``."""
    if not hands:
        return "0 hands"
    by_table: dict[str, list[Any]] = {}
    for hand in hands:
        by_table.setdefault(hand.table_id, []).append(hand)
    few = len(hands) <= 5
    parts = []
    for table_id, theirs in by_table.items():
        if few:
            names = [f"#{h.number} ({h.hand_id})" if h.number else h.hand_id for h in theirs]
        else:
            names = _ranges(sorted(h.number for h in theirs if h.number))
            names += [h.hand_id for h in theirs if not h.number]
        parts.append(f"{table_id} {', '.join(names)}")
    return f"{len(hands)} hand{'s' if len(hands) != 1 else ''}: " + "; ".join(parts)


def _ranges(numbers: list[int]) -> list[str]:
    """``[1, 2, 3, 7]`` -> ``["#1-#3", "#7"]``."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return [f"#{a}" if a == b else f"#{a}-#{b}" for a, b in spans]


def _write_files(folder: Path, files: dict[str, str], hands: list[Any]) -> int:
    """Write one PokerStars file per table and day into ``folder`` (made if need be)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in sorted(files.items()):
            (folder / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot write into {folder}: {exc}")
    print(f"wrote {_written(hands)} in {len(files)} file(s) to {folder}", file=sys.stderr)
    return EXIT_OK
