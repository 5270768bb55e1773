"""``riverboat verify``: a player's own check of a saved session's cards (CRV1).

``riverboat play --save FILE`` appends every Watch message the player received to FILE, one
JSON ``WatchResponse`` a line (its events and view; a line holding a bare ``TableView`` is read
too). ``riverboat verify FILE`` checks, with nothing but the file, every card proof in it again,
the dealing index each names against the deal counted from the events, the hand's commitment
against the one pinned before its seeds, and that the seed the table acknowledged is in the lock
(docs/shuffle.md II.5, II.11): exit 0 if all verify, 1 if one fails, 2 if the file cannot be
read.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from riverboat.proofcheck import CardChecker, Verdict
from riverboat.v1 import table_pb2


def register(groups: Any) -> None:
    """Add ``verify``."""
    verify = groups.add_parser(
        "verify",
        help="check every card proof of a saved play session (riverboat play --save)",
        description=(
            "Check, from the file alone, that every card you were shown opens the deck the "
            "dealer committed to before the deal, at the position the locked seeds give it."
        ),
    )
    verify.add_argument("session", type=Path, help="a file written by riverboat play --save")
    verify.set_defaults(handler=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    """Run the check; print one line per hand and one per failed card."""
    try:
        lines = args.session.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        print(f"riverboat verify: cannot read {args.session}: {exc.strerror}", file=sys.stderr)
        return 2
    checker = CardChecker()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            update = json_format.Parse(line, table_pb2.WatchResponse())
        except json_format.ParseError:
            try:
                view = json_format.Parse(line, table_pb2.TableView())
            except json_format.ParseError as exc:
                print(
                    f"riverboat verify: {args.session} line {number} is not a Watch message or "
                    f"a table view: {exc}",
                    file=sys.stderr,
                )
                return 2
            update = table_pb2.WatchResponse(version=view.version, view=view)
        checker.update(update)
    good = Counter(c.hand_id for c in checker.checks if c.verdict is Verdict.VERIFIED)
    told = {c.hand_id for c in checker.checks if c.verdict is Verdict.VERIFIED and not c.witnessed}
    for hand_id, count in good.items():
        print(f"hand {hand_id}: {count} card{'s' if count != 1 else ''} verified")
        if hand_id in told:
            print(
                f"hand {hand_id}: the file begins after this hand's lock: its cards are checked "
                "against the views' copy of it (and, if dealt before the file begins, at the "
                "places in the deal the table states)"
            )
    for notice in (c for c in checker.checks if c.verdict is Verdict.NOTICE):
        print(f"hand {notice.hand_id}: {notice.line()}")
    for failure in checker.failures:
        print(f"hand {failure.hand_id}: {failure.line()}")
    total = sum(good.values())
    if checker.failures:
        print(f"{len(checker.failures)} PROOF(S) FAILED; {total} cards verified.")
        return 1
    if not total:
        print("No CRV1 card proofs in the file (hands dealt under RBS1 carry none).")
        return 0
    print(f"All {total} cards verified in {len(good)} hands.")
    return 0
