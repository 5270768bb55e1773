"""Leases in a JetStream key-value bucket (default ``RB_TABLE_OWNERS``).

One key per table, history 1. Each write carries the ``Nats-TTL`` header (per-message TTL,
nats-server 2.11+), so a lease lasts its TTL from its last write whatever the bucket's other
settings, and every write names the key's last revision
(``Nats-Expected-Last-Subject-Sequence``), so of two instances racing for a key, one wins. When a
lease expires the server removes it and leaves a short-lived marker (the bucket's
``limit_marker_ttl``), which is how watchers hear of it at once.

The bucket's stream (``KV_<bucket>``) is created and checked like every Riverboat stream, by
:func:`riverboat.eventstore.ensure_stream_config`: an existing bucket's replicas are never
changed, and a difference from the configured ones is reported (:attr:`stream_check`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math

import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js import api
from nats.js.kv import KV_DEL, KV_MARKER_REASON, KV_OP, KV_PURGE, KeyValue

from riverboat import retrying
from riverboat.eventstore.streams import StreamCheck, ensure_stream_config
from riverboat.leases.base import (
    Holder,
    Lease,
    LeaseChange,
    LeaseLost,
    LeaseStore,
    LeaseStoreUnavailable,
    LeaseTaken,
    LeaseWatch,
    validate_key,
)

__all__ = ["DEFAULT_BUCKET", "JetStreamLeaseStore", "owners_bucket"]

DEFAULT_BUCKET = "RB_TABLE_OWNERS"


def owners_bucket(stream: str = "RB_TABLES") -> str:
    """The lease bucket of the tables logged in ``stream``: ``RB_TABLE_OWNERS`` for the
    default ``RB_TABLES``, ``<stream>_OWNERS`` for any other (rooms sharing a NATS server on
    separate streams, as tests run them, keep separate owners)."""
    return DEFAULT_BUCKET if stream == "RB_TABLES" else f"{stream}_OWNERS"


#: JetStream's "wrong last sequence" error codes: someone else wrote the key first.
_WRONG_LAST = (10071, 10164)

#: Seconds an expiry or release marker stays in the bucket (watchers that start later need
#: not see it: a key with no live value reads as free).
_MARKER_TTL = 60.0

_UNREACHABLE = (
    nats.errors.TimeoutError,
    nats.errors.NoRespondersError,
    nats.errors.ConnectionClosedError,
    nats.errors.OutboundBufferLimitError,
    nats.js.errors.ServiceUnavailableError,
)


#: What the leases rely on in an existing bucket: its storage, one value per key, per-message
#: TTLs and no deletes but ours (a bucket made some other way is refused, not "fixed").
_FIXED = ("subjects", "storage", "max_msgs_per_subject", "allow_msg_ttl", "deny_delete")


def _bucket_config(bucket: str, replicas: int) -> api.StreamConfig:
    """The stream of a lease bucket: a KV bucket (the layout nats-py's KV client reads) with
    history 1, per-message TTLs and expiry markers."""
    return api.StreamConfig(
        name=f"KV_{bucket}",
        description="Riverboat table owners (one lease per table)",
        subjects=[f"$KV.{bucket}.>"],
        allow_direct=True,
        allow_rollup_hdrs=True,
        allow_msg_ttl=True,
        deny_delete=True,
        discard=api.DiscardPolicy.NEW,
        duplicate_window=120.0,
        max_consumers=-1,
        max_msgs=-1,
        max_msgs_per_subject=1,
        num_replicas=replicas,
        storage=api.StorageType.FILE,
        subject_delete_marker_ttl=_MARKER_TTL,
    )


def _ttl_header(ttl: float) -> str:
    # Milliseconds, so a fractional TTL is honoured (nats-py's msg_ttl rounds to seconds).
    return f"{math.ceil(ttl * 1000)}ms"


def _check_ttl(ttl: float) -> None:
    if ttl < 1:
        raise ValueError("lease ttl must be at least 1 second")


class _JetStreamWatch(LeaseWatch):
    def __init__(self, watcher: KeyValue.KeyWatcher) -> None:
        self._watcher = watcher
        self._closed = False

    async def __anext__(self) -> LeaseChange:
        async for entry in self._watcher:
            if entry is None:
                continue  # "caught up" marker
            if entry.operation in (KV_DEL, KV_PURGE):
                return LeaseChange(entry.key, None)
            return LeaseChange(
                entry.key, Lease(entry.key, Holder.decode(entry.value or b""), entry.revision or 0)
            )
        raise StopAsyncIteration

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            # Already gone with the connection: nothing left to stop.
            with contextlib.suppress(Exception):
                await self._watcher.stop()  # type: ignore[no-untyped-call]


class JetStreamLeaseStore(LeaseStore):
    """A :class:`LeaseStore` over a JetStream KV bucket. Create with :meth:`open`."""

    def __init__(
        self, nc: NATS, kv: KeyValue, *, bucket: str, ttl: float, stream: str, direct: bool
    ) -> None:
        self._nc = nc
        self._kv = kv
        # Each request answers within a third of the TTL: with nats-py's 5 s default, one
        # renewal hanging across a node restart outlived a 3 s lease (and held every other
        # renewal behind it), so a live owner lost its tables.
        self._js = nc.jetstream(timeout=min(5.0, ttl / 3))
        self.bucket = bucket
        self.ttl = ttl
        self._stream = stream
        self._prefix = f"$KV.{bucket}."
        # Direct gets (any replica answers) when the bucket allows them.
        self._direct = direct
        #: What :meth:`open` found or did to the bucket's stream (None: :meth:`attach`).
        self.stream_check: StreamCheck | None = None

    @classmethod
    async def open(
        cls, nc: NATS, *, ttl: float = 10.0, bucket: str = DEFAULT_BUCKET, replicas: int = 1
    ) -> JetStreamLeaseStore:
        """Open the bucket as its owner (the table service): create it with ``replicas``, or
        check the existing one (:func:`~riverboat.eventstore.ensure_stream_config`: replicas
        never changed, a mismatch logged and kept in :attr:`stream_check`).

        ``ttl`` (seconds, at least 1: the server's smallest per-message TTL) is this store's
        leases' life; instances may use different TTLs on the same bucket.

        Raises:
            LeaseStoreUnavailable: NATS did not answer.
            StreamConfigError: the bucket exists with settings the leases cannot rely on.
        """
        _check_ttl(ttl)
        js = nc.jetstream()
        try:
            check = await ensure_stream_config(js, _bucket_config(bucket, replicas), fixed=_FIXED)
            # Just made (here or by another instance starting with us), a replicated bucket's
            # stream may not be found for a moment on a cluster (seen with two instances
            # starting together): it exists, so its lookup is tried again for a while.
            kv = await retrying.call(
                lambda: js.key_value(bucket),
                retrying.LEASE_BUCKET_JUST_MADE,
                transient=lambda exc: isinstance(exc, nats.js.errors.BucketNotFoundError),
            )
        except _UNREACHABLE as exc:
            raise LeaseStoreUnavailable(f"lease bucket {bucket}: {exc}") from exc
        store = cls(nc, kv, bucket=bucket, ttl=ttl, stream=f"KV_{bucket}", direct=kv._direct)
        store.stream_check = check
        return store

    @classmethod
    async def attach(
        cls, nc: NATS, *, ttl: float = 10.0, bucket: str = DEFAULT_BUCKET
    ) -> JetStreamLeaseStore:
        """Open an existing bucket as a reader (the lobby, tools): nothing is created or
        checked (its owner did that).

        Raises:
            LeaseStoreUnavailable: NATS did not answer.
            nats.js.errors.BucketNotFoundError: the bucket does not exist (yet).
        """
        _check_ttl(ttl)
        try:
            kv = await nc.jetstream().key_value(bucket)
        except _UNREACHABLE as exc:
            raise LeaseStoreUnavailable(f"lease bucket {bucket}: {exc}") from exc
        return cls(nc, kv, bucket=bucket, ttl=ttl, stream=f"KV_{bucket}", direct=kv._direct)

    async def _last(self, key: str) -> tuple[Lease | None, int]:
        """The live lease on ``key`` (None if free) and the key's last revision (0: none)."""
        validate_key(key)
        subject = self._prefix + key
        try:
            try:
                msg = await self._js.get_last_msg(self._stream, subject, direct=self._direct)
            except nats.errors.NoRespondersError:
                if not self._direct:
                    raise
                # A replicated bucket just created (or electing a leader) may not serve direct
                # gets yet: its leader answers the API's own get.
                msg = await self._js.get_last_msg(self._stream, subject, direct=False)
        except nats.js.errors.NotFoundError:
            return None, 0
        except _UNREACHABLE as exc:
            raise LeaseStoreUnavailable(f"lease {key}: {exc}") from exc
        headers = msg.headers or {}
        revision = msg.seq or 0
        if headers.get(KV_OP) in (KV_DEL, KV_PURGE) or KV_MARKER_REASON in headers:
            return None, revision
        return Lease(key, Holder.decode(msg.data or b""), revision), revision

    async def _write(self, key: str, data: bytes, last: int, *, op: str = "") -> int:
        """Publish ``data`` on ``key`` if its last revision is ``last``; the new revision."""
        headers: dict[str, str] = {api.Header.EXPECTED_LAST_SUBJECT_SEQUENCE.value: str(last)}
        if op:
            headers[KV_OP] = op
        else:
            headers[api.Header.MSG_TTL.value] = _ttl_header(self.ttl)
        try:
            ack = await self._js.publish(self._prefix + key, data, headers=headers)
        except nats.js.errors.APIError as exc:
            if exc.err_code in _WRONG_LAST:
                raise LeaseLost(key) from exc
            raise LeaseStoreUnavailable(f"lease {key}: {exc}") from exc
        except _UNREACHABLE as exc:
            raise LeaseStoreUnavailable(f"lease {key}: {exc}") from exc
        return int(ack.seq)

    async def create(self, key: str, holder: Holder) -> Lease:
        current, last = await self._last(key)
        if current is not None:
            raise LeaseTaken(key, current)
        try:
            revision = await self._write(key, holder.encode(), last)
        except LeaseLost:
            raise LeaseTaken(key, (await self._last(key))[0]) from None
        return Lease(key, holder, revision)

    async def renew(self, lease: Lease) -> Lease:
        return await self.transfer(lease, lease.holder)

    async def transfer(self, lease: Lease, holder: Holder) -> Lease:
        revision = await self._write(lease.key, holder.encode(), lease.revision)
        return Lease(lease.key, holder, revision)

    async def release(self, lease: Lease) -> None:
        await self._write(lease.key, b"", lease.revision, op=KV_DEL)

    async def get(self, key: str) -> Lease | None:
        return (await self._last(key))[0]

    async def all(self) -> dict[str, Lease]:
        # The keys from the stream's subject list, then each key's last value: a watch's
        # "caught up" marker can come before the values it should follow (nats-py checks the
        # consumer's pending count before its first deliveries are read).
        try:
            info = await self._js.stream_info(self._stream, subjects_filter=">")
        except _UNREACHABLE as exc:
            raise LeaseStoreUnavailable(f"lease bucket {self.bucket}: {exc}") from exc
        keys = [s[len(self._prefix) :] for s in info.state.subjects or {}]
        leases: dict[str, Lease] = {}
        for start in range(0, len(keys), 256):
            found = await asyncio.gather(*(self._last(k) for k in keys[start : start + 256]))
            leases.update({lease.key: lease for lease, _ in found if lease is not None})
        return leases

    async def watch(self) -> LeaseWatch:
        try:
            return _JetStreamWatch(await self._kv.watchall())
        except _UNREACHABLE as exc:
            raise LeaseStoreUnavailable(f"lease bucket {self.bucket}: {exc}") from exc
