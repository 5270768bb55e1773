"""Two lobbies over one log (services.lobby.log over the in-memory store): the optimistic
append lets one of two conflicting changes through, and the loser reads the winner's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from riverboat.eventstore import ConcurrencyError, InMemoryEventStore, StoredRecord
from riverboat.lobby.aggregate import registration
from riverboat.services.lobby.log import Lobby
from tests.waiting import until_true


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


class _Followable(InMemoryEventStore):
    """The in-memory store with what following needs: the tail by stream sequence, and nudges
    that the test sends by hand (as core NATS would, maybe before the record is stored)."""

    def __init__(self) -> None:
        super().__init__()
        self.nudge: Callable[[str, int], Awaitable[None]] | None = None

    async def records_after(
        self, sequence: int, limit: int = 256
    ) -> tuple[list[StoredRecord], int]:
        tail = sorted(
            (r for h in self._histories.values() for r in h if r.stream_sequence > sequence),
            key=lambda r: r.stream_sequence,
        )
        return tail[:limit], self._sequence

    async def watch(self, on_append: Callable[[str, int], Awaitable[None]]) -> _Stopped:
        self.nudge = on_append
        return _Stopped()


class _Stopped:
    async def stop(self) -> None:
        pass


async def test_a_follower_loads_then_folds_what_it_is_nudged_about() -> None:
    store = _Followable()
    writer, follower = Lobby(store), Lobby(store)
    await writer.record(*registration("gus", "player", "h1"))
    await follower.follow(store, every=3600)
    assert "gus" in follower.state.accounts  # the start-up read
    await writer.record(*registration("hal", "player", "h2"))
    assert store.nudge is not None
    await store.nudge("account-hal", 1)
    await until_true(lambda: "hal" in follower.state.accounts, "hal folded")
    await follower.stop_following()


async def test_a_change_nobody_announced_is_folded_by_the_next_tick() -> None:
    """A missed nudge (NATS away) or one that raced the stream's write costs one tick, not a
    long sweep: the tail is read every ``every`` seconds whatever came."""
    store = _Followable()
    writer, follower = Lobby(store), Lobby(store)
    await follower.follow(store, every=0.05)
    assert store.nudge is not None
    await store.nudge("account-ida", 1)  # announced before it is stored: reads nothing
    await writer.record(*registration("ida", "player", "h3"))
    await writer.record(*registration("jo", "player", "h1"))  # never announced
    await until_true(lambda: {"ida", "jo"} <= set(follower.state.accounts), "ida and jo folded")
    await follower.stop_following()


async def test_the_tail_is_read_in_stream_order_and_once() -> None:
    store = _Followable()
    writer, follower = Lobby(store), Lobby(store)
    await follower.follow(store, every=3600)
    for name in ("kay", "lou", "max"):
        await writer.record(*registration(name, "player", "h"))
    assert await follower.catch_up() == 3
    assert sorted(follower.state.accounts) == ["kay", "lou", "max"]
    assert follower.sequence == 3
    assert await follower.catch_up() == 0
    await follower.stop_following()


async def test_a_registration_expects_a_new_aggregate() -> None:
    """Even a lobby that folded the name cannot append a second registration over it."""
    store = InMemoryEventStore()
    lobby = Lobby(store)
    await lobby.record(*registration("kim", "player", "h1"))
    aggregate_id, again = registration("kim", "player", "h2")
    with pytest.raises(ConcurrencyError):
        await lobby.record(aggregate_id, again, expected_version=0)
    assert lobby.state.accounts["kim"].password_hash == "h1"
