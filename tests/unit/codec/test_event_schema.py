"""Every event type survives the log's protobuf form: a property test over all of them.

The strategies come from the events' own dataclass fields (their annotations) and the proto
fields they map to (their types bound the values: an ``int32``, a card held as text), so an
event added to ``riverboat.engine.events`` or ``riverboat.table.events`` is tested here without
a line of this file changing; one defined but left out of the events' union fails the check
below instead of going unlogged.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from datetime import UTC, datetime
from typing import Any

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from hypothesis import given, settings
from hypothesis import strategies as st

from riverboat import eventschema
from riverboat.engine import events as ev
from riverboat.engine.games import DEALERS_CHOICE
from riverboat.engine.options import TableOptions, dealers_choice_options, pacific_options
from riverboat.engine.session import DealersChoiceRules
from riverboat.eventcodec import (
    EventMeta,
    decode_batch,
    decode_event,
    encode_batch,
    event_to_pb,
)
from riverboat.table import events as tev
from riverboat.table.events import AnyEvent, TimeBankPolicy
from riverboat.v1 import events_pb2 as pb

META = EventMeta("t1", 7, 0, "r1", "p1", datetime(2026, 12, 7, 20, 0, 1, 250_000, tzinfo=UTC))

_TEXT = st.text(st.characters(codec="utf-8"), max_size=12)  # what protobuf's strings hold
_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_STRING: (-1, 51),  # an int held as text: a card, -1 hidden
}
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
#: The table's settings: valid values only (a request's are validated before any event).
_SETTINGS: dict[Any, st.SearchStrategy[Any]] = {
    TableOptions: st.sampled_from(
        [
            pacific_options(),
            pacific_options(max_players=6, rake_basis_points=0),
            dealers_choice_options(),
            dealers_choice_options(max_players=8, spread_limit=True),
        ]
    ),
    DealersChoiceRules: st.builds(
        lambda games, bounds: DealersChoiceRules(
            games=tuple(games),
            default_game=games[0],
            min_small_bet=bounds[0],
            max_small_bet=bounds[1],
        ),
        st.lists(st.sampled_from(DEALERS_CHOICE), min_size=1, max_size=4, unique=True),
        st.tuples(st.integers(0, 500), st.integers(0, 500)).map(sorted),
    ),
    TimeBankPolicy: st.builds(TimeBankPolicy, *[st.integers(0, 3600)] * 4),
}


def _fields(cls: type[Any]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _value(hint: Any, field: FieldDescriptor) -> st.SearchStrategy[Any]:
    """Any value of a field with annotation ``hint`` that its proto field ``field`` holds."""
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) and type(None) in args:
        (inner,) = (a for a in args if a is not type(None))
        values = _value(inner, field)
        if not field.has_presence:  # the zero value stands for None: it is not a value
            values = values.filter(bool)
        return st.none() | values
    if field.is_repeated:
        item = _item(args[0], field) if field.message_type else _scalar(args[0], field)
        return st.lists(item, max_size=6).map(tuple)
    if field.message_type is not None:
        return _item(hint, field)
    return _scalar(hint, field)


def _scalar(hint: Any, field: FieldDescriptor) -> st.SearchStrategy[Any]:
    """One value of a scalar proto field."""
    if hint is bool:
        return st.booleans()
    if hint is bytes:
        return st.binary(max_size=40)
    if hint is str:
        return _TEXT
    if hint is int:
        low, high = _RANGES[field.type]
        return st.integers(low, high)
    if typing.get_origin(hint) is dict:
        return st.dictionaries(_TEXT, _JSON, max_size=4)
    raise AssertionError(f"no strategy for {hint} in {field.full_name}")


def _item(hint: Any, field: FieldDescriptor) -> st.SearchStrategy[Any]:
    """A value held in a message: a setting, a hand's options, a dataclass, a tuple."""
    message = field.message_type
    assert message is not None
    if hint in _SETTINGS:
        return _SETTINGS[hint]
    if typing.get_origin(hint) is dict:  # a hand's options: a table's options as a dict
        return _SETTINGS[TableOptions].map(TableOptions.to_dict)
    if dataclasses.is_dataclass(hint):
        return _event(hint, message)
    if typing.get_origin(hint) is tuple:
        parts = [_value(a, f) for a, f in zip(typing.get_args(hint), message.fields, strict=True)]
        return st.tuples(*parts)
    raise AssertionError(f"no strategy for {hint} in {field.full_name}")


def _proto_field(cls: Any, name: str, message: Descriptor) -> FieldDescriptor:
    """The field of ``message`` that holds ``cls``'s field ``name``: the same name, or the
    name with ``_json`` (a JSON object), or the one the schema renames it to."""
    fields = message.fields_by_name
    name = eventschema.RENAMED.get((cls, name), name)
    return fields[name] if name in fields else fields[f"{name}_json"]


