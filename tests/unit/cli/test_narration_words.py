"""The hand text (``riverboat.handtext``, the demo's and the auditor's) and the play client's
narrator say each betting action, street and pot in the same words (they share them); the
hand-history exports and the play screen tell every dealer's choice step in the same words
(one narrator, ``riverboat.narration``)."""

from __future__ import annotations

import doctest
import re
from datetime import UTC, datetime

from riverboat import narration
from riverboat.cli.play.narrate import Narrator
from riverboat.cli.play.text import card_label
from riverboat.engine import events as engine
from riverboat.engine.cards import parse_card
from riverboat.eventcodec import EventMeta, event_to_pb
from riverboat.handlines import render
from riverboat.handtext import money
from riverboat.history.narrate import describe
from riverboat.v1 import events_pb2 as ev

# action -> (the viewer's sentence, someone else's), street totals of $4.00.
SAID = {
    "bring_in": ("You bring in for $4.00.", "bot brings in for $4.00."),
    "complete": ("You complete to $4.00.", "bot completes to $4.00."),
    "bet": ("You bet $4.00.", "bot bets $4.00."),
    "raise": ("You raise to $4.00.", "bot raises to $4.00."),
    "check": ("You check.", "bot checks."),
    "fold": ("You fold.", "bot folds."),
}


def _hand_started() -> ev.EventEnvelope:
    seats = [ev.SeatEntry(seat=1, player="ann", stack=5_000)]
    seats.append(ev.SeatEntry(seat=2, player="bot", stack=5_000))
    return ev.EventEnvelope(
        hand_started=ev.HandStarted(
            hand_id="t-1", variant="seven_card_stud_hi_lo", button=1, seats=seats
        )
    )


def _engine_hand() -> engine.HandStarted:
    seats = (engine.SeatEntry(seat=2, player="bot", stack=5_000),)
    return engine.HandStarted(
        hand_id="t-1",
        variant="seven_card_stud_hi_lo",
        button=1,
        seats=seats,
        deck_size=52,
        options={},
    )


def test_each_betting_action_in_the_same_words_for_the_narrator_and_the_hand_text() -> None:
    for action, (you, they) in SAID.items():
        narrator = Narrator("ann")
        narrator.feed([_hand_started()])
        told = narrator.feed(
            [
                ev.EventEnvelope(action_taken=ev.ActionTaken(seat=s, action=action, to=400))
                for s in (1, 2)
            ]
        )
        assert [t.plain for t in told.lines] == [you, they]
        lines = render(
            [
                _engine_hand(),
                engine.ActionTaken(seat=2, action=action, amount=400, to=400, all_in=False),
            ]
        )
        assert lines[-1] == "  " + they.rstrip(".")


def test_a_call_and_an_all_in_in_the_same_words_for_the_narrator_and_the_hand_text() -> None:
    """A call says the chips it adds (not the street total it reaches), for every reader."""
    said = {
        ("call", False): ("You call $2.00.", "bot calls $2.00."),
        ("raise", True): (
            "You raise to $4.00 and are all in.",
            "bot raises to $4.00 and is all in.",
        ),
    }
    for (action, all_in), (you, they) in said.items():
        narrator = Narrator("ann")
        narrator.feed([_hand_started()])
        told = narrator.feed(
            [
                ev.EventEnvelope(
                    action_taken=ev.ActionTaken(
                        seat=s, action=action, amount=200, to=400, all_in=all_in
                    )
                )
                for s in (1, 2)
            ]
        )
        assert [t.plain for t in told.lines] == [you, they]
        lines = render(
            [
                _engine_hand(),
                engine.ActionTaken(seat=2, action=action, amount=200, to=400, all_in=all_in),
            ]
        )
        assert lines[-1] == "  " + they.rstrip(".")


def test_an_uncalled_bet_in_the_same_words_for_the_narrator_and_the_hand_text() -> None:
    narrator = Narrator("ann")
    narrator.feed([_hand_started()])
    told = narrator.feed(
        [ev.EventEnvelope(uncalled_bet_returned=ev.UncalledBetReturned(seat=2, amount=200))]
    )
    lines = render([_engine_hand(), engine.UncalledBetReturned(seat=2, amount=200)])
    assert [t.plain for t in told.lines] == ["Uncalled $2.00 goes back to bot."]
    assert lines[-1] == "  Uncalled $2.00 goes back to bot"


