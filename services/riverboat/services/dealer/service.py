"""``riverboat.v1.DealerService``: CommitHand, GetDeck, RevealSeed.

Secrets discipline: a seed exists in plaintext only inside one RPC (drawn or unsealed, used,
dropped) and in RevealSeed's answer after the hand ended. Nothing here logs a seed, a deck or a
card; log lines carry ids, sequences and the (public) commitment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc.aio
import structlog

from riverboat.engine.cards import DECK_SIZE, card_str, parse_card
from riverboat.services.common.errors import FailedPrecondition, InvalidArgument, NotFound
from riverboat.services.common.errors import Unavailable as UnavailableError
from riverboat.services.dealer.keys import SeedVault
from riverboat.services.dealer.store import DealerStore, SealedSeedRecord, SeedRevealedRecord
from riverboat.services.dealer.tablelog import (
    HandProgress,
    check_commitment_message,
    find_hand_progress,
    logged_seeds,
)
from riverboat.shuffle import (
    SCHEME,
    SCHEMES,
    ShuffleInputError,
    crv1,
    derive_deck,
    derive_reshuffle,
    new_seed,
)
from riverboat.shuffle.scheme import encode_hand_id
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc, events_pb2

__all__ = ["SERVICE_NAME", "DealerService", "validate_ids"]

SERVICE_NAME: str = dealer_pb2.DESCRIPTOR.services_by_name["DealerService"].full_name

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

_log = structlog.get_logger("riverboat.dealer")


def validate_ids(table_id: str, hand_id: str) -> tuple[str, str]:
    """Check the ids against RBS1's own limits. Their form (1-128 characters of
    ``A-Z a-z 0-9 _ -``: they become subject tokens) is the requests' ``buf.validate`` rule,
    checked before any handler runs.

    Raises:
        InvalidArgument: the hand id is not usable by the shuffle scheme.
    """
    try:
        encode_hand_id(hand_id)  # RBS1's own rule; the proto's rule is stricter today
    except ShuffleInputError as exc:
        raise InvalidArgument(
            f"hand_id is not usable by {SCHEME}: {exc}", reason="INVALID_ID", field="hand_id"
        ) from None
    return table_id, hand_id


def locked_seeds(
    seeds: Sequence[events_pb2.LockedSeed],
) -> list[crv1.ClientSeed]:
    """A request's CRV1 locked seeds as the scheme takes them.

    Raises:
        InvalidArgument: none given (``MISSING_FIELD``) or one is malformed (``BAD_SEEDS``).
    """
    if not seeds:
        raise InvalidArgument(
            "seeds are required for a CRV1 hand: the table's locked seeds (SeedsLocked)",
            reason="MISSING_FIELD",
        )
    try:
        out = [crv1.ClientSeed(s.seat, s.player, s.seed, crv1.SeedOrigin(s.origin)) for s in seeds]
        for seed in out:
            seed.encode()
        if len({s.seat for s in out}) != len(out):
            raise ShuffleInputError("two seeds for one seat")
    except (ShuffleInputError, ValueError) as exc:
        raise InvalidArgument(f"bad locked seeds: {exc}", reason="BAD_SEEDS") from None
    return out


class DealerService(dealer_pb2_grpc.DealerServiceServicer):
    """The servicer. It answers ``UNAVAILABLE`` until :meth:`attach` gives it a store.

    Args:
        vault: seals new seeds and opens stored ones.
        scheme: the shuffle scheme new hands are committed under (``CRV1`` or ``RBS1``).
    """

    def __init__(self, vault: SeedVault, scheme: str = crv1.SCHEME) -> None:
        if scheme not in SCHEMES:
            raise ValueError(f"unknown shuffle scheme {scheme!r}; use one of {SCHEMES}")
        self._vault = vault
        self._scheme = scheme
        self._store: DealerStore | None = None

    def attach(self, store: DealerStore) -> None:
        """Start answering with ``store`` (called once NATS is connected and streams exist)."""
        self._store = store

    @property
    def store(self) -> DealerStore:
        """The attached store; ``UNAVAILABLE`` before start-up or while NATS is disconnected."""
        if self._store is None:
            raise UnavailableError(
                "the dealer is starting: not connected to NATS yet", reason="STARTING"
            )
        if not self._store.connected:
            # Fail fast: requests would wait out their timeout while NATS reconnects.
            raise UnavailableError(
                "the dealer has lost its NATS connection and is reconnecting",
                reason="NATS_DISCONNECTED",
            )
        return self._store

    # -- RPCs ---------------------------------------------------------------------------------

    async def CommitHand(
        self, request: dealer_pb2.CommitHandRequest, context: Context
    ) -> dealer_pb2.CommitHandResponse:
        """Draw, seal and store a seed for a new hand; repeat calls return the stored commitment."""
        table_id, hand_id = validate_ids(request.table_id, request.hand_id)
        store = self.store
        # Only for a table that exists (its log has a record): a seed stored for no table
        # would stay in the write-once stream for good.
        if not await store.table_exists(table_id):
            raise NotFound(
                f"there is no table {table_id!r}: its log has no record; open the table first",
                reason="TABLE_NOT_FOUND",
            )
        record = await store.load_seed(table_id, hand_id)
        created = False
        if record is None:
            # Durable before the commitment leaves this process (docs/shuffle.md §8 step 2).
            fresh = self._vault.seal(table_id, hand_id, new_seed(), self._scheme)
            record, created = await store.create_seed(fresh)
        # On a repeat this also makes sure this dealer can still open it, so a wrong key
        # shows up now rather than when the table asks for the deck.
        seed = self._vault.open(record)
        root = crv1.commit_deck(hand_id, seed).root if record.scheme == crv1.SCHEME else b""
        _log.info(
            "hand committed" if created else "hand commitment returned again",
            commitment=record.commitment.hex(),
            seed_sequence=record.sequence,
        )
        return dealer_pb2.CommitHandResponse(
            scheme=record.scheme,
            commitment=record.commitment,
            deck_size=DECK_SIZE,
            merkle_root=root,
        )

    async def GetDeck(
        self, request: dealer_pb2.GetDeckRequest, context: Context
    ) -> dealer_pb2.GetDeckResponse:
        """The committed deck, top first, once the table's log holds the commitment."""
        table_id, hand_id = validate_ids(request.table_id, request.hand_id)
        if request.log_sequence == 0:
            raise InvalidArgument(
                "log_sequence is required: the stream sequence of the table's record holding "
                "HandCommitted for this hand",
                reason="MISSING_FIELD",
            )
        store = self.store
        record = await self._committed(store, table_id, hand_id)
        tables_stream = store.table_log.stream
        message = await store.table_message(request.log_sequence)
        if message is None:
            raise FailedPrecondition(
                f"stream {tables_stream!r} has no message at sequence {request.log_sequence}; "
                "log HandCommitted first and pass that record's stream sequence",
                reason="COMMITMENT_NOT_LOGGED",
            )
        check_commitment_message(
            subject=message.subject or "",
            payload=message.data or b"",
            expected_subject=store.table_subject(table_id),
            stream=tables_stream,
            sequence=request.log_sequence,
            table_id=table_id,
            hand_id=hand_id,
            scheme=record.scheme,
            commitment=record.commitment,
        )
        if record.scheme == crv1.SCHEME:
            seeds = await self._logged(store, table_id, hand_id, request.log_sequence, request)
            hand = crv1.derive_hand(hand_id, self._vault.open(record), seeds)
            _log.info("deck served", log_sequence=request.log_sequence, scheme=record.scheme)
            return dealer_pb2.GetDeckResponse(
                cards=[card_str(card) for card in hand.dealt()],
                openings=[hand.commit.opening(j).to_bytes() for j in hand.order],
            )
        deck = derive_deck(hand_id, self._vault.open(record))
        _log.info("deck served", log_sequence=request.log_sequence)
        return dealer_pb2.GetDeckResponse(cards=[card_str(card) for card in deck])

    async def RevealSeed(
        self, request: dealer_pb2.RevealSeedRequest, context: Context
    ) -> dealer_pb2.RevealSeedResponse:
        """After the hand ended or was voided: publish the seed to the audit stream, return it."""
        table_id, hand_id = validate_ids(request.table_id, request.hand_id)
        store = self.store
        record = await self._committed(store, table_id, hand_id)
        revealed = await store.load_reveal(table_id, hand_id)
        if revealed is None:
            scan = await find_hand_progress(
                store.table_log,
                table_id=table_id,
                hand_id=hand_id,
                scheme=record.scheme,
                commitment=record.commitment,
                log_sequence=request.log_sequence,
            )
            if scan.progress is HandProgress.NOT_COMMITTED:
                raise FailedPrecondition(
                    f"the log of table {table_id!r} has no HandCommitted for hand {hand_id!r}; "
                    "a hand that was never logged is not revealed",
                    reason="COMMITMENT_NOT_LOGGED",
                )
            if scan.progress is HandProgress.IN_PROGRESS:
                raise FailedPrecondition(
                    f"hand {hand_id!r} has not ended: the log of table {table_id!r} has no "
                    "HandEnded or HandVoided for it yet",
                    reason="HAND_NOT_ENDED",
                )
            seed = self._vault.open(record)
            revealed, created = await store.publish_reveal(
                SeedRevealedRecord(
                    table_id=table_id,
                    hand_id=hand_id,
                    scheme=record.scheme,
                    seed=seed,
                    commitment=record.commitment,
                )
            )
            _log.info(
                "seed revealed" if created else "seed reveal found (published concurrently)",
                outcome=scan.progress.value,
                end_version=scan.finished_version,
                audit_sequence=revealed.sequence,
            )
        else:
            _log.info("seed reveal returned again", audit_sequence=revealed.sequence)
        return dealer_pb2.RevealSeedResponse(
            scheme=revealed.scheme, seed=revealed.seed, commitment=revealed.commitment
        )

    async def Reshuffle(
        self, request: dealer_pb2.ReshuffleRequest, context: Context
    ) -> dealer_pb2.ReshuffleResponse:
        """A draw's discards reshuffled from the hand's sealed seed (RBS1 reshuffle)."""
        table_id, hand_id = validate_ids(request.table_id, request.hand_id)
        try:
            cards = [parse_card(c) for c in request.cards]
        except ValueError as exc:
            raise InvalidArgument(f"bad card: {exc}", reason="BAD_CARD", field="cards") from None
        record = await self._committed(self.store, table_id, hand_id)
        seed = self._vault.open(record)
        try:
            if record.scheme == crv1.SCHEME:
                # CRV1 reshuffles deck positions (docs/shuffle.md II.7), bound to the seeds.
                seeds = await self._logged(
                    self.store, table_id, hand_id, request.log_sequence, request
                )
                commit = crv1.commit_deck(hand_id, seed)
                key = crv1.mix_key(hand_id, commit.commitment, commit.root, seeds)
                where = {card: j for j, card in enumerate(commit.deck)}
                positions = [where[c] for c in cards]
                order = crv1.reshuffle_order(hand_id, seed, key, request.round, positions)
                shuffled = tuple(commit.deck[j] for j in order)
            else:
                shuffled = derive_reshuffle(hand_id, seed, request.round, cards)
        except ShuffleInputError as exc:
            raise InvalidArgument(str(exc), reason="BAD_RESHUFFLE", field="cards") from None
        _log.info("discards reshuffled", round=request.round, count=len(cards))
        return dealer_pb2.ReshuffleResponse(cards=[card_str(card) for card in shuffled])

    # -- helpers ------------------------------------------------------------------------------

    async def _logged(
        self,
        store: DealerStore,
        table_id: str,
        hand_id: str,
        log_sequence: int,
        request: dealer_pb2.GetDeckRequest | dealer_pb2.ReshuffleRequest,
    ) -> list[crv1.ClientSeed]:
        """CRV1: the request's locked seeds, which must be the ones the table's log locked
        for the hand (read from the commitment's record, ``log_sequence``, on)."""
        asked = locked_seeds(request.seeds)
        if log_sequence <= 0:
            raise InvalidArgument(
                "log_sequence is required for a CRV1 hand: the stream sequence of the table's "
                "record holding HandCommitted for this hand",
                reason="MISSING_FIELD",
                field="log_sequence",
            )
        logged = await logged_seeds(
            store.table_log, table_id=table_id, hand_id=hand_id, log_sequence=log_sequence
        )
        if sorted((s.seat, s.player, s.seed, int(s.origin)) for s in asked) != sorted(logged):
            raise FailedPrecondition(
                f"the seeds sent for hand {hand_id!r} are not the ones the log of table "
                f"{table_id!r} locked (SeedsLocked); the deal follows the log's",
                reason="SEEDS_MISMATCH",
            )
        return asked

    async def _committed(self, store: DealerStore, table_id: str, hand_id: str) -> SealedSeedRecord:
        record = await store.load_seed(table_id, hand_id)
        if record is None:
            raise NotFound(
                f"the dealer has no commitment for hand {hand_id!r} at table {table_id!r}; "
                "call CommitHand first",
                reason="HAND_NOT_COMMITTED",
            )
        return record
