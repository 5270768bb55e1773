"""Random hands of every game played in process through the table aggregate, with every
viewer's messages built by the table service's own view builder (``TableViews``, the code that
makes each Watch message, Act reply and GetTableView answer) and checked by the oracle as they
are made: the part of the leak battery that does not fit through the real services.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from riverboat.engine.commands import Act, Reshuffle
from riverboat.engine.events import DealerUp, HandStarted
from riverboat.engine.games import DEALERS_CHOICE, GAMES, moves, waiting_for
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.engine.state import RESHUFFLE, HandState
from riverboat.services.table.runner import Update
from riverboat.services.table.viewpb import TableViews
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent
from tests.leak.oracle import Checker, Report, Truth

#: A few values for options that take any amount of cents or a rank.
_CENTS = (0, 100, 500)
_RANKS = (None, "K", "7")


def option_plan() -> list[tuple[str, dict[str, Any]]]:
    """(game, options) for every game of the registry: its defaults, then each value of each
    of its options in turn (enumerated from the games' own option specs, not a list here),
    the games taking turns so that every game comes up early."""
    per_game: list[list[tuple[str, dict[str, Any]]]] = []
    for name in DEALERS_CHOICE:
        mine: list[tuple[str, dict[str, Any]]] = [(name, {})]
        for spec in GAMES[name].specs if name in GAMES else ():  # stud: table options only
            if spec.allowed == "cents":
                values: tuple[Any, ...] = _CENTS
            elif spec.allowed == "rank":
                values = _RANKS
            else:
                values = tuple(spec.allowed)
            mine.extend((name, {spec.name: v}) for v in values if v != spec.default)
        per_game.append(mine)
    longest = max(len(m) for m in per_game)
    return [m[k % len(m)] for k in range(longest) for m in per_game]


def games_in_registry() -> set[str]:
    """Every game a dealer's choice table can deal (the registry, stud hi/lo included)."""
    return set(GAMES) | set(DEALERS_CHOICE)


@dataclass
class Played:
    """What an in-process run covered."""

    hands: int = 0
    games: dict[str, int] = field(default_factory=dict)
    options: set[tuple[str, str, str]] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)


class InProcessTable:
    """One table played in process; every version goes through :meth:`do`."""

    def __init__(
        self, table_id: str, variant: str, players: int, report: Report, stack: int = 20_000
    ) -> None:
        self.table_id = table_id
        self.state = TableState(table_id)
        self.truth = Truth()
        self.checker = Checker(self.truth, report)
        self.views = TableViews(table_id)
        self.version = 0
        self.deck: tuple[int, ...] = ()
        options = dealers_choice_options() if variant == "dealers_choice" else pacific_options()
        self.do(
            table.create_table(
                self.state, name=table_id, variant=variant, options=options, action_seconds=30
            )
        )
        for k in range(1, players + 1):
            self.do(table.seat_player(self.state, seat=k, player=f"{table_id}-p{k}", stack=stack))

    def do(self, events: list[AnyEvent]) -> None:
        """Append one version; every viewer's Watch message is built as the service builds
        it and checked (the service answers ``Act`` and ``GetTableView`` with the view of the
        same message)."""
        if not events:
            return
        self.version += 1
        self.state = table.fold(events, self.state)
        self.truth.add(events)
        update = Update(self.version, tuple(events), f"r{self.version}", "test")
        for seat in (0, *(s.seat for s in self.state.seats)):
            msg = self.views.update(self.state, self.version, seat, update)
            self.checker.update(seat, msg, f"{self.table_id} watch")

    def deal(self, hand_id: str, rng: random.Random) -> None:
        deck = list(range(52))
        rng.shuffle(deck)
        self.deck = tuple(deck)
        self.do(
            table.commit_hand(
                self.state, hand_id=hand_id, scheme="RBS1", commitment=b"c" * 32, deck_size=52
            )
        )
        self.do(table.deal_hand(self.state, self.deck))

    def play_out(self, rng: random.Random) -> None:
        """Random legal moves (and the dealer's reshuffles) until the hand ends."""
        while (hand := self.state.hand) is not None and not hand.finished:
            if isinstance(hand, HandState) and hand.phase == RESHUFFLE:
                cards = list(hand.reshuffle_cards)
                rng.shuffle(cards)
                self.do(table.act(self.state, Reshuffle(tuple(cards)), self.deck))
                self.deck = (*self.deck, *cards)
                continue
            seat = rng.choice(waiting_for(hand))
            self.do(table.act(self.state, _random_act(hand, seat, rng), self.deck))


