"""What each viewer may see: their own hole cards, shown cards and public actions only.

Every message a client receives is built here, from the omniscient table state and events.
An observer (``viewer=None``) sees only public information, and a player sees what an observer
sees plus their own seat. The dealer's choice games follow :mod:`riverboat.engine.visibility`:
passed cards are seen by the giver and the receiver only (in the pass, not in the receiver's
row), discards by nobody else, a declaration stays sealed until all are revealed together;
wild cards and exposed-card payments are public.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from riverboat.engine import visibility
from riverboat.engine.cards import DECK_SIZE
from riverboat.engine.games import GAMES, moves, waiting_for
from riverboat.engine.state import STUD_VARIANT, HandState
from riverboat.table.aggregate import Seat, TableState
from riverboat.table.choice import CHOOSE_GAME, declarable_limits, offered_games
from riverboat.table.events import NO_TIME_BANK, AnyEvent, ClientSeedSent, TimeBankPolicy

#: Actions that name cards, and the phase field saying how many.
_CARD_ACTIONS = frozenset({"draw", "discard", "pass", "expose", "order"})


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
    #: Sealed a declaration; the declaration itself once revealed (or to the declarer).
    declared: bool = False
    declaration: str = ""
    sitting_out: bool = False
    #: Seconds left in the time bank; the seconds a turn running on it was given (0: none),
    #: and whether those are the disconnect protection's.
    time_bank: int = 0
    time_bank_running: int = 0
    time_bank_protection: bool = False


@dataclass(frozen=True, slots=True)
class ViewAction:
    """A move the viewer may make now: betting totals (``to``), or for card actions the card
    counts allowed, or the words to choose from (a game, a declaration); for ``choose_game``
    ``to`` holds the limits the dealer may declare (small bet from, to; big bet from, to)."""

    action: str
    to: tuple[int, ...] = ()
    choices: tuple[str, ...] = ()
    min_cards: int = 0
    max_cards: int = 0


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
    legal_actions: tuple[ViewAction, ...]
    action_seconds: int
    game: str = ""
    phase: str = ""
    dealer: int = 0
    choosing_game: bool = False
    carried_pot: int = 0
    waiting_for: tuple[int, ...] = ()
    wild_cards: tuple[int, ...] = ()
    game_options: Mapping[str, Any] = field(default_factory=dict)
    table_cards: tuple[int, ...] = ()
    #: The number of the hand named by ``hand_id`` (1, 2, 3... at this table; 0: none).
    hand_number: int = 0
    #: The table's time bank policy (seconds 0: none).
    time_bank: TimeBankPolicy = NO_TIME_BANK
    #: Operator control: closed for good, closing after the hand in play, dealing paused.
    closed: bool = False
    closing: bool = False
    paused: bool = False


def viewer_seat(state: TableState, viewer: str | None) -> int:
    """The viewer's seat number, 0 for an observer."""
    if viewer is None:
        return 0
    seat = state.seat_of(viewer)
    if seat is not None:
        return seat.seat
    hand = state.hand
    if hand is not None and viewer in hand.players:  # left the table, still in the hand's log
        played = hand.seats[hand.players.index(viewer)]
        # Unless someone sat down there since: that seat's view is theirs now.
        return played if state.seat_at(played) is None else 0
    return 0


def hand_index(hand: HandState, sitting: Seat) -> int | None:
    """The index of ``sitting`` in ``hand``: their seat's, if they are who played it (a
    player who sat down after the hand, in the seat of one who left, has none)."""
    i = hand.index_of(sitting.seat)
    return i if i is not None and hand.players[i] == sitting.player else None


def public_cards(state: TableState) -> tuple[int, ...]:
    """Every card of the hand (in play or last played) in front of a player that an observer
    may see: each player's up cards and shown cards, folded rows aside, as the seats' rows
    show them, and also those of players who left the table since (the row goes with them;
    what they showed stays provable, see the views' proofs)."""
    hand = state.hand
    if hand is None:
        return ()
    known = visibility.known_cards(hand, 0)
    return tuple(
        card
        for i, row in enumerate(known)
        if not hand.folded[i]
        for card in row
        if card is not None
    )


