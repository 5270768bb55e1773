"""What ``riverboat play`` draws and how it reads commands, on hand-made views and events."""

from __future__ import annotations

import pytest
from rich.console import Console

from riverboat.cli.play.commands import ActionError, choose_action
from riverboat.cli.play.narrate import Narrator
from riverboat.cli.play.render import hands_table, lobby_table, table_panel, turn_line
from riverboat.cli.play.text import HIDDEN, card_label, choices_line
from riverboat.v1 import events_pb2 as ev
from riverboat.v1 import lobby_pb2, table_pb2


def render(renderable: object, width: int = 100) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def _cards(*cards: tuple[str, bool]) -> list[table_pb2.ViewCard]:
    return [table_pb2.ViewCard(card=c, face_up=up) for c, up in cards]


def fourth_street(
    *, to_act: int = 2, legal: dict[str, list[int]] | None = None
) -> table_pb2.TableView:
    """Ann (seat 2, the viewer) against bot (seat 1) on 4th street; bot bet $1."""
    if legal is None:
        legal = {"fold": [0], "call": [100], "raise": [200]}
    return table_pb2.TableView(
        table_id="pacific-t1",
        name="Pacific $1/$2",
        variant="seven_card_stud_hi_lo",
        version=12,
        hand_id="pacific-t1-3",
        hand_in_progress=True,
        street=4,
        button=1,
        seats=[
            table_pb2.SeatView(
                seat=1,
                player="bot",
                stack=19_800,
                street_bet=100,
                in_hand=True,
                cards=_cards(("", False), ("", False), ("Qc", True), ("9d", True)),
            ),
            table_pb2.SeatView(
                seat=2,
                player="ann",
                stack=3_950,
                street_bet=0,
                in_hand=True,
                cards=_cards(("Ah", False), ("Ks", False), ("7d", True), ("2c", True)),
            ),
            table_pb2.SeatView(seat=3, player="cat", stack=5_000, in_hand=True, folded=True),
        ],
        pot=250,
        to_act=to_act,
        viewer_seat=2,
        legal_actions=[table_pb2.LegalAction(action=a, to=t) for a, t in legal.items()],
        options=ev.TableOptions(small_bet=100, big_bet=200, ante=25),
        action_seconds=30,
    )


def test_cards_read_with_suit_symbols() -> None:
    assert [card_label(c) for c in ("Ah", "Td", "2c", "Ks", "")] == ["A♥", "T♦", "2♣", "K♠", HIDDEN]


def test_the_table_shows_own_cards_hides_others_and_says_whose_turn() -> None:
    text = render(table_panel(fourth_street(), ["bot bets $1.00"]))
    assert "Pacific $1/$2 (pacific-t1) · hand pacific-t1-3 · 4th street" in text
    assert "[A♥] [K♠] 7♦ 2♣" in text  # own down cards in brackets
    assert f"{HIDDEN} {HIDDEN} Q♣ 9♦" in text  # the bot's down cards hidden
    assert "ann (you)" in text and "1 D" in text  # the viewer, the button
    assert "folded" in text
    assert "Pot $2.50" in text and "$198.00" in text and "$1.00" in text
    assert "Last: bot bets $1.00" in text
    assert "Your turn (30 s): f fold · c call $1.00 · r raise to $2.00" in text
    assert "Seven-card stud hi/lo $1.00/$2.00, ante $0.25" in text


def test_turn_line_when_waiting() -> None:
    assert turn_line(fourth_street(to_act=1)).plain == "Waiting for bot (seat 1)."
    idle = fourth_street(to_act=0)
    idle.hand_in_progress = False
    assert turn_line(idle).plain == "Waiting for the next hand."


def test_choices_describe_amounts() -> None:
    view = fourth_street(legal={"bring_in": [50], "complete": [100]})
    assert choices_line(view) == "i bring in for $0.50 · k complete to $1.00"
    view = fourth_street(legal={"check": [0], "bet": [100, 200]})
    assert choices_line(view) == "c check · b bet $1.00 or $2.00"


