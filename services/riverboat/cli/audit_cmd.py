"""``riverboat audit``: verify the room's streams (live or archived); ``riverboat audit export``:
archive them. See docs/audit.md.

Exit status: 0 when everything verifies, 1 when a check failed, 2 when the input cannot be read
or the command is misused.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from riverboat.audit.natsread import Layout
from riverboat.cli.progress import progress_bar

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags saying where the streams are (shared with ``riverboat history``)."""
    from riverboat.services.common.config import add_nats_tls_arguments
    from riverboat.services.common.natslogin import add_nats_login_arguments

    parser.add_argument(
        "--nats",
        metavar="URLS",
        help="read the streams from this NATS server (a cluster: its URLs, comma-separated)",
    )
    add_nats_login_arguments(parser)
    add_nats_tls_arguments(parser)
    # The older spelling of --nats-creds.
    parser.add_argument("--creds", dest="nats_creds", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--tables-stream", default="RB_TABLES", help="table-log stream")
    parser.add_argument("--tables-prefix", default="rb.tables", help="table-log subject prefix")
    parser.add_argument("--seeds-stream", default="RB_AUDIT", help="revealed-seed stream")
    parser.add_argument(
        "--seeds-prefix", default="rb.audit.seeds", help="revealed-seed subject prefix"
    )
    parser.add_argument("--wallets-stream", default="RB_WALLETS", help="wallet-log stream")
    parser.add_argument("--wallets-prefix", default="rb.wallets", help="wallet-log subject prefix")


def layout_of(args: argparse.Namespace) -> Layout:
    """The stream layout the flags name."""
    return Layout(
        args.tables_stream,
        args.tables_prefix,
        args.seeds_stream,
        args.seeds_prefix,
        args.wallets_stream,
        args.wallets_prefix,
    )


def register(groups: Any) -> None:
    """Add the ``audit`` command group."""
    audit = groups.add_parser(
        "audit",
        help="verify every deck, action, pot and rake in the streams (or an archive of them)",
        description=(
            "riverboat audit [FILE | --nats URL] verifies; "
            "riverboat audit export --nats URL -o FILE archives the raw streams. "
            "See docs/audit.md."
        ),
    )
    audit.add_argument(
        "source",
        nargs="?",
        metavar="FILE | export",
        help="an archive made by 'riverboat audit export', or the word 'export' to make one",
    )
    add_source_arguments(audit)
    audit.add_argument("-o", "--output", type=Path, help="export: the archive file to write")
    audit.add_argument("--json", action="store_true", help="print the JSON report")
    audit.add_argument(
        "--database", metavar="URL", help="also compare the settlement ledger at this database"
    )
    audit.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (tables are audited in parallel; default: one per CPU)",
    )
    audit.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    audit.set_defaults(handler=cmd_audit)


def _fail(message: str) -> int:
    print(f"riverboat audit: {message}", file=sys.stderr)
    return EXIT_USAGE


def load(args: argparse.Namespace, *, show_progress: bool) -> Any:
    """The archive the arguments name (file or NATS), or an exit status on failure."""
    from riverboat.audit.archive import ArchiveError
    from riverboat.audit.source import FetchError, load_archive
    from riverboat.services.common.config import ConfigError, Settings, nats_settings

    connect_options = None
    if args.nats:
        try:
            connect_options = nats_settings(Settings(args)).connect_options()
        except ConfigError as exc:
            return _fail(str(exc))
    if args.nats and args.source:
        return _fail("give an archive FILE or --nats URL, not both")
    if not args.nats and not args.source:
        return _fail("give an archive FILE or --nats URL")
    try:
        reading = "reading NATS" if args.nats else "reading the archive"
        with progress_bar(reading, enabled=show_progress) as bar:
            return load_archive(
                file=Path(args.source) if args.source else None,
                nats_url=args.nats,
                connect_options=connect_options,
                layout=layout_of(args),
                on_message=bar.update,
            )
    except (ArchiveError, FetchError, OSError) as exc:
        return _fail(str(exc))


def cmd_audit(args: argparse.Namespace) -> int:
    """Verify (or, with ``export``, archive) the streams."""
    if args.source == "export":
        return cmd_export(args)
    if args.output is not None:
        return _fail("-o/--output is for 'riverboat audit export'")
    show = not args.no_progress
    if args.source and not args.nats and not args.database:
        return _verify_file(args, show)
    archive = load(args, show_progress=show)
    if isinstance(archive, int):
        return archive
    from riverboat.audit.verify import verify_archive

    with progress_bar("verifying", enabled=show) as bar:
        report = verify_archive(
            archive, source=args.source or args.nats, jobs=max(1, args.jobs), progress=bar.update
        )
    if args.database:
        status = _compare_ledger(report, archive, args.database)
        if status is not None:
            return status
    return _print(report, as_json=args.json)


def _compare_ledger(report: Any, archive: Any, url: str) -> int | None:
    """Add the ledger comparison to ``report``; an exit status if the ledger cannot be read."""
    from sqlalchemy.exc import SQLAlchemyError

    from riverboat.audit.ledgercheck import compare_ledger

    try:
        report.violations.extend(compare_ledger(archive, url))
    except (SQLAlchemyError, ValueError) as exc:
        return _fail(f"--database: {type(exc).__name__}: {exc}")
    report.ledger_checked = True
    return None


def _verify_file(args: argparse.Namespace, show: bool) -> int:
    from riverboat.audit.archive import ArchiveError
    from riverboat.audit.verify import verify_file

    try:
        with progress_bar("verifying", enabled=show) as bar:
            report = verify_file(Path(args.source), jobs=max(1, args.jobs), progress=bar.update)
    except (ArchiveError, OSError) as exc:
        return _fail(str(exc))
    return _print(report, as_json=args.json)


def _print(report: Any, *, as_json: bool) -> int:
    if as_json:
        json.dump(report.to_json(), sys.stdout, indent=2)
        print()
    else:
        print("\n".join(report.summary_lines()))
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_export(args: argparse.Namespace) -> int:
    """Copy the raw streams into an archive file."""
    if not args.nats:
        return _fail("export reads the streams from NATS: give --nats URL")
    if args.output is None:
        return _fail("export needs -o FILE")
    args.source = None
    archive = load(args, show_progress=not args.no_progress)
    if isinstance(archive, int):
        return archive
    from riverboat.audit.archive import write_archive

    try:
        count = write_archive(args.output, archive)
    except OSError as exc:
        return _fail(f"cannot write {args.output}: {exc}")
    parts = ", ".join(f"{s.name} {s.messages} ({s.role})" for s in archive.manifest.streams)
    print(f"exported {count} messages to {args.output}: {parts}")
    return EXIT_OK