def table_view(state: TableState, version: int, viewer: str | None) -> TableView:
    """The table as ``viewer`` (a player id, or None for an observer) may see it."""
    return seat_table_view(state, version, viewer_seat(state, viewer))


def seat_table_view(state: TableState, version: int, me: int) -> TableView:
    """The table as the player at seat ``me`` (0: an observer) may see it.

    What a viewer sees depends on their seat alone, so every watcher of one seat (or every
    observer) can be sent the same view.
    """
    public = public_table_view(state, version)
    return personal_view(state, public, me) if me else public


def public_table_view(state: TableState, version: int) -> TableView:
    """The table as an observer sees it: public information only."""
    hand = state.hand
    live = hand is not None and not hand.finished
    # Every seat's cards as an observer knows them, worked out once for the whole view.
    known = visibility.known_cards(hand, 0) if hand is not None else ()
    seats = tuple(_seat_view(state, hand, known, s, 0) for s in state.seats)
    waiting = waiting_for(hand) if hand is not None and live else ()
    to_act = 0
    if hand is not None and live:
        to_act = hand.seats[hand.to_act] if hand.to_act is not None else 0
    elif state.awaits_choice:
        to_act = state.dealer  # the dealer's turn to choose the game
        waiting = (state.dealer,)
    # Pacific stud has no game options, wild cards or declarations to show.
    game_hand = hand if hand is not None and live and hand.variant != STUD_VARIANT else None
    return TableView(
        table_id=state.table_id,
        name=state.name,
        variant=state.variant,
        version=version,
        hand_id=hand.hand_id if hand is not None else "",
        # The hand named by hand_id is being played; a next hand committed but not yet dealt
        # is not (its id is not the one named, and nothing of it is in the view).
        hand_in_progress=live,
        street=hand.street if hand is not None and live else 0,
        button=state.button,
        seats=seats,
        community=hand.community if hand is not None and live else (),
        pot=hand.pot_total if hand is not None and live else 0,
        to_act=to_act,
        viewer_seat=0,
        legal_actions=(),
        action_seconds=state.action_seconds,
        game=_game(state),
        phase=(game_hand.phase if game_hand is not None else ("bet" if live else "")),
        dealer=state.dealer if state.dealers_choice else 0,
        choosing_game=state.awaits_choice,
        carried_pot=state.carried,
        waiting_for=tuple(waiting),
        wild_cards=_wild_cards(game_hand) if game_hand is not None else (),
        game_options=_game_options(state, game_hand),
        table_cards=game_hand.row if game_hand is not None else (),
        hand_number=state.hand_number if hand is not None else 0,
        time_bank=state.time_bank,
        closed=state.closed,
        closing=state.closing is not None and not state.closed,
        paused=state.paused,
    )


def personal_view(state: TableState, public: TableView, me: int) -> TableView:
    """``public`` (:func:`public_table_view` of ``state``) as the player at seat ``me`` sees it.

    Only three things differ from what an observer sees: ``me``'s own seat (their cards and
    declaration), ``me``'s legal moves, and the seat number (:func:`personal_parts`). Every
    other seat looks the same to every viewer (:func:`riverboat.engine.visibility.known_cards`).
    """
    seats, legal = personal_parts(state, public, me)
    return replace(public, seats=seats, viewer_seat=me, legal_actions=legal)


def personal_parts(
    state: TableState, public: TableView, me: int
) -> tuple[tuple[SeatView, ...], tuple[ViewAction, ...]]:
    """The seats and legal moves of :func:`personal_view`. Every seat but ``me``'s own is the
    public view's own :class:`SeatView` object, so a caller can tell which seats changed by
    identity."""
    hand = state.hand
    seats = public.seats
    sitting = state.seat_at(me)
    if hand is not None and sitting is not None and hand_index(hand, sitting) is not None:
        known = visibility.known_cards(hand, me, only=(me,))
        seats = tuple(
            _seat_view(state, hand, known, s, me) if s.seat == me else shown
            for s, shown in zip(state.seats, public.seats, strict=True)
        )
    legal: tuple[ViewAction, ...] = ()
    if hand is not None and not hand.finished:
        if me in public.waiting_for:
            legal = _hand_actions(hand, me)
    elif state.awaits_choice and me == state.dealer:
        # ``to``: the limits the dealer may declare with the game (small bet from, to; big bet
        # from, to).
        bounds = declarable_limits(state)
        legal = (ViewAction(CHOOSE_GAME, to=bounds, choices=offered_games(state)),)
    return seats, legal


