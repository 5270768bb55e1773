"""A dealer's choice table across hands: the dealer's rotation, the choice, the riding pot.

The hand engine plays one hand; a session strings hands together the way Buderick's table
does (the house rules, docs/games.md "The dealer's choice table"):

- The dealer button moves one seat left each deal (to the next player with chips;
  :mod:`riverboat.engine.rotation` is the one rule, also the table service's).
- Before each deal the dealer chooses the game and its options from the table's allowed list
  (``ChooseGame``); if their clock runs out (``TimeOut``) the table's default is taken.
- When the declarations leave nobody to pay, the pot rides: the same dealer redeals the same
  game (no choice) and the pot joins the new deal's main pot, plus the new ante. If that
  dealer has no chips left, the next player with chips redeals the same game.
- Stacks carry from hand to hand (table stakes: no re-buys here).

It is event-sourced like a hand: ``step_session(state, command, deck)`` validates a command
and returns its events and the state after them; ``fold_session(events)`` rebuilds the state.
Hand commands (``Act``, ``TimeOut``, ``Reshuffle``) go to the hand in progress unchanged. A
table service that keeps its own seating can pass the seats to deal in with ``DealHand``.

>>> from riverboat.engine.events import SeatEntry
>>> seats = (SeatEntry(1, "ann", 5000), SeatEntry(2, "bob", 5000), SeatEntry(3, "cy", 5000))
>>> _, table = step_session(None, OpenSession(seats, button=1))
>>> table.dealer, table.choosing
(1, True)
>>> _, table = step_session(table, ChooseGame(1, "draw", {"draws": 2}))
>>> table.game, table.game_options["draws"]
('draw', 2)
>>> _, table = step_session(table, DealHand("h1", tuple(range(52))), tuple(range(52)))
>>> table.hand.variant, table.hand.button, table.hand.pot_total
('draw', 1, 100)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from riverboat.engine.commands import Act, Reshuffle, StartHand, TimeOut
from riverboat.engine.errors import IllegalAction, InvalidCommand, InvalidOptions
from riverboat.engine.events import (
    DealerUp,
    Event,
    GameChosen,
    HandEnded,
    HandStarted,
    SeatEntry,
    SessionEvent,
    SessionOpened,
)
from riverboat.engine.game import step
from riverboat.engine.game_options import EDITIONS, RULE_BOOK
from riverboat.engine.games import DEALERS_CHOICE, GAMES, game_options
from riverboat.engine.options import TableOptions, dealers_choice_options
from riverboat.engine.rotation import dealer_up, riding_pot
from riverboat.engine.state import HandState, apply, initial_state

#: The game a dealer's clock chooses unless the table says otherwise.
DEFAULT_GAME = "draw"


@dataclass(frozen=True, slots=True)
class DealersChoiceRules:
    """A dealer's choice table's settings: the games offered, the clock's default game, the
    table's own defaults for each game's options (overriding the house defaults), and the
    rule-book edition the table was created under (``edition``: a table keeps the defaults of
    its edition; a stored table without one is edition 1, the rule book before 2026-12-01)."""

    games: tuple[str, ...] = DEALERS_CHOICE
    default_game: str = DEFAULT_GAME
    game_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    edition: int = RULE_BOOK
    #: The limits a dealer may declare for one deal (Buderick: "unless otherwise declared by
    #: the dealer & agreed upon by the players"), in cents: 0 is the table's own small (or
    #: big) bet, so by default the dealer may declare only the table's limits.
    min_small_bet: int = 0
    max_small_bet: int = 0
    min_big_bet: int = 0
    max_big_bet: int = 0

    def __post_init__(self) -> None:
        if self.edition not in EDITIONS or isinstance(self.edition, bool):
            raise InvalidOptions(f"edition must be one of {EDITIONS}, got {self.edition!r}")
        for name in _BOUNDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidOptions(f"{name} must be a whole number of cents, got {value!r}")
        for low, high in (("min_small_bet", "max_small_bet"), ("min_big_bet", "max_big_bet")):
            if (
                getattr(self, low)
                and getattr(self, high)
                and getattr(self, low) > getattr(self, high)
            ):
                raise InvalidOptions(f"{low} may not exceed {high}")
        if not self.games or any(g not in DEALERS_CHOICE for g in self.games):
            raise InvalidOptions(f"games must be some of {', '.join(DEALERS_CHOICE)}")
        if self.default_game not in self.games:
            raise InvalidOptions("default_game must be one of the games offered")
        for game, overrides in self.game_defaults.items():
            if game not in self.games:
                raise InvalidOptions(f"game_defaults names a game not offered: {game!r}")
            game_options(game, overrides, edition=self.edition)  # validates

    def options_for(self, game: str, chosen: Mapping[str, Any] | None) -> dict[str, Any]:
        """``game``'s options: the edition's house defaults, the table's defaults, then the
        dealer's."""
        return game_options(
            game, self.game_defaults.get(game), chosen, edition=self.edition
        ).to_dict()

    def offered(self, players: int) -> tuple[str, ...]:
        """The games the dealer may choose with ``players`` to deal to."""
        return tuple(g for g in self.games if g not in GAMES or players <= GAMES[g].max_players)

    def choose(
        self,
        options: TableOptions,
        players: int,
        game: str,
        chosen: Mapping[str, Any] | None,
        small_bet: int = 0,
        big_bet: int = 0,
    ) -> dict[str, Any]:
        """Check a dealer's choice of ``game`` (with ``chosen`` options and declared limits,
        at a table with ``options`` and ``players`` to deal to) and return the game's options;
        :class:`IllegalAction` (``game_not_offered``, ``player_count``,
        ``limits_out_of_bounds``) or :class:`InvalidOptions` when it may not be dealt."""
        if game not in self.games:
            raise IllegalAction(
                f"this table offers {', '.join(self.games)}; not {game!r}",
                rule="game_not_offered",
            )
        if game not in self.offered(players):
            raise IllegalAction(
                f"{GAMES[game].title} deals to at most {GAMES[game].max_players} players",
                rule="player_count",
            )
        resolved = self.options_for(game, chosen)
        self.declared_options(options, small_bet, big_bet)  # validates the limits
        return resolved

    def clock_game(self, players: int) -> str:
        """The game a dealer's clock chooses: the default, or the first game offered when the
        default deals to fewer players than are here."""
        offered = self.offered(players)
        return self.default_game if self.default_game in offered else offered[0]

    def limit_bounds(self, options: TableOptions) -> tuple[int, int, int, int]:
        """The declarable small bet and big bet ranges at a table with ``options``:
        ``(min small, max small, min big, max big)``, the table's own limits for unset bounds."""
        return (
            self.min_small_bet or options.small_bet,
            self.max_small_bet or options.small_bet,
            self.min_big_bet or options.big_bet,
            self.max_big_bet or options.big_bet,
        )

    def declared_options(self, options: TableOptions, small_bet: int, big_bet: int) -> TableOptions:
        """The table's ``options`` with the limits a dealer declared for one deal (0 keeps the
        table's small or big bet), or :class:`IllegalAction` (``limits_out_of_bounds``) when
        they are outside the table's bounds."""
        if not small_bet and not big_bet:
            return options
        small = small_bet or options.small_bet
        big = big_bet or options.big_bet
        lo_s, hi_s, lo_b, hi_b = self.limit_bounds(options)
        if not (lo_s <= small <= hi_s and lo_b <= big <= hi_b) or big < small:
            raise IllegalAction(
                f"this table lets the dealer declare a small bet of {_money(lo_s)} to "
                f"{_money(hi_s)} and a big bet of {_money(lo_b)} to {_money(hi_b)} (at least "
                f"the small bet); not {_money(small)}/{_money(big)}",
                rule="limits_out_of_bounds",
            )
        # The bring-in stays within the small bet (Pacific stud: half of it).
        bring_in = min(options.bring_in, small) if options.no_bring_in else max(1, small // 2)
        return options.with_changes(small_bet=small, big_bet=big, bring_in=bring_in)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        out: dict[str, Any] = {
            "games": list(self.games),
            "default_game": self.default_game,
            "game_defaults": {g: dict(o) for g, o in self.game_defaults.items()},
            "edition": self.edition,
        }
        out.update({name: getattr(self, name) for name in _BOUNDS if getattr(self, name)})
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, *, edition: int = 1) -> DealersChoiceRules:
        """Rules from a mapping; missing keys take the defaults (every game, draw). A missing
        ``edition`` is ``edition`` (1: a record from before editions; a new table's request
        passes today's)."""
        data = dict(data or {})
        unknown = sorted(
            set(data) - {"games", "default_game", "game_defaults", "edition", *_BOUNDS}
        )
        if unknown:
            raise InvalidOptions(f"unknown dealer's choice setting(s): {', '.join(unknown)}")
        games = data.get("games", DEALERS_CHOICE)
        defaults = data.get("game_defaults", {})
        if not isinstance(games, list | tuple) or not isinstance(defaults, Mapping):
            raise InvalidOptions("games is a list of game names; game_defaults an object")
        return cls(
            tuple(games),
            data.get("default_game", DEFAULT_GAME),
            dict(defaults),
            data.get("edition", edition),
            *(data.get(name, 0) for name in _BOUNDS),
        )


