"""The table service's client of the dealer service, with retries while the dealer restarts.

Retries are :func:`riverboat.retrying.call` under :data:`riverboat.retrying.DEALER_CALL`, not
gRPC's own retry policy (service config): that caps a call at five attempts and has no time
budget, and a dealer restart can take longer than five doubling pauses; every retry is logged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import grpc
import structlog

from riverboat import retrying
from riverboat.engine.cards import card_str, parse_card
from riverboat.services.common.tracing import client_interceptors
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc, events_pb2

log = structlog.get_logger("riverboat.table.dealer")

# Statuses worth retrying: the dealer is restarting or briefly unreachable.
# CANCELLED comes from a dealer that stops (SIGTERM) with our call in flight; every dealer call
# is idempotent per hand, so it is retried like UNAVAILABLE (a reveal cancelled that way used to
# be dropped for good: the rolling-restart test found a hand whose seed the auditors never got).
_RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}


def _transient(exc: BaseException) -> bool:
    return isinstance(exc, grpc.aio.AioRpcError) and exc.code() in _RETRY


@dataclass(frozen=True, slots=True)
class Commitment:
    """The dealer's commitment to one hand's deck."""

    scheme: str
    commitment: bytes
    deck_size: int
    #: CRV1: the Merkle root (b"" under RBS1).
    root: bytes = b""


def _locked(seeds: Sequence[tuple[int, str, bytes, int]]) -> list[events_pb2.LockedSeed]:
    return [
        events_pb2.LockedSeed(seat=seat, player=player, seed=seed, origin=origin)
        for seat, player, seed, origin in seeds
    ]


class DealerUnavailable(RuntimeError):
    """The dealer did not answer within the allowed time."""


class DealerClient:
    """Calls the dealer; every call retries with backoff (:data:`riverboat.retrying.DEALER_CALL`)
    until ``patience`` seconds pass."""

    def __init__(
        self,
        address: str,
        *,
        patience: float | None = None,
        call_timeout: float = 5.0,
        token: str | None = None,
    ):
        self._channel = grpc.aio.insecure_channel(address, interceptors=client_interceptors())
        # The dealer serves services only: calls carry the table service's own token.
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._stub = dealer_pb2_grpc.DealerServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self.policy = retrying.DEALER_CALL
        if patience is not None:
            self.policy = replace(self.policy, total=patience)
        self.call_timeout = call_timeout

    async def close(self) -> None:
        """Close the channel."""
        await self._channel.close(None)

    async def _call(self, name: str, request: object, **ids: str) -> object:
        method = getattr(self._stub, name)

        async def attempt() -> object:
            return await method(request, timeout=self.call_timeout, metadata=self._metadata)

        def retried(exc: BaseException, pause: float, failures: int) -> None:
            assert isinstance(exc, grpc.aio.AioRpcError)
            log.warning("dealer_retry", call=name, status=exc.code().name, **ids)

        try:
            return await retrying.call(attempt, self.policy, transient=_transient, on_retry=retried)
        except grpc.aio.AioRpcError as exc:
            if _transient(exc):
                raise DealerUnavailable(f"dealer {name}: {exc.details()}") from None
            raise

    async def commit_hand(self, table_id: str, hand_id: str) -> Commitment:
        """Ask for a new hand's commitment (idempotent per hand)."""
        reply = await self._call(
            "CommitHand",
            dealer_pb2.CommitHandRequest(table_id=table_id, hand_id=hand_id),
            table_id=table_id,
            hand_id=hand_id,
        )
        assert isinstance(reply, dealer_pb2.CommitHandResponse)
        return Commitment(reply.scheme, reply.commitment, reply.deck_size, reply.merkle_root)

    async def get_deck(self, table_id: str, hand_id: str, log_sequence: int) -> tuple[int, ...]:
        """The committed deck, once the commitment is in the table's log."""
        reply = await self._call(
            "GetDeck",
            dealer_pb2.GetDeckRequest(
                table_id=table_id, hand_id=hand_id, log_sequence=log_sequence
            ),
            table_id=table_id,
            hand_id=hand_id,
        )
        assert isinstance(reply, dealer_pb2.GetDeckResponse)
        return tuple(parse_card(c) for c in reply.cards)

    async def get_dealt(
        self,
        table_id: str,
        hand_id: str,
        log_sequence: int,
        seeds: Sequence[tuple[int, str, bytes, int]],
    ) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        """CRV1: the deck in the locked seeds' dealing order, with each card's opening."""
        reply = await self._call(
            "GetDeck",
            dealer_pb2.GetDeckRequest(
                table_id=table_id,
                hand_id=hand_id,
                log_sequence=log_sequence,
                seeds=_locked(seeds),
            ),
            table_id=table_id,
            hand_id=hand_id,
        )
        assert isinstance(reply, dealer_pb2.GetDeckResponse)
        return tuple(parse_card(c) for c in reply.cards), tuple(reply.openings)

    async def reshuffle(
        self,
        table_id: str,
        hand_id: str,
        round_: int,
        cards: tuple[int, ...],
        seeds: Sequence[tuple[int, str, bytes, int]] = (),
        log_sequence: int = 0,
    ) -> tuple[int, ...]:
        """The dealer's reshuffle of a draw's discards (deterministic per hand and round)."""
        reply = await self._call(
            "Reshuffle",
            dealer_pb2.ReshuffleRequest(
                table_id=table_id,
                hand_id=hand_id,
                round=round_,
                cards=[card_str(c) for c in cards],
                seeds=_locked(seeds),
                log_sequence=log_sequence,
            ),
            table_id=table_id,
            hand_id=hand_id,
        )
        assert isinstance(reply, dealer_pb2.ReshuffleResponse)
        return tuple(parse_card(c) for c in reply.cards)

    async def reveal_seed(self, table_id: str, hand_id: str, log_sequence: int = 0) -> None:
        """After the hand: have the dealer publish the seed for auditors.

        ``log_sequence``: the stream sequence of the hand's ``HandCommitted`` record, if known;
        it spares the dealer a search of the log.
        """
        await self._call(
            "RevealSeed",
            dealer_pb2.RevealSeedRequest(
                table_id=table_id, hand_id=hand_id, log_sequence=log_sequence
            ),
            table_id=table_id,
            hand_id=hand_id,
        )
