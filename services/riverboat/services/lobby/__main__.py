"""``python -m riverboat.services.lobby``: run the lobby (see ``--help``)."""

from __future__ import annotations

import argparse
import os

from riverboat import eventloop
from riverboat.services.common import configure_logging
from riverboat.services.common.metrics import add_metrics_arguments, start_metrics
from riverboat.services.common.natslogin import NatsLoginError, add_nats_login_arguments, nats_login
from riverboat.services.common.tracing import add_tracing_arguments, start_tracing
from riverboat.services.lobby.config import LobbyConfig
from riverboat.services.lobby.server import serve


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line flags (RIVERBOAT_* environment variables give the defaults)."""
    parser = argparse.ArgumentParser(prog="riverboat-lobby", description="Riverboat lobby")
    parser.add_argument("--address", help="listen address (default 127.0.0.1:50051)")
    parser.add_argument("--nats", dest="nats_url", help="NATS URL (nats://127.0.0.1:4333)")
    add_nats_login_arguments(parser)
    parser.add_argument("--table", dest="table_address", help="table service (127.0.0.1:50052)")
    parser.add_argument(
        "--settlement", dest="settlement_address", help="settlement service (127.0.0.1:50054)"
    )
    parser.add_argument("--stream", help="JetStream stream of the lobby's log (RB_LOBBY)")
    parser.add_argument("--subject-prefix", help="subject prefix of the lobby's log (rb.lobby)")
    parser.add_argument(
        "--account",
        action="append",
        default=[],
        metavar="USER:ROLE",
        help="ensure an operator or auditor account exists at start-up; its password comes "
        "from the environment variable RIVERBOAT_PASSWORD_<USER> (repeatable)",
    )
    parser.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        metavar="METHOD.SCOPE=RATE",
        help="a Register or Login limit per account or per peer, e.g. Login.peer=30/min or "
        "Register.account=off (repeatable; over RIVERBOAT_RATE_LIMITS; defaults: "
        "Register.account=5/min, Register.peer=120/min, Login.account=30/min, "
        "Login.peer=300/min)",
    )
    parser.add_argument(
        "--hash-workers",
        type=int,
        help="password hashes run at once, 64 MiB each (env RIVERBOAT_HASH_WORKERS; default 2)",
    )
    parser.add_argument(
        "--hash-queue",
        type=int,
        help="Register/Login calls that may wait for a hash; more are refused with "
        "RESOURCE_EXHAUSTED (env RIVERBOAT_HASH_QUEUE; default 16)",
    )
    parser.add_argument(
        "--hash-per-peer",
        type=int,
        help="of the hashing places (running or waiting), how many one peer address may hold "
        "(env RIVERBOAT_HASH_PER_PEER; default 4)",
    )
    add_metrics_arguments(parser)
    parser.add_argument(
        "--owners-bucket",
        help="the table leases' KV bucket, where the owner of each table is read "
        "(env RIVERBOAT_OWNERS_BUCKET; default RB_TABLE_OWNERS)",
    )
    parser.add_argument(
        "--sweep-seconds",
        type=float,
        help="seconds between sweeps of the lobby's log for other lobby instances' changes "
        "that a nudge missed (env RIVERBOAT_LOBBY_SWEEP_SECONDS; default 30)",
    )
    add_tracing_arguments(parser)
    parser.add_argument("--log-format", default="auto", choices=["auto", "json", "console"])
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run until SIGTERM/SIGINT."""
    args = parse(argv)
    try:
        login = nats_login(args)
    except NatsLoginError as exc:
        raise SystemExit(f"riverboat-lobby: {exc}") from None
    configure_logging(fmt=args.log_format, service="lobby")
    bootstrap = []
    for spec in args.account:
        user, _, role = spec.partition(":")
        if role not in ("operator", "auditor"):
            raise SystemExit(f"--account {spec}: the role is operator or auditor")
        password = os.environ.get(f"RIVERBOAT_PASSWORD_{user.upper().replace('-', '_')}")
        if not password:
            raise SystemExit(f"--account {spec}: set RIVERBOAT_PASSWORD_{user.upper()}")
        bootstrap.append((user, password, role))
    try:
        config = LobbyConfig.from_env(
            rate_limits=args.rate_limit,
            hash_workers=args.hash_workers,
            hash_queue=args.hash_queue,
            hash_per_peer=args.hash_per_peer,
            sweep_seconds=args.sweep_seconds,
            owners_bucket=args.owners_bucket,
            address=args.address,
            nats_url=args.nats_url,
            nats_login=login,
            table_address=args.table_address,
            settlement_address=args.settlement_address,
            stream=args.stream,
            subject_prefix=args.subject_prefix,
            bootstrap=tuple(bootstrap),
        )
    except ValueError as exc:
        raise SystemExit(f"riverboat-lobby: {exc}") from None
    start_metrics(args, "riverboat-lobby")
    start_tracing(args, "lobby", "riverboat-lobby")
    eventloop.run(serve(config))


if __name__ == "__main__":
    main()
