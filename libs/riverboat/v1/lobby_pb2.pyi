import datetime

from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from riverboat.v1 import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegisterRequest(_message.Message):
    __slots__ = ("username", "password")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    username: str
    password: str
    def __init__(self, username: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class LoginRequest(_message.Message):
    __slots__ = ("username", "password")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    username: str
    password: str
    def __init__(self, username: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class LoginResponse(_message.Message):
    __slots__ = ("token", "expires_at", "role", "player_id")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    token: str
    expires_at: _timestamp_pb2.Timestamp
    role: str
    player_id: str
    def __init__(self, token: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., role: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class CreateTableRequest(_message.Message):
    __slots__ = ("template", "name", "overrides", "action_seconds", "request_id", "time_bank", "dealers_choice")
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    ACTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    DEALERS_CHOICE_FIELD_NUMBER: _ClassVar[int]
    template: str
    name: str
    overrides: _struct_pb2.Struct
    action_seconds: int
    request_id: str
    time_bank: _events_pb2.TimeBankPolicy
    dealers_choice: _events_pb2.DealersChoiceRules
    def __init__(self, template: _Optional[str] = ..., name: _Optional[str] = ..., overrides: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., action_seconds: _Optional[int] = ..., request_id: _Optional[str] = ..., time_bank: _Optional[_Union[_events_pb2.TimeBankPolicy, _Mapping]] = ..., dealers_choice: _Optional[_Union[_events_pb2.DealersChoiceRules, _Mapping]] = ...) -> None: ...

class CreateTableResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables", "next_page_token")
    TABLES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[LobbyTable]
    next_page_token: str
    def __init__(self, tables: _Optional[_Iterable[_Union[LobbyTable, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class GetTableResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ...) -> None: ...

class LobbyTable(_message.Message):
    __slots__ = ("table_id", "name", "template", "variant", "small_bet", "big_bet", "min_buy_in", "max_buy_in", "max_players", "seats", "created_at", "owner_address", "waiting_list", "action_seconds", "time_bank", "dealers_choice", "closed", "closing", "paused")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    MIN_BUY_IN_FIELD_NUMBER: _ClassVar[int]
    MAX_BUY_IN_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    OWNER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    WAITING_LIST_FIELD_NUMBER: _ClassVar[int]
    ACTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    DEALERS_CHOICE_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    CLOSING_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    name: str
    template: str
    variant: str
    small_bet: int
    big_bet: int
    min_buy_in: int
    max_buy_in: int
    max_players: int
    seats: _containers.RepeatedCompositeFieldContainer[TakenSeat]
    created_at: _timestamp_pb2.Timestamp
    owner_address: str
    waiting_list: WaitingList
    action_seconds: int
    time_bank: _events_pb2.TimeBankPolicy
    dealers_choice: _events_pb2.DealersChoiceRules
    closed: bool
    closing: bool
    paused: bool
    def __init__(self, table_id: _Optional[str] = ..., name: _Optional[str] = ..., template: _Optional[str] = ..., variant: _Optional[str] = ..., small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ..., min_buy_in: _Optional[int] = ..., max_buy_in: _Optional[int] = ..., max_players: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[TakenSeat, _Mapping]]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., owner_address: _Optional[str] = ..., waiting_list: _Optional[_Union[WaitingList, _Mapping]] = ..., action_seconds: _Optional[int] = ..., time_bank: _Optional[_Union[_events_pb2.TimeBankPolicy, _Mapping]] = ..., dealers_choice: _Optional[_Union[_events_pb2.DealersChoiceRules, _Mapping]] = ..., closed: _Optional[bool] = ..., closing: _Optional[bool] = ..., paused: _Optional[bool] = ...) -> None: ...

class WaitingList(_message.Message):
    __slots__ = ("table_id", "waiting")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    waiting: _containers.RepeatedCompositeFieldContainer[Waiting]
    def __init__(self, table_id: _Optional[str] = ..., waiting: _Optional[_Iterable[_Union[Waiting, _Mapping]]] = ...) -> None: ...

class Waiting(_message.Message):
    __slots__ = ("player", "joined_at", "offered_seat", "offer_expires_at")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    JOINED_AT_FIELD_NUMBER: _ClassVar[int]
    OFFERED_SEAT_FIELD_NUMBER: _ClassVar[int]
    OFFER_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    player: str
    joined_at: _timestamp_pb2.Timestamp
    offered_seat: int
    offer_expires_at: _timestamp_pb2.Timestamp
    def __init__(self, player: _Optional[str] = ..., joined_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., offered_seat: _Optional[int] = ..., offer_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class JoinWaitingListRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class JoinWaitingListResponse(_message.Message):
    __slots__ = ("waiting_list", "position")
    WAITING_LIST_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    waiting_list: WaitingList
    position: int
    def __init__(self, waiting_list: _Optional[_Union[WaitingList, _Mapping]] = ..., position: _Optional[int] = ...) -> None: ...

class LeaveWaitingListRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class LeaveWaitingListResponse(_message.Message):
    __slots__ = ("waiting_list",)
    WAITING_LIST_FIELD_NUMBER: _ClassVar[int]
    waiting_list: WaitingList
    def __init__(self, waiting_list: _Optional[_Union[WaitingList, _Mapping]] = ...) -> None: ...

class GetWaitingListRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class GetWaitingListResponse(_message.Message):
    __slots__ = ("waiting_list",)
    WAITING_LIST_FIELD_NUMBER: _ClassVar[int]
    waiting_list: WaitingList
    def __init__(self, waiting_list: _Optional[_Union[WaitingList, _Mapping]] = ...) -> None: ...

class TakenSeat(_message.Message):
    __slots__ = ("seat", "player", "stack")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    stack: int
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., stack: _Optional[int] = ...) -> None: ...

class JoinTableRequest(_message.Message):
    __slots__ = ("table_id", "seat", "buy_in", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    buy_in: int
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., buy_in: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class JoinTableResponse(_message.Message):
    __slots__ = ("seat", "stack", "balance", "owner_address")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    OWNER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    stack: int
    balance: int
    owner_address: str
    def __init__(self, seat: _Optional[int] = ..., stack: _Optional[int] = ..., balance: _Optional[int] = ..., owner_address: _Optional[str] = ...) -> None: ...

class MovePlayerRequest(_message.Message):
    __slots__ = ("player", "from_table_id", "to_table_id", "seat", "request_id")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    FROM_TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TO_TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    player: str
    from_table_id: str
    to_table_id: str
    seat: int
    request_id: str
    def __init__(self, player: _Optional[str] = ..., from_table_id: _Optional[str] = ..., to_table_id: _Optional[str] = ..., seat: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class MovePlayerResponse(_message.Message):
    __slots__ = ("to_table_id", "seat", "stack", "owner_address")
    TO_TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    OWNER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    to_table_id: str
    seat: int
    stack: int
    owner_address: str
    def __init__(self, to_table_id: _Optional[str] = ..., seat: _Optional[int] = ..., stack: _Optional[int] = ..., owner_address: _Optional[str] = ...) -> None: ...

class LeaveTableRequest(_message.Message):
    __slots__ = ("table_id", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class LeaveTableResponse(_message.Message):
    __slots__ = ("pending", "stack")
    PENDING_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    pending: bool
    stack: int
    def __init__(self, pending: _Optional[bool] = ..., stack: _Optional[int] = ...) -> None: ...

class LockAccountRequest(_message.Message):
    __slots__ = ("username", "reason")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    username: str
    reason: str
    def __init__(self, username: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class LockAccountResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: PlayerAccount
    def __init__(self, account: _Optional[_Union[PlayerAccount, _Mapping]] = ...) -> None: ...

class UnlockAccountRequest(_message.Message):
    __slots__ = ("username",)
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    username: str
    def __init__(self, username: _Optional[str] = ...) -> None: ...

class UnlockAccountResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: PlayerAccount
    def __init__(self, account: _Optional[_Union[PlayerAccount, _Mapping]] = ...) -> None: ...

class ResetPasswordRequest(_message.Message):
    __slots__ = ("username", "new_password")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    NEW_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    username: str
    new_password: str
    def __init__(self, username: _Optional[str] = ..., new_password: _Optional[str] = ...) -> None: ...

class ResetPasswordResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: PlayerAccount
    def __init__(self, account: _Optional[_Union[PlayerAccount, _Mapping]] = ...) -> None: ...

class ListPlayersRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListPlayersResponse(_message.Message):
    __slots__ = ("players", "next_page_token")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[PlayerAccount]
    next_page_token: str
    def __init__(self, players: _Optional[_Iterable[_Union[PlayerAccount, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class PlayerAccount(_message.Message):
    __slots__ = ("username", "role", "locked", "locked_reason", "locked_by", "locked_at", "balance", "reserved", "at_tables", "registered_at")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    LOCKED_FIELD_NUMBER: _ClassVar[int]
    LOCKED_REASON_FIELD_NUMBER: _ClassVar[int]
    LOCKED_BY_FIELD_NUMBER: _ClassVar[int]
    LOCKED_AT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    RESERVED_FIELD_NUMBER: _ClassVar[int]
    AT_TABLES_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_AT_FIELD_NUMBER: _ClassVar[int]
    username: str
    role: str
    locked: bool
    locked_reason: str
    locked_by: str
    locked_at: _timestamp_pb2.Timestamp
    balance: int
    reserved: int
    at_tables: int
    registered_at: _timestamp_pb2.Timestamp
    def __init__(self, username: _Optional[str] = ..., role: _Optional[str] = ..., locked: _Optional[bool] = ..., locked_reason: _Optional[str] = ..., locked_by: _Optional[str] = ..., locked_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., balance: _Optional[int] = ..., reserved: _Optional[int] = ..., at_tables: _Optional[int] = ..., registered_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class LobbyEvent(_message.Message):
    __slots__ = ("request_id", "occurred_at", "actor", "account_registered", "table_listed", "join_started", "join_completed", "join_failed", "account_locked", "account_unlocked", "password_reset", "waitlist_joined", "waitlist_left", "seat_offered")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_REGISTERED_FIELD_NUMBER: _ClassVar[int]
    TABLE_LISTED_FIELD_NUMBER: _ClassVar[int]
    JOIN_STARTED_FIELD_NUMBER: _ClassVar[int]
    JOIN_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    JOIN_FAILED_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_LOCKED_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_UNLOCKED_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_RESET_FIELD_NUMBER: _ClassVar[int]
    WAITLIST_JOINED_FIELD_NUMBER: _ClassVar[int]
    WAITLIST_LEFT_FIELD_NUMBER: _ClassVar[int]
    SEAT_OFFERED_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    occurred_at: _timestamp_pb2.Timestamp
    actor: str
    account_registered: AccountRegistered
    table_listed: TableListed
    join_started: JoinStarted
    join_completed: JoinCompleted
    join_failed: JoinFailed
    account_locked: AccountLocked
    account_unlocked: AccountUnlocked
    password_reset: PasswordReset
    waitlist_joined: WaitlistJoined
    waitlist_left: WaitlistLeft
    seat_offered: SeatOffered
    def __init__(self, request_id: _Optional[str] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., actor: _Optional[str] = ..., account_registered: _Optional[_Union[AccountRegistered, _Mapping]] = ..., table_listed: _Optional[_Union[TableListed, _Mapping]] = ..., join_started: _Optional[_Union[JoinStarted, _Mapping]] = ..., join_completed: _Optional[_Union[JoinCompleted, _Mapping]] = ..., join_failed: _Optional[_Union[JoinFailed, _Mapping]] = ..., account_locked: _Optional[_Union[AccountLocked, _Mapping]] = ..., account_unlocked: _Optional[_Union[AccountUnlocked, _Mapping]] = ..., password_reset: _Optional[_Union[PasswordReset, _Mapping]] = ..., waitlist_joined: _Optional[_Union[WaitlistJoined, _Mapping]] = ..., waitlist_left: _Optional[_Union[WaitlistLeft, _Mapping]] = ..., seat_offered: _Optional[_Union[SeatOffered, _Mapping]] = ...) -> None: ...

class AccountRegistered(_message.Message):
    __slots__ = ("username", "player_id", "role", "password_hash")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_HASH_FIELD_NUMBER: _ClassVar[int]
    username: str
    player_id: str
    role: str
    password_hash: str
    def __init__(self, username: _Optional[str] = ..., player_id: _Optional[str] = ..., role: _Optional[str] = ..., password_hash: _Optional[str] = ...) -> None: ...

class TableListed(_message.Message):
    __slots__ = ("table_id", "name", "template", "variant", "options", "action_seconds", "time_bank", "dealers_choice")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    DEALERS_CHOICE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    name: str
    template: str
    variant: str
    options: _events_pb2.TableOptions
    action_seconds: int
    time_bank: _events_pb2.TimeBankPolicy
    dealers_choice: _events_pb2.DealersChoiceRules
    def __init__(self, table_id: _Optional[str] = ..., name: _Optional[str] = ..., template: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Union[_events_pb2.TableOptions, _Mapping]] = ..., action_seconds: _Optional[int] = ..., time_bank: _Optional[_Union[_events_pb2.TimeBankPolicy, _Mapping]] = ..., dealers_choice: _Optional[_Union[_events_pb2.DealersChoiceRules, _Mapping]] = ...) -> None: ...

class JoinStarted(_message.Message):
    __slots__ = ("reference", "player", "table_id", "seat", "buy_in")
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_FIELD_NUMBER: _ClassVar[int]
    reference: str
    player: str
    table_id: str
    seat: int
    buy_in: int
    def __init__(self, reference: _Optional[str] = ..., player: _Optional[str] = ..., table_id: _Optional[str] = ..., seat: _Optional[int] = ..., buy_in: _Optional[int] = ...) -> None: ...

class JoinCompleted(_message.Message):
    __slots__ = ("reference", "seat")
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    reference: str
    seat: int
    def __init__(self, reference: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinFailed(_message.Message):
    __slots__ = ("reference", "reason")
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    reference: str
    reason: str
    def __init__(self, reference: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class AccountLocked(_message.Message):
    __slots__ = ("username", "reason")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    username: str
    reason: str
    def __init__(self, username: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class AccountUnlocked(_message.Message):
    __slots__ = ("username",)
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    username: str
    def __init__(self, username: _Optional[str] = ...) -> None: ...

class PasswordReset(_message.Message):
    __slots__ = ("username", "password_hash")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_HASH_FIELD_NUMBER: _ClassVar[int]
    username: str
    password_hash: str
    def __init__(self, username: _Optional[str] = ..., password_hash: _Optional[str] = ...) -> None: ...

class WaitlistJoined(_message.Message):
    __slots__ = ("table_id", "player")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player: str
    def __init__(self, table_id: _Optional[str] = ..., player: _Optional[str] = ...) -> None: ...

class WaitlistLeft(_message.Message):
    __slots__ = ("table_id", "player", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player: str
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., player: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SeatOffered(_message.Message):
    __slots__ = ("table_id", "player", "seat", "expires_at")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player: str
    seat: int
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, table_id: _Optional[str] = ..., player: _Optional[str] = ..., seat: _Optional[int] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
