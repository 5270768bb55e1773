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
        metavar="FILE | export | heads",
        help="an archive made by 'riverboat audit export', the word 'export' to make one, or "
        "'heads' to publish signed chain heads",
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
    heads = audit.add_argument_group("chain heads (docs/audit.md)")
    heads.add_argument(
        "--heads",
        type=Path,
        metavar="FILE",
        help="check the log against the signed chain heads published in FILE; with 'heads': "
        "append each publication to FILE",
    )
    heads.add_argument(
        "--heads-key",
        type=Path,
        metavar="KEYFILE",
        help="the publisher's Ed25519 key: its private key (hex, made if missing) to publish, "
        "its public key (KEYFILE or KEYFILE.pub, hex) to check",
    )
    heads.add_argument(
        "--publish-command",
        metavar="CMD",
        help="with 'heads': also pipe each publication line to this command (an external "
        "timestamping service's client)",
    )
    heads.add_argument(
        "--interval", type=float, default=60.0, help="with 'heads': seconds between publications"
    )
    heads.add_argument(
        "--times", type=int, default=0, help="with 'heads': publish this many times (0: forever)"
    )
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
    if args.source == "heads":
        return cmd_heads(args)
    if (args.heads is None) != (args.heads_key is None):
        return _fail("--heads and --heads-key go together")
    if args.output is not None:
        return _fail("-o/--output is for 'riverboat audit export'")
    show = not args.no_progress
    if args.source and not args.nats and not args.database and args.heads is None:
        return _verify_file(args, show)
    heads: tuple[Any, Any] | None = None
    if args.heads is not None:
        # Read before the log: a head published while the log is read (a live room) could
        # name a version past the end of what was read, which is no fault of the log's.
        read = _read_heads(args.heads, args.heads_key)
        if isinstance(read, int):
            return read
        heads = read
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
    if heads is not None:
        key, publications = heads
        from riverboat.audit.heads import check_heads
        from riverboat.audit.verify import split_tables

        report.violations.extend(check_heads(split_tables(archive), publications, key))
        report.heads_checked = len(publications)
    return _print(report, as_json=args.json)


def _public_key(path: Path) -> Any:
    """The publisher's public key: KEYFILE.pub if it exists, else KEYFILE (hex either way)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    pub = path.with_name(path.name + ".pub")
    text = (pub if pub.exists() else path).read_text(encoding="ascii").strip()
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))


def _read_heads(heads: Path, key_file: Path) -> tuple[Any, Any] | int:
    """The publisher's key and the publications in ``heads``; an exit status if unreadable."""
    from riverboat.audit.heads import HeadsError, read_publications

    try:
        return _public_key(key_file), read_publications(heads)
    except (HeadsError, OSError, ValueError) as exc:
        return _fail(f"--heads: {exc}")


def _private_key(path: Path) -> Any:
    """The publisher's private key, made (0600, and KEYFILE.pub beside it) if missing."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    from riverboat.audit.heads import public_key_hex

    if path.exists():
        return Ed25519PrivateKey.from_private_bytes(
            bytes.fromhex(path.read_text(encoding="ascii").strip())
        )
    key = Ed25519PrivateKey.generate()
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(raw.hex() + "\n")
    path.with_name(path.name + ".pub").write_text(public_key_hex(key) + "\n", encoding="ascii")
    return key


def cmd_heads(args: argparse.Namespace) -> int:
    """Publish each table's chain head, signed, every ``--interval`` seconds."""
    import datetime
    import time

    from riverboat.audit.heads import heads_of, sign_publication
    from riverboat.audit.verify import split_tables

    if not args.nats or args.heads is None or args.heads_key is None:
        return _fail(
            "heads reads the streams from NATS: give --nats URL --heads FILE --heads-key KEYFILE"
        )
    try:
        key = _private_key(args.heads_key)
    except (OSError, ValueError) as exc:
        return _fail(f"--heads-key: {exc}")
    args.source = None
    done = unsent = 0
    while True:
        archive = load(args, show_progress=False)
        if isinstance(archive, int):
            return archive
        heads = heads_of(split_tables(archive))
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        line = sign_publication(key, now, heads)
        with args.heads.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
        if args.publish_command and not _send_publication(args.publish_command, line, args):
            unsent += 1
        print(
            f"published the chain heads of {len(heads)} tables at {now} to {args.heads}", flush=True
        )
        done += 1
        if args.times and done >= args.times:
            # Every line is in the local file; one the outside service did not take fails.
            return EXIT_FAILED if unsent else EXIT_OK
        time.sleep(args.interval)


def _send_publication(command: str, line: str, args: argparse.Namespace) -> bool:
    """Pipe one publication line to ``command``; False (and a line on stderr) if it failed."""
    import subprocess

    try:
        sent = subprocess.run(
            command,
            shell=True,
            input=line + "\n",
            text=True,
            check=False,
            timeout=max(10.0, args.interval),
        )
    except subprocess.TimeoutExpired:
        print(f"riverboat audit heads: {command!r} did not finish in time", file=sys.stderr)
        return False
    if sent.returncode:
        print(f"riverboat audit heads: {command!r} exited {sent.returncode}", file=sys.stderr)
        return False
    return True


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
