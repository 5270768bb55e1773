"""Who owns each table, as the lobby reads it from the table leases (riverboat.leases).

The lobby keeps the leases' holders in memory from a watch of the lease bucket (every lease
held when it starts, then every change), so describing a page of tables costs no lookups. The
table service creates the bucket; until it exists (or while NATS is away) the lobby keeps
trying in the background, never creating it. Meanwhile :meth:`OwnerDirectory.address` knows
nothing and the lobby's table calls go to its configured table address and follow the
redirect from there.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NoReturn

import grpc
import structlog
from google.protobuf.message import Message

from riverboat import retrying
from riverboat.leases import LeaseStore
from riverboat.redirect import no_owner_delay
from riverboat.routing import Channels, call_owner
from riverboat.services.common.errors import NoOwner
from riverboat.v1 import table_pb2_grpc

__all__ = ["OwnerDirectory", "TableServices"]

log = structlog.get_logger("riverboat.lobby")


class _WatchEnded(Exception):
    """The lease watch ended (NATS closed it): open it again."""


class OwnerDirectory:
    """Table id -> the owner's advertised address, followed from the lease bucket.

    Args:
        open_store: opens the lease store (called again after a failure).
    """

    def __init__(self, open_store: Callable[[], Awaitable[LeaseStore]]) -> None:
        self._open = open_store
        self._owners: dict[str, str] = {}
        self._task: asyncio.Task[None] | None = None
        self.watching = asyncio.Event()  # set once the watch has started

    def address(self, table_id: str) -> str:
        """The owner's address as the leases say, or "" if unknown (or nobody owns it)."""
        return self._owners.get(table_id, "")

    def start(self) -> None:
        """Follow the leases in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self._follow(), name="lobby-owners")

    async def stop(self) -> None:
        """Stop following; idempotent."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(self) -> None:
        """Watch the leases, opened again (retrying.OWNER_WATCH) whenever the watch fails
        (the bucket is not there yet, or NATS is away) or ends."""
        store: LeaseStore | None = None
        said = ""  # the last reason logged: once per reason, not every retry

        async def watch() -> None:
            nonlocal store, said
            try:
                if store is None:
                    store = await self._open()
                async with await store.watch() as changes:
                    self.watching.set()
                    said = ""
                    async for change in changes:
                        if change.lease is None or not change.lease.holder.address:
                            self._owners.pop(change.key, None)
                        else:
                            self._owners[change.key] = change.lease.holder.address
            finally:
                # The watch ended or failed: what we knew may be stale from here on.
                self.watching.clear()
                self._owners.clear()
            raise _WatchEnded

        def retried(exc: BaseException, pause: float, failures: int) -> None:
            nonlocal said
            reason = str(exc) or type(exc).__name__
            if not isinstance(exc, _WatchEnded) and reason != said:
                log.info("owners_unknown", reason=reason, retry_every=pause)
                said = reason

        await retrying.call(
            watch, retrying.OWNER_WATCH, transient=lambda exc: True, on_retry=retried
        )


#: Seconds a caller is asked to wait when no table-service instance answered about a table.
UNREACHABLE_RETRY = 1.0


def _gone(exc: grpc.aio.AioRpcError) -> bool:
    """The instance called did not answer at all (no NO_OWNER of its own)."""
    return exc.code() is grpc.StatusCode.UNAVAILABLE and no_owner_delay(exc) is None


def _raise_unreachable(table_id: str, exc: grpc.aio.AioRpcError) -> NoReturn:
    """Raise ``exc``, or NO_OWNER with a RetryInfo if no instance answered (the owner died and
    ``--table`` is down too): UNAVAILABLE with the reason and when to retry, not a bare
    "did not answer"."""
    if _gone(exc):
        raise NoOwner(table_id, retry_delay=UNREACHABLE_RETRY) from None
    raise exc


class TableServices:
    """The table service as the lobby calls it: each table's owner, over a channel per address.

    A call goes to the address the leases name (else ``default_address``, any instance) and
    follows one ``NOT_OWNER`` redirect (:func:`riverboat.routing.call_owner`). ``NO_OWNER`` is
    passed on at once (UNAVAILABLE: the lobby's caller retries with the same request id), and
    so is a table whose owner and ``default_address`` both do not answer: ``NO_OWNER`` with a
    RetryInfo of :data:`UNREACHABLE_RETRY` seconds.

    Args:
        default_address: a table-service address (``--table``).
        owners: where the leases say each table is, if the lobby reads them.
        channels: the channel pool (tests pass their own).
    """

    def __init__(
        self,
        default_address: str,
        owners: OwnerDirectory | None = None,
        channels: Channels | None = None,
    ) -> None:
        self.default_address = default_address
        self.owners = owners
        self.channels = channels or Channels()
        self._stubs: dict[str, table_pb2_grpc.TableServiceStub] = {}

    def owner_address(self, table_id: str) -> str:
        """The owner's address as the leases say ("" if unknown)."""
        return self.owners.address(table_id) if self.owners is not None else ""

    def _stub(self, address: str) -> table_pb2_grpc.TableServiceStub:
        stub = self._stubs.get(address)
        if stub is None:
            channel = self.channels.get(address)
            stub = self._stubs[address] = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        return stub

    async def call(
        self,
        table_id: str,
        method: str,
        request: Message,
        *,
        metadata: Sequence[tuple[str, str]],
        timeout: float,
    ) -> tuple[Any, str]:
        """``TableService/<method>(request)`` at ``table_id``'s owner: the answer and the
        address that gave it."""

        async def send(address: str) -> Any:
            rpc = getattr(self._stub(address), method)
            return await rpc(request, metadata=tuple(metadata), timeout=timeout)

        leased = self.owner_address(table_id)
        try:
            return await call_owner(send, leased or self.default_address, no_owner_budget=0)
        except grpc.aio.AioRpcError as exc:
            # The lease's holder does not answer (it just stopped; the watch has not said so
            # yet): any instance knows better, so ask --table, once. Safe: every table call
            # carries its request id.
            if not (leased and leased != self.default_address and _gone(exc)):
                _raise_unreachable(table_id, exc)
        try:
            return await call_owner(send, self.default_address, no_owner_budget=0)
        except grpc.aio.AioRpcError as exc:
            _raise_unreachable(table_id, exc)

    async def close(self) -> None:
        """Close every channel."""
        self._stubs.clear()
        await self.channels.close()
