"""A synthetic room: tables played by random bots with the real rules, written exactly as the
services store them. For tests and the audit benchmark, no services needed.

Each accepted command becomes one message in the table-log format the table service writes
(``encode_batch`` with the hash chain, the ``Rb-Version``/``Rb-Request-Id``/``Nats-Msg-Id``
headers, the same request ids and actors), decks come from RBS1 seeds (or, with ``scheme="CRV1"``,
from CRV1 commitments, client seeds committed and revealed by most players and derived for the
others, as the table service logs them) through the dealer's own :mod:`riverboat.shuffle`, and
every finished hand's seed is revealed in the dealer's ``SeedRevealed`` JSON format. The
result is an :class:`~riverboat.audit.archive.Archive`.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from riverboat.audit.archive import Archive, Manifest, StoredMessage, StreamEntry
from riverboat.audit.natsread import Layout
from riverboat.audit.seeds import REVEAL_RECORD_TYPE
from riverboat.engine.commands import Act, Reshuffle
from riverboat.engine.games import moves, waiting_for
from riverboat.engine.options import TableOptions, dealers_choice_options, pacific_options
from riverboat.engine.state import RESHUFFLE, HandState
from riverboat.eventchain import GENESIS_HASH
from riverboat.eventcodec import encode_chained_batch
from riverboat.shuffle import commitment, crv1, derive_deck, derive_reshuffle
from riverboat.table import aggregate, choice
from riverboat.table.aggregate import DEALERS_CHOICE, TableState
from riverboat.table.events import AnyEvent

__all__ = ["Room", "play_archive"]

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
#: Relative weights of the bots' actions: calls dominate so many hands reach a showdown.
_WEIGHTS = {"fold": 2, "check": 5, "call": 6, "bring_in": 3, "complete": 3, "bet": 3, "raise": 2}
#: Options a dealer sometimes chooses, so that reshuffles and pot matches happen too.
_VARIATIONS: dict[str, dict[str, Any]] = {
    "draw": {"draws": 2},
    "chicago": {"match_pot_rank": "K"},
    "follow_the_queen": {"match_pot_rank": "9"},
}


@dataclass
class Room:
    """Streams being written: a global sequence, one chain per table, revealed seeds."""

    layout: Layout = field(default_factory=Layout)
    tables: list[StoredMessage] = field(default_factory=list)
    seeds: list[StoredMessage] = field(default_factory=list)
    clock: datetime = _EPOCH
    sequence: int = 0
    seed_sequence: int = 0

    def tick(self) -> str:
        """The next server time stamp (one second per message)."""
        self.clock += timedelta(seconds=1)
        return self.clock.isoformat()

    def archive(self) -> Archive:
        """Everything written so far, with its manifest."""
        lay = self.layout
        tables = StreamEntry(
            "tables",
            lay.tables_stream,
            lay.tables_prefix,
            1 if self.tables else 0,
            self.sequence,
            len(self.tables),
        )
        seeds = StreamEntry(
            "seeds",
            lay.seeds_stream,
            lay.seeds_prefix,
            1 if self.seeds else 0,
            self.seed_sequence,
            len(self.seeds),
        )
        return Archive(Manifest((tables, seeds), source="synthetic"), [*self.tables, *self.seeds])


class _Table:
    def __init__(self, room: Room, table_id: str, rng: random.Random, scheme: str = "RBS1") -> None:
        self.scheme = scheme
        self.room = room
        self.table_id = table_id
        self.rng = rng
        self.state = TableState(table_id)
        self.version = 0
        self.chain = GENESIS_HASH
        self.deck: tuple[int, ...] = ()
        self.seed = b""
        #: CRV1: the hand's commitment and locked seeds (its reshuffles are bound to them).
        self.commit: crv1.Commitment | None = None
        self.client_seeds: list[crv1.ClientSeed] = []
        self.requests = 0
        self.last_sequence = 0

    def submit(self, events: list[AnyEvent], request_id: str, actor: str) -> None:
        """Append one command's events the way the table service does."""
        if not events:
            return
        self.version += 1
        stamp = self.room.tick()
        payload, self.chain = encode_chained_batch(
            events,
            aggregate_id=self.table_id,
            version=self.version,
            request_id=request_id,
            actor=actor,
            occurred_at=datetime.fromisoformat(stamp),
            previous_hash=self.chain,
        )
        expected_last, self.last_sequence = self.last_sequence, self.room.sequence + 1
        self.room.sequence += 1
        self.room.tables.append(
            StoredMessage(
                stream=self.room.layout.tables_stream,
                sequence=self.room.sequence,
                subject=f"{self.room.layout.tables_prefix}.{self.table_id}",
                time=stamp,
                headers={
                    "Nats-Msg-Id": f"{self.table_id}:{request_id}",
                    "Nats-Expected-Last-Subject-Sequence": str(expected_last),
                    "Rb-Version": str(self.version),
                    "Rb-Request-Id": request_id,
                },
                data=payload,
            )
        )
        self.state = aggregate.fold(events, self.state)

    def reveal(self, hand_id: str) -> None:
        """Publish the hand's seed the way the dealer does."""
        lay = self.room.layout
        record = {
            "type": REVEAL_RECORD_TYPE,
            "scheme": self.scheme,
            "table_id": self.table_id,
            "hand_id": hand_id,
            "seed": self.seed.hex(),
            "commitment": (
                crv1.commitment(hand_id, self.seed)
                if self.scheme == crv1.SCHEME
                else commitment(hand_id, self.seed)
            ).hex(),
            "revealed_at": self.room.clock.isoformat(),
        }
        self.room.seed_sequence += 1
        self.room.seeds.append(
            StoredMessage(
                stream=lay.seeds_stream,
                sequence=self.room.seed_sequence,
                subject=f"{lay.seeds_prefix}.{self.table_id}.{hand_id}",
                time=(self.room.clock + timedelta(milliseconds=500)).isoformat(),
                headers={"Nats-Msg-Id": f"seed-revealed:{self.table_id}:{hand_id}"},
                data=json.dumps(record, separators=(",", ":")).encode(),
            )
        )

    def request_id(self) -> str:
        self.requests += 1
        return f"r{self.requests}"

    def call_dealer(self) -> bool:
        """Dealer's choice: call the dealer, who chooses the game (or whose clock does).
        False if no hand can be dealt."""
        self.submit(
            choice.call_dealer(self.state),
            f"dealer-{self.table_id}-{self.version + 1}",
            "service:table",
        )
        state = self.state
        if state.choosing:
            dealer = state.dealer
            who = state.seat_at(dealer)
            assert who is not None
            if self.rng.random() < 0.1:
                self.submit(
                    choice.time_out_choice(state, seat=dealer),
                    f"clock-choice-{self.table_id}-{self.version}",
                    "clock",
                )
            else:
                game = self.rng.choice(choice.offered_games(state))
                chosen = _VARIATIONS.get(game) if self.rng.random() < 0.5 else None
                self.submit(
                    choice.choose_game(state, seat=dealer, game=game, options=chosen),
                    self.request_id(),
                    who.player,
                )
        return self.state.chosen

    def command(self, hand: HandState, seat: int) -> Act:
        """A random legal command for ``seat`` (bets weighted so many hands see a showdown)."""
        legal = moves(hand, seat)
        pick = self.rng.choices(legal, [_WEIGHTS.get(a.action, 3) for a in legal])[0]
        i = hand.seats.index(seat)
        held = list(hand.cards[i])
        if pick.action in ("draw", "discard", "pass"):
            count = self.rng.choice(pick.to)
            return Act(seat, pick.action, cards=tuple(self.rng.sample(held, count)))
        if pick.action == "order":
            self.rng.shuffle(held)
            return Act(seat, "order", cards=tuple(held))
        if pick.action == "expose":
            down = [c for c, up in zip(hand.cards[i], hand.face_up[i], strict=True) if not up]
            return Act(seat, "expose", cards=(self.rng.choice(down),))
        if pick.action == "declare":
            return Act(seat, "declare", amount=self.rng.choice(pick.to))
        return Act(seat, pick.action, self.rng.choice(pick.to) if pick.to else None)

    def play_hand(self, timeout_share: float, leave_share: float, void_share: float) -> None:
        """Commit, deal and play one hand to its end; reveal its seed.

        With ``leave_share`` a player asks to leave during the hand (they go when it ends);
        with ``void_share`` the hand is voided part-way. On a dealer's choice table the dealer
        is called and chooses first, and a draw that empties the stub gets the dealer's
        reshuffle (RBS1 section 5a), as the table service does."""
        if self.state.dealers_choice and not self.call_dealer():
            return
        hand_id = f"{self.table_id}-{self.version + 1}"
        self.seed = self.rng.randbytes(32)
        if self.scheme == crv1.SCHEME:
            self.deck = self.commit_crv1(hand_id)
        else:
            self.submit(
                aggregate.commit_hand(
                    self.state,
                    hand_id=hand_id,
                    scheme="RBS1",
                    commitment=commitment(hand_id, self.seed),
                    deck_size=52,
                ),
                f"commit-{hand_id}",
                "service:table",
            )
            self.deck = derive_deck(hand_id, self.seed)
        self.submit(aggregate.deal_hand(self.state, self.deck), f"deal-{hand_id}", "service:table")
        leave_at = self.rng.randint(1, 12) if self.rng.random() < leave_share else -1
        void_at = self.rng.randint(1, 12) if self.rng.random() < void_share else -1
        actions = reshuffles = 0
        while True:
            hand = self.state.hand
            if hand is None or hand.finished:
                break
            actions += 1
            if actions == leave_at:
                who = self.rng.choice(hand.seats)
                self.submit(
                    aggregate.unseat_player(self.state, seat=who), self.request_id(), "operator:op"
                )
            if actions == void_at:
                self.submit(
                    aggregate.void_hand(self.state, "the dealer could not be reached"),
                    f"void-{hand_id}",
                    "service:table",
                )
                break
            if isinstance(hand, HandState) and hand.phase == RESHUFFLE:
                reshuffles += 1
                if self.scheme == crv1.SCHEME:
                    cards = self.reshuffle_crv1(hand_id, reshuffles, hand.reshuffle_cards)
                else:
                    cards = derive_reshuffle(hand_id, self.seed, reshuffles, hand.reshuffle_cards)
                self.submit(
                    aggregate.act(self.state, Reshuffle(cards), self.deck, hand_id),
                    f"reshuffle-{hand_id}-{reshuffles}",
                    "service:table",
                )
                self.deck = self.deck + cards
                continue
            seats = waiting_for(hand)
            if self.rng.random() < timeout_share:
                events = choice.time_out(self.state, seats, self.deck, hand_id)
                request, actor = f"clock-{hand_id}-{self.version}", "clock"
            else:
                seat = self.rng.choice(seats)
                command = self.command(hand, seat)
                events = aggregate.act(self.state, command, self.deck, hand_id)
                request, actor = self.request_id(), hand.players[hand.seats.index(seat)]
            self.submit(events, request, actor)
        self.reveal(hand_id)  # voided hands' seeds are revealed too

    def commit_crv1(self, hand_id: str) -> tuple[int, ...]:
        """A CRV1 hand's commitment and seed phases as the table service logs them: most
        players commit to a seed and reveal it, a few do not (their seeds are derived).
        Returns the deck in the locked seeds' dealing order."""
        commit = crv1.commit_deck(hand_id, self.seed)
        self.submit(
            aggregate.commit_hand(
                self.state,
                hand_id=hand_id,
                scheme=crv1.SCHEME,
                commitment=commit.commitment,
                deck_size=52,
                root=commit.root,
            ),
            f"commit-{hand_id}",
            "service:table",
        )
        seeds = {}
        for seat in self.state.ready_players():
            if self.rng.random() < 0.8:
                seeds[seat.seat] = seed = self.rng.randbytes(32)
                self.submit(
                    aggregate.commit_seed(
                        self.state,
                        seat=seat.seat,
                        player=seat.player,
                        hand_id=hand_id,
                        commitment=crv1.seed_commitment(hand_id, seat.seat, seed),
                    ),
                    self.request_id(),
                    seat.player,
                )
        self.submit(aggregate.lock_seed_commits(self.state), f"commits-{hand_id}", "service:table")
        for seat in self.state.ready_players():
            if seat.seat in seeds and self.rng.random() < 0.9:  # a few never reveal
                self.submit(
                    aggregate.send_seed(
                        self.state,
                        seat=seat.seat,
                        player=seat.player,
                        hand_id=hand_id,
                        seed=seeds[seat.seat],
                    ),
                    self.request_id(),
                    seat.player,
                )
        self.submit(aggregate.lock_seeds(self.state), f"lock-{hand_id}", "service:table")
        locked = self.state.locked
        assert locked is not None
        self.client_seeds = [
            crv1.ClientSeed(seat, player, seed, crv1.SeedOrigin(origin))
            for seat, player, seed, origin in locked.seeds
        ]
        self.commit = commit
        return crv1.derive_hand(hand_id, self.seed, self.client_seeds).dealt()

    def reshuffle_crv1(self, hand_id: str, round_: int, cards: tuple[int, ...]) -> tuple[int, ...]:
        """A CRV1 reshuffle, as the dealer serves it (by deck position, docs/shuffle.md II.7)."""
        commit = self.commit
        assert commit is not None
        key = crv1.mix_key(hand_id, commit.commitment, commit.root, self.client_seeds)
        where = {card: j for j, card in enumerate(commit.deck)}
        order = crv1.reshuffle_order(hand_id, self.seed, key, round_, [where[c] for c in cards])
        return tuple(commit.deck[j] for j in order)

    def refill(self, next_player: int, stack: int) -> int:
        """Busted players leave; new ones sit down so there are enough to deal."""
        for busted in [s for s in self.state.seats if s.stack == 0]:
            self.submit(
                aggregate.unseat_player(self.state, seat=busted.seat), self.request_id(), "op"
            )
        options = self.state.options
        assert options is not None
        free = [n for n in range(1, options.max_players + 1) if self.state.seat_at(n) is None]
        while len(self.state.ready_players()) < options.max_players and free:
            seat = free.pop(0)
            self.submit(
                aggregate.seat_player(
                    self.state, seat=seat, player=f"{self.table_id}-p{next_player}", stack=stack
                ),
                self.request_id(),
                "operator:op",
            )
            next_player += 1
        return next_player


