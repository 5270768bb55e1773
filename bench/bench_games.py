"""Every dealer's choice game: hands per second of random legal play, beside stud hi/lo.

For each game, random 6-player hands (fixed seed; random legal moves for whoever the hand
waits for, the dealer's reshuffle when a draw asks for it) are recorded once, before any
timing, as their commands. Then, in hands per second:

(a) replay: ``step`` (decide + fold) for every command, from ``StartHand`` to the payout,
    the work a table service does;
(b) fold only: folding the recorded events (rebuilding a hand from its log).

Seven-card stud hi/lo is played the same way on the same dealer's choice table, for scale.
Then (a) and (b) of every game against the engine before issue #14's one engine, on the same
hands in the same run (``bench/_before.py``): no lower than before.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench._before import BEFORE, HandSet, compare, engines, header, row
from riverboat.engine.commands import Act, Command, Reshuffle, StartHand, TimeOut
from riverboat.engine.events import Event, SeatEntry
from riverboat.engine.game import VARIANTS, fold, step
from riverboat.engine.games import GAMES, moves, waiting_for
from riverboat.engine.options import dealers_choice_options
from riverboat.engine.state import RESHUFFLE, HandState

SEED = 20260101
PLAYERS = 6
HANDS = 200
#: Repeats of the before/after timings (each chunk of hands' best counts).
BEFORE_REPEATS = 7


@dataclass(frozen=True, slots=True)
class Recorded:
    """One hand: how it started, every command after, its deck (with any reshuffle)."""

    start: StartHand
    commands: tuple[Command, ...]
    decks: tuple[tuple[int, ...], ...]
    events: tuple[Event, ...]


def random_command(state: HandState, rng: random.Random) -> Command:
    """A random legal command for one of the seats the hand waits for."""
    if isinstance(state, HandState) and state.phase == RESHUFFLE:
        cards = list(state.reshuffle_cards)
        rng.shuffle(cards)
        return Reshuffle(tuple(cards))
    seat = rng.choice(waiting_for(state))
    pick = rng.choice(moves(state, seat))
    i = state.seats.index(seat)
    held = list(state.cards[i])
    if pick.action in ("draw", "discard", "pass"):
        return Act(seat, pick.action, cards=tuple(rng.sample(held, rng.choice(pick.to))))
    if pick.action == "order":
        rng.shuffle(held)
        return Act(seat, "order", cards=tuple(held))
    if pick.action == "expose":
        down = [c for c, up in zip(state.cards[i], state.face_up[i], strict=True) if not up]
        return Act(seat, "expose", cards=(rng.choice(down),))
    if pick.action == "declare":
        return Act(seat, "declare", amount=rng.choice(pick.to))
    if pick.action == "fold" and rng.random() < 0.7:
        return TimeOut(seat)  # checks when it can: fewer folds, longer hands
    return Act(seat, pick.action, rng.choice(pick.to))


def record(variant: str, rng: random.Random, number: int) -> Recorded:
    """Play one random hand of ``variant`` and keep its commands."""
    deck = list(range(52))
    rng.shuffle(deck)
    seats = tuple(SeatEntry(k, f"p{k}", rng.choice([2_000, 5_000, 20_000])) for k in range(1, 7))
    start = StartHand(
        f"{variant}-{number}",
        variant,
        dealers_choice_options(),
        rng.randint(1, 6),
        seats,
        tuple(deck),
    )
    events, state = step(None, start)
    table_deck = start.deck
    commands: list[Command] = []
    decks: list[tuple[int, ...]] = []
    while not state.finished:
        command = random_command(state, rng)
        decks.append(table_deck)
        new, state = step(state, command, table_deck)
        if isinstance(command, Reshuffle):
            table_deck = (*table_deck, *command.cards)
        commands.append(command)
        events.extend(new)
    return Recorded(start, tuple(commands), tuple(decks), tuple(events))


def replay(hand: Recorded) -> HandState:
    """Decide and fold every command of a recorded hand."""
    state = step(None, hand.start)[1]
    for command, deck in zip(hand.commands, hand.decks, strict=True):
        state = step(state, command, deck)[1]
    return state


def _rate(count: int, body: Callable[[], object], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        body()
        best = min(best, time.perf_counter() - start)
    return count / best


def run() -> None:
    rng = random.Random(SEED)
    print(
        f"Random legal play, {PLAYERS} players on the dealer's choice table "
        f"(seed {SEED}; {HANDS} hands per game; hands/s, best of 3):"
    )
    print(f"  {'game':<24}{'replay':>10}{'fold':>10}{'cmds/hand':>11}{'events/hand':>13}")
    games = [v for v in VARIANTS if v in GAMES] + [v for v in VARIANTS if v not in GAMES]
    recorded: dict[str, HandSet] = {}
    for variant in games:
        hands = [record(variant, rng, k) for k in range(HANDS)]
        logs = [list(h.events) for h in hands]
        recorded[variant] = ([(h.start, h.commands, h.decks) for h in hands], logs)
        finals: list[HandState] = []

        def replay_all(hands: list[Recorded] = hands, finals: list[HandState] = finals) -> None:
            finals.clear()
            finals.extend(replay(h) for h in hands)

        def fold_all(logs: list[list[Event]] = logs) -> None:
            for events in logs:
                fold(events)

        replay_rate = _rate(HANDS, replay_all)
        fold_rate = _rate(HANDS, fold_all)
        for hand, final in zip(hands, finals, strict=True):
            assert final == fold(list(hand.events)), f"{hand.start.hand_id}: replay differs"
        commands = sum(len(h.commands) for h in hands) / HANDS
        events = sum(len(h.events) for h in hands) / HANDS
        print(
            f"  {variant:<24}{replay_rate:>10,.0f}{fold_rate:>10,.0f}"
            f"{commands:>11.1f}{events:>13.1f}",
            flush=True,
        )
    _against_before(recorded)


def _against_before(recorded: dict[str, HandSet]) -> None:
    """Every game's replay and fold against the engine before the one engine."""
    print(f"Against the engine before the one engine ({BEFORE}), the same hands:")
    with engines(recorded) as both:
        if isinstance(both, str):
            print(f"  skipped: {both}")
            return
        header("replay", "fold")
        for variant in recorded:
            differ = both.before.differing(variant)
            assert not differ, (
                f"{variant}: the engine before decides hands {differ[:5]} differently"
            )
            row(
                variant,
                HANDS,
                compare(both, "replay", variant, HANDS, BEFORE_REPEATS),
                compare(both, "fold", variant, HANDS, BEFORE_REPEATS),
            )
