"""Rule-book items at a dealer's choice table (issue #14): limits declared by the dealer for one
deal, and tables created before edition 2 keeping the rules they were created under."""

from __future__ import annotations

import random

import pytest

from riverboat.engine.commands import Act
from riverboat.engine.errors import IllegalAction
from riverboat.engine.events import (
    BettingRoundStarted,
    DealerUp,
    GameChosen,
    GameOptionsSet,
    HandStarted,
    SeatEntry,
)
from riverboat.engine.game_options import RULE_BOOK
from riverboat.engine.games import moves, waiting_for
from riverboat.engine.session import (
    ChooseGame,
    DealersChoiceRules,
    DealHand,
    OpenSession,
    step_session,
)
from riverboat.settingscodec import rules_from_pb, rules_to_pb
from riverboat.table import aggregate as table
from riverboat.table import choice
from riverboat.table.views import table_view
from riverboat.v1 import events_pb2 as pb
from tests.unit.table.test_dealers_choice_table import Room, random_act

# Buderick: "Unless otherwise declared by the dealer & agreed upon by the players, the maximum
# bet in all but the last round is 3 bumps of $2.00"; "Betting in the last round is 3 bumps of
# $5.00". The players' agreement is the table's bounds: here $1-$5 small, $2-$10 big.
BOUNDS = DealersChoiceRules(min_small_bet=100, max_small_bet=500, min_big_bet=200, max_big_bet=1000)


def choose(room: Room, game: str, **limits: int) -> list[object]:
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp) and not up.redeal
    return list(
        room.do(choice.choose_game(room.state, seat=up.seat, game=game, options=None, **limits))
    )


def play_passively(room: Room, rng: random.Random) -> None:
    """Check or call every betting decision (random card actions) until the hand ends."""
    while (hand := room.state.hand) is not None and not hand.finished:
        seat = waiting_for(hand)[0]
        names = {m.action for m in moves(hand, seat)}
        if names & {"check", "call"}:
            act = Act(seat, "check" if "check" in names else "call")
            room.do(table.act(room.state, act, room.deck))
        else:
            room.do(table.act(room.state, random_act(hand, seat, rng), room.deck))


def rounds(room: Room) -> list[int]:
    return [e.bet_size for e in room.log if isinstance(e, BettingRoundStarted)]


def test_the_dealer_declares_the_deals_limits_within_the_tables_bounds() -> None:
    room = Room(rules=BOUNDS)
    [chosen] = choose(room, "draw", small_bet=100, big_bet=300)
    assert isinstance(chosen, GameChosen) and (chosen.small_bet, chosen.big_bet) == (100, 300)
    room.deal("h1", random.Random(3))
    [started] = [e for e in room.log if isinstance(e, HandStarted)]
    assert (started.options["small_bet"], started.options["big_bet"]) == (100, 300)
    play_passively(room, random.Random(4))
    # Draw (one draw): the round before the draw at the declared $1, the last at $3.
    assert rounds(room) == [100, 300]
    # The next deal is the table's own limits again unless declared anew.
    room.log.clear()
    choose(room, "draw")
    room.deal("h2", random.Random(5))
    assert rounds(room)[0] == 200


def test_the_dealers_view_lists_the_bounds_with_the_games() -> None:
    # The dealer reads what they may declare before choosing: the choose_game action's ``to``
    # is (small bet from, to, big bet from, to); a table without bounds lists its own limits.
    for rules, bounds in ((BOUNDS, (100, 500, 200, 1000)), (None, (200, 200, 500, 500))):
        room = Room(rules=rules)
        [up] = room.do(choice.call_dealer(room.state))
        assert isinstance(up, DealerUp)
        dealer = next(s.player for s in room.state.seats if s.seat == up.seat)
        view = table_view(room.state, 1, dealer)
        [legal] = view.legal_actions
        assert legal.action == "choose_game" and legal.to == bounds


def test_limits_outside_the_bounds_are_refused_and_change_nothing() -> None:
    room = Room(rules=BOUNDS)
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp)
    before = room.state
    for small, big in ((600, 1000), (100, 1200), (50, 200), (500, 300), (-100, 0)):
        with pytest.raises(IllegalAction) as err:
            choice.choose_game(
                room.state, seat=up.seat, game="draw", options=None, small_bet=small, big_bet=big
            )
        assert err.value.rule == "limits_out_of_bounds"
        assert "$1 to $5" in str(err.value)
    assert room.state == before and room.state.choosing