def test_commands_become_actions() -> None:
    view = fourth_street()
    assert choose_action("c", None, view) == ("call", 100)
    assert choose_action("call", None, view) == ("call", 100)
    assert choose_action("r", None, view) == ("raise", 200)
    assert choose_action("b", "2", view) == ("raise", 200)  # b and r: whichever is legal
    assert choose_action("r", "200c", view) == ("raise", 200)
    assert choose_action("f", None, view) == ("fold", 0)
    opened = fourth_street(legal={"check": [0], "bet": [100, 200]})
    assert choose_action("c", None, opened) == ("check", 0)
    assert choose_action("b", None, opened) == ("bet", 100)
    assert choose_action("b", "$2", opened) == ("bet", 200)
    third = fourth_street(legal={"bring_in": [50], "complete": [100]})
    assert choose_action("i", None, third) == ("bring_in", 50)
    assert choose_action("k", None, third) == ("complete", 100)
    assert choose_action("r", None, third) == ("complete", 100)


@pytest.mark.parametrize(
    ("word", "amount", "message"),
    [
        ("r", "3", "You cannot raise to $3.00; you may raise to $2.00."),
        ("r", "lots", "'lots' is not an amount"),
        ("i", None, "You cannot bring in now; you may: f fold · c call $1.00 · r raise to $2.00."),
        ("f", "2", "Fold takes no amount."),
    ],
)
def test_impossible_commands_explain_themselves(
    word: str, amount: str | None, message: str
) -> None:
    with pytest.raises(ActionError, match=message.replace("$", r"\$").replace("(", r"\(")):
        choose_action(word, amount, fourth_street())


def test_acting_out_of_turn() -> None:
    with pytest.raises(ActionError, match="It is not your turn"):
        choose_action("c", None, fourth_street(to_act=1))
    observer = fourth_street()
    observer.viewer_seat = 0
    with pytest.raises(ActionError, match="You do not sit at this table"):
        choose_action("c", None, observer)


def _env(**payload: object) -> ev.EventEnvelope:
    return ev.EventEnvelope(**payload)  # type: ignore[arg-type]


def test_the_narrator_tells_a_hand_from_the_viewers_seat() -> None:
    narrator = Narrator("ann")
    start = narrator.feed(
        [
            _env(player_seated=ev.PlayerSeated(seat=2, player="ann", stack=4_000)),
            _env(
                hand_started=ev.HandStarted(
                    hand_id="t-1",
                    variant="seven_card_stud_hi_lo",
                    button=1,
                    seats=[
                        ev.SeatEntry(seat=1, player="bot", stack=5_000),
                        ev.SeatEntry(seat=2, player="ann", stack=4_000),
                    ],
                )
            ),
            _env(ante_posted=ev.AntePosted(seat=1, amount=25)),
            _env(ante_posted=ev.AntePosted(seat=2, amount=25)),
            _env(card_dealt=ev.CardDealt(seat=2, card="Ah", face_up=False)),
            _env(betting_round_started=ev.BettingRoundStarted(street=3, first_to_act=1)),
            _env(action_taken=ev.ActionTaken(seat=1, action="bring_in", amount=50, to=50)),
        ]
    )
    assert [t.plain for t in start.lines] == [
        "You sit down in seat 2 with $40.00.",
        "── Hand t-1 ──",
        "Antes: $0.25 each.",
        "── 3rd street ──",
        "bot brings in for $0.50.",
    ]
    assert start.new_hand and start.new_street and start.actions == ["bot brings in for $0.50"]
    end = narrator.feed(
        [
            _env(action_taken=ev.ActionTaken(seat=2, action="call", amount=50, to=50)),
            _env(action_taken=ev.ActionTaken(seat=1, action="fold"), actor="clock"),
            _env(rake_taken=ev.RakeTaken(amount=5)),
            _env(
                pot_awarded=ev.PotAwarded(
                    pot=0, amount=145, shares=[ev.SeatAmount(seat=2, amount=145)]
                )
            ),
            _env(
                hand_ended=ev.HandEnded(
                    stacks=[
                        ev.SeatAmount(seat=1, amount=4_925),
                        ev.SeatAmount(seat=2, amount=4_070),
                    ]
                )
            ),
            _env(player_left=ev.PlayerLeft(seat=2, player="ann", stack=4_070)),
        ]
    )
    assert [t.plain for t in end.lines] == [
        "You call $0.50.",
        "bot folds (out of time).",
        "Rake $0.05.",
        "You win the main pot of $1.45.",
        "Hand over. You won $0.70. Stacks: bot $49.25, you $40.70.",
        "You stood up with $40.70; it goes back to your wallet.",
    ]
    assert end.hand_ended and end.left_with == 4_070


