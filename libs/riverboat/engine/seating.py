"""Checks every game's ``StartHand`` shares: who is dealt in, the button, the deck."""

from __future__ import annotations

from riverboat.engine.cards import CardError, validate_deck
from riverboat.engine.commands import StartHand
from riverboat.engine.errors import InvalidCommand

MAX_SEAT = 10


def validate_seating(command: StartHand, *, most: int, who_deals: str) -> None:
    """Raise :class:`InvalidCommand` unless ``command`` deals a valid table: between the
    options' minimum and ``most`` players, distinct seats 1..10 and players with chips, a
    button on a seat (dealt in when only the dealer antes), and a deck of distinct cards.

    ``who_deals`` starts the player-count message (``"this table"``, a game's title).
    """
    opts = command.options
    n = len(command.seats)
    if not opts.min_players <= n <= most:
        raise InvalidCommand(
            f"{who_deals} deals to {opts.min_players}-{most} players, not {n}",
            rule="player_count",
        )
    seats = [s.seat for s in command.seats]
    if len(set(seats)) != n:
        raise InvalidCommand("a seat appears twice", rule="duplicate_seat")
    if len({s.player for s in command.seats}) != n:
        raise InvalidCommand("a player appears twice", rule="duplicate_player")
    for entry in command.seats:
        if not isinstance(entry.seat, int) or not 1 <= entry.seat <= MAX_SEAT:
            raise InvalidCommand(f"seats are numbered 1..{MAX_SEAT}; got {entry.seat!r}")
        if not isinstance(entry.player, str) or not entry.player:
            raise InvalidCommand(f"seat {entry.seat} needs a player name")
        if not isinstance(entry.stack, int) or isinstance(entry.stack, bool) or entry.stack <= 0:
            raise InvalidCommand(
                f"seat {entry.seat}: a player is dealt in only with chips (stack {entry.stack!r})",
                rule="empty_stack",
            )
    if not isinstance(command.button, int) or not 1 <= command.button <= MAX_SEAT:
        raise InvalidCommand(f"the button must be a seat number 1..{MAX_SEAT}")
    if opts.ante_mode == "dealer" and command.button not in seats:
        raise InvalidCommand("with a dealer-only ante the button's seat must be dealt in")
    try:
        validate_deck(command.deck)
    except CardError as exc:
        raise InvalidCommand(str(exc), rule="bad_deck") from None
