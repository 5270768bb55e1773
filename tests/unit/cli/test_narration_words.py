"""The hand text (``riverboat.handtext``, the demo's and the auditor's) and the play client's
narrator say each betting action, street and pot in the same words (they share them)."""

from __future__ import annotations

from riverboat.cli.play.narrate import Narrator
from riverboat.engine import events as engine
from riverboat.handtext import render
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
