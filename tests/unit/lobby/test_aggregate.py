"""The lobby's fold (riverboat.lobby.aggregate): records in, state out, each version once."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from riverboat.engine.options import pacific_options
from riverboat.lobby.aggregate import Folded, LobbyAggregate, decode_event
from riverboat.settingscodec import options_to_pb
from riverboat.table.events import TimeBankPolicy
from riverboat.v1 import events_pb2, lobby_pb2

WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _at(event: lobby_pb2.LobbyEvent) -> lobby_pb2.LobbyEvent:
    stamp = Timestamp()
    stamp.FromDatetime(WHEN)
    event.occurred_at.CopyFrom(stamp)
    return event


def registered(name: str, role: str = "player") -> lobby_pb2.LobbyEvent:
    return _at(
        lobby_pb2.LobbyEvent(
            request_id=f"register-{name}",
            account_registered=lobby_pb2.AccountRegistered(
                username=name, player_id=name, role=role, password_hash="h-" + name
            ),
        )
    )


def listed(table_id: str) -> lobby_pb2.LobbyEvent:
    return _at(
        lobby_pb2.LobbyEvent(
            request_id=f"key-{table_id}",
            table_listed=lobby_pb2.TableListed(
                table_id=table_id,
                name="Table " + table_id,
                template="pacific",
                variant="seven_card_stud_hi_lo",
                options=options_to_pb(pacific_options()),
                action_seconds=30,
            ),
        )
    )


def started(reference: str) -> lobby_pb2.LobbyEvent:
    return _at(
        lobby_pb2.LobbyEvent(
            request_id=f"{reference}-start",
            join_started=lobby_pb2.JoinStarted(
                reference=reference, player="ann", table_id="t1", seat=0, buy_in=2000
            ),
        )
    )


def test_folds_accounts_tables_and_joins() -> None:
    lobby = LobbyAggregate()
    assert lobby.fold("account-ann", 1, registered("ann")) is Folded.APPLIED
    assert lobby.fold("table-t1", 1, listed("t1")) is Folded.APPLIED
    assert lobby.fold("join-1", 1, started("join-1")) is Folded.APPLIED
    done = _at(
        lobby_pb2.LobbyEvent(join_completed=lobby_pb2.JoinCompleted(reference="join-1", seat=3))
    )
    assert lobby.fold("join-1", 2, done) is Folded.APPLIED

    state = lobby.state
    assert state.accounts["ann"].password_hash == "h-ann"
    table = state.tables["t1"]
    assert (table.name, table.created_at, table.request_key) == ("Table t1", WHEN, "key-t1")
    assert table.min_buy_in == 10 * table.options.small_bet
    join = state.joins["join-1"]
    assert (join.status, join.seat) == ("completed", 3)
    assert state.pending_joins() == []
    assert lobby.version("join-1") == 2 and lobby.version("account-bob") == 0


def test_a_table_keeps_its_time_bank_and_dealers_choice_settings() -> None:
    lobby = LobbyAggregate()
    event = listed("t2")
    event.table_listed.time_bank.CopyFrom(
        events_pb2.TimeBankPolicy(seconds=90, topup_seconds=15, topup_hands=20, protect_hands=5)
    )
    event.table_listed.dealers_choice.CopyFrom(
        events_pb2.DealersChoiceRules(games=["draw"], default_game="draw", edition=2,
                                      min_small_bet=100, max_small_bet=500)
    )  # fmt: skip
    lobby.fold("table-t1", 1, listed("t1"))  # recorded before the lobby carried them
    lobby.fold("table-t2", 1, event)
    old, new = lobby.state.tables["t1"], lobby.state.tables["t2"]
    assert (old.time_bank, old.rules) == (None, None)
    assert new.time_bank == TimeBankPolicy(90, 15, 20, 5)
    assert new.rules is not None and new.rules.games == ("draw",)
    assert (new.rules.min_small_bet, new.rules.max_small_bet, new.rules.edition) == (100, 500, 2)


def test_failed_join_keeps_its_reason() -> None:
    lobby = LobbyAggregate()
    lobby.fold("join-2", 1, started("join-2"))
    assert [j.reference for j in lobby.state.pending_joins()] == ["join-2"]
    failed = lobby_pb2.LobbyEvent(
        join_failed=lobby_pb2.JoinFailed(reference="join-2", reason="interrupted")
    )
    lobby.fold("join-2", 2, _at(failed))
    assert (lobby.state.joins["join-2"].status, lobby.state.joins["join-2"].reason) == (
        "failed",
        "interrupted",
    )


def test_a_version_is_folded_once() -> None:
    """Our own append and the log both deliver it: the second changes nothing."""
    lobby = LobbyAggregate()
    assert lobby.fold("account-ann", 1, registered("ann")) is Folded.APPLIED
    other = registered("ann")
    other.account_registered.password_hash = "someone-else"
    assert lobby.fold("account-ann", 1, other) is Folded.KNOWN
    assert lobby.state.accounts["ann"].password_hash == "h-ann"


def test_a_skipped_version_is_a_gap_and_folds_nothing() -> None:
    lobby = LobbyAggregate()
    assert lobby.fold("table-t1", 2, listed("t1")) is Folded.GAP
    assert lobby.state.tables == {} and lobby.version("table-t1") == 0


def test_fold_payload_decodes_only_new_versions() -> None:
    lobby = LobbyAggregate()
    payload = registered("bob").SerializeToString()
    assert decode_event(payload).account_registered.username == "bob"
    assert lobby.fold_payload("account-bob", 1, payload) is Folded.APPLIED
    # A known version is not even decoded (garbage would raise otherwise).
    assert lobby.fold_payload("account-bob", 1, b"\xff not protobuf") is Folded.KNOWN
    assert lobby.state.tables_in_order() == []