def play_archive(
    *,
    tables: int = 2,
    hands: int = 20,
    players: int = 6,
    seed: int = 1,
    options: TableOptions | None = None,
    stack: int = 2_000,
    timeout_share: float = 0.02,
    leave_share: float = 0.05,
    void_share: float = 0.02,
    dealers_choice: bool = False,
    scheme: str = "RBS1",
) -> Archive:
    """``tables`` tables of ``players`` bots, ``hands`` hands each, as a stored archive.

    ``timeout_share`` of the decisions are the clock's (a time-out); in ``leave_share`` of the
    hands a player asks to leave part-way (and goes when it ends), and after as many a player
    leaves between hands; ``void_share`` of the hands are voided part-way. With
    ``dealers_choice`` the tables are dealer's choice tables (every game, chosen at random).
    ``scheme`` is the shuffle scheme the hands are committed under (``RBS1`` or ``CRV1``).
    """
    room = Room()
    rng = random.Random(seed)
    if options is not None:
        opts = options
    elif dealers_choice:
        opts = dealers_choice_options(max_players=players)
    else:
        opts = pacific_options(max_players=players)
    for t in range(1, tables + 1):
        table = _Table(room, f"t{t}", random.Random(rng.random()), scheme)
        table.submit(
            aggregate.create_table(
                table.state,
                name=f"Table {t}",
                variant=DEALERS_CHOICE if dealers_choice else "seven_card_stud_hi_lo",
                options=opts,
                action_seconds=30,
            ),
            table.request_id(),
            "operator:op",
        )
        next_player = table.refill(1, stack)
        for _ in range(hands):
            table.play_hand(timeout_share, leave_share, void_share)
            if rng.random() < leave_share and table.state.seats:
                # Ask to leave between hands: they go at once (no hand in play).
                who = rng.choice(table.state.seats)
                table.submit(
                    aggregate.unseat_player(table.state, seat=who.seat),
                    table.request_id(),
                    "operator:op",
                )
            next_player = table.refill(next_player, stack)
    return room.archive()