_BOUNDS: tuple[str, ...] = ("min_small_bet", "max_small_bet", "min_big_bet", "max_big_bet")


def _money(cents: int) -> str:
    return f"${cents // 100}" if cents % 100 == 0 else f"${cents / 100:.2f}"


# --- commands ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenSession:
    """Open a dealer's choice table with these players; ``button`` deals first."""

    seats: tuple[SeatEntry, ...]
    button: int
    options: TableOptions = field(default_factory=dealers_choice_options)
    rules: DealersChoiceRules = field(default_factory=DealersChoiceRules)


@dataclass(frozen=True, slots=True)
class ChooseGame:
    """The dealer (``seat``) chooses the next game and any of its options, and may declare the
    deal's limits (``small_bet``, ``big_bet``; 0 keeps the table's) within the table's bounds."""

    seat: int
    game: str
    options: Mapping[str, Any] | None = None
    small_bet: int = 0
    big_bet: int = 0


@dataclass(frozen=True, slots=True)
class DealHand:
    """Deal the chosen game from the dealer's deck. ``seats``: who is dealt in, with their
    chips (default: every player of the session with chips)."""

    hand_id: str
    deck: tuple[int, ...]
    seats: tuple[SeatEntry, ...] | None = None


SessionCommand = OpenSession | ChooseGame | DealHand | Act | TimeOut | Reshuffle


