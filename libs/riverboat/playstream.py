"""A player's seat on one gRPC stream: ``TableService/Play`` from the client side.

:func:`open_play` opens the stream at the table's owner (one redirect followed, as every table
call is: :mod:`riverboat.routing`) and returns a :class:`PlayStream`. Iterating it yields the
stream's messages as they come: the table's updates (as ``Watch`` sends them) and, for each
action sent with :meth:`PlayStream.act`, its :class:`~riverboat.v1.table_pb2.ActOutcome`, in
the order the actions were sent. A refused action's outcome carries the status ``Act`` would
have answered; :func:`refusal` turns it into a :class:`~riverboat.rpcstatus.StatusError`, which
:mod:`riverboat.rpcstatus` reads like any gRPC error.

Sending does not wait for the outcome: a client that must read the stream to learn the outcome
cannot also block on it. (The unary ``Act`` stays for clients that want one call, one answer.)

When the service ends the stream (a table changing hands: ``UNAVAILABLE``, reason ``NO_OWNER``;
its shutdown; a refusal) while the client is sending, grpc's asyncio client fails the send with
its own ``INTERNAL: Internal error from Core`` (or ``InvalidStateError``), and the service's
status arrives a moment later. :meth:`PlayStream.act` and the iteration wait for that status
and raise it instead, so a client retries as the service said (the room's bots saw that
``INTERNAL`` when an overloaded instance ended their streams).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc

from riverboat.client import TableClient
from riverboat.rpcstatus import StatusError
from riverboat.v1 import table_pb2, table_pb2_grpc

__all__ = ["PlayStream", "open_play", "refusal"]


class PlayStream:
    """One open ``Play`` stream (see the module docstring)."""

    def __init__(self, table_id: str, call: Any, first: table_pb2.PlayResponse | None) -> None:
        self.table_id = table_id
        self._call = call
        self._first = first
        self._ended = asyncio.Event()
        self._ended_with: grpc.aio.AioRpcError | None = None
        call.add_done_callback(self._on_done)

    async def act(
        self,
        hand_id: str,
        seat: int,
        action: str,
        amount: int = 0,
        *,
        request_id: str,
        cards: tuple[str, ...] = (),
        choice: str = "",
        options: dict[str, Any] | None = None,
        client_seed: bytes = b"",
        seed_commitment: bytes = b"",
    ) -> None:
        """Send an action (the fields of ``Act``); its outcome comes on the stream."""
        request = table_pb2.ActRequest(
            table_id=self.table_id,
            hand_id=hand_id,
            seat=seat,
            action=action,
            amount=amount,
            request_id=request_id,
            cards=list(cards),
            choice=choice,
            client_seed=client_seed,
            seed_commitment=seed_commitment,
        )
        if options:
            request.options.update(options)
        try:
            await self._call.write(table_pb2.PlayRequest(act=request))
        except grpc.aio.AioRpcError as exc:
            if not _lost_status(exc):
                raise
            raise await self._ending(exc) from None
        except asyncio.InvalidStateError:  # the stream had ended already
            raise await self._ending(None) from None

    async def __aiter__(self) -> AsyncIterator[table_pb2.PlayResponse]:
        if self._first is not None:
            first, self._first = self._first, None
            yield first
        while True:
            try:
                message = await self._call.read()
            except grpc.aio.AioRpcError as exc:
                if not _lost_status(exc):
                    raise
                raise await self._ending(exc) from None
            if message is grpc.aio.EOF:  # type: ignore[attr-defined]  # missing from the stubs
                return
            yield message

    def _on_done(self, call: Any) -> None:
        """Keep the status the service ended the stream with. grpc calls this each time it
        sets the call's status: with the service's status and, when a send raced the end,
        with its own stand-in too (before or after it); the stand-in is not kept."""
        error = _status_now(call)
        if error is not None and not _lost_status(error):
            self._ended_with = error
            self._ended.set()

    async def _ending(self, lost: grpc.aio.AioRpcError | None) -> grpc.aio.AioRpcError:
        """The status the service ended the stream with, once it has arrived; if it never
        does, ``UNAVAILABLE`` (the stream is gone: open another)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ended.wait(), STATUS_PATIENCE)
        if self._ended_with is not None:
            return self._ended_with
        details = "the stream ended while an action was being sent; open it again"
        empty = grpc.aio.Metadata()
        return grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, empty, empty, details, None)

    def cancel(self) -> None:
        """End the stream."""
        self._call.cancel()

    def done(self) -> bool:
        """The stream has ended (cancelled, or finished by the service): nothing more can be
        sent on it."""
        return bool(self._call.done())


#: What grpc's asyncio client reports for a send that found the call ended by the server.
LOST_STATUS = "Internal error from Core"
#: Seconds to wait for the service's status after a send found the stream ended (it is then
#: already on its way through the event loop, or lost to grpc's stand-in for good).
STATUS_PATIENCE = 1.0


def _lost_status(exc: grpc.aio.AioRpcError) -> bool:
    return exc.code() is grpc.StatusCode.INTERNAL and exc.details() == LOST_STATUS


def _status_now(call: Any) -> grpc.aio.AioRpcError | None:
    """The ended ``call``'s status as an error (None if it ended OK), read at once: its
    accessors are coroutines that return without waiting once the call is done, which is
    the only time this is called (from a done callback, which cannot await)."""
    code, details = _at_once(call.code()), _at_once(call.details())
    if code is None or code is grpc.StatusCode.OK:
        return None
    empty = grpc.aio.Metadata()
    initial = _at_once(call.initial_metadata())
    trailing = _at_once(call.trailing_metadata())
    return grpc.aio.AioRpcError(code, initial or empty, trailing or empty, details, None)


def _at_once(coroutine: Any) -> Any:
    """The result of a coroutine that returns without suspending (None if it would wait)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    return None


async def open_play(client: TableClient, table_id: str, after_version: int = 0) -> PlayStream:
    """Open ``table_id``'s Play stream as ``client``'s player, at the table's owner.

    With ``after_version`` 0 the first message is the table's view now (and is read here, so
    a redirect is followed before this returns); otherwise the updates after that version.
    """
    opening = table_pb2.PlayRequest(
        watch=table_pb2.WatchRequest(table_id=table_id, after_version=after_version)
    )
    calls: list[Any] = []

    async def first(stub: table_pb2_grpc.TableServiceStub) -> table_pb2.PlayResponse | None:
        # A redirect comes as the stream's first answer: read it under the redirect rule.
        call = stub.Play(metadata=client.metadata)
        calls.append(call)
        await call.write(opening)
        if after_version:
            return None  # nothing may come until the table changes
        message = await call.read()
        return None if message is grpc.aio.EOF else message  # type: ignore[attr-defined]

    try:
        message = await client._owned(table_id, first)
    except BaseException:
        for call in calls:
            call.cancel()
        raise
    for call in calls[:-1]:
        call.cancel()
    return PlayStream(table_id, calls[-1], message)


def refusal(outcome: table_pb2.ActOutcome) -> StatusError | None:
    """The refusal an outcome carries, as an error (None: the action was accepted)."""
    return StatusError(outcome.error) if outcome.HasField("error") else None