def test_the_narrator_at_a_split_showdown() -> None:
    narrator = Narrator("ann")
    narrator.feed(
        [
            _env(
                hand_started=ev.HandStarted(
                    hand_id="t-2",
                    variant="seven_card_stud_hi_lo",
                    seats=[
                        ev.SeatEntry(seat=1, player="bot", stack=1_000),
                        ev.SeatEntry(seat=2, player="ann", stack=1_000),
                    ],
                )
            )
        ]
    )
    digest = narrator.feed(
        [
            _env(
                hand_shown=ev.HandShown(
                    seat=1, cards=["Ah", "Kh"], high_text="a pair of aces", low_text=""
                )
            ),
            _env(
                hand_shown=ev.HandShown(
                    seat=2, cards=["2c", "3d"], high_text="ace high", low_text="8-6-4-3-2"
                )
            ),
            _env(
                pot_awarded=ev.PotAwarded(
                    pot=0,
                    amount=400,
                    high_winners=[1],
                    low_winners=[2],
                    shares=[ev.SeatAmount(seat=1, amount=200), ev.SeatAmount(seat=2, amount=200)],
                )
            ),
            _env(
                hand_ended=ev.HandEnded(
                    stacks=[
                        ev.SeatAmount(seat=1, amount=1_000),
                        ev.SeatAmount(seat=2, amount=1_000),
                    ]
                )
            ),
        ]
    )
    assert [t.plain for t in digest.lines] == [
        "bot shows A♥ K♥: a pair of aces; no low",
        "You show 2♣ 3♦: ace high; low 8-6-4-3-2",
        "Main pot of $4.00 split: bot $2.00 (high), you $2.00 (low).",
        "Hand over. You broke even. Stacks: bot $10.00, you $10.00.",
    ]
    assert digest.showdown


def test_lobby_table_lists_tables_numbered() -> None:
    table = lobby_pb2.LobbyTable(
        table_id="pacific-t1",
        name="Pacific $1/$2",
        variant="seven_card_stud_hi_lo",
        small_bet=100,
        big_bet=200,
        min_buy_in=1_000,
        max_buy_in=20_000,
        max_players=8,
        seats=[lobby_pb2.TakenSeat(seat=1, player="ann", stack=4_000)],
    )
    text = render(lobby_table([table], me="ann"), width=140)
    rows = [line.split() for line in text.splitlines()]
    assert ["1", "pacific-t1", "Stud", "hi/lo", "1/8", "ann", "$40.00", "(you)"] in rows
    assert ["Pacific", "$1/$2", "$1.00/$2.00"] in rows
    assert ["buy-in", "$10.00-$200.00"] in rows


def test_between_hands_no_pot_and_a_community_card_when_dealt() -> None:
    view = fourth_street(to_act=0)
    view.community.append("7d")
    assert "community card 7♦" in render(table_panel(view))
    view.hand_in_progress = False
    text = render(table_panel(view))
    assert "Pot" not in text and "Waiting for the next hand." in text and "· over" in text