# --- state ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionState:
    """A dealer's choice table between and during hands; the fold of its events."""

    options: TableOptions
    rules: DealersChoiceRules
    seats: tuple[SeatEntry, ...]
    dealer: int
    #: Waiting for the dealer to choose the game.
    choosing: bool = False
    #: The game of the next (or current) deal and its options.
    game: str = ""
    game_options: Mapping[str, Any] = field(default_factory=dict)
    #: A pot riding into the next deal.
    carried: int = 0
    hand: HandState | None = None
    hands_played: int = 0
    #: The limits the dealer declared for the deal, (small, big); 0: the table's.
    limits: tuple[int, int] = (0, 0)
    #: Rake taken in all hands so far.
    rake: int = 0

    @property
    def hand_in_progress(self) -> bool:
        """A hand is being played."""
        return self.hand is not None and not self.hand.finished

    @property
    def total_chips(self) -> int:
        """Stacks, the riding pot, the rake so far and a hand's pot: constant."""
        if self.hand_in_progress:
            assert self.hand is not None
            in_hand = {e for e in self.hand.seats}
            outside = sum(s.stack for s in self.seats if s.seat not in in_hand)
            return outside + self.hand.total_chips + self.rake
        return sum(s.stack for s in self.seats) + self.carried + self.rake

    def players_with_chips(self) -> list[SeatEntry]:
        """Seated players who can be dealt in."""
        return [s for s in self.seats if s.stack > 0]


def fold_session(
    events: Sequence[Event | SessionEvent], state: SessionState | None = None
) -> SessionState:
    """Fold ``events`` (starting with ``SessionOpened`` when ``state`` is None)."""
    for event in events:
        state = apply_session(state, event)
    assert state is not None
    return state


def apply_session(state: SessionState | None, event: Event | SessionEvent) -> SessionState:
    """Fold one session or hand event."""
    if isinstance(event, SessionOpened):
        return SessionState(
            options=TableOptions.from_dict(event.options),
            rules=DealersChoiceRules.from_dict(event.rules),
            seats=tuple(sorted(event.seats, key=lambda s: s.seat)),
            dealer=event.button,
        )
    if state is None:
        raise ValueError("a session's events start with SessionOpened")
    s = state
    if isinstance(event, DealerUp):
        return _replace(
            s,
            dealer=event.seat,
            choosing=not event.redeal,
            game=event.game if event.redeal else "",
            game_options=dict(event.options) if event.redeal else {},
            limits=s.limits if event.redeal else (0, 0),
        )
    if isinstance(event, GameChosen):
        return _replace(
            s,
            choosing=False,
            game=event.game,
            game_options=dict(event.options),
            limits=(event.small_bet, event.big_bet),
        )
    if isinstance(event, HandStarted):
        return _replace(s, hand=initial_state(event), hands_played=s.hands_played + 1, carried=0)
    assert s.hand is not None, f"{type(event).__name__} with no hand in progress"
    hand = apply(s.hand, event)
    if isinstance(event, HandEnded):
        final = dict(event.stacks)
        seats = tuple(SeatEntry(e.seat, e.player, final.get(e.seat, e.stack)) for e in s.seats)
        return _replace(
            s, hand=hand, seats=seats, carried=riding_pot(hand), rake=s.rake + hand.rake
        )
    return _replace(s, hand=hand)


