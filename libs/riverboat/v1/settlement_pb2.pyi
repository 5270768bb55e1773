import datetime

from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LimitKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LIMIT_KIND_UNSPECIFIED: _ClassVar[LimitKind]
    LIMIT_KIND_DEPOSIT_DAY: _ClassVar[LimitKind]
    LIMIT_KIND_DEPOSIT_WEEK: _ClassVar[LimitKind]
    LIMIT_KIND_BUY_IN_DAY: _ClassVar[LimitKind]
    LIMIT_KIND_BUY_IN_WEEK: _ClassVar[LimitKind]
LIMIT_KIND_UNSPECIFIED: LimitKind
LIMIT_KIND_DEPOSIT_DAY: LimitKind
LIMIT_KIND_DEPOSIT_WEEK: LimitKind
LIMIT_KIND_BUY_IN_DAY: LimitKind
LIMIT_KIND_BUY_IN_WEEK: LimitKind

class SetLimitRequest(_message.Message):
    __slots__ = ("player", "kind", "amount")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    player: str
    kind: LimitKind
    amount: int
    def __init__(self, player: _Optional[str] = ..., kind: _Optional[_Union[LimitKind, str]] = ..., amount: _Optional[int] = ...) -> None: ...

class SetLimitResponse(_message.Message):
    __slots__ = ("limits",)
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    limits: Limits
    def __init__(self, limits: _Optional[_Union[Limits, _Mapping]] = ...) -> None: ...

class SelfExcludeRequest(_message.Message):
    __slots__ = ("player", "days")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    DAYS_FIELD_NUMBER: _ClassVar[int]
    player: str
    days: int
    def __init__(self, player: _Optional[str] = ..., days: _Optional[int] = ...) -> None: ...

class SelfExcludeResponse(_message.Message):
    __slots__ = ("limits",)
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    limits: Limits
    def __init__(self, limits: _Optional[_Union[Limits, _Mapping]] = ...) -> None: ...

