"""Every event <-> its protobuf message, derived from the dataclasses and the protos.

An event class maps to the message of the same name in ``riverboat/v1/events.proto`` and to
the ``EventEnvelope`` payload field that holds it; each dataclass field maps to the message
field of the same name (or that name with ``_json`` for a JSON object, or the name in
:data:`RENAMED`). The pair of types, the field's annotation and the proto field's, chooses the
conversion, and only a few need one:

- a card (``int``) as its text (``"Ah"``; a hidden card, -1, is ``""``), cards as repeated text;
- ``X | None``: unset (a proto3 ``optional`` or message field) or the zero value for None;
- a JSON object (``dict``) as compact text; a hand's options (``dict``) as ``TableOptions``;
- the table's settings (options, dealer's choice rules, time bank): :mod:`riverboat.settingscodec`;
- a nested dataclass (``SeatEntry``) or a tuple (``(seat, amount)``) as a message, field by field
  in order.

Every mapping is built once, at import, into one encoder and one decoder per event type (the
table service encodes every command's events, and every reader, the audit included, decodes
them). A mismatch (an event with no message, a field with no counterpart, types no conversion
joins) fails the import, naming it: adding an event means its dataclass and its message only.
"""

from __future__ import annotations

import dataclasses
import keyword
import re
import types
import typing
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, Final

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from riverboat import settingscodec
from riverboat.engine import events as ev
from riverboat.engine.cards import card_str, parse_card
from riverboat.engine.options import TableOptions
from riverboat.engine.session import DealersChoiceRules
from riverboat.settingscodec import CodecError, json_object, json_text
from riverboat.table import events as tev
from riverboat.table.events import AnyEvent, TimeBankPolicy
from riverboat.v1 import events_pb2 as pb

__all__ = [
    "DECODERS",
    "ENCODERS",
    "LOGGED",
    "MESSAGES",
    "NOT_LOGGED",
    "SCHEMA",
    "FieldMap",
    "Schema",
    "SchemaError",
    "build_schema",
    "decode_payload",
    "encode_payload",
]

#: An engine event no log holds: a table logs ``TableCreated`` and ``PlayerSeated`` instead.
NOT_LOGGED: Final = frozenset({ev.SessionOpened})
#: Dataclass fields whose message field is named otherwise: (event, field) -> message field.
RENAMED: Final[dict[tuple[type[Any], str], str]] = {
    (tev.HandCommitted, "root"): "merkle_root",
    (tev.TableCreated, "rules"): "dealers_choice",
}
#: Message fields no event has: watch updates fill them in (CRV1's dealing index).
VIEW_ONLY: Final = frozenset({("CardDealt", "deal_index")})

Convert = Callable[[Any], Any]
Encoder = Callable[[Any, pb.EventEnvelope], None]
Decoder = Callable[[Any], Any]


class SchemaError(TypeError):
    """An event and its protobuf message do not map onto each other."""


# --- the conversions ---------------------------------------------------------------------------

#: Cards by their text and back (a hidden card, -1, is ``""``).
_CARD_TEXT: Final[dict[int, str]] = {-1: ""} | {c: card_str(c) for c in range(52)}
_TEXT_CARD: Final[dict[str, int]] = {text: card for card, text in _CARD_TEXT.items()}


def _card(card: int) -> str:
    text = _CARD_TEXT.get(card)
    return card_str(card) if text is None else text  # card_str raises the precise error


def _uncard(text: str) -> int:
    card = _TEXT_CARD.get(text)
    return parse_card(text) if card is None else card  # parse_card raises the precise error


def _cards(cards: Sequence[int]) -> list[str]:
    return [_card(c) for c in cards]


def _uncards(texts: Sequence[str]) -> tuple[int, ...]:
    return tuple(_uncard(t) for t in texts)


#: The options of the hands decoded so far, by their bytes: every hand of a table carries
#: the same, and validating them is most of a ``HandStarted``'s decoding.
_HAND_OPTIONS: dict[bytes, dict[str, Any]] = {}


