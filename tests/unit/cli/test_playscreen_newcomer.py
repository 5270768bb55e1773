"""What a newcomer reads on the ``riverboat play`` screen: the action clock counting down, the
card check said once a hand, everything whole at 80 columns, money in dollars, and a Seven
Twenty-Seven hand (its moves said once, the bets of a round gone once it is over, the count of
the player's cards, a seat taken mid-hand waiting for the next one)."""

from __future__ import annotations

import argparse
import io

from rich.console import Console

from riverboat.cli.play.checks import CheckNotes
from riverboat.cli.play.clock import TurnClock
from riverboat.cli.play.render import games_table, hands_table, lobby_table, table_panel, turn_line
from riverboat.cli.play.session import PlaySession
from riverboat.cli.play.text import changed_options, choices_line
from riverboat.engine.games import GAMES
from riverboat.proofcheck import CardCheck, Verdict
from riverboat.v1 import lobby_pb2, table_pb2
from tests.unit.cli.test_playscreen import fourth_street
from tests.unit.cli.test_playscreen_games import _cards, choosing, dc_view


def render(renderable: object, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def flat(renderable: object) -> str:
    """The text with its line breaks undone."""
    return " ".join(render(renderable).split())


class _NoInput(io.StringIO):
    """Standard input that is never read."""

    def fileno(self) -> int:
        return -1


class ManualClock:
    """Time moved by hand."""

    def __init__(self) -> None:
        self.t = 1_000.0

    def __call__(self) -> float:
        return self.t


# --- the action clock ------------------------------------------------------------------------


def test_the_turn_counts_down_from_when_it_came_and_starts_again_with_each_version() -> None:
    now = ManualClock()
    clock = TurnClock(now)
    view = fourth_street()  # ann's turn, 30 s a move
    clock.see(view)
    now.t += 7
    assert "Your turn (23 s): " in render(turn_line(view, clock))
    assert "Your turn (23 s): " in render(table_panel(view, player="ann", clock=clock))
    clock.see(view)  # the same version again (a reply and the watch): the clock runs on
    now.t += 3
    assert "Your turn (20 s): " in render(turn_line(view, clock))
    now.t += 60
    assert "Your turn (0 s): " in render(turn_line(view, clock))  # never below nothing
    view.version += 1  # the table changed: the table service starts the clock afresh
    clock.see(view)
    assert "Your turn (30 s): " in render(turn_line(view, clock))


def test_a_time_bank_counts_down_from_when_it_started_whatever_else_happens() -> None:
    now = ManualClock()
    clock = TurnClock(now)
    view = fourth_street(to_act=1)  # the bot's turn ...
    view.seats[0].time_bank_running = 60  # ... on its time bank
    clock.see(view)
    now.t += 15
    text = render(table_panel(view, player="ann", clock=clock))
    assert "time bank 45 s" in text and "time bank 60 s" not in text
    assert "Waiting for bot (seat 1): 45 s left." in text
    view.version += 1  # another change does not give the bank back
    clock.see(view)
    now.t += 5
    assert "time bank 40 s" in render(table_panel(view, player="ann", clock=clock))
    mine = fourth_street()
    mine.seats[1].time_bank_running = 60
    clock.see(mine)
    now.t += 12
    assert "Your turn (on your time bank: 48 s)" in render(turn_line(mine, clock))


def test_the_prompt_shows_the_seconds_left_on_our_turn() -> None:
    now = ManualClock()
    args = argparse.Namespace(lobby="l:1", table="t:1", settlement="s:1", save=None)
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, color_system=None)
    session = PlaySession(args, console, stdin=_NoInput())
    session.player, session.table_id = "ann", "pacific-t1"
    session.turn_clock = TurnClock(now)
    session.view = fourth_street()
    session.turn_clock.see(session.view)
    now.t += 21
    assert session._prompt_text() == "pacific-t1 YOUR TURN  9 s> "
    session.waiting = True  # the prompt is on screen, a command being typed after it
    session._show_prompt()
    now.t += 1
    session._refresh_prompt()  # what the countdown does each second
    # Rewritten where it stands: the cursor saved, the line's start, the prompt, the cursor back
    # (after whatever was typed).
    assert screen.getvalue().endswith("\x1b7\rpacific-t1 YOUR TURN  8 s> \x1b8")
    now.t += 0.5
    before = screen.getvalue()
    session._refresh_prompt()  # the same second: nothing to draw
    assert screen.getvalue() == before
    session.view = fourth_street(to_act=1)
    session.turn_clock.see(session.view)
    assert session._prompt_text() == "pacific-t1> "