def _game(state: TableState) -> str:
    """The game in play, or chosen for the next deal."""
    hand = state.hand
    if hand is not None and not hand.finished:
        return hand.variant
    if state.dealers_choice:
        return state.game if state.chosen else ""
    return state.variant


def _game_options(state: TableState, hand: HandState | None) -> Mapping[str, Any]:
    if hand is not None:
        return hand.game_options.to_dict()
    return dict(state.game_options) if state.dealers_choice and state.chosen else {}


def _seat_view(
    state: TableState,
    hand: HandState | None,
    known: tuple[tuple[int | None, ...], ...],
    sitting: Seat,
    me: int,
) -> SeatView:
    """One seat as ``me`` sees it: the cards ``me`` knows (``known``, from
    :func:`~riverboat.engine.visibility.known_cards`), the declaration once revealed; its
    sitting out and time bank are public."""
    seat, player, stack = sitting.seat, sitting.player, sitting.stack
    running, protection = state.banking.get(seat, (0, False))
    i = hand_index(hand, sitting) if hand is not None else None
    if hand is None or i is None:
        return SeatView(
            seat,
            player,
            stack,
            0,
            False,
            False,
            False,
            (),
            sitting_out=sitting.sitting_out,
            time_bank=sitting.time_bank,
            time_bank_running=running,
            time_bank_protection=protection,
        )
    cards = tuple(zip(known[i], hand.face_up[i], strict=True))
    declared, declaration = False, ""
    if hand.declarations:
        declared = bool(hand.declarations[i])
        if hand.revealed or seat == me:
            declaration = hand.declarations[i]
    return SeatView(
        seat=seat,
        player=player,
        stack=hand.stacks[i] if not hand.finished else stack,
        street_bet=hand.street_bets[i] if not hand.finished else 0,
        in_hand=not hand.finished,
        folded=hand.folded[i],
        all_in=not hand.folded[i] and hand.stacks[i] == 0 and not hand.finished,
        cards=cards if not hand.folded[i] or seat == me else (),
        declared=declared,
        declaration=declaration,
        sitting_out=sitting.sitting_out,
        time_bank=sitting.time_bank,
        time_bank_running=running,
        time_bank_protection=protection,
    )


def _hand_actions(hand: HandState, me: int) -> tuple[ViewAction, ...]:
    """``me``'s legal moves, with the cards or words each takes."""
    out = []
    for move in moves(hand, me):
        if move.action in _CARD_ACTIONS:
            low, high = min(move.to), max(move.to)
            out.append(ViewAction(move.action, move.to, min_cards=low, max_cards=high))
        elif move.action == "declare":
            game = GAMES[hand.variant]
            assert game.ways is not None
            words = {1: game.ways[0], 2: "high", 3: "both"}
            out.append(ViewAction("declare", move.to, choices=tuple(words[c] for c in move.to)))
        else:
            out.append(ViewAction(move.action, move.to))
    return tuple(out)


def _wild_cards(hand: HandState) -> tuple[int, ...]:
    """Every card wild now in this hand's game (none in most games)."""
    wild = getattr(GAMES[hand.variant], "wild", None)
    predicate = wild(hand) if wild is not None else None
    if predicate is None:
        return ()
    return tuple(c for c in range(DECK_SIZE) if predicate(c))


def redact(event: AnyEvent, seat: int) -> AnyEvent:
    """``event`` as the player at ``seat`` (0: an observer) may see it.

    A face-down card dealt to someone else is hidden, and in the dealer's choice games also
    someone else's discards, cards put down to pass or stacked, passes between two others,
    sealed declarations and the discards sent for a reshuffle
    (:func:`riverboat.engine.visibility.redact`). Table events are public, but for a CRV1
    client seed before the lock: its sender alone sees it (others learn only that one came).
    """
    if isinstance(event, ClientSeedSent):
        return event if event.seat == seat else replace(event, seed=b"")
    redacted: AnyEvent = visibility.redact(event, seat)
    return redacted