class GetLimitsRequest(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: str
    def __init__(self, player: _Optional[str] = ...) -> None: ...

class GetLimitsResponse(_message.Message):
    __slots__ = ("limits",)
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    limits: Limits
    def __init__(self, limits: _Optional[_Union[Limits, _Mapping]] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("player", "limits", "excluded_until", "cooling_off_seconds")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    COOLING_OFF_SECONDS_FIELD_NUMBER: _ClassVar[int]
    player: str
    limits: _containers.RepeatedCompositeFieldContainer[Limit]
    excluded_until: _timestamp_pb2.Timestamp
    cooling_off_seconds: int
    def __init__(self, player: _Optional[str] = ..., limits: _Optional[_Iterable[_Union[Limit, _Mapping]]] = ..., excluded_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., cooling_off_seconds: _Optional[int] = ...) -> None: ...

class Limit(_message.Message):
    __slots__ = ("kind", "amount", "used", "remaining", "has_pending", "pending_amount", "pending_from")
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    HAS_PENDING_FIELD_NUMBER: _ClassVar[int]
    PENDING_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    PENDING_FROM_FIELD_NUMBER: _ClassVar[int]
    kind: LimitKind
    amount: int
    used: int
    remaining: int
    has_pending: bool
    pending_amount: int
    pending_from: _timestamp_pb2.Timestamp
    def __init__(self, kind: _Optional[_Union[LimitKind, str]] = ..., amount: _Optional[int] = ..., used: _Optional[int] = ..., remaining: _Optional[int] = ..., has_pending: _Optional[bool] = ..., pending_amount: _Optional[int] = ..., pending_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DepositRequest(_message.Message):
    __slots__ = ("player", "amount", "external_ref")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_REF_FIELD_NUMBER: _ClassVar[int]
    player: str
    amount: int
    external_ref: str
    def __init__(self, player: _Optional[str] = ..., amount: _Optional[int] = ..., external_ref: _Optional[str] = ...) -> None: ...

class DepositResponse(_message.Message):
    __slots__ = ("balance", "duplicate")
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    balance: int
    duplicate: bool
    def __init__(self, balance: _Optional[int] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class WithdrawRequest(_message.Message):
    __slots__ = ("player", "amount", "external_ref")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_REF_FIELD_NUMBER: _ClassVar[int]
    player: str
    amount: int
    external_ref: str
    def __init__(self, player: _Optional[str] = ..., amount: _Optional[int] = ..., external_ref: _Optional[str] = ...) -> None: ...

class WithdrawResponse(_message.Message):
    __slots__ = ("balance", "duplicate")
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    balance: int
    duplicate: bool
    def __init__(self, balance: _Optional[int] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class GetBalanceRequest(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: str
    def __init__(self, player: _Optional[str] = ...) -> None: ...

class GetBalanceResponse(_message.Message):
    __slots__ = ("player", "balance", "reserved", "at_tables")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    RESERVED_FIELD_NUMBER: _ClassVar[int]
    AT_TABLES_FIELD_NUMBER: _ClassVar[int]
    player: str
    balance: int
    reserved: int
    at_tables: int
    def __init__(self, player: _Optional[str] = ..., balance: _Optional[int] = ..., reserved: _Optional[int] = ..., at_tables: _Optional[int] = ...) -> None: ...

class ListLedgerEntriesRequest(_message.Message):
    __slots__ = ("account", "page_size", "page_token")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    account: str
    page_size: int
    page_token: str
    def __init__(self, account: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class LedgerEntry(_message.Message):
    __slots__ = ("posting_id", "account", "amount", "kind", "reference", "occurred_at", "balance_after")
    POSTING_ID_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_AFTER_FIELD_NUMBER: _ClassVar[int]
    posting_id: int
    account: str
    amount: int
    kind: str
    reference: str
    occurred_at: str
    balance_after: int
    def __init__(self, posting_id: _Optional[int] = ..., account: _Optional[str] = ..., amount: _Optional[int] = ..., kind: _Optional[str] = ..., reference: _Optional[str] = ..., occurred_at: _Optional[str] = ..., balance_after: _Optional[int] = ...) -> None: ...

class ListLedgerEntriesResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LedgerEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[LedgerEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetRakeReportRequest(_message.Message):
    __slots__ = ("from_day", "to_day", "table_id")
    FROM_DAY_FIELD_NUMBER: _ClassVar[int]
    TO_DAY_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    from_day: str
    to_day: str
    table_id: str
    def __init__(self, from_day: _Optional[str] = ..., to_day: _Optional[str] = ..., table_id: _Optional[str] = ...) -> None: ...

class RakeReportRow(_message.Message):
    __slots__ = ("table_id", "variant", "day", "hands", "rake")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    DAY_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    RAKE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    day: str
    hands: int
    rake: int
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., day: _Optional[str] = ..., hands: _Optional[int] = ..., rake: _Optional[int] = ...) -> None: ...

class GetRakeReportResponse(_message.Message):
    __slots__ = ("rows", "total_rake")
    ROWS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_RAKE_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[RakeReportRow]
    total_rake: int
    def __init__(self, rows: _Optional[_Iterable[_Union[RakeReportRow, _Mapping]]] = ..., total_rake: _Optional[int] = ...) -> None: ...

class ReserveBuyInRequest(_message.Message):
    __slots__ = ("player", "table_id", "amount", "reference", "moved_from", "validate_only")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    MOVED_FROM_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_ONLY_FIELD_NUMBER: _ClassVar[int]
    player: str
    table_id: str
    amount: int
    reference: str
    moved_from: str
    validate_only: bool
    def __init__(self, player: _Optional[str] = ..., table_id: _Optional[str] = ..., amount: _Optional[int] = ..., reference: _Optional[str] = ..., moved_from: _Optional[str] = ..., validate_only: _Optional[bool] = ...) -> None: ...

class ReserveBuyInResponse(_message.Message):
    __slots__ = ("balance", "duplicate")
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    balance: int
    duplicate: bool
    def __init__(self, balance: _Optional[int] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class ReleaseBuyInRequest(_message.Message):
    __slots__ = ("player", "reference", "reason")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player: str
    reference: str
    reason: str
    def __init__(self, player: _Optional[str] = ..., reference: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReleaseBuyInResponse(_message.Message):
    __slots__ = ("balance", "released")
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    balance: int
    released: bool
    def __init__(self, balance: _Optional[int] = ..., released: _Optional[bool] = ...) -> None: ...
