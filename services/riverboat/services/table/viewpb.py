"""Table views and watch updates as protobuf, each built once per table version and viewer seat.

What a viewer may see depends on their seat alone (:func:`riverboat.table.views.seat_table_view`),
so at one version every watcher of a seat, and the reply to that seat's ``Act``, share one
message, and every observer shares another. Between versions most seats do not change, so a
seat's converted message is reused while its content is the same. A busy table service spends
most of its time here and in gRPC, so this is where the caching pays.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct

from riverboat.engine.cards import card_str
from riverboat.eventcodec import EventMeta, event_to_pb
from riverboat.services.common.errors import InvalidArgument
from riverboat.services.table.proofs import HandProofs
from riverboat.services.table.runner import Update
from riverboat.settingscodec import options_to_pb, time_bank_to_pb
from riverboat.table.aggregate import TableState
from riverboat.table.views import (
    SeatView,
    TableView,
    ViewAction,
    hand_index,
    personal_parts,
    public_cards,
    public_table_view,
    redact,
)
from riverboat.v1 import events_pb2, table_pb2

#: Converted seats kept per table; a table has a handful of distinct ones per version.
_SEAT_MEMORY = 512
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: Field numbers of the messages nested by :func:`_field` (table.proto).
_WATCH_VIEW = table_pb2.WatchResponse.VIEW_FIELD_NUMBER
_PLAY_UPDATE = table_pb2.PlayResponse.UPDATE_FIELD_NUMBER
_ACT_VIEW = table_pb2.ActResponse.VIEW_FIELD_NUMBER
#: The key of the events bytes every seat shares.
_ALL = -1


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, message: bytes) -> bytes:
    """A message field (``number``) holding an already serialized message: its key, length
    and bytes, as protobuf lays it out. Appended to a serialized message it sets that field
    (a message's bytes are the concatenation of its fields'), so bytes encoded once nest into
    the replies that carry them without being parsed or encoded again."""
    size = len(message)
    if size < 0x4000:  # every view but a huge one: a length of one or two bytes
        length = bytes((size,)) if size < 0x80 else bytes((size & 0x7F | 0x80, size >> 7))
    else:
        length = _varint(size)
    return _KEYS[number] + length + message


#: Each nesting field's key (field number and the length-delimited wire type).
_KEYS = {n: _varint(n << 3 | 2) for n in (_WATCH_VIEW, _PLAY_UPDATE, _ACT_VIEW)}


#: (card or None, face up) -> its message: a handful of distinct values, copied into every
#: seat's message rather than built again for each (building one costs about a microsecond).
_VIEW_CARDS: dict[tuple[int | None, bool], table_pb2.ViewCard] = {}


def _view_card(card: tuple[int | None, bool]) -> table_pb2.ViewCard:
    msg = _VIEW_CARDS.get(card)
    if msg is None:
        value, up = card
        msg = _VIEW_CARDS[card] = table_pb2.ViewCard(
            card="" if value is None else card_str(value), face_up=up
        )
    return msg


def seat_to_pb(seat: SeatView) -> table_pb2.SeatView:
    """One seat of a view as protobuf (a hidden card is the empty string)."""
    return table_pb2.SeatView(
        seat=seat.seat,
        player=seat.player,
        stack=seat.stack,
        street_bet=seat.street_bet,
        in_hand=seat.in_hand,
        folded=seat.folded,
        all_in=seat.all_in,
        cards=[_view_card(c) for c in seat.cards],
        declared=seat.declared,
        declaration=seat.declaration,
        sitting_out=seat.sitting_out,
        time_bank_seconds=seat.time_bank,
        time_bank_running=seat.time_bank_running,
        time_bank_protection=seat.time_bank_protection,
    )


def view_to_pb(
    view: TableView, options: Any, seats: list[table_pb2.SeatView]
) -> table_pb2.TableView:
    """A table view as protobuf, given its seats already converted (:func:`seat_to_pb`) and the
    table's options message (or None)."""
    return table_pb2.TableView(
        table_id=view.table_id,
        name=view.name,
        variant=view.variant,
        version=view.version,
        hand_id=view.hand_id,
        hand_in_progress=view.hand_in_progress,
        street=view.street,
        button=view.button,
        seats=seats,
        community=[card_str(c) for c in view.community],
        pot=view.pot,
        to_act=view.to_act,
        viewer_seat=view.viewer_seat,
        legal_actions=legal_to_pb(view.legal_actions),
        options=options,
        action_seconds=view.action_seconds,
        game=view.game,
        phase=view.phase,
        dealer=view.dealer,
        choosing_game=view.choosing_game,
        carried_pot=view.carried_pot,
        waiting_for=list(view.waiting_for),
        wild_cards=[card_str(c) for c in view.wild_cards],
        game_options=options_struct(view.game_options) if view.game_options else None,
        table_cards=[card_str(c) for c in view.table_cards],
        hand_number=view.hand_number,
        time_bank=time_bank_to_pb(view.time_bank) if view.time_bank.seconds else None,
        closed=view.closed,
        closing=view.closing,
        paused=view.paused,
    )


