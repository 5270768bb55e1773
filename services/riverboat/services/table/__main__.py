"""``python -m riverboat.services.table``: run the table service (see ``--help``)."""

from __future__ import annotations

import argparse

from riverboat import eventloop
from riverboat.services.common import configure_logging
from riverboat.services.common.metrics import add_metrics_arguments, start_metrics
from riverboat.services.common.natslogin import NatsLoginError, add_nats_login_arguments, nats_login
from riverboat.services.common.tracing import add_tracing_arguments, start_tracing
from riverboat.services.table.config import TableConfig
from riverboat.services.table.server import serve


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line flags (environment variables RIVERBOAT_* give the defaults)."""
    parser = argparse.ArgumentParser(prog="riverboat-table", description="Riverboat table service")
    parser.add_argument("--address", help="listen address (default 127.0.0.1:50052)")
    parser.add_argument("--nats", dest="nats_url", help="NATS URL (default nats://127.0.0.1:4333)")
    add_nats_login_arguments(parser)
    parser.add_argument("--dealer", dest="dealer_address", help="dealer address (127.0.0.1:50053)")
    parser.add_argument("--hand-pause", type=float, help="seconds between hands (default 2)")
    parser.add_argument("--stream", help="JetStream stream of table logs (default RB_TABLES)")
    parser.add_argument("--subject-prefix", help="subject prefix of table logs (rb.tables)")
    parser.add_argument(
        "--rate-limit",
        action="append",
        default=[],
        metavar="METHOD.SCOPE=RATE",
        help="an Act or Watch limit per account or per peer, e.g. Act.account=20/s or "
        "Watch.peer=off (repeatable; over RIVERBOAT_RATE_LIMITS; defaults: Act.account=50/s, "
        "Act.peer=5000/s, Watch.account=120/min, Watch.peer=20000/min)",
    )
    parser.add_argument(
        "--max-watch-streams",
        type=int,
        help="Watch streams one account may hold open at once (env "
        "RIVERBOAT_MAX_WATCH_STREAMS; default 32)",
    )
    add_metrics_arguments(parser)
    add_tracing_arguments(parser)
    parser.add_argument("--log-format", default="auto", choices=["auto", "json", "console"])
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run until SIGTERM/SIGINT."""
    args = parse(argv)
    try:
        login = nats_login(args)
    except NatsLoginError as exc:
        raise SystemExit(f"riverboat-table: {exc}") from None
    configure_logging(fmt=args.log_format, service="table")
    try:
        config = TableConfig.from_env(
            rate_limits=args.rate_limit,
            max_watch_streams=args.max_watch_streams,
            address=args.address,
            nats_url=args.nats_url,
            nats_login=login,
            dealer_address=args.dealer_address,
            hand_pause=args.hand_pause,
            stream=args.stream,
            subject_prefix=args.subject_prefix,
        )
    except ValueError as exc:
        raise SystemExit(f"riverboat-table: {exc}") from None
    start_metrics(args, "riverboat-table")
    start_tracing(args, "table", "riverboat-table")
    eventloop.run(serve(config))


if __name__ == "__main__":
    main()