def _hand_options(msg: pb.TableOptions) -> dict[str, Any]:
    key = msg.SerializeToString(deterministic=True)
    options = _HAND_OPTIONS.get(key)
    if options is None:
        options = settingscodec.options_from_pb(msg).to_dict()
        if len(_HAND_OPTIONS) < 1024:
            _HAND_OPTIONS[key] = options
    return dict(options)  # a copy: the kept one must never change


def _hand_options_to_pb(options: dict[str, Any]) -> pb.TableOptions:
    return settingscodec.options_to_pb(TableOptions.from_dict(options))


def _rules_from_pb(msg: pb.DealersChoiceRules) -> DealersChoiceRules:
    # Looked up when called (once per table): a test reads old tables as new ones by it.
    return settingscodec.rules_from_pb(msg)


#: The table's settings, each its own message: (to protobuf, from protobuf).
_SETTINGS: Final[dict[Any, tuple[Convert, Convert]]] = {
    TableOptions: (settingscodec.options_to_pb, settingscodec.options_from_pb),
    DealersChoiceRules: (settingscodec.rules_to_pb, _rules_from_pb),
    TimeBankPolicy: (settingscodec.time_bank_to_pb, settingscodec.time_bank_from_pb),
}

#: Python types and the proto scalar types that hold them unchanged.
_SCALARS: Final[dict[Any, frozenset[int]]] = {
    int: frozenset(
        {
            FieldDescriptor.TYPE_INT32,
            FieldDescriptor.TYPE_INT64,
            FieldDescriptor.TYPE_UINT32,
            FieldDescriptor.TYPE_UINT64,
        }
    ),
    str: frozenset({FieldDescriptor.TYPE_STRING}),
    bytes: frozenset({FieldDescriptor.TYPE_BYTES}),
    bool: frozenset({FieldDescriptor.TYPE_BOOL}),
}


def _scalar(hint: Any, field: FieldDescriptor, where: str) -> tuple[Convert | None, Convert | None]:
    """One value of a scalar proto field: unchanged, a card, or a JSON object."""
    if field.type in _SCALARS.get(hint, ()):
        return None, None
    if hint is int and field.type == FieldDescriptor.TYPE_STRING:
        return _card, _uncard
    if typing.get_origin(hint) is dict and field.type == FieldDescriptor.TYPE_STRING:
        return json_text, json_object
    raise SchemaError(f"{where}: no conversion from {hint} to proto type {field.type}")


def _message(hint: Any, message: Descriptor, where: str) -> tuple[Convert, Convert]:
    """A value held in a message of its own: settings, a hand's options, a dataclass, a tuple."""
    if hint in _SETTINGS and hint.__name__ == message.name:
        return _SETTINGS[hint]
    if typing.get_origin(hint) is dict and message.name == "TableOptions":
        return _hand_options_to_pb, _hand_options
    make = GetMessageClass(message)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        plan = _plan(hint, message, where)
        return _builder(make, plan), _decoder(hint, plan)
    if typing.get_origin(hint) is tuple and ... not in typing.get_args(hint):
        items = typing.get_args(hint)
        if len(items) != len(message.fields):
            raise SchemaError(f"{where}: {hint} has not the fields of {message.name}")
        names = tuple(f.name for f in message.fields)
        for item, field in zip(items, message.fields, strict=True):
            if _scalar(item, field, f"{where}.{field.name}") != (None, None):
                raise SchemaError(f"{where}: a tuple's items are stored unchanged")
        return (lambda value: make(**dict(zip(names, value, strict=True)))), _getter(names)
    raise SchemaError(f"{where}: no conversion from {hint} to message {message.name}")


