"""The lobby's fold: log records in, :class:`LobbyState` out (pure: no I/O, no clock).

Every lobby instance folds the same log (stream RB_LOBBY): its own appends as it makes them and
everyone's as it follows the stream. A record may therefore reach the fold twice (once from the
append, once from the stream), so the fold keeps each aggregate's version and folds a version
once; a record that skips a version says the caller must read that aggregate's log first.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from datetime import UTC

from riverboat.idempotency import fingerprint_of
from riverboat.lobby.state import Account, Join, ListedTable, LobbyState, Waiting
from riverboat.settingscodec import options_from_pb, rules_from_pb, time_bank_from_pb
from riverboat.v1 import lobby_pb2

__all__ = ["Folded", "LobbyAggregate", "apply_event", "decode_event", "registration"]


class Folded(enum.Enum):
    """What :meth:`LobbyAggregate.fold` did with a record."""

    APPLIED = "applied"
    #: That version (or a later one) of the aggregate was folded already: nothing changed.
    KNOWN = "known"
    #: Versions are missing before this one: read the aggregate's log from ``version + 1``.
    GAP = "gap"


def decode_event(payload: bytes) -> lobby_pb2.LobbyEvent:
    """A stored record's payload as the event it holds."""
    event = lobby_pb2.LobbyEvent()
    event.ParseFromString(payload)
    return event


def registration(username: str, role: str, password_hash: str) -> tuple[str, lobby_pb2.LobbyEvent]:
    """The aggregate and event that register an account.

    The request id is unique per call (the hash is salted): two lobbies registering one name
    at once must conflict on the aggregate's version, not pass for repeats of one request.
    """
    event = lobby_pb2.LobbyEvent(
        request_id=f"register-{username}-{fingerprint_of([password_hash])}",
        account_registered=lobby_pb2.AccountRegistered(
            username=username, player_id=username, role=role, password_hash=password_hash
        ),
    )
    return f"account-{username}", event


def apply_event(state: LobbyState, event: lobby_pb2.LobbyEvent) -> None:
    """Fold one event into ``state`` (in place)."""
    kind = event.WhichOneof("payload")
    when = event.occurred_at.ToDatetime(tzinfo=UTC)
    if kind == "account_registered":
        m = event.account_registered
        state.accounts[m.username] = Account(
            m.username, m.player_id, m.role, m.password_hash, registered_at=when
        )
    elif kind == "account_locked":
        # An account's events share its aggregate: AccountRegistered is always folded first.
        locked = state.accounts[event.account_locked.username]
        state.accounts[locked.username] = replace(
            locked,
            locked=True,
            locked_reason=event.account_locked.reason,
            locked_by=event.actor,
            locked_at=when,
        )
    elif kind == "account_unlocked":
        unlocked = state.accounts[event.account_unlocked.username]
        state.accounts[unlocked.username] = replace(
            unlocked, locked=False, locked_reason="", locked_by="", locked_at=None
        )
    elif kind == "waitlist_joined":
        joined = event.waitlist_joined
        line = state.waiting.setdefault(joined.table_id, [])
        if state.waiting_entry(joined.table_id, joined.player) is None:
            line.append(Waiting(joined.player, joined_at=when))
    elif kind == "waitlist_left":
        gone = event.waitlist_left
        state.waiting[gone.table_id] = [
            w for w in state.waiting_list(gone.table_id) if w.player != gone.player
        ]
    elif kind == "seat_offered":
        offer = event.seat_offered
        entry = state.waiting_entry(offer.table_id, offer.player)
        if entry is not None:
            entry.offered_seat = offer.seat
            entry.offer_expires_at = offer.expires_at.ToDatetime(tzinfo=UTC)
    elif kind == "password_reset":
        reset = state.accounts[event.password_reset.username]
        state.accounts[reset.username] = replace(
            reset, password_hash=event.password_reset.password_hash
        )
    elif kind == "table_listed":
        t = event.table_listed
        state.tables[t.table_id] = ListedTable(
            t.table_id,
            t.name,
            t.template,
            t.variant,
            options_from_pb(t.options),
            t.action_seconds,
            when,
            event.request_id,
            time_bank_from_pb(t.time_bank) if t.HasField("time_bank") else None,
            rules_from_pb(t.dealers_choice) if t.HasField("dealers_choice") else None,
        )
    elif kind == "join_started":
        j = event.join_started
        state.joins[j.reference] = Join(
            j.reference, j.player, j.table_id, j.seat, j.buy_in, started_at=when
        )
    elif kind == "join_completed":
        # A join's events share one aggregate, so JoinStarted is always folded first.
        done = state.joins[event.join_completed.reference]
        done.status, done.seat = "completed", event.join_completed.seat
    elif kind == "join_failed":
        failed = state.joins[event.join_failed.reference]
        failed.status, failed.reason = "failed", event.join_failed.reason


@dataclass(slots=True)
class LobbyAggregate:
    """The lobby's state with the version of every aggregate folded into it."""

    state: LobbyState = field(default_factory=LobbyState)
    versions: dict[str, int] = field(default_factory=dict)

    def version(self, aggregate_id: str) -> int:
        """The last version of ``aggregate_id`` folded (0: none)."""
        return self.versions.get(aggregate_id, 0)

    def fold(self, aggregate_id: str, version: int, event: lobby_pb2.LobbyEvent) -> Folded:
        """Fold version ``version`` of ``aggregate_id`` if it is the next one."""
        known = self.version(aggregate_id)
        if version <= known:
            return Folded.KNOWN
        if version > known + 1:
            return Folded.GAP
        apply_event(self.state, event)
        self.versions[aggregate_id] = version
        return Folded.APPLIED

    def fold_payload(self, aggregate_id: str, version: int, payload: bytes) -> Folded:
        """:meth:`fold` of a stored record's payload."""
        if version <= self.version(aggregate_id):
            return Folded.KNOWN  # not even decoded
        return self.fold(aggregate_id, version, decode_event(payload))
