from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ReshuffleRequest(_message.Message):
    __slots__ = ("table_id", "hand_id", "round", "cards")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    round: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., round: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class ReshuffleResponse(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class CommitHandRequest(_message.Message):
    __slots__ = ("table_id", "hand_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ...) -> None: ...

class CommitHandResponse(_message.Message):
    __slots__ = ("scheme", "commitment", "deck_size")
    SCHEME_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    scheme: str
    commitment: bytes
    deck_size: int
    def __init__(self, scheme: _Optional[str] = ..., commitment: _Optional[bytes] = ..., deck_size: _Optional[int] = ...) -> None: ...

class GetDeckRequest(_message.Message):
    __slots__ = ("table_id", "hand_id", "log_sequence")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    LOG_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    log_sequence: int
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., log_sequence: _Optional[int] = ...) -> None: ...

class GetDeckResponse(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class RevealSeedRequest(_message.Message):
    __slots__ = ("table_id", "hand_id", "log_sequence")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    LOG_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    log_sequence: int
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., log_sequence: _Optional[int] = ...) -> None: ...

class RevealSeedResponse(_message.Message):
    __slots__ = ("scheme", "seed", "commitment")
    SCHEME_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    scheme: str
    seed: bytes
    commitment: bytes
    def __init__(self, scheme: _Optional[str] = ..., seed: _Optional[bytes] = ..., commitment: _Optional[bytes] = ...) -> None: ...
