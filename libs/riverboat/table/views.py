"""What each viewer may see: their own hole cards, shown cards and public actions only.

Every message a client receives is built here, from the omniscient table state and events.
An observer (``viewer=None``) sees only public information.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from riverboat.engine.betting import legal_actions
from riverboat.engine.events import CardDealt
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it; a hidden card is None."""

    seat: int
    player: str
    stack: int
    street_bet: int
    in_hand: bool
    folded: bool
    all_in: bool
    cards: tuple[tuple[int | None, bool], ...]


@dataclass(frozen=True, slots=True)
class TableView:
    """The table as one viewer may see it."""

    table_id: str
    name: str
    variant: str
    version: int
    hand_id: str
    hand_in_progress: bool
    street: int
    button: int
    seats: tuple[SeatView, ...]
    community: tuple[int, ...]
    pot: int
    to_act: int
    viewer_seat: int
    legal_actions: tuple[tuple[str, tuple[int, ...]], ...]
    action_seconds: int


def viewer_seat(state: TableState, viewer: str | None) -> int:
    """The viewer's seat number, 0 for an observer."""
    if viewer is None:
        return 0
    seat = state.seat_of(viewer)
    if seat is not None:
        return seat.seat
    hand = state.hand
    if hand is not None and viewer in hand.players:  # left the table, still in the hand's log
        return hand.seats[hand.players.index(viewer)]
    return 0


def table_view(state: TableState, version: int, viewer: str | None) -> TableView:
    """The table as ``viewer`` (a player id, or None for an observer) may see it."""
    me = viewer_seat(state, viewer)
    hand = state.hand
    seats: list[SeatView] = []
    in_progress = state.hand_in_progress
    for s in state.seats:
        i = hand.index_of(s.seat) if hand is not None else None
        if hand is None or i is None:
            seats.append(SeatView(s.seat, s.player, s.stack, 0, False, False, False, ()))
            continue
        shown = {e.seat for e in hand.shown}
        cards = tuple(
            (card if (up or s.seat == me or s.seat in shown) else None, up)
            for card, up in zip(hand.cards[i], hand.face_up[i], strict=True)
        )
        seats.append(
            SeatView(
                seat=s.seat,
                player=s.player,
                stack=hand.stacks[i] if not hand.finished else s.stack,
                street_bet=hand.street_bets[i] if not hand.finished else 0,
                in_hand=not hand.finished,
                folded=hand.folded[i],
                all_in=not hand.folded[i] and hand.stacks[i] == 0 and not hand.finished,
                cards=cards if not hand.folded[i] or s.seat == me else (),
            )
        )
    to_act = 0
    legal: tuple[tuple[str, tuple[int, ...]], ...] = ()
    if hand is not None and not hand.finished and hand.to_act is not None:
        to_act = hand.seats[hand.to_act]
        if to_act == me:
            legal = tuple((a.action, a.to) for a in legal_actions(hand))
    return TableView(
        table_id=state.table_id,
        name=state.name,
        variant=state.variant,
        version=version,
        hand_id=hand.hand_id if hand is not None else "",
        hand_in_progress=in_progress,
        street=hand.street if hand is not None and not hand.finished else 0,
        button=state.button,
        seats=tuple(seats),
        community=hand.community if hand is not None and not hand.finished else (),
        pot=hand.pot_total if hand is not None and not hand.finished else 0,
        to_act=to_act,
        viewer_seat=me,
        legal_actions=legal,
        action_seconds=state.action_seconds,
    )


def redact(event: AnyEvent, seat: int) -> AnyEvent:
    """``event`` as the player at ``seat`` (0: an observer) may see it.

    Only a face-down card dealt to someone else is hidden: every other event of the log is
    public (hole cards reach the log only through ``CardDealt`` and, once shown, ``HandShown``).
    """
    if isinstance(event, CardDealt) and not event.face_up and event.seat != seat:
        return replace(event, card=-1)
    return event
