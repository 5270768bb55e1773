"""``riverboat settlement serve | migrate | rebuild | check | dump``."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

__all__ = ["PROGRESS_FROM", "register"]

PROGRESS_FROM = 2_000  # records: shorter replays finish before a progress bar would help


def register(groups: Any) -> None:
    """Add the ``settlement`` command group."""
    from riverboat.services.settlement.config import add_arguments, add_store_arguments

    group = groups.add_parser(
        "settlement", help="the settlement service (wallets, ledger, rake) and its ledger tools"
    )
    sub = group.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")

    serve = sub.add_parser(
        "serve",
        help="run the settlement service until SIGTERM or Ctrl-C",
        description="Serve riverboat.v1.SettlementService (see docs/settlement-service.md).",
    )
    add_arguments(serve)
    serve.set_defaults(handler=cmd_serve)

    migrate = sub.add_parser("migrate", help="create or upgrade the ledger's schema")
    add_store_arguments(migrate)
    migrate.set_defaults(handler=cmd_migrate)

    rebuild = sub.add_parser(
        "rebuild",
        help="drop the ledger and replay the wallet and table logs into it",
        description="Stop the settlement service first: it writes to the same database.",
    )
    add_store_arguments(rebuild)
    rebuild.add_argument(
        "--no-progress",
        "--quiet",
        dest="quiet",
        action="store_true",
        help="never show a progress bar",
    )
    rebuild.set_defaults(handler=cmd_rebuild)

    check = sub.add_parser("check", help="check the ledger's invariants (exit status 1 if broken)")
    add_store_arguments(check)
    check.set_defaults(handler=cmd_check)

    dump = sub.add_parser("dump", help="print the ledger's canonical dump (to compare ledgers)")
    add_store_arguments(dump)
    dump.add_argument("--digest", action="store_true", help="print only its SHA-256")
    dump.set_defaults(handler=cmd_dump)


def _config(args: argparse.Namespace) -> Any:
    from riverboat.services.settlement.config import ConfigError, SettlementConfig

    try:
        return SettlementConfig.from_namespace(args, os.environ)
    except ConfigError as exc:
        print(f"riverboat settlement: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the service; 0 after a clean shutdown, 1 if it cannot start, 2 on bad settings."""
    from riverboat.services.settlement.server import run

    return run(args)


def cmd_migrate(args: argparse.Namespace) -> int:
    """Bring the schema to the newest revision."""
    from riverboat.ledger.db import create_ledger_engine
    from riverboat.ledger.migrate import current_revision, upgrade

    config = _config(args)
    engine = create_ledger_engine(config.database_url)
    try:
        before = current_revision(engine)
        upgrade(engine)
        after = current_revision(engine)
    finally:
        engine.dispose()
    change = "already at" if before == after else f"{before or 'empty'} ->"
    print(f"ledger schema {change} revision {after} ({config.database_display})")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Print the invariant report; exit status 1 if any invariant is broken."""
    from riverboat.ledger.db import create_ledger_engine
    from riverboat.ledger.invariants import check_ledger
    from riverboat.ledger.migrate import current_revision

    config = _config(args)
    engine = create_ledger_engine(config.database_url)
    try:
        if current_revision(engine) is None:
            print(f"no ledger at {config.database_display} (run: riverboat settlement migrate)")
            return 1
        with engine.connect() as conn:
            report = check_ledger(conn)
    finally:
        engine.dispose()
    print(report.render(config.database_display))
    return 0 if report.ok else 1


def cmd_dump(args: argparse.Namespace) -> int:
    """Print the canonical dump (or its digest)."""
    from riverboat.ledger.db import create_ledger_engine
    from riverboat.ledger.dump import canonical_dump, digest

    config = _config(args)
    engine = create_ledger_engine(config.database_url)
    try:
        with engine.connect() as conn:
            text = canonical_dump(conn)
    finally:
        engine.dispose()
    sys.stdout.write(digest(text) + "\n" if args.digest else text)
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    """Replay the logs into a fresh ledger, then check it; 1 if an invariant is broken."""
    return asyncio.run(_rebuild(args))


async def _rebuild(args: argparse.Namespace) -> int:
    import nats

    from riverboat.cli.progress import progress_bar
    from riverboat.ledger.db import create_ledger_engine
    from riverboat.ledger.invariants import check_ledger
    from riverboat.services.settlement.rebuild import RebuildError, count_records, rebuild

    config = _config(args)
    try:
        nc = await nats.connect(
            connect_timeout=5,
            max_reconnect_attempts=3,
            **config.nats.connect_options(),
        )
    except Exception as exc:
        print(
            f"riverboat settlement: cannot reach NATS at {config.nats_url}: {exc}", file=sys.stderr
        )
        return 1
    engine = create_ledger_engine(config.database_url)
    try:
        total = await count_records(nc, config)
        with progress_bar(
            "replaying records", enabled=not args.quiet and total >= PROGRESS_FROM, total=total
        ) as bar:
            try:
                result = await rebuild(engine, nc, config, progress=bar.advance)
            except RebuildError as exc:
                print(f"riverboat settlement: rebuild failed: {exc}", file=sys.stderr)
                return 1
        with engine.connect() as conn:
            report = check_ledger(conn)
    finally:
        await nc.close()
        engine.dispose()
    print(
        f"rebuilt {config.database_display} from {result.records.get('wallets', 0):,} wallet "
        f"and {result.records.get('tables', 0):,} table records in {result.seconds:.1f}s"
    )
    if result.before is None:
        print(f"ledger digest {result.after} (there was no ledger before)")
    elif result.before == result.after:
        print(f"ledger digest {result.after}: identical to the ledger before the rebuild")
    else:
        print(f"ledger digest {result.before} before, {result.after} after: they DIFFER")
    for violation in result.violations:
        print(
            f"invariant {violation.check} broken at table {violation.table_id} hand "
            f"{violation.hand_id}: {violation.message}"
        )
    print(report.render(config.database_display))
    return 0 if report.ok and not result.violations else 1
