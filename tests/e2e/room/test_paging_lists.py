"""AIP-158 paging of the lobby's ListTables, by a client that knows only the protos.

Oracle: the tables the operator created, in the order created (known to the test, not read
back from the lobby). Whatever page sizes a client picks, the pages concatenated are that
list; the last page has no next token; a page size over the maximum is reduced; a token that
was altered, or is given to another RPC, is INVALID_ARGUMENT and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riverboat.services.launcher import ServiceProcess
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc
from tests import statuskit
from tests.e2e.room.conftest import Room

TABLES = 23


@pytest.fixture
def listed(room: Room, lobby: ServiceProcess) -> Iterator[tuple[Any, Any, list[str]]]:
    """A lobby with TABLES tables, a stub, the operator's metadata and the created ids."""
    with grpc.insecure_channel(lobby.address) as channel:
        stub: Any = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        token = stub.Login(lobby_pb2.LoginRequest(username="boss", password="boss-password")).token
        auth = (("authorization", f"Bearer {token}"),)
        created = []
        for n in range(TABLES):
            reply = stub.CreateTable(
                lobby_pb2.CreateTableRequest(
                    template="pacific", name=f"paged {n}", request_id=f"paged-{n}"
                ),
                metadata=auth,
            )
            created.append(reply.table.table_id)
        yield stub, auth, created


def _pages(stub: Any, auth: Any, sizes: list[int]) -> tuple[list[str], list[int]]:
    ids: list[str] = []
    lengths: list[int] = []
    token = ""
    for size in sizes * (TABLES + 1):
        reply = stub.ListTables(
            lobby_pb2.ListTablesRequest(page_size=size, page_token=token), metadata=auth
        )
        ids += [t.table_id for t in reply.tables]
        lengths.append(len(reply.tables))
        token = reply.next_page_token
        if not token:
            return ids, lengths
    raise AssertionError("the pages never ended")


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # the room is read only
)
@given(sizes=st.lists(st.integers(0, 30), min_size=1, max_size=8))
def test_pages_concatenated_are_the_tables_created(
    listed: tuple[Any, Any, list[str]], sizes: list[int]
) -> None:
    stub, auth, created = listed
    ids, lengths = _pages(stub, auth, sizes)
    assert ids == created
    for n, length in enumerate(lengths[:-1]):  # every page but the last is full
        size = sizes[n % len(sizes)]
        assert length == (20 if size == 0 else min(size, 100))


def test_over_the_maximum_is_reduced_and_bad_tokens_are_refused(
    listed: tuple[Any, Any, list[str]],
) -> None:
    stub, auth, created = listed
    everything = stub.ListTables(lobby_pb2.ListTablesRequest(page_size=10_000), metadata=auth)
    assert [t.table_id for t in everything.tables] == created
    assert everything.next_page_token == ""
    first = stub.ListTables(lobby_pb2.ListTablesRequest(page_size=5), metadata=auth)
    token = first.next_page_token
    altered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    for bad in (altered, token[:-1], token + "A", "0", "5"):
        with pytest.raises(grpc.RpcError) as err:
            stub.ListTables(lobby_pb2.ListTablesRequest(page_token=bad), metadata=auth)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        found = statuskit.details(err.value)
        assert found.reason == "BAD_PAGE_TOKEN", err.value.details()
        assert "page_token" in found.fields  # a BadRequest field violation names the field
    with pytest.raises(grpc.RpcError) as err:
        stub.ListTables(lobby_pb2.ListTablesRequest(page_size=-1), metadata=auth)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert statuskit.reason(err.value) == "BAD_PAGE_SIZE"
    # The token still works after the refusals: nothing changed.
    second = stub.ListTables(
        lobby_pb2.ListTablesRequest(page_size=5, page_token=token), metadata=auth
    )
    assert [t.table_id for t in second.tables] == created[5:10]