def _replace(state: SessionState, **changes: Any) -> SessionState:
    new = object.__new__(SessionState)
    object.__setattr__(new, "__dict__", {**state.__dict__, **changes})
    return new


# --- decide --------------------------------------------------------------------------------


def step_session(
    state: SessionState | None, command: SessionCommand, deck: Sequence[int] | None = None
) -> tuple[list[Event | SessionEvent], SessionState]:
    """Validate ``command`` and return its events and the session after them. ``deck`` is
    the hand's deck for hand commands (``DealHand`` carries its own)."""
    if isinstance(command, OpenSession):
        if state is not None:
            raise IllegalAction("the table is already open", rule="session_open")
        return _record(None, _open(command))
    if state is None:
        raise IllegalAction("the table is not open", rule="no_session")
    if isinstance(command, ChooseGame):
        return _record(state, _choose(state, command))
    if isinstance(command, DealHand):
        return _deal(state, command)
    if isinstance(command, TimeOut) and state.choosing:
        if command.seat != state.dealer:
            raise IllegalAction(f"seat {state.dealer} is choosing the game", rule="out_of_turn")
        rules = state.rules
        game = rules.clock_game(len(state.players_with_chips()))
        return _record(state, [GameChosen(state.dealer, game, rules.options_for(game, None), True)])
    if not state.hand_in_progress:
        raise IllegalAction("no hand is in progress", rule="no_hand")
    assert state.hand is not None
    hand_events, hand = step(state.hand, command, deck)
    events: list[Event | SessionEvent] = list(hand_events)
    after = fold_session(events, state)
    if hand.finished:
        events.extend(_next_dealer(after))
    return _record(state, events)


def _record(
    state: SessionState | None, events: list[Event | SessionEvent]
) -> tuple[list[Event | SessionEvent], SessionState]:
    return events, fold_session(events, state)


def _open(command: OpenSession) -> list[Event | SessionEvent]:
    seats = command.seats
    if len({s.seat for s in seats}) != len(seats) or len({s.player for s in seats}) != len(seats):
        raise InvalidCommand("a seat or a player appears twice", rule="duplicate_seat")
    if not 2 <= len(seats) <= command.options.max_players:
        raise InvalidCommand(
            f"a table seats 2-{command.options.max_players} players", rule="player_count"
        )
    if any(s.stack <= 0 for s in seats):
        raise InvalidCommand("every player sits down with chips", rule="empty_stack")
    if command.button not in {s.seat for s in seats}:
        raise InvalidCommand("the first dealer must be one of the players", rule="bad_button")
    rules = command.rules
    return [
        SessionOpened(command.options.to_dict(), rules.to_dict(), seats, command.button),
        DealerUp(command.button, False, "", {}),
    ]


def _choose(state: SessionState, command: ChooseGame) -> list[Event | SessionEvent]:
    if not state.choosing:
        raise IllegalAction("the game is not being chosen now", rule="not_choosing")
    if command.seat != state.dealer:
        raise IllegalAction(
            f"seat {state.dealer} deals and chooses, not seat {command.seat}", rule="out_of_turn"
        )
    players = len(state.players_with_chips())
    options = state.rules.choose(
        state.options, players, command.game, command.options, command.small_bet, command.big_bet
    )
    return [
        GameChosen(command.seat, command.game, options, False, command.small_bet, command.big_bet)
    ]


def _deal(
    state: SessionState, command: DealHand
) -> tuple[list[Event | SessionEvent], SessionState]:
    if state.hand_in_progress:
        raise IllegalAction("a hand is already in progress", rule="hand_in_progress")
    if state.choosing or not state.game:
        raise IllegalAction(f"seat {state.dealer} has not chosen the game", rule="not_chosen")
    seats = command.seats if command.seats is not None else tuple(state.players_with_chips())
    start = StartHand(
        command.hand_id,
        state.game,
        state.rules.declared_options(state.options, *state.limits),
        state.dealer,
        seats,
        command.deck,
        game_options=state.game_options or None,
        carried_pot=state.carried,
    )
    events, _ = step(None, start)
    return _record(state, list(events))


def _next_dealer(state: SessionState) -> list[Event | SessionEvent]:
    """Who deals next, once a hand is over: the same dealer and game if the pot rode."""
    ready = [s.seat for s in state.players_with_chips()]
    if len(ready) < 2:
        return []  # the game is over: fewer than two players have chips
    return [
        dealer_up(
            ready,
            state.dealer,
            game=state.game,
            game_options=state.game_options,
            carried=state.carried,
        )
    ]
