"""Wallet events <-> protobuf (``riverboat.v1.WalletEventBatch``): one log record per command."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from riverboat.ledger.limits import LimitChanged, SelfExcluded
from riverboat.ledger.wallet import (
    BuyInReleased,
    BuyInReserved,
    BuyInSeated,
    CashedOut,
    Deposited,
    WalletEvent,
    Withdrawn,
    balance_change,
)
from riverboat.v1 import wallet_pb2 as pb

__all__ = ["WalletCodecError", "WalletRecordEvent", "decode_wallet_batch", "encode_wallet_batch"]


class WalletCodecError(ValueError):
    """A stored wallet record does not decode to known events."""


@dataclass(frozen=True, slots=True)
class WalletRecordEvent:
    """A decoded wallet event with its time, its index in the record and the balance after."""

    event: WalletEvent
    occurred_at: datetime
    balance_after: int
    index: int


def _to_pb(event: WalletEvent, occurred_at: datetime, balance_after: int) -> pb.WalletEvent:
    ts = Timestamp()
    ts.FromDatetime(occurred_at)
    out = pb.WalletEvent(occurred_at=ts, balance_after=balance_after)
    match event:
        case Deposited():
            out.deposited.CopyFrom(
                pb.Deposited(amount=event.amount, external_ref=event.external_ref, by=event.by)
            )
        case Withdrawn():
            out.withdrawn.CopyFrom(
                pb.Withdrawn(amount=event.amount, external_ref=event.external_ref, by=event.by)
            )
        case BuyInReserved():
            out.buy_in_reserved.CopyFrom(
                pb.BuyInReserved(
                    reference=event.reference, table_id=event.table_id, amount=event.amount
                )
            )
        case BuyInReleased():
            out.buy_in_released.CopyFrom(
                pb.BuyInReleased(
                    reference=event.reference, amount=event.amount, reason=event.reason
                )
            )
        case BuyInSeated():
            out.buy_in_seated.CopyFrom(
                pb.BuyInSeated(
                    reference=event.reference,
                    table_id=event.table_id,
                    seated=event.seated,
                    wallet_delta=event.wallet_delta,
                    table_event_id=event.table_event_id,
                )
            )
        case CashedOut():
            out.cashed_out.CopyFrom(
                pb.CashedOut(
                    table_id=event.table_id,
                    amount=event.amount,
                    table_event_id=event.table_event_id,
                )
            )
        case LimitChanged():
            effective = Timestamp()
            effective.FromDatetime(event.effective_at)
            out.limit_changed.CopyFrom(
                pb.LimitChanged(
                    kind=event.kind, amount=event.amount, effective_at=effective, by=event.by
                )
            )
        case SelfExcluded():
            until = Timestamp()
            until.FromDatetime(event.until)
            out.self_excluded.CopyFrom(pb.SelfExcluded(until=until, by=event.by))
    return out


def encode_wallet_batch(
    player: str, events: Sequence[WalletEvent], *, balance_before: int, occurred_at: datetime
) -> bytes:
    """The bytes of one wallet record; each event carries the balance it leaves."""
    balance = balance_before
    items = []
    for event in events:
        balance += balance_change(event)
        items.append(_to_pb(event, occurred_at, balance))
    return pb.WalletEventBatch(player=player, events=items).SerializeToString()


def _from_pb(item: pb.WalletEvent) -> WalletEvent:
    kind = item.WhichOneof("payload")
    match kind:
        case "deposited":
            d = item.deposited
            return Deposited(d.amount, d.external_ref, d.by)
        case "withdrawn":
            w = item.withdrawn
            return Withdrawn(w.amount, w.external_ref, w.by)
        case "buy_in_reserved":
            m = item.buy_in_reserved
            return BuyInReserved(m.reference, m.table_id, m.amount)
        case "buy_in_released":
            r = item.buy_in_released
            return BuyInReleased(r.reference, r.amount, r.reason)
        case "buy_in_seated":
            s = item.buy_in_seated
            return BuyInSeated(s.reference, s.table_id, s.seated, s.wallet_delta, s.table_event_id)
        case "cashed_out":
            c = item.cashed_out
            return CashedOut(c.table_id, c.amount, c.table_event_id)
        case "limit_changed":
            m2 = item.limit_changed
            return LimitChanged(m2.kind, m2.amount, m2.effective_at.ToDatetime(tzinfo=UTC), m2.by)
        case "self_excluded":
            x = item.self_excluded
            return SelfExcluded(x.until.ToDatetime(tzinfo=UTC), x.by)
    raise WalletCodecError(f"unknown wallet event payload {kind!r}")


def decode_wallet_batch(data: bytes) -> tuple[str, list[WalletRecordEvent]]:
    """The player and every event of one wallet record."""
    batch = pb.WalletEventBatch()
    try:
        batch.ParseFromString(data)
    except Exception as exc:  # protobuf raises DecodeError, a bare Exception subclass
        raise WalletCodecError(f"not a WalletEventBatch: {exc}") from None
    if not batch.player:
        raise WalletCodecError("a wallet record without a player")
    events = [
        WalletRecordEvent(
            _from_pb(item), item.occurred_at.ToDatetime(tzinfo=UTC), item.balance_after, index
        )
        for index, item in enumerate(batch.events)
    ]
    return batch.player, events