# --- the card check ------------------------------------------------------------------------


def _verified(hand: str, card: str) -> CardCheck:
    return CardCheck(hand, card, 3, 7, Verdict.VERIFIED)


def test_the_cards_are_said_verified_once_a_hand_and_a_failure_every_time() -> None:
    notes = CheckNotes()
    first = [flat(x) for x in notes.lines([_verified("h1", "Ah"), _verified("h1", "Kd")])]
    assert len(first) == 1
    assert "Your cards are verified" in first[0] and "committed to before the deal" in first[0]
    assert "places in the deal" not in first[0]  # nothing a player cannot act on
    assert notes.lines([_verified("h1", "7c")]) == []  # the next street: nothing new to say
    failed = CardCheck("h1", "2s", 5, 9, Verdict.FAILED, "the path does not reach the root")
    loud = [flat(x) for x in notes.lines([_verified("h1", "9h"), failed])]
    assert len(loud) == 1 and "!!! PROOF FAILED for 2s" in loud[0]
    assert len(notes.lines([_verified("h2", "Qs")])) == 1  # the next hand: said again
    # Seated during a hand: the order of the deal is the table's, said in words.
    late = CardCheck("h3", "Jd", 3, 7, Verdict.VERIFIED, witnessed=False)
    told = [flat(x) for x in notes.lines([late])]
    assert len(told) == 1 and "You came in during this hand" in told[0]
    assert "places in the deal" not in told[0]


# --- 80 columns ------------------------------------------------------------------------------


def test_the_table_at_80_columns_keeps_ids_and_stakes_whole() -> None:
    view = fourth_street()
    view.table_id = "pacific-pacific-1-2"
    view.hand_id = "pacific-pacific-1-2-7f3a9c2e"
    name = view.seats[0].player = "riverboat-demo-bot-number-seven"
    view.seats[0].time_bank_running = 60
    text = render(table_panel(view, player="ann"))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    # The player's id folds in its column: every character there, in order.
    pieces = [w for line in text.splitlines() for w in line.split() if len(w) > 3 and w in name]
    assert "".join(pieces) == name
    flat = "".join(line.strip("│ ") for line in text.splitlines())
    assert "pacific-pacific-1-2" in flat and "pacific-pacific-1-2-7f3a9c2e" in flat
    assert "4th street" in flat
    assert "$1.00/$2.00, ante $0.25" in flat


def test_the_lobby_and_the_last_hands_at_80_columns_lose_nothing() -> None:
    tables = [
        lobby_pb2.LobbyTable(
            table_id="dealers-choice-friday-dealer-s-choice",
            name="Friday dealer's choice",
            variant="dealers_choice",
            small_bet=300,
            big_bet=600,
            min_buy_in=3_000,
            max_buy_in=60_000,
            max_players=8,
            seats=[
                lobby_pb2.TakenSeat(seat=n, player=f"riverboat-player-{n}", stack=123_456)
                for n in (1, 2, 3)
            ],
        ),
        lobby_pb2.LobbyTable(
            table_id="pacific-pacific-1-2",
            name="Pacific $1/$2",
            variant="seven_card_stud_hi_lo",
            small_bet=100,
            big_bet=200,
            min_buy_in=1_000,
            max_buy_in=20_000,
            max_players=8,
        ),
    ]
    text = render(lobby_table(tables, me="ann"))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    words = text.split()
    for whole in ("$3.00/$6.00", "$30.00-$600.00", "$1.00/$2.00", "$10.00-$200.00", "$1234.56"):
        assert whole in words
    assert "pacific-pacific-1-2" in words
    hand = table_pb2.HandSummary(
        hand_id="dealers-choice-friday-dealer-s-choice-1234",
        hand_number=12,
        game="seven_twenty_seven",
        paid_out=1_234,
        rake=5,
    )
    hand.players.add(player="riverboat-player-1", starting_stack=1_000, final_stack=1_500)
    hand.players.add(player="ann", starting_stack=1_000, final_stack=500)
    listed = render(hands_table([hand], me="ann"))
    assert max(len(line) for line in listed.splitlines()) <= 80
    assert "…" not in listed and "$12.39" in listed and "-$5.00" in listed


