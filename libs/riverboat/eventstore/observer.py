"""What an event store tells whoever watches it: each append's latency and outcome, each retry.

A metrics-neutral port: libraries cannot import the services' metrics, so the store reports to
an :class:`EventStoreObserver`, and a service installs one (``riverboat.services.common.metrics``
does, on import). Nothing installed: the observer does nothing, at the cost of one attribute
read and a no-op call per append.

The same port carries trace context the other way: :meth:`EventStoreObserver.append_headers` is
asked for extra headers on each append (the W3C ``traceparent`` when tracing is on), so an event
carries the trace of the call that wrote it on to its consumers.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["EventStoreObserver", "current", "install"]


class EventStoreObserver:
    """Receives the store's observations; every method is a no-op here (subclass what you need).

    Implementations must be cheap and must not raise: they run inside every append.
    """

    def appended(self, stream: str, seconds: float, outcome: str) -> None:
        """An append finished after ``seconds``.

        ``outcome``: ``ok``, ``duplicate`` (the request id was recorded already), ``conflict``
        (another writer got there first), ``unavailable`` (not sent), ``unknown`` (sent, not
        confirmed) or ``error``.
        """

    def retried(self, stream: str, reason: str) -> None:
        """An append is being tried again (``reason``: why, e.g. ``stale_sequence``)."""

    def append_headers(self) -> Mapping[str, str] | None:
        """Extra message headers for the append about to be sent (None: none)."""
        return None


_current: EventStoreObserver = EventStoreObserver()


def install(observer: EventStoreObserver) -> None:
    """Make ``observer`` the one every store reports to (process-wide; the last call wins)."""
    global _current
    _current = observer


def current() -> EventStoreObserver:
    """The installed observer (a do-nothing one until :func:`install`)."""
    return _current
