"""structlog set-up shared by Riverboat's services: JSON lines or a console view.

Call :func:`configure_logging` once at start-up. Every line then carries an ISO-8601 UTC
timestamp, the level, the logger name and whatever is bound in structlog's context variables
(the :class:`~riverboat.services.common.errors.ErrorInterceptor` binds the RPC name and chosen
request fields there). Records from the standard :mod:`logging` module (nats-py, gRPC) are
rendered the same way, so the output stays one format.

Tracebacks are always rendered *without local variables*. structlog's defaults (Rich in the
console, ``ExceptionDictTransformer`` for JSON) print locals, and in a dealer a local variable
can be a seed or a deck.
"""

from __future__ import annotations

import logging
import sys
from typing import Literal, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

__all__ = ["LogFormat", "configure_logging", "reset_logging", "resolve_format"]

LogFormat = Literal["json", "console", "auto"]

_HANDLER_MARK = "_riverboat_handler"


def resolve_format(fmt: str, stream: TextIO) -> Literal["json", "console"]:
    """``auto`` means console on a terminal, JSON otherwise (files, pipes, containers)."""
    if fmt == "auto":
        return "console" if _isatty(stream) else "json"
    if fmt not in ("json", "console"):
        raise ValueError(f"log format must be json, console or auto, got {fmt!r}")
    return fmt  # type: ignore[return-value]


def configure_logging(
    *,
    fmt: str = "auto",
    level: str | int = "info",
    stream: TextIO | None = None,
    service: str | None = None,
) -> None:
    """Configure structlog and the standard library's root logger; safe to call again.

    Args:
        fmt: ``"json"`` (one object per line), ``"console"`` (human-readable) or ``"auto"``.
        level: minimum level, as a name (``"debug"``) or a :mod:`logging` number.
        stream: where lines go; default ``sys.stderr`` (looked up now, so tests can swap it).
        service: if given, added to every line as ``service``.
    """
    out = stream if stream is not None else sys.stderr
    numeric = _level_number(level)
    renderer_kind = resolve_format(fmt, out)

    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if service is not None:
        shared.append(_add_service(service))

    renderer: Processor
    if renderer_kind == "json":
        renderer = structlog.processors.JSONRenderer(sort_keys=False)
        exception_step: list[Processor] = [structlog.processors.format_exc_info]
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=_isatty(out), exception_formatter=structlog.dev.plain_traceback
        )
        exception_step = []  # the console renderer formats exc_info itself (plainly)

    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        # Not cached: reconfiguring (tests, a changed level) must reach existing loggers.
        cache_logger_on_first_use=False,
    )

    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *exception_step,
            renderer,
        ],
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    setattr(handler, _HANDLER_MARK, True)

    root = logging.getLogger()
    _remove_handlers(root)
    root.addHandler(handler)
    root.setLevel(numeric)
    # gRPC's Cython layer logs a line per RPC at debug ("Loaded running loop"): noise.
    logging.getLogger("grpc._cython").setLevel(max(numeric, logging.INFO))


def reset_logging() -> None:
    """Undo :func:`configure_logging` (for tests and embedding): structlog's defaults, the
    root logger without our handler and at its default level."""
    structlog.reset_defaults()
    root = logging.getLogger()
    _remove_handlers(root)
    root.setLevel(logging.WARNING)  # the standard library's default
    logging.getLogger("grpc._cython").setLevel(logging.NOTSET)


def _remove_handlers(root: logging.Logger) -> None:
    for old in list(root.handlers):
        if getattr(old, _HANDLER_MARK, False):
            root.removeHandler(old)
            old.close()  # a StreamHandler leaves its stream open: we do not own it


def _add_service(service: str) -> Processor:
    def add(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
        event.setdefault("service", service)
        return event

    return add


def _level_number(level: str | int) -> int:
    if isinstance(level, int):
        return level
    number = logging.getLevelName(level.upper())
    if not isinstance(number, int):
        raise ValueError(f"unknown log level {level!r}")
    return number


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
