"""Random hands of every game played in process through the table aggregate, with every
viewer's messages built by the table service's own view builder (``TableViews``, the code that
makes each Watch message, Act reply and GetTableView answer) and checked by the oracle as they
are made: the part of the leak battery that does not fit through the real services.

Hands are committed under CRV1 as the table service commits them (the dealer's commitment, the
seed phases, the lock, the dealer's openings and reshuffles), so every card proof a viewer gets
is checked by the oracle too (an opening opens only a card the viewer may know); with
``check_proofs`` each viewer's own :class:`~riverboat.proofcheck.CardChecker` checks them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from riverboat.engine.commands import Act, Reshuffle
from riverboat.engine.events import DealerUp, HandStarted
from riverboat.engine.games import DEALERS_CHOICE, GAMES, moves, waiting_for
from riverboat.engine.options import dealers_choice_options, pacific_options
from riverboat.engine.state import RESHUFFLE, HandState
from riverboat.proofcheck import CardChecker
from riverboat.services.table.proofs import HandProofs, deal_indices
from riverboat.services.table.runner import Update
from riverboat.services.table.viewpb import TableViews
from riverboat.shuffle import crv1
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
        self,
        table_id: str,
        variant: str,
        players: int,
        report: Report,
        stack: int = 20_000,
        *,
        check_proofs: bool = False,
    ) -> None:
        self.table_id = table_id
        #: Each viewer's own proof checker (seat 0: an observer), fed every message it gets,
        #: and those messages.
        self.checkers: dict[int, CardChecker] | None = {} if check_proofs else None
        self.messages: dict[int, list[Any]] = {}
        self.seed = b""
        self.commit: crv1.Commitment | None = None
        self.locked: list[crv1.ClientSeed] = []
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
        found = deal_indices(self.state, events)
        if found is not None:
            self.views.deal_indices[self.version] = found
        update = Update(self.version, tuple(events), f"r{self.version}", "test")
        seats = {s.seat for s in self.state.seats}
        hand = self.state.hand
        seats |= set(hand.seats) if hand is not None else set()  # a player left mid-hand
        for seat in (0, *sorted(seats)):
            msg = self.views.update(self.state, self.version, seat, update)
            self.checker.update(seat, msg, f"{self.table_id} watch")
            if self.checkers is not None:
                self.checkers.setdefault(seat, CardChecker()).update(msg)
                self.messages.setdefault(seat, []).append(msg)

    def deal(
        self, hand_id: str, rng: random.Random, *, silent: frozenset[int] = frozenset()
    ) -> None:
        """Commit and deal a hand under CRV1 as the table service does: the dealer's
        commitment, each player's seed committed and revealed (but for ``silent`` seats and,
        at random, a few who never reveal), the lock, then the deal in its order."""
        self.seed = hashlib.sha256(f"dealer {hand_id}".encode()).digest()
        commit = self.commit = crv1.commit_deck(hand_id, self.seed)
        self.do(
            table.commit_hand(
                self.state,
                hand_id=hand_id,
                scheme=crv1.SCHEME,
                commitment=commit.commitment,
                deck_size=52,
                root=commit.root,
            )
        )
        seeds = {}
        for s in self.state.ready_players():
            if s.seat not in silent:
                seeds[s.seat] = hashlib.sha256(f"client {hand_id} {s.seat}".encode()).digest()
                digest = crv1.seed_commitment(hand_id, s.seat, seeds[s.seat])
                self.do(
                    table.commit_seed(
                        self.state, seat=s.seat, player=s.player, hand_id=hand_id, commitment=digest
                    )
                )
        self.do(table.lock_seed_commits(self.state))
        for s in self.state.ready_players():
            if s.seat in seeds and seeds[s.seat][0] % 10:  # one in ten never reveals
                self.do(
                    table.send_seed(
                        self.state,
                        seat=s.seat,
                        player=s.player,
                        hand_id=hand_id,
                        seed=seeds[s.seat],
                    )
                )
        self.do(table.lock_seeds(self.state))
        locked = self.state.locked
        assert locked is not None
        self.locked = [
            crv1.ClientSeed(seat, player, seed, crv1.SeedOrigin(origin))
            for seat, player, seed, origin in locked.seeds
        ]
        dealt = crv1.derive_hand(hand_id, self.seed, self.locked)
        self.deck = dealt.dealt()
        openings = [commit.opening(j).to_bytes() for j in dealt.order]
        self.views.proofs = HandProofs.of(
            hand_id, (commit.commitment, commit.root), self.deck, openings
        )
        self.do(table.deal_hand(self.state, self.deck))

    def reshuffle(self, hand_id: str, round_: int, cards: tuple[int, ...]) -> tuple[int, ...]:
        """The dealer's CRV1 reshuffle of a draw's discards (by deck position, II.7)."""
        commit = self.commit
        assert commit is not None and self.views.proofs is not None
        key = crv1.mix_key(hand_id, commit.commitment, commit.root, self.locked)
        where = {card: j for j, card in enumerate(commit.deck)}
        order = crv1.reshuffle_order(hand_id, self.seed, key, round_, [where[c] for c in cards])
        stub = tuple(commit.deck[j] for j in order)
        self.views.proofs.add_round(stub)
        return stub

    def play_out(self, rng: random.Random, *, calling: bool = False, moves_left: int = -1) -> None:
        """Random legal moves (and the dealer's reshuffles) until the hand ends (or
        ``moves_left`` moves were made); ``calling``: nobody folds, bets or raises."""
        while (hand := self.state.hand) is not None and not hand.finished and moves_left:
            moves_left -= 1
            if isinstance(hand, HandState) and hand.phase == RESHUFFLE:
                proofs = self.views.proofs
                round_ = 1 + (len(proofs.rounds) if proofs is not None else 0)
                cards = self.reshuffle(hand.hand_id, round_, hand.reshuffle_cards)
                self.do(table.act(self.state, Reshuffle(cards), self.deck))
                self.deck = (*self.deck, *cards)
                continue
            seat = rng.choice(waiting_for(hand))
            act = _calling_act(hand, seat, rng) if calling else _random_act(hand, seat, rng)
            self.do(table.act(self.state, act, self.deck))


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


def _calling_act(hand: Any, seat: int, rng: random.Random) -> Act:
    """A check or a call when one is legal (everyone stays to the end), else a random move."""
    for pick in moves(hand, seat):
        if pick.action in ("check", "call", "bring_in"):
            return Act(seat, pick.action, pick.to[0] if pick.to else 0)
    act = _random_act(hand, seat, rng)
    if act.action == "fold":
        others = [m for m in moves(hand, seat) if m.action != "fold"]
        if others:
            return Act(seat, others[0].action, others[0].to[0] if others[0].to else 0)
    return act


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
            first = len(t.truth.batches)
            t.deal(f"pac{n}", rng)
        else:
            t = _table(tables, "choice", "dealers_choice", rng, report)
            first = len(t.truth.batches)
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
        played.kinds |= {type(e).__name__ for b in t.truth.batches[first:] for e in b}
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
