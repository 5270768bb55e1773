"""A dealer's choice table in the table aggregate: the call, the choice, every game, the
riding pot, the clock's default (pure, no I/O)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from riverboat.engine.commands import Act, Reshuffle
from riverboat.engine.errors import IllegalAction
from riverboat.engine.events import DealerUp, GameChosen, HandStarted, PotCarriedIn, RakeTaken
from riverboat.engine.games import DEALERS_CHOICE, moves, waiting_for
from riverboat.engine.options import dealers_choice_options
from riverboat.engine.session import DealersChoiceRules
from riverboat.engine.state import RESHUFFLE, HandState
from riverboat.eventcodec import decode_batch, encode_batch
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.aggregate import TableState
from riverboat.table.events import AnyEvent, HandVoided

STACK = 5000


class Room:
    """A dealer's choice table, its log, and the deck of the hand in play."""

    def __init__(self, players: int = 4, rules: DealersChoiceRules | None = None) -> None:
        self.state = TableState("dc")
        self.log: list[AnyEvent] = []
        self.deck: tuple[int, ...] = ()
        self.do(
            table.create_table(
                self.state,
                name="Choice",
                variant="dealers_choice",
                options=dealers_choice_options(),
                action_seconds=30,
                rules=rules,
            )
        )
        for k in range(1, players + 1):
            self.do(table.seat_player(self.state, seat=k, player=f"p{k}", stack=STACK))

    def do(self, events: list[AnyEvent]) -> list[AnyEvent]:
        self.log.extend(events)
        self.state = table.fold(events, self.state)
        return events

    def chips(self) -> int:
        rake = sum(e.amount for e in self.log if isinstance(e, RakeTaken))
        return sum(s.stack for s in self.state.seats) + self.state.carried + rake

    def deal(self, hand_id: str, rng: random.Random) -> None:
        deck = list(range(52))
        rng.shuffle(deck)
        self.deck = tuple(deck)
        s = self.state
        self.do(
            table.commit_hand(s, hand_id=hand_id, scheme="RBS1", commitment=b"c" * 32, deck_size=52)
        )
        self.do(table.deal_hand(self.state, self.deck))

    def play_out(self, rng: random.Random) -> None:
        """Random legal moves until the hand ends."""
        while (hand := self.state.hand) is not None and not hand.finished:
            self.play_one(rng)

    def play_one(self, rng: random.Random) -> None:
        """One random legal move of the hand in play (or the dealer's reshuffle it awaits)."""
        hand = self.state.hand
        assert hand is not None and not hand.finished
        if isinstance(hand, HandState) and hand.phase == RESHUFFLE:
            cards = list(hand.reshuffle_cards)
            rng.shuffle(cards)
            self.do(table.act(self.state, Reshuffle(tuple(cards)), self.deck))
            self.deck = (*self.deck, *cards)
            return
        seat = rng.choice(waiting_for(hand))
        self.do(table.act(self.state, random_act(hand, seat, rng), self.deck))


def random_act(hand: object, seat: int, rng: random.Random) -> Act:
    """A random legal action for ``seat``."""
    assert hasattr(hand, "cards")
    pick = rng.choice(moves(hand, seat))  # type: ignore[arg-type]
    i = hand.seats.index(seat)  # type: ignore[attr-defined]
    held = list(hand.cards[i])
    if pick.action in ("draw", "discard", "pass"):
        return Act(seat, pick.action, cards=tuple(rng.sample(held, rng.choice(pick.to))))
    if pick.action == "order":
        rng.shuffle(held)
        return Act(seat, "order", cards=tuple(held))
    if pick.action == "expose":
        up = hand.face_up[i]  # type: ignore[attr-defined]
        down = [c for c, u in zip(held, up, strict=True) if not u]
        return Act(seat, "expose", cards=(rng.choice(down),))
    if pick.action == "declare":
        return Act(seat, "declare", amount=rng.choice(pick.to))
    return Act(seat, pick.action, rng.choice(pick.to))


def test_the_dealer_chooses_each_game_in_turn_and_chips_are_conserved() -> None:
    room = Room()
    rng = random.Random(5)
    total = room.chips()
    for n, game in enumerate(DEALERS_CHOICE):
        [up] = room.do(choice.call_dealer(room.state))
        assert isinstance(up, DealerUp)
        if up.redeal:  # the pot rode: the same game again, no choice
            room.deal(f"h{n}r", rng)
            room.play_out(rng)
            [up] = room.do(choice.call_dealer(room.state))
            assert isinstance(up, DealerUp)
        if up.redeal:
            continue
        room.do(choice.choose_game(room.state, seat=up.seat, game=game, options=None))
        room.deal(f"h{n}", rng)
        assert room.state.hand is not None and room.state.hand.variant == game
        assert room.state.button == up.seat
        room.play_out(rng)
        assert room.chips() == total, game
    # The log round-trips through the codec.
    when = datetime(2025, 1, 1, tzinfo=UTC)
    payload = encode_batch(
        room.log, aggregate_id="dc", version=1, request_id="r", actor="a", occurred_at=when
    )
    assert [e for e, _ in decode_batch(payload)] == room.log