def test_a_table_without_bounds_lets_the_dealer_declare_only_its_own_limits() -> None:
    room = Room()
    [up] = room.do(choice.call_dealer(room.state))
    assert isinstance(up, DealerUp)
    with pytest.raises(IllegalAction) as err:
        choice.choose_game(room.state, seat=up.seat, game="chicago", options=None, small_bet=100)
    assert err.value.rule == "limits_out_of_bounds"
    room.do(
        choice.choose_game(
            room.state, seat=up.seat, game="chicago", options=None, small_bet=200, big_bet=500
        )
    )
    assert room.state.limits == (200, 500)


def test_a_session_dealer_declares_limits_too() -> None:
    seats = (SeatEntry(1, "ann", 5000), SeatEntry(2, "bob", 5000), SeatEntry(3, "cy", 5000))
    _, table = step_session(None, OpenSession(seats, button=1, rules=BOUNDS))
    events, table = step_session(table, ChooseGame(1, "seven_card_stud_hi_lo", None, 500, 1000))
    assert [(e.small_bet, e.big_bet) for e in events if isinstance(e, GameChosen)] == [(500, 1000)]
    deck = tuple(range(52))
    events, table = step_session(table, DealHand("h1", deck), deck)
    [first] = [e for e in events if isinstance(e, BettingRoundStarted)]
    assert first.bet_size == 500 and not first.forced_bring_in
    with pytest.raises(IllegalAction):
        step_session(
            step_session(None, OpenSession(seats, button=1, rules=BOUNDS))[1],
            ChooseGame(1, "draw", None, 700, 1000),
        )


def test_rules_round_trip_with_their_edition_and_bounds() -> None:
    assert rules_from_pb(rules_to_pb(BOUNDS)) == BOUNDS
    assert BOUNDS.edition == RULE_BOOK
    # A stored table from before editions (no edition field) is edition 1; a new table's
    # request without one is today's.
    assert rules_from_pb(pb.DealersChoiceRules()).edition == 1
    assert rules_from_pb(pb.DealersChoiceRules(), edition=RULE_BOOK).edition == RULE_BOOK
    assert DealersChoiceRules.from_dict({}).edition == 1
    assert DealersChoiceRules.from_dict(BOUNDS.to_dict()) == BOUNDS


def test_a_table_created_before_edition_2_keeps_its_defaults() -> None:
    old = Room(rules=DealersChoiceRules(edition=1))
    [chosen] = choose(old, "anaconda")
    assert isinstance(chosen, GameChosen)
    assert chosen.options["pig_failure"] == "reassign" and "rule_book" not in chosen.options
    old.deal("h1", random.Random(1))
    [recorded] = [e for e in old.log if isinstance(e, GameOptionsSet)]
    assert recorded.options == chosen.options  # the hand plays edition 1's options
    new = Room()
    [chosen] = choose(new, "anaconda")
    assert isinstance(chosen, GameChosen)
    assert chosen.options["pig_failure"] == "losers_never_share"
    assert chosen.options["rule_book"] == RULE_BOOK
    # Options newer than the table's edition are not offered to it.
    with pytest.raises(Exception) as err:
        DealersChoiceRules(edition=1).options_for("anaconda", {"rule_book": 2})
    assert "unknown option" in str(err.value)


def test_every_place_a_new_dealers_choice_table_comes_from_agrees_on_the_seeds_pig_rule() -> None:
    # The lobby's template (its table options; the table service opens it with the default
    # rules), a table opened without rules, and the engine's own default all give the seed's
    # losers_never_share, and stud without a bring-in.
    from riverboat.engine.games import game_options
    from riverboat.lobby.state import template_options

    variant, options = template_options("dealers_choice", {})
    assert variant == "dealers_choice" and options.no_bring_in and not options.spread_limit
    room = Room()
    assert room.state.rules is not None and room.state.rules.edition == RULE_BOOK
    for game in ("anaconda", "chicago", "elimination", "fifteen_thirty_five"):
        assert room.state.rules.options_for(game, None)["pig_failure"] == "losers_never_share"
        assert game_options(game)["pig_failure"] == "losers_never_share"
