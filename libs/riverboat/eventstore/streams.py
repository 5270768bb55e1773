"""Creating and checking JetStream streams: the one way every Riverboat stream is set up.

:func:`ensure_stream_config` creates a stream from the configuration its owner wants, or checks
an existing one against it:

* fields the owner relies on and the server cannot change (``fixed``: storage, the write-once
  limits, ``deny_delete``) must match, else :class:`StreamConfigError`;
* fields the owner manages (``managed``: description, duplicate window, ...) are updated in
  place when they differ;
* replicas are never changed on an existing stream. An operator who runs a stream at R3 must not
  see a service started with the default ``--replicas 1`` shrink it, and growing a stream is a
  decision for the operator (``nats stream edit NAME --replicas 3``), not a side effect of a
  restart. A difference is reported: :attr:`StreamCheck.mismatch` (a sentence for a tool to
  print) and a warning on the ``riverboat.eventstore`` logger.

Creating or checking a stream retries JetStream's transient failures
(:data:`riverboat.retrying.STREAM_SETUP`): a cluster that has just started, or is electing its
meta leader, answers stream requests late or not at all for a few seconds, and one whose node
just restarted has no place for a replicated stream's replicas until the node is counted online
("no suitable peers for placement"); a service starting then must wait, not exit.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

import nats.errors
import nats.js.errors
from nats.js import JetStreamContext
from nats.js.api import StreamConfig

from riverboat import retrying
from riverboat.eventstore.errors import StreamConfigError
from riverboat.eventstore.retry import transient_kind

__all__ = ["StreamCheck", "ensure_stream_config"]

_ERR_STREAM_NAME_IN_USE = 10058  # add_stream raced with another creator, different config
_ERR_NO_PEERS = 10005  # "no suitable peers for placement": replicas have nowhere to go yet

_log = logging.getLogger("riverboat.eventstore")


@dataclass(frozen=True, slots=True)
class StreamCheck:
    """What :func:`ensure_stream_config` found or did.

    Attributes:
        stream: the stream's name.
        created: it did not exist and was created with the wanted configuration.
        replicas: the replicas the stream has.
        wanted_replicas: the replicas the caller asked for.
        updated: managed fields were brought in line (a ``STREAM.UPDATE`` was sent).
    """

    stream: str
    created: bool
    replicas: int
    wanted_replicas: int
    updated: bool = False

    @property
    def mismatch(self) -> str | None:
        """One sentence when the stream's replicas differ from the wanted ones, else None."""
        if self.replicas == self.wanted_replicas:
            return None
        return (
            f"stream {self.stream!r} has {self.replicas} replica(s), configured "
            f"{self.wanted_replicas}; left as it is (change it with: nats stream edit "
            f"{self.stream} --replicas {self.wanted_replicas})"
        )


async def ensure_stream_config(
    js: JetStreamContext,
    desired: StreamConfig,
    *,
    fixed: Sequence[str],
    managed: Sequence[str] = (),
    retry: retrying.Policy = retrying.STREAM_SETUP,
) -> StreamCheck:
    """Create ``desired``'s stream, or check and reconcile the existing one (module doc).

    Args:
        js: the JetStream context to ask.
        desired: the full configuration wanted (``num_replicas`` included).
        fixed: fields that must already be as wanted (the owner's guarantees depend on them).
        managed: fields updated in place when they differ.
        retry: how long transient failures (timeouts, no responders, JetStream unavailable)
            are retried; each try starts again from the stream's info, so a creation that
            timed out but happened is found and checked.

    Raises:
        StreamConfigError: a ``fixed`` field differs (the message lists each one).
        nats.errors.Error: NATS failed for good, or past ``retry`` (the caller maps it).
    """
    name = str(desired.name)

    def retried(exc: BaseException, pause: float, failures: int) -> None:
        kind = _transient(exc)
        _log.warning("stream_setup_retry: %s (%s)", name, kind, extra={"stream": name})

    return await retrying.call(
        lambda: _ensure_once(js, desired, fixed, managed),
        retry,
        transient=_transient,
        on_retry=retried,
    )


def _transient(exc: BaseException) -> str | None:
    # A connection closed for good does not come back: waiting out the budget would only
    # delay the caller's error.
    if isinstance(exc, nats.errors.ConnectionClosedError):
        return None
    # A node just (re)started is not counted online by the meta leader for a moment, and a
    # replicated stream made or updated then is refused "no suitable peers for placement, peer
    # offline" (seen on CI right after a node's restart): placement comes within seconds.
    if isinstance(exc, nats.js.errors.APIError) and exc.err_code == _ERR_NO_PEERS:
        return "no_peers"
    return transient_kind(exc)


async def _ensure_once(
    js: JetStreamContext, desired: StreamConfig, fixed: Sequence[str], managed: Sequence[str]
) -> StreamCheck:
    name = str(desired.name)
    wanted = int(desired.num_replicas or 1)
    try:
        info = await js.stream_info(name)
    except nats.js.errors.NotFoundError:
        try:
            await js.add_stream(desired)
            return StreamCheck(name, created=True, replicas=wanted, wanted_replicas=wanted)
        except nats.js.errors.APIError as exc:
            if exc.err_code != _ERR_STREAM_NAME_IN_USE:
                raise
            info = await js.stream_info(name)  # a peer created it meanwhile: check theirs
    current = info.config
    clashes = [
        f"{key}={getattr(current, key)!r} (want {getattr(desired, key)!r})"
        for key in fixed
        if getattr(current, key) != getattr(desired, key)
    ]
    if clashes:
        raise StreamConfigError(
            f"stream {name!r} exists with settings that cannot be changed in place: "
            f"{', '.join(clashes)}; use another stream name or migrate it"
        )
    have = int(current.num_replicas or 1)
    keys = [key for key in managed if key != "num_replicas"]
    reconciled = replace(current, **{key: getattr(desired, key) for key in keys})
    updated = False
    if _comparable(reconciled, keys) != _comparable(current, keys):
        await js.update_stream(reconciled)
        updated = True
    check = StreamCheck(name, created=False, replicas=have, wanted_replicas=wanted, updated=updated)
    if check.mismatch is not None:
        _log.warning(
            "stream_replicas_mismatch: %s",
            check.mismatch,
            extra={"stream": name, "replicas": have, "wanted_replicas": wanted},
        )
    return check


def _comparable(config: StreamConfig, keys: Sequence[str]) -> dict[str, object]:
    # As the server would see them (as_dict: durations in nanoseconds, unset fields absent).
    data = config.as_dict()
    return {key: data.get(key) for key in keys}
