"""Batched JetStream *direct get* (ADR-31, nats-server >= 2.11), which nats-py does not wrap.

One request ``$JS.API.DIRECT.GET.<stream>`` with ``{"seq", "next_by_subj", "batch",
"up_to_seq"}`` makes the server stream back up to ``batch`` stored messages of one subject,
followed by an end-of-batch status message (``Status: 204``, description ``EOB``). The reader
below pages through a subject until it has delivered the message at ``up_to_seq``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import nats.errors
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from riverboat import retrying
from riverboat.eventstore.errors import EventStoreError

__all__ = ["iter_subject"]

# Replicas that answer direct gets may trail the stream leader (no read-your-writes); a page that
# comes back short of the bound we got from the leader is asked again under retrying.REPLICA_LAG
# before failing. The loop stays here, not in retrying.call: the page is yielded as it arrives.
_LAG = retrying.REPLICA_LAG


async def iter_subject(
    nc: NATS,
    *,
    api_prefix: str,
    stream: str,
    subject: str,
    start_seq: int,
    up_to_seq: int,
    batch: int,
    timeout: float,
) -> AsyncIterator[Msg]:
    """Yield every message of ``subject`` with stream sequence in ``[start_seq, up_to_seq]``.

    Messages carry the server's ``Nats-Sequence`` and ``Nats-Time-Stamp`` headers besides the
    ones they were published with.

    Raises:
        EventStoreError: a page timed out, the server answered with an error status, or the
            messages up to ``up_to_seq`` did not show up (replica lag) within a short retry.
    """
    if start_seq > up_to_seq:
        return
    request_subject = f"{api_prefix}.DIRECT.GET.{stream}"
    inbox = nc.new_inbox()
    # A callback feeding a local queue lets whole pages be drained without awaiting (and without
    # the task that nats-py's next_msg() creates per message).
    received: asyncio.Queue[Msg] = asyncio.Queue()

    async def on_msg(msg: Msg) -> None:
        received.put_nowait(msg)

    sub = await nc.subscribe(inbox, cb=on_msg)
    next_seq = start_seq
    lag_deadline: float | None = None
    loop = asyncio.get_running_loop()
    try:
        while next_seq <= up_to_seq:
            request = {
                "seq": next_seq,
                "next_by_subj": subject,
                "batch": batch,
                "up_to_seq": up_to_seq,
            }
            await nc.publish(request_subject, json.dumps(request).encode(), reply=inbox)
            delivered = 0
            while True:
                try:
                    msg = received.get_nowait()
                except asyncio.QueueEmpty:
                    msg = None
                try:
                    if msg is None:
                        msg = await asyncio.wait_for(received.get(), timeout)
                except TimeoutError as exc:
                    raise EventStoreError(
                        f"direct get on stream {stream!r}, subject {subject!r} timed out after "
                        f"{timeout}s (is allow_direct enabled?)"
                    ) from exc
                headers = msg.headers or {}
                status = headers.get("Status")
                if status is None:
                    seq = int(headers["Nats-Sequence"])
                    next_seq = seq + 1
                    delivered += 1
                    yield msg
                    continue
                if status in ("204", "404"):
                    # 204 EOB closes a page; 404 means nothing at or after next_seq (up to the
                    # bound) on the replica that answered.
                    break
                raise EventStoreError(
                    f"direct get on stream {stream!r} failed: status {status} "
                    f"{headers.get('Description', '')}".rstrip()
                )
            if next_seq > up_to_seq:
                return
            if delivered:
                lag_deadline = None
                continue
            # The leader told us up_to_seq exists, yet this replica returned nothing more.
            now = loop.time()
            if lag_deadline is None:
                lag_deadline = now + (_LAG.total or 0.0)
            elif now >= lag_deadline:
                raise EventStoreError(
                    f"stream {stream!r}: subject {subject!r} ends before sequence {up_to_seq} "
                    f"on the answering replica (stuck at {next_seq - 1})"
                )
            await asyncio.sleep(_LAG.pause(1))
    finally:
        # Stop listening even when the caller abandons iteration half-way.
        with contextlib.suppress(nats.errors.Error):
            await sub.unsubscribe()