def test_the_button_moves_left_and_a_choice_is_the_dealers_alone() -> None:
    room = Room(players=3)
    [first] = room.do(choice.call_dealer(room.state))
    assert isinstance(first, DealerUp) and (first.seat, first.redeal) == (1, False)
    assert choice.call_dealer(room.state) == []  # already called
    with pytest.raises(IllegalAction):
        choice.choose_game(room.state, seat=2, game="draw", options=None)
    with pytest.raises(table.TableError):
        table.commit_hand(
            room.state, hand_id="h", scheme="RBS1", commitment=b"c" * 32, deck_size=52
        )
    room.do(choice.choose_game(room.state, seat=1, game="draw", options={"draws": 2}))
    assert room.state.game_options["draws"] == 2
    room.deal("h1", random.Random(1))
    room.play_out(random.Random(2))
    [nxt] = room.do(choice.call_dealer(room.state))
    assert isinstance(nxt, DealerUp) and nxt.seat == 2


def test_a_called_dealer_who_sits_out_is_passed_over_and_a_void_ends_the_call() -> None:
    # docs/games.md, "Sitting out": the deal passes to the next seat dealt in.
    room = Room(players=4)
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp) and up.seat == 1
    room.do(table.sit_out(room.state, player="p1"))
    assert room.state.needs_dealer() and not room.state.awaits_choice
    with pytest.raises(IllegalAction) as refused:
        choice.choose_game(room.state, seat=1, game="draw", options=None)
    assert refused.value.rule == "dealer_passed"
    with pytest.raises(IllegalAction):
        choice.time_out_choice(room.state, seat=1)  # nor does the clock choose for them
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp) and up.seat == 2
    # The new dealer chooses, the hand is committed, then they sit out before the deal.
    room.do(choice.choose_game(room.state, seat=2, game="draw", options=None))
    with_deck = table.commit_hand(
        room.state, hand_id="h", scheme="RBS1", commitment=b"c" * 32, deck_size=52
    )
    room.do(with_deck)
    room.do(table.sit_out(room.state, player="p2"))
    [voided] = room.do(table.deal_hand(room.state, tuple(range(52))))
    assert voided == HandVoided("h", "the dealer left before the deal", ())
    assert (room.state.dealer, room.state.choosing, room.state.chosen) == (0, False, False)
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp) and up.seat == 3


def test_a_void_with_the_dealer_still_in_keeps_the_dealer_and_the_game() -> None:
    room = Room(players=3)
    room.do(choice.call_dealer(room.state))
    room.do(choice.choose_game(room.state, seat=1, game="draw", options=None))
    room.do(table.commit_hand(room.state, hand_id="h", scheme="RBS1", commitment=b"c" * 32,
                              deck_size=52))  # fmt: skip
    room.do(table.void_hand(room.state, "the dealer could not be reached"))
    assert (room.state.dealer, room.state.chosen, room.state.game) == (1, True, "draw")
    assert not room.state.needs_dealer() and choice.call_dealer(room.state) == []


def test_the_clock_chooses_the_tables_default() -> None:
    room = Room(rules=DealersChoiceRules(games=("draw", "chicago"), default_game="chicago"))
    [up] = room.do(choice.call_dealer(room.state))
    [chosen] = room.do(choice.time_out_choice(room.state, seat=up.seat))  # type: ignore[union-attr]
    assert isinstance(chosen, GameChosen) and chosen.by_clock and chosen.game == "chicago"
    with pytest.raises(IllegalAction):
        choice.choose_game(room.state, seat=up.seat, game="draw", options=None)  # type: ignore[union-attr]


def test_a_game_not_offered_is_refused() -> None:
    room = Room(rules=DealersChoiceRules(games=("draw",), default_game="draw"))
    [up] = room.do(choice.call_dealer(room.state))
    with pytest.raises(IllegalAction, match="offers draw"):
        choice.choose_game(room.state, seat=up.seat, game="anaconda", options=None)  # type: ignore[union-attr]


def test_a_riding_pot_is_redealt_by_the_same_dealer_with_the_same_game() -> None:
    rng = random.Random(11)
    room = Room()
    total = room.chips()
    for n in range(400):
        [up] = room.do(choice.call_dealer(room.state))
        assert isinstance(up, DealerUp)
        if not up.redeal:
            room.do(choice.choose_game(room.state, seat=up.seat, game="anaconda", options=None))
        room.deal(f"h{n}", rng)
        room.play_out(rng)
        assert room.chips() == total
        if room.state.carried:
            break
    else:
        pytest.fail("no pot rode in 400 hands")
    carried, dealer = room.state.carried, room.state.button
    if room.state.seat_at(dealer).stack == 0:  # type: ignore[union-attr]
        dealer = room.state.next_button()  # a broke dealer passes the redeal on
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp)
    assert (up.redeal, up.seat, up.game) == (True, dealer, "anaconda")
    start = len(room.log)
    room.deal("after", rng)
    started = next(e for e in room.log[start:] if isinstance(e, HandStarted))
    assert started.button == dealer
    assert PotCarriedIn(carried) in room.log[start:]
    assert room.state.carried == 0 and room.state.hand is not None
    assert room.state.hand.pot_total >= carried
    room.play_out(rng)
    assert room.chips() == total


def test_a_stud_table_takes_no_rules() -> None:
    with pytest.raises(table.TableError):
        table.create_table(
            TableState("x"),
            name="x",
            variant="seven_card_stud_hi_lo",
            options=dealers_choice_options(),
            action_seconds=30,
            rules=DealersChoiceRules(),
        )
