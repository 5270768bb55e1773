"""Building blocks every Riverboat gRPC service shares.

* :mod:`~riverboat.services.common.logs`: :func:`configure_logging` (structlog, JSON or
  console, no local variables in tracebacks).
* :mod:`~riverboat.services.common.grpcserver`: :class:`GrpcServer` (grpc.aio with health
  checking, reflection, graceful stop) and :class:`ShutdownSignals` (SIGTERM/SIGINT).
* :mod:`~riverboat.services.common.errors`: :class:`ServiceError` and its status-specific
  subclasses, and :class:`ErrorInterceptor`, which sends them as gRPC statuses with the
  standard ``google.rpc.Status`` details (ErrorInfo, BadRequest, RetryInfo), turns anything
  else into ``INTERNAL`` without a traceback, and logs one line per RPC;
  :class:`ResourceExhausted` carries a retry delay.
* :mod:`~riverboat.services.common.limits`: :class:`RateLimitInterceptor` (rate limits per
  account and per peer, a cap on each account's open streams) and its :class:`RateLimits`.
* :mod:`~riverboat.services.common.natshealth`: :class:`ConnectionHealth` (health follows
  the NATS connection).
* :mod:`~riverboat.services.common.addresses`: :func:`split_address`.

A typical service::

    configure_logging(fmt="auto", level="info", service="table")
    server = GrpcServer(address, service_names=[NAME],
                        interceptors=[ErrorInterceptor(context_fields=("table_id",))])
    add_XServicer_to_server(servicer, server.server)
    await server.start()                 # health: NOT_SERVING
    ...connect dependencies...
    await server.set_serving(True)       # health: SERVING
    async with ShutdownSignals() as signals:
        await signals.wait()
    await server.stop()
"""

from riverboat.services.common.addresses import split_address
from riverboat.services.common.errors import (
    REASON_LOG_UNAVAILABLE,
    REASON_OUTCOME_UNKNOWN,
    RETRY_SAME_REQUEST,
    Aborted,
    AlreadyExists,
    DataLoss,
    ErrorInterceptor,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    Unavailable,
    log_error,
)
from riverboat.services.common.grpcserver import BindError, GrpcServer, ShutdownSignals
from riverboat.services.common.logs import configure_logging
from riverboat.services.common.natshealth import ConnectionHealth

__all__ = [
    "REASON_LOG_UNAVAILABLE",
    "REASON_OUTCOME_UNKNOWN",
    "RETRY_SAME_REQUEST",
    "Aborted",
    "AlreadyExists",
    "BindError",
    "ConnectionHealth",
    "DataLoss",
    "ErrorInterceptor",
    "FailedPrecondition",
    "GrpcServer",
    "Internal",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "ResourceExhausted",
    "ServiceError",
    "ShutdownSignals",
    "Unavailable",
    "configure_logging",
    "log_error",
    "split_address",
]
