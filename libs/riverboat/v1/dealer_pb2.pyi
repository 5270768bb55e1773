from buf.validate import validate_pb2 as _validate_pb2
from riverboat.v1 import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReshuffleRequest(_message.Message):
    __slots__ = ("table_id", "hand_id", "round", "cards", "seeds", "log_sequence")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    LOG_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    round: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    seeds: _containers.RepeatedCompositeFieldContainer[_events_pb2.LockedSeed]
    log_sequence: int
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., round: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., seeds: _Optional[_Iterable[_Union[_events_pb2.LockedSeed, _Mapping]]] = ..., log_sequence: _Optional[int] = ...) -> None: ...

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
    __slots__ = ("scheme", "commitment", "deck_size", "merkle_root")
    SCHEME_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    MERKLE_ROOT_FIELD_NUMBER: _ClassVar[int]
    scheme: str
    commitment: bytes
    deck_size: int
    merkle_root: bytes
    def __init__(self, scheme: _Optional[str] = ..., commitment: _Optional[bytes] = ..., deck_size: _Optional[int] = ..., merkle_root: _Optional[bytes] = ...) -> None: ...

class GetDeckRequest(_message.Message):
    __slots__ = ("table_id", "hand_id", "log_sequence", "seeds")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    LOG_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    hand_id: str
    log_sequence: int
    seeds: _containers.RepeatedCompositeFieldContainer[_events_pb2.LockedSeed]
    def __init__(self, table_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., log_sequence: _Optional[int] = ..., seeds: _Optional[_Iterable[_Union[_events_pb2.LockedSeed, _Mapping]]] = ...) -> None: ...

class GetDeckResponse(_message.Message):
    __slots__ = ("cards", "openings")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    OPENINGS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    openings: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., openings: _Optional[_Iterable[bytes]] = ...) -> None: ...

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
