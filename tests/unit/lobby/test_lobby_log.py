"""Two lobbies over one log (services.lobby.log over the in-memory store): the optimistic
append lets one of two conflicting changes through, and the loser reads the winner's."""

from __future__ import annotations

import pytest

from riverboat.eventstore import ConcurrencyError, InMemoryEventStore
from riverboat.lobby.aggregate import registration
from riverboat.services.lobby.log import Lobby


async def test_one_of_two_registrations_of_a_name_wins() -> None:
    store = InMemoryEventStore()
    first, second = Lobby(store), Lobby(store)
    assert await first.record(*registration("cy", "player", "hash-one"))
    # The second lobby has not read the first one's record yet.
    with pytest.raises(ConcurrencyError):
        await second.record(*registration("cy", "player", "hash-two"))
    assert second.state.accounts["cy"].password_hash == "hash-one"  # caught up on refusal
    assert [r.version for r in await store.read("account-cy")] == [1]


async def test_a_retried_registration_is_a_repeat() -> None:
    store = InMemoryEventStore()
    lobby, other = Lobby(store), Lobby(store)
    aggregate_id, event = registration("dee", "player", "hash")
    assert await lobby.record(aggregate_id, event)
    assert not await other.record(aggregate_id, event)  # same request: nothing new
    assert other.state.accounts["dee"].password_hash == "hash"


async def test_load_reads_what_others_wrote() -> None:
    store = InMemoryEventStore()
    writer, reader = Lobby(store), Lobby(store)
    await writer.record(*registration("eve", "player", "h1"))
    await writer.record(*registration("fay", "operator", "h2"))
    await reader.load(["account-eve", "account-fay"])
    assert sorted(reader.state.accounts) == ["eve", "fay"]
    assert reader.aggregate.version("account-fay") == 1
