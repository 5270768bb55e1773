"""The request-id rule's pieces: stored keys round-trip, forwarded ids never merge two keys,
a remembered key answers the same command and refuses another one."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from riverboat.eventstore.base import validate_request_id
from riverboat.idempotency import (
    REQUEST_ID_REUSED,
    RequestClash,
    RequestKey,
    RequestMemory,
    derived_id,
    fingerprint,
)
from riverboat.v1 import table_pb2

ids = st.text(alphabet="abc-_1", min_size=1, max_size=64)
callers = st.text(min_size=1, max_size=300)


@given(kind=st.sampled_from(["act", "unseat", "open"]), caller=callers, rid=ids)
def test_a_stored_key_is_header_safe_and_parses_back(kind: str, caller: str, rid: str) -> None:
    key = RequestKey(kind, caller, rid)
    stored = key.stored("0123abcd")
    validate_request_id(stored)  # printable ASCII without spaces, <= 256
    parsed = RequestKey.parse(stored)
    assert parsed is not None
    back, fp = parsed
    assert fp == "0123abcd"
    assert (back.kind, back.request_id) == (kind, rid)
    # A caller whose quoted form does not fit the header's 256 characters (long, or many
    # non-ASCII characters, each quoted as up to twelve) is stored as its digest; any other
    # comes back as it was.
    if len(f"{kind}/{quote(caller, safe=':-_.')}/{rid}#0123abcd") <= 256:
        assert back.caller == caller
    else:
        assert re.fullmatch(r"h_[0-9a-f]{32}", back.caller)


def test_ids_from_before_keys_do_not_parse() -> None:
    assert RequestKey.parse("commit-t1-3") is None


@given(a=st.tuples(ids, ids), b=st.tuples(ids, ids))
def test_derived_ids_differ_whenever_the_parts_do(a: tuple[str, str], b: tuple[str, str]) -> None:
    # "a-b" + "c" and "a" + "b-c" read the same when joined with '-': the ids must not.
    if a != b:
        assert derived_id("leave", *a) != derived_id("leave", *b)
    forwarded = derived_id("join", *a, readable=a[0] + ".x y")
    assert len(forwarded) <= 64 and re.fullmatch(r"[A-Za-z0-9_-]+", forwarded)


def test_derived_id_oracle_catches_joined_parts() -> None:
    """The oracle above fails for the naive id (parts joined with '-')."""
    naive = "-".join
    assert naive(("a-b", "c")) == naive(("a", "b-c"))
    assert derived_id("x", "a-b", "c") != derived_id("x", "a", "b-c")


def test_a_fingerprint_leaves_out_the_request_id_only() -> None:
    one = table_pb2.ActRequest(table_id="t", hand_id="h", seat=1, action="fold", request_id="1")
    two = table_pb2.ActRequest(table_id="t", hand_id="h", seat=1, action="fold", request_id="2")
    call = table_pb2.ActRequest(table_id="t", hand_id="h", seat=1, action="call", request_id="1")
    assert fingerprint(one) == fingerprint(two) != fingerprint(call)
    assert one.request_id == "1"  # the request itself is left alone


def test_memory_answers_the_same_command_and_refuses_another() -> None:
    memory: RequestMemory[int] = RequestMemory(size=2)
    ann, bob = RequestKey("act", "ann", "1"), RequestKey("act", "bob", "1")
    assert memory.recall(ann, "f1") is None
    memory.remember(ann, "f1", 7)
    assert memory.recall(ann, "f1") == 7
    assert memory.recall(bob, "f1") is None  # another caller's "1" is another key
    with pytest.raises(RequestClash) as err:
        memory.recall(ann, "f2", "table t1")
    assert err.value.reason == REQUEST_ID_REUSED
    assert "'1'" in err.value.message and "ann" in err.value.message
    assert "table t1" in err.value.message
    memory.remember(ann, "f9", 8)  # the first one recorded wins
    assert memory.recall(ann, "f1") == 7
    memory.remember(bob, "f1", 1)
    memory.remember(RequestKey("act", "cy", "1"), "f1", 2)
    assert len(memory) == 2 and memory.recall(ann, "f1") is None  # the oldest forgotten