def _event(cls: Any, message: Descriptor) -> st.SearchStrategy[Any]:
    hints = typing.get_type_hints(cls)
    values = {n: _value(hints[n], _proto_field(cls, n, message)) for n in _fields(cls)}
    return st.builds(cls, **values)


def events_of(cls: type[Any]) -> st.SearchStrategy[Any]:
    """Any event of type ``cls`` the log can hold."""
    return _event(cls, eventschema.MESSAGES[cls])


def assert_round_trips(event: AnyEvent) -> None:
    """``event`` decodes back from its envelope and from a log batch, and encodes again to
    the same bytes."""
    envelope = event_to_pb(event, META)
    assert decode_event(envelope) == event
    again = pb.EventEnvelope()
    again.ParseFromString(envelope.SerializeToString())
    assert decode_event(again) == event
    assert event_to_pb(decode_event(again), META).SerializeToString(deterministic=True) == (
        envelope.SerializeToString(deterministic=True)
    )
    data = encode_batch([event, event], **_batch_meta())
    assert decode_batch(data) == [(event, META), (event, dataclasses.replace(META, index=1))]


def _batch_meta() -> dict[str, Any]:
    return {
        "aggregate_id": META.aggregate_id,
        "version": META.version,
        "request_id": META.request_id,
        "actor": META.actor,
        "occurred_at": META.occurred_at,
    }


@pytest.mark.parametrize("cls", eventschema.LOGGED, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_event_type_round_trips(cls: type[Any], data: st.DataObject) -> None:
    assert_round_trips(data.draw(events_of(cls)))


def _declared(module: types.ModuleType) -> set[type[Any]]:
    return {
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if c.__module__ == module.__name__ and dataclasses.is_dataclass(c)
    }


def test_every_event_class_is_logged_and_tested() -> None:
    # The dataclasses the event modules declare: events, and the values events hold.
    values = {ev.SeatEntry, TimeBankPolicy}
    declared = (_declared(ev) | _declared(tev)) - values
    assert declared == set(typing.get_args(AnyEvent)), "an event is missing from AnyEvent"
    assert set(eventschema.LOGGED) == declared - eventschema.NOT_LOGGED
    assert set(ev.EVENT_TYPES.values()) <= declared
    # Every payload kind of the envelope decodes, and the ones this test draws are all of them.
    oneof = pb.EventEnvelope.DESCRIPTOR.oneofs_by_name["payload"]
    assert {f.name for f in oneof.fields} == set(eventschema.DECODERS)
    assert len(eventschema.DECODERS) == len(eventschema.LOGGED) == len(eventschema.ENCODERS)


def test_a_dropped_field_fails_the_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    # The property catches a lossy mapping: ActionTaken's encoder forgetting ``all_in``.
    def lossy(event: Any, envelope: pb.EventEnvelope) -> None:
        envelope.action_taken.CopyFrom(
            pb.ActionTaken(seat=event.seat, action=event.action, amount=event.amount, to=event.to)
        )

    monkeypatch.setitem(eventschema.ENCODERS, ev.ActionTaken, lossy)
    assert_round_trips(ev.ActionTaken(1, "bet", 200, 200, False))
    with pytest.raises(AssertionError):
        assert_round_trips(ev.ActionTaken(1, "bet", 200, 200, True))


def test_an_event_without_its_message_or_a_field_fails_the_import() -> None:
    # What the import does with the events' union (an event class and a proto message each).
    others = [c for c in eventschema.LOGGED if c is not ev.MatchDue]
    unlogged = dataclasses.make_dataclass("Unlogged", [("seat", int)], frozen=True)
    with pytest.raises(eventschema.SchemaError, match=r"no EventEnvelope payload.*Unlogged"):
        eventschema.build_schema([*eventschema.LOGGED, unlogged])
    with pytest.raises(eventschema.SchemaError, match=r"payloads with no event class.*MatchDue"):
        eventschema.build_schema(others)
    fields: list[Any] = [("seat", int), ("amount", int), ("owed", int)]
    more = dataclasses.make_dataclass("MatchDue", fields, frozen=True)
    with pytest.raises(eventschema.SchemaError, match=r"MatchDue\.owed: .* no field 'owed'"):
        eventschema.build_schema([*others, more])
    fewer = dataclasses.make_dataclass("MatchDue", [("seat", int)], frozen=True)
    with pytest.raises(eventschema.SchemaError, match=r"MatchDue's \['amount'\] unmapped"):
        eventschema.build_schema([*others, fewer])