def _repeated(hint: Any, field: FieldDescriptor, where: str) -> tuple[Convert, Convert]:
    """A tuple of values in a repeated field."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is not tuple or len(args) != 2 or args[1] is not ...:
        raise SchemaError(f"{where}: a repeated field holds a tuple[X, ...], not {hint}")
    item, message = args[0], field.message_type
    if message is not None and isinstance(item, type) and dataclasses.is_dataclass(item):
        plan = _plan(item, message, where)
        return _each_builder(GetMessageClass(message), plan), _each_decoder(item, plan)
    if message is not None and typing.get_origin(item) is tuple:
        _message(item, message, where)  # checks the tuple's items against the fields
        return _each_tuple_builder(GetMessageClass(message)), _each_tuple_decoder(message)
    if message is not None:
        to_item, from_item = _message(item, message, where)
        return (lambda v: [to_item(x) for x in v]), (lambda v: tuple(from_item(x) for x in v))
    to_pb, _ = _scalar(item, field, where)
    if to_pb is None:
        return list, tuple
    return _cards, _uncards  # the one scalar conversion in a repeated field


@dataclasses.dataclass(frozen=True, slots=True)
class FieldMap:
    """One dataclass field and its message field. ``to_pb``/``from_pb``: the conversions
    (None: the value as it is); ``presence``: unset stands for None."""

    attr: str
    name: str
    to_pb: Convert | None
    from_pb: Convert | None
    presence: bool


def _field(cls: type[Any], attr: str, hint: Any, message: Descriptor) -> FieldMap:
    where = f"{cls.__name__}.{attr}"
    name = RENAMED.get((cls, attr), attr)
    fields = message.fields_by_name
    if name not in fields and f"{name}_json" in fields:
        name = f"{name}_json"
    if name not in fields:
        raise SchemaError(f"{where}: message {message.name} has no field {name!r}")
    field = fields[name]
    args = typing.get_args(hint)
    nullable = isinstance(hint, types.UnionType) and type(None) in args
    if nullable:
        (hint,) = (a for a in args if a is not type(None))
    to_pb: Convert | None
    from_pb: Convert | None
    if field.is_repeated:
        to_pb, from_pb = _repeated(hint, field, where)
    elif field.message_type is not None:
        to_pb, from_pb = _message(hint, field.message_type, where)
    else:
        to_pb, from_pb = _scalar(hint, field, where)
    if not nullable:
        return FieldMap(attr, name, to_pb, from_pb, False)
    if field.has_presence:  # None: the field unset (a constructor skips a None)
        to_pb = _or_none(to_pb) if to_pb is not None else None
        return FieldMap(attr, name, to_pb, from_pb, True)
    if field.is_repeated or field.message_type is not None:
        raise SchemaError(f"{where}: None needs an optional field in {message.name}")
    # Without presence the zero value stands for None (so an event can never hold the zero).
    zero = field.default_value
    return FieldMap(attr, name, _zero_for_none(to_pb, zero), _none_for_zero(from_pb), False)


def _or_none(convert: Convert) -> Convert:
    return lambda value: None if value is None else convert(value)


def _zero_for_none(convert: Convert | None, zero: Any) -> Convert:
    if convert is None:
        return lambda value: zero if value is None else value
    return lambda value: zero if value is None else convert(value)


def _none_for_zero(convert: Convert | None) -> Convert:
    if convert is None:
        return lambda value: value or None
    return lambda value: convert(value) if value else None


def _plan(cls: type[Any], message: Descriptor, where: str = "") -> tuple[FieldMap, ...]:
    """Every field of ``cls`` mapped onto ``message``, in the dataclass's order; every field
    of ``message`` must be mapped (or be a view's own, :data:`VIEW_ONLY`)."""
    hints = typing.get_type_hints(cls)
    plan = tuple(_field(cls, f.name, hints[f.name], message) for f in dataclasses.fields(cls))
    unmapped = {f.name for f in message.fields} - {f.name for f in plan}
    unmapped -= {name for kind, name in VIEW_ONLY if kind == message.name}
    if unmapped:
        raise SchemaError(f"{where or cls.__name__}: {message.name}'s {sorted(unmapped)} unmapped")
    return plan


# --- encoders and decoders, built from the plans -----------------------------------------------


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The named attributes of an object, as a tuple (attrgetter, in C; always a tuple)."""
    get = attrgetter(*names)
    if len(names) == 1:
        return lambda obj: (get(obj),)
    return get


# The encoders and decoders are compiled from their plans, as ``dataclasses`` compiles an
# ``__init__``: each is then the very code one would write by hand for its event (one call, a
# field access or conversion per field), with nothing interpreted per event.


def _compile(name: str, source: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    for word in re.findall(r"\.(\w+)", source):
        if keyword.iskeyword(word):  # msg.from would not parse: no field may be called so
            raise SchemaError(f"{name}: a field may not be called {word!r}")
    exec(compile(source, f"<eventschema {name}>", "exec"), namespace)
    function: Callable[..., Any] = namespace[name]
    function.__source__ = source  # type: ignore[attr-defined]  # for a reader debugging
    return function


def _arguments(plan: tuple[FieldMap, ...], namespace: dict[str, Any]) -> str:
    """The message constructor's arguments for the dataclass instance ``obj``."""
    out = []
    for i, f in enumerate(plan):
        value = f"obj.{f.attr}"
        if f.to_pb is not None:
            namespace[f"to_{i}"] = f.to_pb
            value = f"to_{i}({value})"
        out.append(f"{f.name}={value}")
    return ", ".join(out)


def _values(plan: tuple[FieldMap, ...], namespace: dict[str, Any]) -> str:
    """The dataclass's arguments, in its fields' order, for the message ``msg``."""
    out = []
    for i, f in enumerate(plan):
        value = f"msg.{f.name}"
        if f.from_pb is not None:
            namespace[f"from_{i}"] = f.from_pb
            value = f"from_{i}({value})"
        if f.presence:
            value = f"({value} if msg.HasField({f.name!r}) else None)"
        out.append(value)
    return ", ".join(out)


def _builder(make: Callable[..., Message], plan: tuple[FieldMap, ...]) -> Callable[[Any], Any]:
    """A dataclass instance -> its message."""
    namespace: dict[str, Any] = {"make": make}
    source = f"def build(obj):\n    return make({_arguments(plan, namespace)})\n"
    return _compile("build", source, namespace)


def _decoder(cls: Callable[..., Any], plan: tuple[FieldMap, ...]) -> Decoder:
    """A message -> its dataclass instance."""
    namespace: dict[str, Any] = {"cls": cls}
    source = f"def decode(msg):\n    return cls({_values(plan, namespace)})\n"
    return _compile("decode", source, namespace)


def _each_builder(make: Callable[..., Message], plan: tuple[FieldMap, ...]) -> Convert:
    """Dataclass instances -> their messages."""
    namespace: dict[str, Any] = {"make": make}
    args = _arguments(plan, namespace)
    source = f"def build_each(values):\n    return [make({args}) for obj in values]\n"
    return _compile("build_each", source, namespace)


def _each_decoder(cls: Callable[..., Any], plan: tuple[FieldMap, ...]) -> Convert:
    """Messages -> their dataclass instances, as a tuple."""
    namespace: dict[str, Any] = {"cls": cls}
    args = _values(plan, namespace)
    source = f"def decode_each(values):\n    return tuple([cls({args}) for msg in values])\n"
    return _compile("decode_each", source, namespace)


def _each_tuple_builder(make: Callable[..., Message]) -> Convert:
    """Tuples -> their messages, item by field in the fields' order."""
    names = [f.name for f in make.DESCRIPTOR.fields]  # type: ignore[attr-defined]
    items = ", ".join(f"v{i}" for i in range(len(names)))
    args = ", ".join(f"{name}=v{i}" for i, name in enumerate(names))
    source = f"def build_each(values):\n    return [make({args}) for {items} in values]\n"
    return _compile("build_each", source, {"make": make})


def _each_tuple_decoder(message: Descriptor) -> Convert:
    """Messages -> tuples of their fields, in order."""
    fields = ", ".join(f"msg.{f.name}" for f in message.fields)
    source = f"def decode_each(values):\n    return tuple([({fields},) for msg in values])\n"
    return _compile("decode_each", source, {})


def _encoder(kind: str, make: Callable[..., Message], plan: tuple[FieldMap, ...]) -> Encoder:
    """An event -> its envelope's payload."""
    namespace: dict[str, Any] = {"make": make}
    source = (
        "def encode(obj, envelope):\n"
        f"    envelope.{kind}.CopyFrom(make({_arguments(plan, namespace)}))\n"
    )
    return _compile("encode", source, namespace)


@dataclasses.dataclass(frozen=True, slots=True)
class Schema:
    """The mapping of every logged event type."""

    #: Every event type a log may hold, in the events' union's order.
    logged: tuple[type[Any], ...]
    #: Each type's message, and its fields mapped onto the message's.
    messages: dict[type[Any], Descriptor]
    plans: dict[type[Any], tuple[FieldMap, ...]]
    #: Each type's encoder: it sets an envelope's payload to the event.
    encoders: dict[type[Any], Encoder]
    #: The decoder of each payload kind (the ``EventEnvelope`` oneof's field names).
    decoders: dict[str, Decoder]


def build_schema(events: Sequence[type[Any]]) -> Schema:
    """The mapping of ``events`` (but :data:`NOT_LOGGED`) onto the envelope's payloads, each
    payload an event's; :class:`SchemaError` where they do not match."""
    payload = pb.EventEnvelope.DESCRIPTOR.oneofs_by_name["payload"]
    # The payload kinds by their messages' names (the stubs type descriptors two ways: Any).
    kinds: dict[str, tuple[str, Any]] = {
        f.message_type.name: (f.name, f.message_type) for f in payload.fields if f.message_type
    }
    logged = tuple(c for c in events if c not in NOT_LOGGED)
    missing = sorted({c.__name__ for c in logged} - set(kinds))
    if missing:
        raise SchemaError(f"events with no EventEnvelope payload (events.proto): {missing}")
    extra = sorted(set(kinds) - {c.__name__ for c in logged})
    if extra:
        raise SchemaError(f"EventEnvelope payloads with no event class: {extra}")
    schema = Schema(logged, {}, {}, {}, {})
    for cls in logged:
        kind, message = kinds[cls.__name__]
        plan = _plan(cls, message)
        schema.messages[cls] = message
        schema.plans[cls] = plan
        schema.encoders[cls] = _encoder(kind, GetMessageClass(message), plan)
        schema.decoders[kind] = _decoder(cls, plan)
    return schema


SCHEMA: Final = build_schema(typing.get_args(AnyEvent))
LOGGED: Final = SCHEMA.logged
MESSAGES: Final = SCHEMA.messages
ENCODERS: Final = SCHEMA.encoders
#: The decoders by payload kind: the table the audit, a rebuild and every reader decode by.
DECODERS: Final = SCHEMA.decoders


def encode_payload(event: AnyEvent, envelope: pb.EventEnvelope) -> None:
    """Set ``envelope``'s payload to ``event``."""
    encode = ENCODERS.get(type(event))
    if encode is None:
        raise CodecError(f"no protobuf mapping for {type(event).__name__}")
    encode(event, envelope)


def decode_payload(envelope: pb.EventEnvelope) -> AnyEvent:
    """The event ``envelope`` holds."""
    kind = envelope.WhichOneof("payload")
    decoder = DECODERS.get(kind) if kind else None
    if decoder is None:
        raise CodecError(f"unknown event payload {kind!r}")
    event: AnyEvent = decoder(getattr(envelope, kind))
    return event