def test_choosing_the_game_keeps_the_table_narrow() -> None:
    view = choosing()
    legal = view.legal_actions[0]
    del legal.choices[:]
    legal.choices.extend(GAMES)
    text = render(table_panel(view, player="ann"), width=200)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert f"g GAME choose the game ({len(GAMES)} to choose from: g lists them)" in text


def test_g_lists_the_games_on_a_screen_and_g_game_its_options_in_dollars() -> None:
    view = choosing()
    legal = view.legal_actions[0]
    del legal.choices[:]
    legal.choices.extend(GAMES)
    listed = render(games_table(view))
    assert len(listed.splitlines()) <= 24
    assert max(len(line) for line in listed.splitlines()) <= 80
    assert "seven_twenty_seven" in listed and "Seven Twenty-Seven" in listed
    assert "g GAME ? lists a game's options" in listed
    options = render(games_table(view, "woolworth"))
    assert len(options.splitlines()) <= 24
    assert "wild_payment" in options and "$1.00" in options and "(cents)" not in options
    assert "wild_payment 100" not in options
    assert render(games_table(view, "7")).startswith("Seven Twenty-Seven: g seven_twenty_seven")
    # As play.md types it (wild_payment=1.50), the game line and the narration say $1.50.
    assert changed_options("woolworth", {"wild_payment": 150.0}) == "wild_payment $1.50"


# --- Seven Twenty-Seven ------------------------------------------------------------------------


OFFER = [table_pb2.LegalAction(action="take", to=[1]), table_pb2.LegalAction(action="stand")]


def seven_twenty_seven(phase: str, legal: list[table_pb2.LegalAction]) -> table_pb2.TableView:
    """Ann (seat 2) holds A♣ down and 5♦, K♠ up in a 7-27 hand; both bet $1 last round."""
    view = dc_view(legal, game="seven_twenty_seven", phase=phase, mine=())
    view.game_options.Clear()
    view.game_options.update({"pictures": "half"})
    view.seats[0].street_bet = 100
    view.seats[1].street_bet = 100
    del view.seats[0].cards[:]
    view.seats[0].cards.extend(_cards(("", False), ("9h", True)))
    view.seats[1].cards.extend(_cards(("Ac", False), ("5d", True), ("Ks", True)))
    return view


def test_seven_twenty_seven_offers_say_each_move_once() -> None:
    offer = seven_twenty_seven("offer", OFFER)
    assert choices_line(offer) == "take the card · stand"


def test_the_bets_of_a_round_are_gone_once_it_is_over() -> None:
    offer = seven_twenty_seven("offer", OFFER)
    assert "$1.00" not in render(table_panel(offer, player="ann"))
    declaring = seven_twenty_seven("declare", [])
    declaring.to_act = 0
    assert "$1.00" not in render(table_panel(declaring, player="ann"))
    betting = seven_twenty_seven("bet", [])
    assert "$1.00" in render(table_panel(betting, player="ann"))


def test_seven_twenty_seven_shows_your_count() -> None:
    view = seven_twenty_seven("offer", [])
    # A♣ 5♦ K♠ with pictures one half: 1 + 5 + ½ or 11 + 5 + ½.
    assert "Your count: 6½ or 16½" in render(table_panel(view, player="ann"))
    view.game_options.update({"pictures": "either"})
    assert "Your count: 6½ or 16 or 16½ or 26" in render(table_panel(view, player="ann"))
    draw = dc_view([])
    assert "count" not in render(table_panel(draw, player="ann"))


def test_a_seat_taken_during_a_hand_waits_for_the_next_one() -> None:
    view = fourth_street()
    view.seats.append(table_pb2.SeatView(seat=4, player="dan", stack=4_000))  # just sat down
    text = render(table_panel(view, player="dan"))
    row = next(line for line in text.splitlines() if "dan (you)" in line)
    assert "sitting out" not in row and "dealt in next hand" in row
    view.seats[3].sitting_out = True
    assert "sitting out" in render(table_panel(view, player="dan"))