def test_streets_and_pots_in_the_same_words() -> None:
    narrator = Narrator("ann")
    narrator.feed([_hand_started()])
    told = narrator.feed(
        [
            ev.EventEnvelope(betting_round_started=ev.BettingRoundStarted(street=7)),
            ev.EventEnvelope(
                pot_awarded=ev.PotAwarded(
                    pot=1, amount=300, shares=[ev.SeatAmount(seat=2, amount=300)]
                )
            ),
        ]
    )
    assert [t.plain for t in told.lines] == [
        "── 7th street ──",
        "bot wins the side pot 1 of $3.00.",
    ]
    lines = render(
        [
            _engine_hand(),
            engine.BettingRoundStarted(
                street=7, bet_size=200, first_to_act=2, forced_bring_in=False
            ),
            engine.PotAwarded(
                pot=1,
                amount=300,
                eligible=(2,),
                high_winners=(2,),
                low_winners=(),
                shares=((2, 300),),
            ),
        ]
    )
    assert lines[1:] == ["*** 7th street *** (bot to act)", "  side pot 1 $3.00: bot $3.00"]


def test_the_hand_text_names_a_numbered_hand_by_number_and_id() -> None:
    assert render([_engine_hand()])[0].startswith("Hand t-1 (seven_card_stud_hi_lo)")
    numbered = render([_engine_hand()], numbers={"t-1": 4})
    assert numbered[0].startswith("Hand #4 t-1 (seven_card_stud_hi_lo), button seat 1")


#: Dealer's choice steps as an observer of seats 1 (ann) and 2 (bot) reads them.
STEPS: list[engine.Event] = [
    engine.CardsToPass(1, (-1, -1, -1)),
    engine.CardsPassed(1, 2, (-1, -1, -1)),
    engine.CardsOrdered(2, (-1,) * 5),
    engine.CardTurnedUp(2, parse_card("7h")),
    engine.OfferAnswered(1, True),
    engine.OfferAnswered(2, False),
    engine.DeclarationSealed(1, ""),
    engine.DeclarationsRevealed(((1, "low"), (2, "both"))),
    engine.CardPaymentPosted(1, parse_card("2c"), 100),
    engine.WildRankChanged(3, False),
    engine.WildRankChanged(None, True),
    engine.MatchDue(2, 1_250),
    engine.PotMatched(2, 1_250),
    engine.MatchDeclined(1),
    engine.TableRowDealt(8),
    engine.TableCardTurned(parse_card("9d"), True),
    engine.RankEliminated(12),
    engine.CardsEliminated(1, (parse_card("Ks"), parse_card("Kd"))),
    engine.ReshuffleRequested(2, (-1,) * 6, 2),
    engine.DiscardsReshuffled(6),
    engine.PotCarriedIn(900),
    engine.PotCarriedOver(2_400),
    engine.UncalledBetReturned(1, 200),
]


def test_every_dealers_choice_step_in_the_same_words_on_screen_and_in_exports() -> None:
    names = {1: "ann", 2: "bot"}
    meta = EventMeta("t1", 1, 0, "r1", "ann", datetime(2026, 1, 1, tzinfo=UTC))
    narrator = Narrator("someone watching")
    narrator.names = dict(names)
    told = 0
    for step in STEPS:
        exported = describe(step, names.__getitem__, money)
        assert exported, step
        screen = narrator.feed([event_to_pb(step, meta)]).lines
        # The same sentence, a full stop after it on the screen, the cards in brackets in the
        # export and by suit symbol on the screen.
        cards = re.sub(r"\[([^]]+)\]", lambda m: " ".join(map(card_label, m[1].split())), exported)
        assert [line.plain for line in screen] == [cards + "."], step
        told += 1
    assert told == len(STEPS)


def test_the_narrators_examples() -> None:
    result = doctest.testmod(narration)
    assert result.failed == 0 and result.attempted >= 3