def test_a_player_who_left_is_not_seated_though_the_view_still_names_the_seat() -> None:
    view = fourth_street(to_act=0)
    del view.seats[1]  # ann left after the hand; viewer_seat stays 2 until the next one
    with pytest.raises(ActionError, match="You do not sit at this table"):
        choose_action("c", None, view)
    assert "(you)" not in render(table_panel(view, player="ann"))
    view.seats.append(table_pb2.SeatView(seat=2, player="dan", stack=1_000))
    assert "dan (you)" not in render(table_panel(view, player="ann"))
    narrator = Narrator("ann")
    digest = narrator.feed(
        [_env(player_seated=ev.PlayerSeated(seat=2, player="dan", stack=1_000))], view
    )
    assert [t.plain for t in digest.lines] == ["dan sits down in seat 2 with $10.00."]


def test_the_table_names_the_hand_by_number_and_shows_sitting_out_and_time_banks() -> None:
    view = fourth_street()
    view.hand_number = 3
    view.seats[0].time_bank_running = 45  # the bot's turn runs on its time bank
    view.seats[2].sitting_out = True
    view.seats[1].time_bank_seconds = 60
    view.time_bank.seconds = 60
    text = render(table_panel(view))
    assert "Pacific $1/$2 (pacific-t1) · hand #3 · 4th street" in text
    assert "pacific-t1-3" not in text
    assert "time bank 45 s" in text
    assert "sitting out" in text
    assert "Your turn (30 s): " in render(turn_line(view))  # a full bank goes unsaid
    view.seats[1].time_bank_seconds = 41
    assert "Your turn (30 s, time bank 41 s)" in render(turn_line(view))
    view.seats[1].time_bank_running = 60
    assert "Your turn (on your time bank: 60 s)" in render(turn_line(view))


def test_the_narrator_numbers_hands_and_tells_sitting_out_and_the_time_bank() -> None:
    narrator = Narrator("ann")
    view = fourth_street()
    view.hand_number = 7
    digest = narrator.feed(
        [
            _env(
                hand_started=ev.HandStarted(
                    hand_id="pacific-t1-3",
                    variant="seven_card_stud_hi_lo",
                    seats=[ev.SeatEntry(seat=1, player="bot"), ev.SeatEntry(seat=2, player="ann")],
                )
            ),
            _env(time_bank_started=ev.TimeBankStarted(seat=1, player="bot", seconds=60)),
            _env(
                time_bank_started=ev.TimeBankStarted(
                    seat=2, player="ann", seconds=30, protection=True
                )
            ),
            _env(player_timed_out=ev.PlayerTimedOut(seat=1, player="bot")),
            _env(player_sat_out=ev.PlayerSatOut(seat=1, player="bot", reason="timeouts")),
            _env(player_sat_out=ev.PlayerSatOut(seat=2, player="ann")),
            _env(player_sat_in=ev.PlayerSatIn(seat=2, player="ann")),
        ],
        view,
    )
    assert [t.plain for t in digest.lines] == [
        "── Hand #7 ──",
        "bot is on the time bank: 60 s more.",
        "You are disconnected: you get 30 s more.",
        "bot sits out (the clock acted twice in a row).",
        "You sit out; si sits you in again.",
        "You are dealt in again from the next hand.",
    ]


def test_lobby_table_shows_who_waits_and_the_seat_offered() -> None:
    from datetime import UTC, datetime

    from google.protobuf.timestamp_pb2 import Timestamp

    until = Timestamp()
    until.FromDatetime(datetime(2026, 12, 2, 12, 0, 30, tzinfo=UTC))
    full = lobby_pb2.LobbyTable(
        table_id="pacific-hu",
        name="Heads-up",
        variant="seven_card_stud_hi_lo",
        max_players=2,
        seats=[lobby_pb2.TakenSeat(seat=1, player="bob", stack=4_000)],
        waiting_list=lobby_pb2.WaitingList(
            table_id="pacific-hu",
            waiting=[
                lobby_pb2.Waiting(player="cyd", offered_seat=2, offer_expires_at=until),
                lobby_pb2.Waiting(player="ann"),
            ],
        ),
    )
    quiet = lobby_pb2.LobbyTable(table_id="pacific-t1", name="Quiet", max_players=8)
    text = render(lobby_table([full, quiet], me="ann"), width=160)
    assert "Waiting" in text
    assert "1. cyd: seat 2 until 12:00:30 UTC" in text
    assert "2. ann (you)" in text
    # Without anyone waiting the screen has no Waiting column.
    assert "Waiting" not in render(lobby_table([quiet], me="ann"), width=160)


