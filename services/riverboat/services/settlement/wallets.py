"""Wallet commands over the wallet logs: load, decide, append with optimistic concurrency.

Each wallet is one aggregate of an :class:`~riverboat.eventstore.EventStore` (subject
``rb.wallets.<wallet id>``). A command loads the wallet (from a cache, catching up with records
written since), decides with the pure functions of :mod:`riverboat.ledger.wallet`, and appends
at ``expected_version = the version it decided on``. If another writer (another process) got
there first the append is refused and the command is decided again on the new state, so a
balance can never be spent twice. Inside one process, commands on the same wallet also queue
on a lock, which keeps conflicts (and retries) to the multi-process case.
"""

from __future__ import annotations

import asyncio
import random
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import structlog

from riverboat.eventstore import ConcurrencyError, EventStore
from riverboat.ledger.wallet import Decision, WalletState, balance_change, wallet_id
from riverboat.ledger.walletcodec import decode_wallet_batch, encode_wallet_batch

__all__ = ["TooMuchContention", "WalletBook"]

_log = structlog.get_logger("riverboat.settlement.wallets")


class TooMuchContention(Exception):
    """Other writers kept changing the wallet; the caller may retry later."""


def _now() -> datetime:
    return datetime.now(UTC)


class WalletBook:
    """Runs wallet commands against the wallet logs.

    Args:
        store: the wallet logs (one aggregate per wallet).
        clock: time stamp of new events.
        max_attempts: decisions per command before giving up under contention.
        cache_size: wallets kept in memory.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = _now,
        max_attempts: int = 25,
        cache_size: int = 10_000,
    ) -> None:
        self._store = store
        self._clock = clock
        self._max_attempts = max_attempts
        self._cache: OrderedDict[str, WalletState] = OrderedDict()
        self._cache_size = cache_size
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    async def state(self, player: str) -> WalletState:
        """The wallet as of its latest record (do not modify the returned state)."""
        with self._lock(player) as lock:
            async with lock:
                return await self._load(player)

    async def execute(
        self, player: str, decide: Callable[[WalletState], Decision], request_id: str
    ) -> Decision:
        """Decide and append one command; returns the decision that took effect.

        ``request_id`` identifies the command in the log: a retry of an append whose outcome
        was lost is recognised by it, reloaded, and decided again as a repeat.

        Raises:
            WalletError: the command is refused (from ``decide``).
            TooMuchContention: other writers won ``max_attempts`` times in a row.
            EventStoreError: the log is unavailable.
        """
        with self._lock(player) as lock:
            async with lock:
                for attempt in range(self._max_attempts):
                    state = await self._load(player)
                    decision = decide(state)
                    if not decision.events:
                        return decision
                    now = self._clock()
                    payload = encode_wallet_batch(
                        player, decision.events, balance_before=state.balance, occurred_at=now
                    )
                    try:
                        result = await self._store.append(
                            wallet_id(player),
                            payload,
                            expected_version=state.version,
                            request_id=request_id,
                        )
                    except ConcurrencyError:
                        _log.debug("wallet_conflict", player=player, attempt=attempt)
                        await asyncio.sleep(random.uniform(0, 0.005 * (attempt + 1)))
                        continue
                    if result.duplicate:
                        continue  # recorded by an earlier try: reload and answer as a repeat
                    self._advance(state, decision, result.version, now)
                    return decision
        raise TooMuchContention(f"wallet of {player!r} is too busy; try again")

    # -- internals ----------------------------------------------------------------------------

    @contextmanager
    def _lock(self, player: str) -> Iterator[asyncio.Lock]:
        """A per-wallet lock, dropped when nobody holds or waits for it (bounded memory)."""
        lock, users = self._locks.get(player, (asyncio.Lock(), 0))
        self._locks[player] = (lock, users + 1)
        try:
            yield lock
        finally:
            lock, users = self._locks[player]
            if users <= 1:
                del self._locks[player]
            else:
                self._locks[player] = (lock, users - 1)

    async def _load(self, player: str) -> WalletState:
        state = self._cache.get(player)
        if state is None:
            state = WalletState(player)
        aggregate = wallet_id(player)
        async for record in self._store.iter_records(aggregate, state.version + 1):
            owner, items = decode_wallet_batch(record.payload)
            if owner != player:
                raise ValueError(f"wallet log {aggregate!r} belongs to {owner!r}, not {player!r}")
            for item in items:
                state.apply(item.event, item.balance_after, item.occurred_at)
            state.version = record.version
        self._remember(player, state)
        return state

    def _advance(self, state: WalletState, decision: Decision, version: int, at: datetime) -> None:
        balance = state.balance
        for event in decision.events:
            balance += balance_change(event)
            state.apply(event, balance, at)
        state.version = version

    def _remember(self, player: str, state: WalletState) -> None:
        self._cache[player] = state
        self._cache.move_to_end(player)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
