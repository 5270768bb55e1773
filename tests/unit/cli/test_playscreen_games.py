"""``riverboat play`` at a dealer's choice table: commands for every move, their refusals, the
drawing of games, phases, wild cards, riding pots and declarations, and their narration."""

from __future__ import annotations

import json
import re

import pytest
from rich.console import Console

from riverboat.cli.play.commands import ActionError, choose_move, parse_card
from riverboat.cli.play.narrate import Narrator
from riverboat.cli.play.render import games_table, table_panel, turn_line
from riverboat.cli.play.text import HIDDEN, choices_line, wild_text
from riverboat.client import Move
from riverboat.v1 import events_pb2 as ev
from riverboat.v1 import table_pb2


def render(renderable: object, width: int = 120) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def _cards(*cards: tuple[str, bool]) -> list[table_pb2.ViewCard]:
    return [table_pb2.ViewCard(card=c, face_up=up) for c, up in cards]


def dc_view(
    legal: list[table_pb2.LegalAction],
    *,
    game: str = "draw",
    phase: str = "draw",
    mine: tuple[str, ...] = ("Qh", "7c", "Qs", "2d", "9h"),
    waiting: tuple[int, ...] = (2,),
    to_act: int = 2,
) -> table_pb2.TableView:
    """Ann (seat 2) and bot (seat 1) at a dealer's choice table; ann deals ``game``."""
    view = table_pb2.TableView(
        table_id="dc-1",
        name="Friday",
        variant="dealers_choice",
        version=40,
        hand_id="dc-1-4",
        hand_in_progress=True,
        street=1,
        button=2,
        dealer=2,
        game=game,
        phase=phase,
        seats=[
            table_pb2.SeatView(
                seat=1, player="bot", stack=9_000, in_hand=True, cards=_cards(*[("", False)] * 5)
            ),
            table_pb2.SeatView(
                seat=2,
                player="ann",
                stack=8_000,
                in_hand=True,
                cards=_cards(*[(c, False) for c in mine]),
            ),
        ],
        pot=900,
        to_act=to_act,
        viewer_seat=2,
        waiting_for=list(waiting),
        legal_actions=legal,
        action_seconds=30,
    )
    view.game_options.update({"draws": 2.0, "opener": "rotate"})
    return view


def draw_legal(low: int = 0, high: int = 3) -> table_pb2.LegalAction:
    return table_pb2.LegalAction(
        action="draw", to=list(range(low, high + 1)), min_cards=low, max_cards=high
    )


def choosing() -> table_pb2.TableView:
    view = dc_view(
        [table_pb2.LegalAction(action="choose_game", choices=["draw", "chicago", "anaconda"])],
        game="",
        phase="",
    )
    view.hand_in_progress = False
    view.choosing_game = True
    view.carried_pot = 1_200
    for seat in view.seats:
        del seat.cards[:]
    return view


def test_cards_are_read_as_typed() -> None:
    assert [parse_card(c) for c in ("qh", "Q♥", "10h", "Tc", "zz", "7")] == [
        "Qh",
        "Qh",
        "Th",
        "Tc",
        None,
        None,
    ]


def test_draw_by_cards_or_positions_and_standing_pat() -> None:
    view = dc_view([draw_legal()])
    assert choose_move("d", "Qh 7c", view) == Move("draw", cards=("Qh", "7c"))
    assert choose_move("d", "2 4", view) == Move("draw", cards=("7c", "2d"))
    assert choose_move("d", "", view) == Move("draw", cards=())  # stand pat
    assert choose_move("a", "draw 7c", view) == Move("draw", cards=("7c",))