def legal_to_pb(actions: tuple[ViewAction, ...]) -> list[table_pb2.LegalAction]:
    """A viewer's legal moves as protobuf."""
    return [
        table_pb2.LegalAction(
            action=a.action,
            to=list(a.to),
            choices=list(a.choices),
            min_cards=a.min_cards,
            max_cards=a.max_cards,
        )
        for a in actions
    ]


def options_struct(data: Mapping[str, Any]) -> Struct:
    """Game options as a protobuf Struct."""
    struct = Struct()
    struct.update(dict(data))
    return struct


def struct_to_dict(struct: Struct) -> dict[str, Any]:
    """A Struct's fields as plain values; whole numbers back to ints (Struct holds doubles,
    and game options are counts and cents)."""

    def plain(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    try:
        values = MessageToDict(struct)
    except ValueError:  # NaN or infinity: a Struct may hold them, JSON (and options) may not
        raise InvalidArgument("options must be JSON values (no NaN or infinity)") from None
    return {k: plain(v) for k, v in values.items()}


class TableViews:
    """One table's views and watch updates as protobuf, built at most once per version and
    viewer seat.

    The messages returned are shared: callers copy them into their own replies (protobuf
    constructors and ``CopyFrom`` copy) and never change them.
    """

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self._version = -1
        self._views: dict[int, table_pb2.TableView] = {}
        self._updates: dict[int, table_pb2.WatchResponse] = {}
        self._plain: list[Any] | None = None
        #: The same messages encoded, by seat (``_ALL``: events every seat sees whole).
        self._view_bytes: dict[int, bytes] = {}
        self._update_bytes: dict[int, bytes] = {}
        self._play_bytes: dict[int, bytes] = {}
        self._events_bytes: dict[int, bytes] = {}
        self._all_public = False
        #: The observer's view at ``_version`` and its message.
        self._public: tuple[TableView, table_pb2.TableView] | None = None
        self._seats: dict[SeatView, table_pb2.SeatView] = {}
        self._options: tuple[Any, Any] = (None, None)
        #: CRV1: the proofs of the table's hand (the service sets them from its runner).
        self.proofs: HandProofs | None = None
        #: CRV1: version -> {event index: dealing index} (the runner's count).
        self.deal_indices: dict[int, dict[int, int]] = {}

    def _at(self, version: int) -> None:
        if version != self._version:
            self._version = version
            self._views = {}
            self._updates = {}
            self._plain = None
            self._public = None
            self._view_bytes = {}
            self._update_bytes = {}
            self._play_bytes = {}
            self._events_bytes = {}
            if len(self._seats) > _SEAT_MEMORY:
                self._seats = {}

    def view(self, state: TableState, version: int, seat: int) -> table_pb2.TableView:
        """The table at ``version`` (``state`` must be the table at that version) as the
        player at ``seat`` (0: an observer) sees it."""
        self._at(version)
        if self._public is None:
            view = public_table_view(state, version)
            seats_pb = [self._seat(s) for s in view.seats]
            public_msg = view_to_pb(view, self._options_pb(state), seats_pb)
            self._public = (view, public_msg)
            self._public_proofs(state, view, public_msg)
        if seat == 0:
            return self._public[1]
        msg = self._views.get(seat)
        if msg is None:
            msg = self._personal(state, seat, table_pb2.TableView())
        return msg

    def _personal(
        self, state: TableState, seat: int, msg: table_pb2.TableView
    ) -> table_pb2.TableView:
        """Fill ``msg`` (empty) with ``seat``'s view at the current version; remembered."""
        assert self._public is not None
        public_view, public_msg = self._public
        # A player's view is the public one with their own seats, moves and seat number.
        seats, legal = personal_parts(state, public_view, seat)
        msg.CopyFrom(public_msg)
        for i, (mine, public) in enumerate(zip(seats, public_view.seats, strict=True)):
            if mine is not public:
                msg.seats[i].CopyFrom(self._seat(mine))
        msg.viewer_seat = seat
        msg.legal_actions.extend(legal_to_pb(legal))
        self._own_proofs(state, seat, msg)
        self._views[seat] = msg
        return msg

    def update(
        self, state: TableState, version: int, seat: int, update: Update
    ) -> table_pb2.WatchResponse:
        """``update``'s events as ``seat`` sees them; when the update is the table's newest
        (``update.version == version``), with the view too."""
        if update.version != version:
            return table_pb2.WatchResponse(
                version=update.version, events=self._older_events(update, seat)
            )
        self._at(version)
        response = self._updates.get(seat)
        if response is None:
            response = table_pb2.WatchResponse(
                version=update.version, events=self._newest_events(update, seat)
            )
            view = self._views.get(seat) if seat else None
            if view is not None:
                response.view.CopyFrom(view)
            elif seat:
                # Built in place (a message's field holds a copy of whatever is assigned);
                # the Act reply and later watchers read it from there.
                self.view(state, version, 0)  # the public view it is patched from
                self._personal(state, seat, response.view)
            else:
                response.view.CopyFrom(self.view(state, version, 0))
            self._updates[seat] = response
        return response

    # --- the same, encoded once per version and seat -----------------------------------------

    def view_bytes(self, state: TableState, version: int, seat: int) -> bytes:
        """:meth:`view`, serialized: once per version and seat, whoever asks."""
        self._at(version)
        data = self._view_bytes.get(seat)
        if data is None:
            data = self._view_bytes[seat] = self.view(state, version, seat).SerializeToString()
        return data

    def update_bytes(self, state: TableState, version: int, seat: int, update: Update) -> bytes:
        """:meth:`update`, serialized: the newest update once per version and seat (every
        watcher of the seat is sent these same bytes), its view encoded once with the Act
        reply's (:meth:`act_bytes`); an older one per call (a watcher catching up)."""
        if update.version != version:
            return self.update(state, version, seat, update).SerializeToString()
        self._at(version)
        data = self._update_bytes.get(seat)
        if data is None:
            events = self._newest_events(update, seat)
            # Shared by every seat when the events are (nothing in them hidden from anyone).
            key = _ALL if events is self._plain else seat
            head = self._events_bytes.get(key)
            if head is None:
                head = self._events_bytes[key] = table_pb2.WatchResponse(
                    version=update.version, events=events
                ).SerializeToString()
            data = head + _field(_WATCH_VIEW, self.view_bytes(state, version, seat))
            self._update_bytes[seat] = data
        return data

    def play_bytes(self, state: TableState, version: int, seat: int, update: Update) -> bytes:
        """A ``PlayResponse`` carrying :meth:`update_bytes`, serialized (the newest once per
        version and seat)."""
        if update.version != version:
            return _field(_PLAY_UPDATE, self.update_bytes(state, version, seat, update))
        self._at(version)
        data = self._play_bytes.get(seat)
        if data is None:
            data = _field(_PLAY_UPDATE, self.update_bytes(state, version, seat, update))
            self._play_bytes[seat] = data
        return data

    def act_bytes(self, state: TableState, version: int, seat: int, acted: int) -> bytes:
        """An ``ActResponse`` serialized: the version ``acted`` at and the view now (the
        watchers' bytes of it)."""
        head = table_pb2.ActResponse(version=acted).SerializeToString()
        return head + _field(_ACT_VIEW, self.view_bytes(state, version, seat))

    def _older_events(self, update: Update, seat: int) -> list[Any]:
        older = self._events(update, seat, plain=None)
        self._deal_indices(update, older)
        return older

    def _newest_events(self, update: Update, seat: int) -> list[Any]:
        """The newest update's events as ``seat`` sees them; the unredacted ones converted
        once per version and shared when nothing in them is hidden from observers."""
        if self._plain is None:
            self._plain = self._events(update, None, plain=None)
            self._deal_indices(update, self._plain)
            # What an observer sees whole, every seat does (redacting only hides), so
            # an update with nothing hidden from observers is the same for all.
            self._all_public = all(redact(e, 0) is e for e in update.events)
        if self._all_public:
            return self._plain
        events = self._events(update, seat, plain=self._plain)
        if events is not self._plain:
            self._deal_indices(update, events)
        return events

    def _events(self, update: Update, seat: int | None, *, plain: list[Any] | None) -> list[Any]:
        """The update's event envelopes as ``seat`` sees them (None: unredacted); ``plain``,
        the unredacted ones already converted, is reused for every event the viewer sees whole."""
        when = update.occurred_at or _EPOCH
        out = []
        for index, event in enumerate(update.events):
            shown = event if seat is None else redact(event, seat)
            if shown is event and plain is not None:
                out.append(plain[index])
                continue
            meta = EventMeta(
                self.table_id, update.version, index, update.request_id, update.actor, when
            )
            out.append(event_to_pb(shown, meta))
        return out

    # --- CRV1 proofs (docs/shuffle.md II.6) ------------------------------------------------

    def _hand_proofs(self, state: TableState, hand_id: str) -> HandProofs | None:
        proofs = self.proofs
        return proofs if proofs is not None and proofs.hand_id == hand_id else None

    def _proof(self, proofs: HandProofs, card: int, consumed: int) -> table_pb2.CardProof:
        index = proofs.index_of(card, consumed)
        return table_pb2.CardProof(
            card=card_str(card),
            deal_index=0 if index is None else index + 1,
            opening=proofs.openings.get(card, b""),
        )

    def _public_proofs(self, state: TableState, view: TableView, msg: table_pb2.TableView) -> None:
        """The hand's scheme, root and lock, the proofs of every card all may see, its
        reshuffles' positions, and the seed phase of a hand committed and not yet dealt."""
        pending = state.pending
        if pending is not None and state.needs_seeds:
            msg.seeding.CopyFrom(
                table_pb2.SeedRound(
                    hand_id=pending.hand_id,
                    commitment=pending.commitment,
                    merkle_root=pending.root,
                    phase=state.seed_phase,
                )
            )
            done = state.commits_locked
            if done is not None and done.hand_id == pending.hand_id:
                msg.seeding.commits.extend(
                    events_pb2.SeedCommit(seat=seat, player=player, commitment=commitment)
                    for seat, player, commitment in done.commits
                )
        hand = state.hand
        locked = state.locked
        if locked is not None and hand is not None and locked.hand_id == hand.hand_id:
            msg.locked_seeds.extend(
                events_pb2.LockedSeed(seat=seat, player=player, seed=seed, origin=origin)
                for seat, player, seed, origin in locked.seeds
            )
        proofs = self._hand_proofs(state, view.hand_id)
        if proofs is None or hand is None:
            return
        msg.scheme = "CRV1"
        msg.merkle_root = proofs.root
        msg.commitment = proofs.commitment
        msg.reshuffles.extend(
            table_pb2.ReshuffleRound(round=r, positions=positions)
            for r, positions in enumerate(proofs.rounds, start=1)
        )
        consumed = hand.deck_pos
        # The hand's own rows, not the seats': a player who left at its end (in the batch
        # that shows their cards) takes their row along, never the proofs of what they showed.
        shown = [*public_cards(state), *view.community, *view.table_cards]
        msg.proofs.extend(self._proof(proofs, c, consumed) for c in dict.fromkeys(shown))

    def _own_proofs(self, state: TableState, me: int, msg: table_pb2.TableView) -> None:
        """The viewer's own cards' proofs (and, in the seed phases, what it sent)."""
        if msg.HasField("seeding"):
            if me in state.seed_commits:
                msg.seeding.my_commitment = state.seed_commits[me]
            if me in state.client_seeds:
                msg.seeding.my_seed = state.client_seeds[me]
        hand = state.hand
        proofs = self._hand_proofs(state, msg.hand_id)
        if proofs is None or hand is None:
            return
        # The viewer's row in the hand: their seat's, or (left since, the seat still free:
        # see viewer_seat) the one they played.
        sitting = state.seat_at(me)
        i = hand_index(hand, sitting) if sitting is not None else hand.index_of(me)
        if i is None:
            return
        have = {p.card for p in msg.proofs}
        for card in hand.cards[i]:
            if card_str(card) not in have:
                msg.proofs.append(self._proof(proofs, card, hand.deck_pos))

    def _deal_indices(self, update: Update, out: list[Any]) -> None:
        """Each CardDealt's public dealing index (1-based), as the runner counted it."""
        found = self.deal_indices.get(update.version)
        if not found:
            return
        for k, index in found.items():
            if k < len(out) and out[k].WhichOneof("payload") == "card_dealt":
                out[k].card_dealt.deal_index = index + 1

    def _seat(self, seat: SeatView) -> table_pb2.SeatView:
        msg = self._seats.get(seat)
        if msg is None:
            msg = self._seats[seat] = seat_to_pb(seat)
        return msg

    def _options_pb(self, state: TableState) -> Any:
        if state.options is None:
            return None
        if self._options[0] is not state.options:  # a table's options never change
            self._options = (state.options, options_to_pb(state.options))
        return self._options[1]