def test_the_last_hands_screen_says_what_each_hand_came_to_for_you() -> None:
    def hand(hand_id: str, ann: tuple[int, int], *, voided: bool = False) -> table_pb2.HandSummary:
        return table_pb2.HandSummary(
            table_id="t1",
            hand_id=hand_id,
            game="seven_card_stud_hi_lo",
            players=[
                table_pb2.HandPlayer(seat=1, player="bot", starting_stack=5000, final_stack=4000),
                table_pb2.HandPlayer(
                    seat=2, player="ann", starting_stack=ann[0], final_stack=ann[1]
                ),
            ],
            paid_out=1900,
            rake=100,
            voided=voided,
            hand_number=int(hand_id.rsplit("-", 1)[1]),
        )

    hands = [
        hand("t1-9", (4000, 4950)),
        hand("t1-5", (4000, 3000)),
        hand("t1-2", (4000, 4000), voided=True),
    ]
    lines = render(hands_table(hands, "ann")).splitlines()
    rows = [line.split() for line in lines if line.strip()[:1].isdigit()]
    # One number per row, the hand's own (`hand 9` shows it), not a row count beside it.
    assert [r[:2] for r in rows] == [["9", "t1-9"], ["5", "t1-5"], ["2", "t1-2"]]
    assert [r[-1] for r in rows] == ["+$9.50", "-$10.00", "$0.00"]
    assert all("$20.00" in r for r in rows)  # the pot: paid out and rake
    assert "(voided)" in rows[2]
    assert "bot, ann" in " ".join(lines)
    # An observer (not dealt in) gets no result column values.
    observer = render(hands_table(hands[:1], "cat"))
    assert "+$" not in observer and "-$" not in observer


def test_the_screens_say_what_an_operator_did_to_the_table() -> None:
    view = fourth_street()
    assert "operator" not in render(table_panel(view)) and "closed" not in render(table_panel(view))
    view.paused = True
    assert "Dealing is paused by the operator." in render(table_panel(view))
    view.closing = True
    assert "The table closes after this hand." in render(table_panel(view))
    view.closed, view.closing, view.paused = True, False, False
    assert "The table is closed." in render(table_panel(view))
    tables = [
        lobby_pb2.LobbyTable(table_id="pacific-a", name="A", max_players=8),
        lobby_pb2.LobbyTable(table_id="pacific-b", name="B", max_players=8, paused=True),
        lobby_pb2.LobbyTable(table_id="pacific-c", name="C", max_players=8, closed=True),
    ]
    rows = [line.split() for line in render(lobby_table(tables), width=140).splitlines()]
    assert "Status" in rows[1] or any("Status" in row for row in rows)
    assert any(row[:2] == ["2", "pacific-b"] and row[-1] == "paused" for row in rows)
    assert any(row[:2] == ["3", "pacific-c"] and row[-1] == "closed" for row in rows)
    assert not any("Status" in row for row in (
        line.split() for line in render(lobby_table(tables[:1]), width=140).splitlines()
    ))  # fmt: skip
    digest = Narrator("ann").feed(
        [
            _env(dealing_paused=ev.DealingPaused(by="operator:boss", reason="break")),
            _env(dealing_resumed=ev.DealingResumed(by="operator:boss")),
            _env(table_closing=ev.TableClosing(by="operator:boss")),
            _env(table_closed=ev.TableClosed(by="operator:boss")),
        ],
        view,
    )
    assert [t.plain for t in digest.lines] == [
        "The operator pauses dealing after this hand.",
        "Dealing resumes.",
        "The operator closes the table after this hand.",
        "The table is closed: everyone leaves with their chips.",
    ]
