"""One start-up for every Riverboat service (lobby, table, dealer, settlement).

:func:`start` takes the parsed command line (from the service's own ``python -m`` entry point
or from ``riverboat <service> serve``) and runs the same steps in the same order for all four:

1. build the frozen config (flags over ``RIVERBOAT_*`` over defaults, ``common.config``);
2. require the token key (every service verifies tokens);
3. configure logging;
4. prepare the service's main coroutine (``serve``; the dealer loads its sealing key here,
   after logging, as loading the development key logs a warning);
5. serve metrics and turn tracing on if asked;
6. run the event loop until SIGTERM/SIGINT.

A bad setting (a :class:`~riverboat.services.common.config.ConfigError` or another
``ValueError`` from steps 1 or 4) is one line, ``<prog>: error: <message>``, on stderr and exit
status 2 with no traceback, as argparse's own errors are; a Ctrl-C before the signal handlers
are installed is status 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from riverboat import eventloop
from riverboat.services.common.logs import configure_logging
from riverboat.services.common.metrics import start_metrics
from riverboat.services.common.secrets import require_token_key
from riverboat.services.common.tracing import start_tracing

__all__ = ["run_main", "start"]


class _Logged(Protocol):
    @property
    def log_format(self) -> str: ...

    @property
    def log_level(self) -> str: ...


C = TypeVar("C", bound=_Logged)


def start(
    prog: str,
    service: str,
    args: argparse.Namespace,
    build: Callable[[argparse.Namespace, Mapping[str, str]], C],
    serve: Callable[[C], Coroutine[Any, Any, int]],
) -> int:
    """Start ``service`` from parsed ``args``: the steps above; the process's exit status.

    ``prog`` names the service in error lines and in the metrics and tracing start-up steps;
    ``service`` names it in logs and traces (``lobby``, ``table``, ``dealer``, ``settlement``).
    """
    try:
        config = build(args, os.environ)
    except ValueError as exc:  # ConfigError and the services' own ValueErrors
        return _refuse(prog, exc)
    require_token_key(prog)
    configure_logging(fmt=config.log_format, level=config.log_level, service=service)
    try:
        main = serve(config)
    except ValueError as exc:
        return _refuse(prog, exc)
    try:
        start_metrics(args, prog)
        start_tracing(args, service, prog)
        return eventloop.run(main)
    except KeyboardInterrupt:  # a signal before the handlers were installed
        return 130
    finally:
        main.close()  # never started (metrics or tracing refused): no "never awaited" warning


def run_main(
    prog: str,
    service: str,
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    build: Callable[[argparse.Namespace, Mapping[str, str]], C],
    serve: Callable[[C], Coroutine[Any, Any, int]],
) -> int:
    """A service's ``main``: parse ``argv`` with ``parser``, then :func:`start`."""
    return start(prog, service, parser.parse_args(argv), build, serve)


def _refuse(prog: str, exc: ValueError) -> int:
    print(f"{prog}: error: {exc}", file=sys.stderr)
    return 2