def _random_act(hand: Any, seat: int, rng: random.Random) -> Act:
    pick = rng.choice(moves(hand, seat))
    i = hand.seats.index(seat)
    held = list(hand.cards[i])
    if pick.action in ("draw", "discard", "pass"):
        return Act(seat, pick.action, cards=tuple(rng.sample(held, rng.choice(pick.to))))
    if pick.action == "order":
        rng.shuffle(held)
        return Act(seat, "order", cards=tuple(held))
    if pick.action == "expose":
        down = [c for c, up in zip(held, hand.face_up[i], strict=True) if not up]
        return Act(seat, "expose", cards=(rng.choice(down),))
    if pick.action == "declare":
        return Act(seat, "declare", amount=rng.choice(pick.to))
    if pick.action == "fold" and rng.random() < 0.7:  # fold less: more showdowns
        others = [m for m in moves(hand, seat) if m.action != "fold"]
        if others:
            pick = rng.choice(others)
    return Act(seat, pick.action, rng.choice(pick.to) if pick.to else 0)


def play_in_process(hands: int, seed: int, report: Report) -> Played:
    """``hands`` hands: most on dealer's choice tables cycling through :func:`option_plan`
    (3 to 7 players), one in ten on a Pacific stud table."""
    rng = random.Random(seed)
    played = Played()
    plan = _cycle(option_plan())
    tables: list[InProcessTable] = []
    n = 0
    while played.hands < hands:
        if played.hands % 10 == 9:
            t = _table(tables, "pacific", "seven_card_stud_hi_lo", rng, report)
            t.deal(f"pac{n}", rng)
        else:
            t = _table(tables, "choice", "dealers_choice", rng, report)
            [up] = _call(t)
            if not up.redeal:
                game, options = _offered(t, plan)
                t.do(choice.choose_game(t.state, seat=up.seat, game=game, options=options))
                played.options |= {(game, k, repr(v)) for k, v in options.items()}
            t.deal(f"dc{n}", rng)
        t.play_out(rng)
        started = next(
            e for batch in reversed(t.truth.batches) for e in batch if isinstance(e, HandStarted)
        )
        played.games[started.variant] = played.games.get(started.variant, 0) + 1
        played.kinds |= {type(e).__name__ for b in t.truth.batches[-60:] for e in b}
        played.hands += 1
        n += 1
    return played


def _cycle(plan: list[tuple[str, dict[str, Any]]]) -> Iterator[tuple[str, dict[str, Any]]]:
    while True:
        yield from plan


def _call(t: InProcessTable) -> list[DealerUp]:
    events = choice.call_dealer(t.state)
    t.do(events)
    return [e for e in events if isinstance(e, DealerUp)]


def _offered(
    t: InProcessTable, plan: Iterator[tuple[str, dict[str, Any]]]
) -> tuple[str, Mapping[str, Any]]:
    offered = set(choice.offered_games(t.state))
    for _ in range(200):
        game, options = next(plan)
        if game in offered:
            return game, options
    raise AssertionError(f"no game of the plan is offered: {sorted(offered)}")


def _table(
    tables: list[InProcessTable], kind: str, variant: str, rng: random.Random, report: Report
) -> InProcessTable:
    """The current table of that kind, or a fresh one (3 to 7 players) once too few have
    chips, or after 25 hands (so every table size comes up)."""
    for t in tables:
        if t.table_id.startswith(kind):
            if t.state.can_start_hand() and t.version < 25 * 40:
                return t
            tables.remove(t)
            break
    fresh = InProcessTable(
        f"{kind}{len(tables)}-{rng.randrange(10**6)}", variant, rng.randint(3, 7), report
    )
    tables.append(fresh)
    return fresh
