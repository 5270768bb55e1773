import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WalletEventBatch(_message.Message):
    __slots__ = ("player", "events")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    player: str
    events: _containers.RepeatedCompositeFieldContainer[WalletEvent]
    def __init__(self, player: _Optional[str] = ..., events: _Optional[_Iterable[_Union[WalletEvent, _Mapping]]] = ...) -> None: ...

class WalletEvent(_message.Message):
    __slots__ = ("occurred_at", "balance_after", "deposited", "withdrawn", "buy_in_reserved", "buy_in_released", "buy_in_seated", "cashed_out", "limit_changed", "self_excluded")
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_AFTER_FIELD_NUMBER: _ClassVar[int]
    DEPOSITED_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_RESERVED_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_RELEASED_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_SEATED_FIELD_NUMBER: _ClassVar[int]
    CASHED_OUT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_CHANGED_FIELD_NUMBER: _ClassVar[int]
    SELF_EXCLUDED_FIELD_NUMBER: _ClassVar[int]
    occurred_at: _timestamp_pb2.Timestamp
    balance_after: int
    deposited: Deposited
    withdrawn: Withdrawn
    buy_in_reserved: BuyInReserved
    buy_in_released: BuyInReleased
    buy_in_seated: BuyInSeated
    cashed_out: CashedOut
    limit_changed: LimitChanged
    self_excluded: SelfExcluded
    def __init__(self, occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., balance_after: _Optional[int] = ..., deposited: _Optional[_Union[Deposited, _Mapping]] = ..., withdrawn: _Optional[_Union[Withdrawn, _Mapping]] = ..., buy_in_reserved: _Optional[_Union[BuyInReserved, _Mapping]] = ..., buy_in_released: _Optional[_Union[BuyInReleased, _Mapping]] = ..., buy_in_seated: _Optional[_Union[BuyInSeated, _Mapping]] = ..., cashed_out: _Optional[_Union[CashedOut, _Mapping]] = ..., limit_changed: _Optional[_Union[LimitChanged, _Mapping]] = ..., self_excluded: _Optional[_Union[SelfExcluded, _Mapping]] = ...) -> None: ...

class Deposited(_message.Message):
    __slots__ = ("amount", "external_ref", "by")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_REF_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    amount: int
    external_ref: str
    by: str
    def __init__(self, amount: _Optional[int] = ..., external_ref: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class Withdrawn(_message.Message):
    __slots__ = ("amount", "external_ref", "by")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_REF_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    amount: int
    external_ref: str
    by: str
    def __init__(self, amount: _Optional[int] = ..., external_ref: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class BuyInReserved(_message.Message):
    __slots__ = ("reference", "table_id", "amount")
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    reference: str
    table_id: str
    amount: int
    def __init__(self, reference: _Optional[str] = ..., table_id: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class BuyInReleased(_message.Message):
    __slots__ = ("reference", "amount", "reason")
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    reference: str
    amount: int
    reason: str
    def __init__(self, reference: _Optional[str] = ..., amount: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class BuyInSeated(_message.Message):
    __slots__ = ("reference", "table_id", "seated", "wallet_delta", "table_event_id")
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEATED_FIELD_NUMBER: _ClassVar[int]
    WALLET_DELTA_FIELD_NUMBER: _ClassVar[int]
    TABLE_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    reference: str
    table_id: str
    seated: int
    wallet_delta: int
    table_event_id: str
    def __init__(self, reference: _Optional[str] = ..., table_id: _Optional[str] = ..., seated: _Optional[int] = ..., wallet_delta: _Optional[int] = ..., table_event_id: _Optional[str] = ...) -> None: ...

class CashedOut(_message.Message):
    __slots__ = ("table_id", "amount", "table_event_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TABLE_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    amount: int
    table_event_id: str
    def __init__(self, table_id: _Optional[str] = ..., amount: _Optional[int] = ..., table_event_id: _Optional[str] = ...) -> None: ...

class LimitChanged(_message.Message):
    __slots__ = ("kind", "amount", "effective_at", "by")
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_AT_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    kind: str
    amount: int
    effective_at: _timestamp_pb2.Timestamp
    by: str
    def __init__(self, kind: _Optional[str] = ..., amount: _Optional[int] = ..., effective_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., by: _Optional[str] = ...) -> None: ...

class SelfExcluded(_message.Message):
    __slots__ = ("until", "by")
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    until: _timestamp_pb2.Timestamp
    by: str
    def __init__(self, until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., by: _Optional[str] = ...) -> None: ...