@pytest.mark.parametrize(
    ("word", "rest", "message"),
    [
        ("d", "Ah", "You do not hold A♥."),
        ("d", "Qh qh", "You named Q♥ twice."),
        ("d", "1 2 3 4", "You draw 0 to 3 cards (you named 4)."),
        ("d", "9", "You hold 5 cards: positions 1 to 5."),
        ("d", "q", "'q' is not a card"),
        ("p", "1 2 3", "You cannot pass now; you may: d CARDS draw 0 to 3 cards."),
        ("dec", "low", "You cannot declare now"),
        ("a", "dance", "You cannot dance now; you may: draw."),
    ],
)
def test_card_moves_are_checked_before_sending(word: str, rest: str, message: str) -> None:
    with pytest.raises(ActionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        choose_move(word, rest, dc_view([draw_legal()]))


def test_pass_discard_order_expose_take_match() -> None:
    passing = dc_view([table_pb2.LegalAction(action="pass", to=[3], min_cards=3, max_cards=3)])
    assert choose_move("p", "1 2 3", passing) == Move("pass", cards=("Qh", "7c", "Qs"))
    with pytest.raises(ActionError, match=r"You pass 3 cards \(you named 2\)"):
        choose_move("p", "1 2", passing)
    discarding = dc_view(
        [table_pb2.LegalAction(action="discard", to=[2], min_cards=2, max_cards=2)]
    )
    assert choose_move("d", "9h 2d", discarding) == Move("discard", cards=("9h", "2d"))
    ordering = dc_view([table_pb2.LegalAction(action="order", to=[5], min_cards=5, max_cards=5)])
    assert choose_move("o", "5 4 3 2 1", ordering).cards == ("9h", "2d", "Qs", "7c", "Qh")
    with pytest.raises(ActionError, match="Order all your 5 cards"):
        choose_move("o", "1 2", ordering)
    exposing = dc_view([table_pb2.LegalAction(action="expose", to=[1], min_cards=1, max_cards=1)])
    exposing.seats[1].cards[0].face_up = True
    assert choose_move("x", "7c", exposing) == Move("expose", cards=("7c",))
    with pytest.raises(ActionError, match="already face up"):
        choose_move("x", "1", exposing)
    offer = dc_view(
        [table_pb2.LegalAction(action="take", to=[1]), table_pb2.LegalAction(action="stand")]
    )
    assert choose_move("take", "", offer) == Move("take")
    assert choose_move("stand", "", offer) == Move("stand")
    assert "take the card · stand" in choices_line(offer)
    match = dc_view(
        [
            table_pb2.LegalAction(action="match", to=[1500]),
            table_pb2.LegalAction(action="fold", to=[0]),
        ]
    )
    assert choose_move("m", "", match) == Move("match", 1500)
    assert choose_move("f", "", match) == Move("fold")
    assert choices_line(match) == "m match the pot ($15.00) · f fold"


def test_declarations_by_word_short_form_or_coins() -> None:
    view = dc_view(
        [table_pb2.LegalAction(action="declare", to=[1, 2, 3], choices=["spade", "high", "both"])],
        game="chicago",
        phase="declare",
    )
    assert choose_move("dec", "spade", view) == Move("declare", choice="spade")
    assert choose_move("dec", "hi", view) == Move("declare", choice="high")
    assert choose_move("dec", "3", view) == Move("declare", choice="both")
    with pytest.raises(ActionError, match="You may declare spade or high or both, not 'low'"):
        choose_move("dec", "low", view)
    assert "dec spade|high|both" in choices_line(view)


def test_choosing_the_game_with_options() -> None:
    view = choosing()
    assert choose_move("g", "draw draws=2", view) == Move(
        "choose_game", choice="draw", options={"draws": 2}
    )
    assert choose_move("g", "chic", view) == Move("choose_game", choice="chicago")
    assert choose_move("g", "3", view) == Move("choose_game", choice="anaconda")
    assert choose_move("g", "anaconda low_qualifier=8", view).options == {"low_qualifier": 8}
    with pytest.raises(ActionError, match="draws must be one of 1, 2; got 3"):
        choose_move("g", "draw draws=3", view)
    with pytest.raises(ActionError, match="Five-card draw has no option 'wild'"):
        choose_move("g", "draw wild=2", view)
    with pytest.raises(ActionError, match="Choose one of draw, chicago, anaconda"):
        choose_move("g", "poker", view)
    listed = render(games_table(view))
    assert "Five-card draw" in listed and "Chicago" in listed and "Anaconda" in listed
    draw = " ".join(render(games_table(view, "draw")).split())
    assert "draws 1 1 / 2" in draw
    assert "low_qualifier null null / 8" in " ".join(render(games_table(view, "3")).split())
    with pytest.raises(ActionError, match="Choose one of draw, chicago, anaconda"):
        games_table(view, "poker")


def test_the_dealer_declares_the_deals_limits_within_the_tables_bounds() -> None:
    # The view's choose_game lists the bounds in ``to``: small $1-$3, big $2-$10.
    view = choosing()
    view.legal_actions[0].to[:] = [100, 300, 200, 1_000]
    assert choose_move("g", "draw draws=2 limits=3/6", view) == Move(
        "choose_game", choice="draw", options={"draws": 2}, small_bet=300, big_bet=600
    )
    assert choose_move("g", "chicago limits=$1.50/$2", view) == Move(
        "choose_game", choice="chicago", small_bet=150, big_bet=200
    )
    assert choose_move("g", "draw", view) == Move("choose_game", choice="draw")  # the table's
    bounds = "small bet $1.00 to $3.00, big bet $2.00 to $10.00"
    for wrong in ("4/8", "2/12", "3/2"):
        declare = re.escape(f"This table lets the dealer declare {bounds}")
        with pytest.raises(ActionError, match=declare):
            choose_move("g", f"draw limits={wrong}", view)
    with pytest.raises(
        ActionError, match=re.escape("Limits are SMALL/BIG, e.g. limits=3/6; not '3'")
    ):
        choose_move("g", "draw limits=3", view)
    listed = render(games_table(view))
    assert f"Limits you may declare for the deal (limits=S/B): {bounds}." in " ".join(
        listed.split()
    )


def test_the_dealer_choosing_is_drawn_for_both() -> None:
    view = choosing()
    text = render(table_panel(view, player="ann"))
    assert "You are choosing the game (dealer, seat 2)." in text
    assert "Riding pot $12.00" in text
    assert "Your turn (30 s): g GAME choose the game (3 to choose from: g lists them)" in text
    bots = choosing()
    bots.viewer_seat = 1
    del bots.legal_actions[:]
    assert turn_line(bots).plain == "Waiting for ann (seat 2) to choose the game."
    with pytest.raises(ActionError, match=r"It is not your turn: ann is choosing the game\."):
        choose_move("c", "", bots)


def test_a_draw_hand_shows_game_phase_and_numbered_cards() -> None:
    text = render(table_panel(dc_view([draw_legal()]), player="ann"))
    assert "hand dc-1-4 · round 1 · draw" in text
    assert "Game: Five-card draw (draws 2) · dealer you" in text
    assert "[Q♥] [7♣] [Q♠] [2♦] [9♥]" in text
    assert " ".join([HIDDEN] * 5) in text
    assert "Your turn (30 s): d CARDS draw 0 to 3 cards" in text
    assert "Your cards: 1 [Q♥]  2 [7♣]  3 [Q♠]  4 [2♦]  5 [9♥]" in text


def test_simultaneous_phase_wild_cards_and_table_cards() -> None:
    view = dc_view([], phase="pass", waiting=(1, 2), to_act=0, game="follow_the_queen")
    view.viewer_seat = 0  # an observer
    view.wild_cards.extend(["Qc", "Qd", "Qh", "Qs", "5h"])
    view.table_cards.extend(["7c", "Kd"])
    text = render(table_panel(view))
    assert "Waiting for bot, ann (pass)." in text
    assert "Wild: queens, 5♥" in text
    assert "Table cards: 7♣ K♦" in text
    assert wild_text(["2c", "2d", "2h", "2s", "Jc", "Jd", "Jh", "Js", "Kd"]) == (
        "deuces, jacks, K♦"
    )


def test_declarations_sealed_then_revealed() -> None:
    view = dc_view([], game="seven_twenty_seven", phase="declare", waiting=(2,), to_act=0)
    view.seats[0].declared = True  # the bot's, sealed
    text = render(table_panel(view, player="ann"))
    assert "Declared" in text and "declared" in text
    view.seats[1].declared, view.seats[1].declaration = True, "low"
    text = render(table_panel(view, player="ann"))
    # Named for the half claimed, as the narrator and the exports name it: 7-27's 7 and 27.
    assert "7 (sealed)" in text and "low" not in text
    view.seats[0].declaration = "high"  # revealed
    text = render(table_panel(view, player="ann"))
    assert "27" in text and "(sealed)" not in text and "declared" not in text
    assert "high" not in text
    # A hand over, the next game not chosen: the view names no game; the halves the screen
    # told the hand with still name the declarations.
    view.game = ""
    text = render(table_panel(view, player="ann", halves=("27", "7")))
    assert "27" in text and "high" not in text


def _env(**payload: object) -> ev.EventEnvelope:
    return ev.EventEnvelope(**payload)  # type: ignore[arg-type]


def test_the_narrator_tells_a_dealers_choice_hand() -> None:
    narrator = Narrator("ann")
    narrator.names = {1: "bot", 2: "ann"}
    narrator.seat = 2
    events = [
        _env(dealer_up=ev.DealerUp(seat=2)),
        _env(game_chosen=ev.GameChosen(seat=2, game="draw", options_json=json.dumps({"draws": 2}))),
        _env(
            hand_started=ev.HandStarted(
                hand_id="h1",
                variant="draw",
                button=2,
                seats=[
                    ev.SeatEntry(seat=1, player="bot", stack=100),
                    ev.SeatEntry(seat=2, player="ann", stack=100),
                ],
            )
        ),
        _env(betting_round_started=ev.BettingRoundStarted(street=1)),
        _env(phase_started=ev.PhaseStarted(phase="draw", min_cards=0, max_cards=3)),
        _env(cards_discarded=ev.CardsDiscarded(seat=1, cards=["", ""])),
        _env(cards_discarded=ev.CardsDiscarded(seat=2, cards=["Qh", "7c"])),
        _env(phase_started=ev.PhaseStarted(phase="pass")),
        _env(cards_passed=ev.CardsPassed(seat=1, to_seat=2, cards=["Ah", "Kh", "Qh"])),
        _env(declaration_sealed=ev.DeclarationSealed(seat=1)),
        _env(declaration_sealed=ev.DeclarationSealed(seat=2, choice="low")),
        _env(
            declarations_revealed=ev.DeclarationsRevealed(
                declarations=[
                    ev.SeatDeclaration(seat=1, choice="high"),
                    ev.SeatDeclaration(seat=2, choice="low"),
                ]
            )
        ),
        _env(card_payment_posted=ev.CardPaymentPosted(seat=1, card="2c", amount=100)),
        _env(wild_rank_changed=ev.WildRankChanged(rank=3)),
        _env(table_card_turned=ev.TableCardTurned(card="7c", from_stock=True)),
        _env(rank_eliminated=ev.RankEliminated(rank=5)),
        _env(offer_answered=ev.OfferAnswered(seat=1, took=True)),
        _env(pot_carried_over=ev.PotCarriedOver(amount=2_400)),
    ]
    digest = narrator.feed(events)
    said = [line.plain for line in digest.lines]
    assert said == [
        "You deal next and choose the game.",
        "You choose Five-card draw (draws 2).",
        "── Hand h1 ──",
        "── round 1 ──",
        "── Draw ──",
        "bot draws 2 cards.",
        "You throw away Q♥ 7♣ and draw 2.",
        "── Pass to the left ──",
        "bot passes 3 cards to you: A♥ K♥ Q♥.",
        "bot declares (sealed).",
        "You declare low (sealed until everyone has).",
        "Declarations: bot high, you low.",
        "bot pays $1.00 for the 2♣ (dead money).",
        "Wild now: fives.",
        "Table card: 7♣ (from the stock).",
        "All sevens are eliminated.",
        "bot takes the card.",
        "Nobody wins: the pot of $24.00 rides to the next deal.",
    ]
    assert digest.showdown and digest.new_street


def _chicago_showdown(chicago: str) -> list[str]:
    narrator = Narrator("ann")
    narrator.names = {1: "bot", 2: "ann"}
    narrator.seat = 2
    spade = "low spade in the hole, 5s" if chicago == "low" else "high spade in the hole, As"
    events = [
        _env(
            hand_started=ev.HandStarted(
                hand_id="h1",
                variant="chicago",
                button=2,
                seats=[
                    ev.SeatEntry(seat=1, player="bot", stack=1000),
                    ev.SeatEntry(seat=2, player="ann", stack=1000),
                ],
            )
        ),
        _env(game_options_set=ev.GameOptionsSet(options_json=json.dumps({"chicago": chicago}))),
        _env(
            hand_shown=ev.HandShown(
                seat=1, cards=["5s", "Qh"], high_text="three queens", low_text=spade
            )
        ),
        _env(
            pot_awarded=ev.PotAwarded(
                pot=0,
                amount=700,
                high_winners=[2],
                low_winners=[1],
                shares=[ev.SeatAmount(seat=1, amount=350), ev.SeatAmount(seat=2, amount=350)],
            )
        ),
        _env(
            pot_awarded=ev.PotAwarded(
                pot=1,
                amount=100,
                high_winners=[1],
                low_winners=[1],
                shares=[ev.SeatAmount(seat=1, amount=100)],
            )
        ),
    ]
    return [str(line) for line in narrator.feed(events).lines]


def test_chicagos_halves_are_named_for_what_they_are() -> None:
    # The spade half is no "low" hand: high Chicago's is the high spade, low Chicago's the low.
    for chicago in ("high", "low"):
        text = "\n".join(_chicago_showdown(chicago))
        assert f"three queens; {chicago} spade in the hole" in text
        assert "; low high" not in text and "; low low" not in text and "(low)" not in text
        assert f"bot $3.50 ({chicago} spade), you $3.50 (high hand)" in text
        assert f"(high hand and {chicago} spade)" in text


def _declarations(variant: str, options: dict[str, str], mine: str) -> list[str]:
    narrator = Narrator("ann")
    narrator.names = {1: "bot", 2: "ann"}
    narrator.seat = 2
    seats = [ev.SeatEntry(seat=1, player="bot", stack=1000)]
    seats.append(ev.SeatEntry(seat=2, player="ann", stack=1000))
    events = [
        _env(hand_started=ev.HandStarted(hand_id="h1", variant=variant, button=2, seats=seats)),
        _env(game_options_set=ev.GameOptionsSet(options_json=json.dumps(options))),
        _env(declaration_sealed=ev.DeclarationSealed(seat=1)),
        _env(declaration_sealed=ev.DeclarationSealed(seat=2, choice=mine)),
        _env(
            declarations_revealed=ev.DeclarationsRevealed(
                declarations=[
                    ev.SeatDeclaration(seat=1, choice="high"),
                    ev.SeatDeclaration(seat=2, choice=mine),
                ]
            )
        ),
    ]
    return [line.plain for line in narrator.feed(events).lines]


def test_declarations_on_the_screen_name_the_half_they_claim() -> None:
    # As the exports do (games.half_names): Chicago's spade half is the high or the low spade,
    # its high half the high hand; the raw choice ("spade", "low") is nowhere on the screen.
    for chicago in ("high", "low"):
        assert _declarations("chicago", {"chicago": chicago}, "spade")[-3:] == [
            "bot declares (sealed).",
            f"You declare {chicago} spade (sealed until everyone has).",
            f"Declarations: bot high hand, you {chicago} spade.",
        ]
    # 15-35's halves are the 35 and the 15.
    said = _declarations("fifteen_thirty_five", {}, "low")
    assert said[-2:] == [
        "You declare 15 (sealed until everyone has).",
        "Declarations: bot 35, you 15.",
    ]
