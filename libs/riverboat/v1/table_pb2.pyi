import datetime

from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.rpc import status_pb2 as _status_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from riverboat.v1 import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CloseTableRequest(_message.Message):
    __slots__ = ("table_id", "request_id", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    request_id: str
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CloseTableResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: TableView
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class PauseTableRequest(_message.Message):
    __slots__ = ("table_id", "request_id", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    request_id: str
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PauseTableResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: TableView
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class ResumeTableRequest(_message.Message):
    __slots__ = ("table_id", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResumeTableResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: TableView
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class SitOutRequest(_message.Message):
    __slots__ = ("table_id", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SitOutResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: TableView
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class SitInRequest(_message.Message):
    __slots__ = ("table_id", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SitInResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: TableView
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class ListHandsRequest(_message.Message):
    __slots__ = ("table_id", "page_size", "page_token", "player")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    page_size: int
    page_token: str
    player: str
    def __init__(self, table_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., player: _Optional[str] = ...) -> None: ...

class ListHandsResponse(_message.Message):
    __slots__ = ("hands", "next_page_token")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[HandSummary]
    next_page_token: str
    def __init__(self, hands: _Optional[_Iterable[_Union[HandSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class HandPlayer(_message.Message):
    __slots__ = ("seat", "player", "starting_stack", "final_stack")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STARTING_STACK_FIELD_NUMBER: _ClassVar[int]
    FINAL_STACK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    starting_stack: int
    final_stack: int
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., starting_stack: _Optional[int] = ..., final_stack: _Optional[int] = ...) -> None: ...

class HandSummary(_message.Message):
    __slots__ = ("table_id", "hand_id", "game", "started_at", "button", "players", "paid_out", "rake", "voided", "first_version", "last_version", "hand_number", "pokerstars_number")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PAID_OUT_FIELD_NUMBER: _ClassVar[int]
    RAKE_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    FIRST_VERSION_FIELD_NUMBER: _ClassVar[int]
    LAST_VERSION_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    POKERSTARS_NUMBER_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    game: str
    started_at: _timestamp_pb2.Timestamp
    button: int
    players: _containers.RepeatedCompositeFieldContainer[HandPlayer]
    paid_out: int
    rake: int
    voided: bool
    first_version: int
    last_version: int
    hand_number: int
    pokerstars_number: int
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., game: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., button: _Optional[int] = ..., players: _Optional[_Iterable[_Union[HandPlayer, _Mapping]]] = ..., paid_out: _Optional[int] = ..., rake: _Optional[int] = ..., voided: _Optional[bool] = ..., first_version: _Optional[int] = ..., last_version: _Optional[int] = ..., hand_number: _Optional[int] = ..., pokerstars_number: _Optional[int] = ...) -> None: ...

class GetHandHistoryRequest(_message.Message):
    __slots__ = ("table_id", "hand_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ...) -> None: ...

class GetHandHistoryResponse(_message.Message):
    __slots__ = ("hand", "perspective", "events", "text", "phh")
    HAND_FIELD_NUMBER: _ClassVar[int]
    PERSPECTIVE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PHH_FIELD_NUMBER: _ClassVar[int]
    hand: HandSummary
    perspective: str
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.EventEnvelope]
    text: str
    phh: str
    def __init__(self, hand: _Optional[_Union[HandSummary, _Mapping]] = ..., perspective: _Optional[str] = ..., events: _Optional[_Iterable[_Union[_events_pb2.EventEnvelope, _Mapping]]] = ..., text: _Optional[str] = ..., phh: _Optional[str] = ...) -> None: ...

class OpenTableRequest(_message.Message):
    __slots__ = ("table_id", "name", "variant", "options", "action_seconds", "request_id", "dealers_choice", "time_bank")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    DEALERS_CHOICE_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    name: str
    variant: str
    options: _events_pb2.TableOptions
    action_seconds: int
    request_id: str
    dealers_choice: _events_pb2.DealersChoiceRules
    time_bank: _events_pb2.TimeBankPolicy
    def __init__(self, table_id: _Optional[str] = ..., name: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Union[_events_pb2.TableOptions, _Mapping]] = ..., action_seconds: _Optional[int] = ..., request_id: _Optional[str] = ..., dealers_choice: _Optional[_Union[_events_pb2.DealersChoiceRules, _Mapping]] = ..., time_bank: _Optional[_Union[_events_pb2.TimeBankPolicy, _Mapping]] = ...) -> None: ...

class OpenTableResponse(_message.Message):
    __slots__ = ("table_id", "version")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    version: int
    def __init__(self, table_id: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class SeatPlayerRequest(_message.Message):
    __slots__ = ("table_id", "seat", "player", "stack", "request_id", "buy_in_reference")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    player: str
    stack: int
    request_id: str
    buy_in_reference: str
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., player: _Optional[str] = ..., stack: _Optional[int] = ..., request_id: _Optional[str] = ..., buy_in_reference: _Optional[str] = ...) -> None: ...

class SeatPlayerResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class UnseatPlayerRequest(_message.Message):
    __slots__ = ("table_id", "seat", "request_id", "player", "between_hands")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    BETWEEN_HANDS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    request_id: str
    player: str
    between_hands: bool
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., request_id: _Optional[str] = ..., player: _Optional[str] = ..., between_hands: _Optional[bool] = ...) -> None: ...

class UnseatPlayerResponse(_message.Message):
    __slots__ = ("version", "pending", "stack")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    version: int
    pending: bool
    stack: int
    def __init__(self, version: _Optional[int] = ..., pending: _Optional[bool] = ..., stack: _Optional[int] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("table_id", "hand_id", "seat", "action", "amount", "request_id", "choice", "options", "cards", "small_bet", "big_bet", "client_seed", "seed_commitment")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    seat: int
    action: str
    amount: int
    request_id: str
    choice: str
    options: _struct_pb2.Struct
    cards: _containers.RepeatedScalarFieldContainer[str]
    small_bet: int
    big_bet: int
    client_seed: bytes
    seed_commitment: bytes
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., amount: _Optional[int] = ..., request_id: _Optional[str] = ..., choice: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., cards: _Optional[_Iterable[str]] = ..., small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ..., client_seed: _Optional[bytes] = ..., seed_commitment: _Optional[bytes] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: TableView
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("table_id", "after_version")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    after_version: int
    def __init__(self, table_id: _Optional[str] = ..., after_version: _Optional[int] = ...) -> None: ...

class WatchResponse(_message.Message):
    __slots__ = ("version", "events", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.EventEnvelope]
    view: TableView
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_events_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("watch", "act")
    WATCH_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    watch: WatchRequest
    act: ActRequest
    def __init__(self, watch: _Optional[_Union[WatchRequest, _Mapping]] = ..., act: _Optional[_Union[ActRequest, _Mapping]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("update", "outcome")
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    update: WatchResponse
    outcome: ActOutcome
    def __init__(self, update: _Optional[_Union[WatchResponse, _Mapping]] = ..., outcome: _Optional[_Union[ActOutcome, _Mapping]] = ...) -> None: ...

class ActOutcome(_message.Message):
    __slots__ = ("request_id", "version", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    version: int
    error: _status_pb2.Status
    def __init__(self, request_id: _Optional[str] = ..., version: _Optional[int] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...

class GetTableViewRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class GetTableViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: TableView
    def __init__(self, view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class ViewCard(_message.Message):
    __slots__ = ("card", "face_up")
    CARD_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    card: str
    face_up: bool
    def __init__(self, card: _Optional[str] = ..., face_up: _Optional[bool] = ...) -> None: ...

class CardProof(_message.Message):
    __slots__ = ("card", "deal_index", "opening")
    CARD_FIELD_NUMBER: _ClassVar[int]
    DEAL_INDEX_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    card: str
    deal_index: int
    opening: bytes
    def __init__(self, card: _Optional[str] = ..., deal_index: _Optional[int] = ..., opening: _Optional[bytes] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "player", "stack", "street_bet", "in_hand", "folded", "all_in", "cards", "declared", "declaration", "sitting_out", "time_bank_seconds", "time_bank_running", "time_bank_protection")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    STREET_BET_FIELD_NUMBER: _ClassVar[int]
    IN_HAND_FIELD_NUMBER: _ClassVar[int]
    FOLDED_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_FIELD_NUMBER: _ClassVar[int]
    SITTING_OUT_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_RUNNING_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_PROTECTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    stack: int
    street_bet: int
    in_hand: bool
    folded: bool
    all_in: bool
    cards: _containers.RepeatedCompositeFieldContainer[ViewCard]
    declared: bool
    declaration: str
    sitting_out: bool
    time_bank_seconds: int
    time_bank_running: int
    time_bank_protection: bool
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., stack: _Optional[int] = ..., street_bet: _Optional[int] = ..., in_hand: _Optional[bool] = ..., folded: _Optional[bool] = ..., all_in: _Optional[bool] = ..., cards: _Optional[_Iterable[_Union[ViewCard, _Mapping]]] = ..., declared: _Optional[bool] = ..., declaration: _Optional[str] = ..., sitting_out: _Optional[bool] = ..., time_bank_seconds: _Optional[int] = ..., time_bank_running: _Optional[int] = ..., time_bank_protection: _Optional[bool] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("action", "to", "choices", "min_cards", "max_cards")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    MIN_CARDS_FIELD_NUMBER: _ClassVar[int]
    MAX_CARDS_FIELD_NUMBER: _ClassVar[int]
    action: str
    to: _containers.RepeatedScalarFieldContainer[int]
    choices: _containers.RepeatedScalarFieldContainer[str]
    min_cards: int
    max_cards: int
    def __init__(self, action: _Optional[str] = ..., to: _Optional[_Iterable[int]] = ..., choices: _Optional[_Iterable[str]] = ..., min_cards: _Optional[int] = ..., max_cards: _Optional[int] = ...) -> None: ...

class TableView(_message.Message):
    __slots__ = ("table_id", "name", "variant", "version", "hand_id", "hand_in_progress", "street", "button", "seats", "community", "pot", "to_act", "viewer_seat", "legal_actions", "options", "action_seconds", "game", "phase", "dealer", "choosing_game", "carried_pot", "waiting_for", "wild_cards", "game_options", "table_cards", "hand_number", "time_bank", "scheme", "merkle_root", "locked_seeds", "proofs", "commitment", "seeding", "reshuffles", "closed", "closing", "paused")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_IN_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    STREET_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    COMMUNITY_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    CHOOSING_GAME_FIELD_NUMBER: _ClassVar[int]
    CARRIED_POT_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_FIELD_NUMBER: _ClassVar[int]
    WILD_CARDS_FIELD_NUMBER: _ClassVar[int]
    GAME_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    TABLE_CARDS_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    SCHEME_FIELD_NUMBER: _ClassVar[int]
    MERKLE_ROOT_FIELD_NUMBER: _ClassVar[int]
    LOCKED_SEEDS_FIELD_NUMBER: _ClassVar[int]
    PROOFS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEEDING_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLES_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    CLOSING_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    name: str
    variant: str
    version: int
    hand_id: str
    hand_in_progress: bool
    street: int
    button: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    community: _containers.RepeatedScalarFieldContainer[str]
    pot: int
    to_act: int
    viewer_seat: int
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    options: _events_pb2.TableOptions
    action_seconds: int
    game: str
    phase: str
    dealer: int
    choosing_game: bool
    carried_pot: int
    waiting_for: _containers.RepeatedScalarFieldContainer[int]
    wild_cards: _containers.RepeatedScalarFieldContainer[str]
    game_options: _struct_pb2.Struct
    table_cards: _containers.RepeatedScalarFieldContainer[str]
    hand_number: int
    time_bank: _events_pb2.TimeBankPolicy
    scheme: str
    merkle_root: bytes
    locked_seeds: _containers.RepeatedCompositeFieldContainer[_events_pb2.LockedSeed]
    proofs: _containers.RepeatedCompositeFieldContainer[CardProof]
    commitment: bytes
    seeding: SeedRound
    reshuffles: _containers.RepeatedCompositeFieldContainer[ReshuffleRound]
    closed: bool
    closing: bool
    paused: bool
    def __init__(self, table_id: _Optional[str] = ..., name: _Optional[str] = ..., variant: _Optional[str] = ..., version: _Optional[int] = ..., hand_id: _Optional[str] = ..., hand_in_progress: _Optional[bool] = ..., street: _Optional[int] = ..., button: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., community: _Optional[_Iterable[str]] = ..., pot: _Optional[int] = ..., to_act: _Optional[int] = ..., viewer_seat: _Optional[int] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., options: _Optional[_Union[_events_pb2.TableOptions, _Mapping]] = ..., action_seconds: _Optional[int] = ..., game: _Optional[str] = ..., phase: _Optional[str] = ..., dealer: _Optional[int] = ..., choosing_game: _Optional[bool] = ..., carried_pot: _Optional[int] = ..., waiting_for: _Optional[_Iterable[int]] = ..., wild_cards: _Optional[_Iterable[str]] = ..., game_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., table_cards: _Optional[_Iterable[str]] = ..., hand_number: _Optional[int] = ..., time_bank: _Optional[_Union[_events_pb2.TimeBankPolicy, _Mapping]] = ..., scheme: _Optional[str] = ..., merkle_root: _Optional[bytes] = ..., locked_seeds: _Optional[_Iterable[_Union[_events_pb2.LockedSeed, _Mapping]]] = ..., proofs: _Optional[_Iterable[_Union[CardProof, _Mapping]]] = ..., commitment: _Optional[bytes] = ..., seeding: _Optional[_Union[SeedRound, _Mapping]] = ..., reshuffles: _Optional[_Iterable[_Union[ReshuffleRound, _Mapping]]] = ..., closed: _Optional[bool] = ..., closing: _Optional[bool] = ..., paused: _Optional[bool] = ...) -> None: ...

class SeedRound(_message.Message):
    __slots__ = ("hand_id", "commitment", "merkle_root", "phase", "commits", "my_commitment", "my_seed")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    MERKLE_ROOT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    MY_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    MY_SEED_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    commitment: bytes
    merkle_root: bytes
    phase: str
    commits: _containers.RepeatedCompositeFieldContainer[_events_pb2.SeedCommit]
    my_commitment: bytes
    my_seed: bytes
    def __init__(self, hand_id: _Optional[str] = ..., commitment: _Optional[bytes] = ..., merkle_root: _Optional[bytes] = ..., phase: _Optional[str] = ..., commits: _Optional[_Iterable[_Union[_events_pb2.SeedCommit, _Mapping]]] = ..., my_commitment: _Optional[bytes] = ..., my_seed: _Optional[bytes] = ...) -> None: ...

class ReshuffleRound(_message.Message):
    __slots__ = ("round", "positions")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    round: int
    positions: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., positions: _Optional[_Iterable[int]] = ...) -> None: ...
