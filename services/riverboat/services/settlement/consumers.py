"""Durable JetStream pull consumers: deliver each log record, ack only after it took effect.

One :class:`DurableConsumer` per log (wallets, tables). It pulls records in batches and hands
each to a handler one at a time; the handler applies the record to the ledger (committing its
processed-event row with its postings) and only when it returns is the message acknowledged.
A handler that fails gets the message redelivered later (``nak`` after retrying.REDELIVERY), and a
process that dies between commit and ack gets it redelivered after ``ack_wait``: both are
harmless, because applying a record twice is a no-op (at-least-once delivery, exactly-once
effect). Ordering per aggregate is restored by the handler (records carry their version), so
redeliveries that arrive after newer records do no harm either.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import nats.errors
import nats.js.errors
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from riverboat import retrying
from riverboat.eventstore.jetstream import HEADER_VERSION
from riverboat.services.common.metrics import set_consumer_lag
from riverboat.services.common.tracing import consumed

__all__ = ["AckFilter", "BatchHandler", "Delivery", "DurableConsumer", "Handler"]

_log = structlog.get_logger("riverboat.settlement.consumer")


@dataclass(frozen=True, slots=True)
class Delivery:
    """One delivered log record."""

    aggregate_id: str
    version: int
    payload: bytes
    stream_sequence: int
    deliveries: int  # 1 the first time, more on redelivery


Handler = Callable[[Delivery], Awaitable[None]]
# Applies several records at once (one database commit for all); returns how many, from the
# first, took effect. The rest, or all of them if it raises, go to the Handler one by one.
BatchHandler = Callable[[list[Delivery]], Awaitable[int]]
# For tests: decide, after a record took effect, whether to ack it (False: act as if the
# process died before acking; the message is redelivered after ack_wait).
AckFilter = Callable[[Delivery], Awaitable[bool]]


class DurableConsumer:
    """A durable pull consumer on ``<prefix>.>`` of ``stream`` feeding ``handler``.

    Args:
        nc: a connected NATS client.
        stream: the stream to consume.
        subject_prefix: its subjects are ``<subject_prefix>.<aggregate id>``.
        durable: the durable consumer's name (its position survives restarts).
        handler: applies one record; an exception means "not applied, deliver again".
        ack_wait: seconds before an unacknowledged message is redelivered.
        batch: messages per pull.
        fetch_wait: seconds one pull waits for messages.
        ack_filter: test hook, see :data:`AckFilter`.
        batch_handler: applies the records of one fetch together (see :data:`BatchHandler`);
            without it, or for a fetch of one, each record goes to ``handler``.
    """

    def __init__(
        self,
        nc: NATS,
        *,
        stream: str,
        subject_prefix: str,
        durable: str,
        handler: Handler,
        ack_wait: float = 30.0,
        batch: int = 64,
        fetch_wait: float = 1.0,
        timeout: float = 5.0,
        ack_filter: AckFilter | None = None,
        batch_handler: BatchHandler | None = None,
    ) -> None:
        self._js = nc.jetstream(timeout=timeout)
        self.stream = stream
        self.prefix = subject_prefix
        self.durable = durable
        self._handler = handler
        self._ack_wait = ack_wait
        self._batch = batch
        self._fetch_wait = fetch_wait
        self._ack_filter = ack_filter
        self._batch_handler = batch_handler
        self._sub: nats.js.JetStreamContext.PullSubscription | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self.applied = 0  # records handled (including repeats), for status and tests
        self._busy = False  # handling a batch (stop() lets it finish)

    async def start(self) -> None:
        """Create (or update) the durable consumer and start pulling."""
        config = ConsumerConfig(
            durable_name=self.durable,
            name=self.durable,
            deliver_policy=DeliverPolicy.ALL,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=self._ack_wait,
            max_deliver=-1,  # never give up on a record: the ledger must see every one
            max_ack_pending=max(4 * self._batch, 256),
            filter_subject=f"{self.prefix}.>",
        )
        try:
            await self._js.add_consumer(self.stream, config=config)
        except nats.js.errors.BadRequestError as exc:
            # An existing consumer with settings the server will not change in place: keep it.
            _log.warning("consumer_config_kept", durable=self.durable, error=exc.description)
        self._sub = await self._js.pull_subscribe_bind(durable=self.durable, stream=self.stream)
        self._task = asyncio.create_task(self._run(), name=f"consume-{self.durable}")

    async def stop(self, timeout: float = 5.0) -> None:
        """Finish the record in hand (up to ``timeout``), then stop pulling; idempotent."""
        self._stopping.set()
        task, self._task = self._task, None
        if task is not None and not self._busy:
            task.cancel()  # only waiting for messages: nothing to finish
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        sub, self._sub = self._sub, None
        if sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await sub.unsubscribe()

    async def _run(self) -> None:
        assert self._sub is not None
        while not self._stopping.is_set():
            try:
                # nats-py's fetch can outlive its own timeout (nats.py#986): a watchdog.
                msgs = await asyncio.wait_for(
                    self._sub.fetch(self._batch, timeout=self._fetch_wait),
                    self._fetch_wait + 5,
                )
            except TimeoutError:
                set_consumer_lag(self.durable, 0)
                continue  # nothing new
            except nats.errors.Error as exc:
                _log.warning("consumer_fetch_failed", durable=self.durable, error=str(exc))
                await self._pause(1.0)
                continue
            self._busy = True
            try:
                if self._batch_handler is not None and len(msgs) > 1:
                    msgs = await self._process_batch(msgs)
                for index, msg in enumerate(msgs):
                    if self._stopping.is_set():
                        await self._hand_back(msgs[index:])
                        break
                    await self._process(msg)
            finally:
                self._busy = False

    def _delivery(self, msg: Msg) -> Delivery | None:
        """The record a message holds; None if no event store wrote it."""
        version_text = (msg.headers or {}).get(HEADER_VERSION, "")
        if not msg.subject.startswith(self.prefix + ".") or not version_text.isdigit():
            return None
        meta = msg.metadata
        return Delivery(
            aggregate_id=msg.subject[len(self.prefix) + 1 :],
            version=int(version_text),
            payload=msg.data,
            stream_sequence=meta.sequence.stream,
            deliveries=meta.num_delivered,
        )

    async def _process_batch(self, msgs: list[Msg]) -> list[Msg]:
        """Hand the leading records of a fetch to the batch handler, ack those that took
        effect; the messages left to handle one by one."""
        assert self._batch_handler is not None
        deliveries: list[Delivery] = []
        for msg in msgs:
            delivery = self._delivery(msg)
            if delivery is None:
                break  # the one-by-one path deals with it
            deliveries.append(delivery)
        if len(deliveries) < 2 or self._stopping.is_set():
            return msgs
        try:
            with contextlib.ExitStack() as spans:
                for msg in msgs[: len(deliveries)]:
                    spans.enter_context(consumed(f"apply {self.durable}", msg.headers))
                done = await self._batch_handler(deliveries)
        except Exception as exc:  # each again, one by one (a repeat is a no-op)
            _log.warning(
                "batch_not_applied",
                durable=self.durable,
                records=len(deliveries),
                error=str(exc) or type(exc).__name__,
            )
            return msgs
        for msg, delivery in zip(msgs[:done], deliveries[:done], strict=True):
            await self._acknowledge(msg, delivery)
        return msgs[done:]

    async def _process(self, msg: Msg) -> None:
        headers = msg.headers or {}
        delivery = self._delivery(msg)
        if delivery is None:
            # Not written by an event store: nothing the ledger could apply, ever.
            _log.error("consumer_foreign_message", subject=msg.subject, durable=self.durable)
            await msg.term()
            return
        try:
            with consumed(f"apply {self.durable}", headers):
                await self._handler(delivery)
        except Exception as exc:
            delay = retrying.REDELIVERY.pause(max(1, delivery.deliveries))
            _log.error(
                "record_not_applied",
                durable=self.durable,
                aggregate_id=delivery.aggregate_id,
                version=delivery.version,
                deliveries=delivery.deliveries,
                retry_in=delay,
                error=str(exc) or type(exc).__name__,
                exc_info=exc,
            )
            with contextlib.suppress(nats.errors.Error):
                await msg.nak(delay=delay)
            return
        await self._acknowledge(msg, delivery)

    async def _acknowledge(self, msg: Msg, delivery: Delivery) -> None:
        """The record took effect: count it and ack it (unless the test hook says not)."""
        self.applied += 1
        # The server's count of records behind this one: free with every message.
        set_consumer_lag(self.durable, msg.metadata.num_pending)
        if self._ack_filter is not None and not await self._ack_filter(delivery):
            return
        try:
            await msg.ack()
        except nats.errors.Error as exc:  # applied anyway: the redelivery will be a no-op
            _log.warning("ack_failed", durable=self.durable, error=str(exc))

    async def _hand_back(self, msgs: list[Msg]) -> None:
        """Stopping: release messages not yet handled, so the next consumer gets them at once
        rather than after ``ack_wait``."""
        for msg in msgs:
            with contextlib.suppress(nats.errors.Error):
                await msg.nak()

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)
