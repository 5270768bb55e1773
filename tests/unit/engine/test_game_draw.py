"""Five-card draw, golden scenarios: one draw or two, betting order, limits, the reshuffle."""

from __future__ import annotations

from typing import Any

from tests.unit.engine._games_kit import deal_deck, events_of, net, play, refused

P1 = "As Ad Kc 7h 2d"
P2 = "Qs Qd Jh 9c 3s"
P3 = "Th 9h 8h 7c 2c"


def test_option_1_one_draw_high_hand_wins() -> None:
    deck = deal_deck(P1, P2, P3, then="Ac Kd Qc 3d 6h")
    result = play(
        "draw",
        deck,
        [
            (1, "bet"), (2, "call"), (3, "call"),
            (1, "draw", "7h 2d"), (2, "draw", "9c 3s"), (3, "draw", "2c"),
            (2, "check"), (3, "bet"), (1, "raise"), (2, "fold"), (3, "call"),
        ],
    )  # fmt: skip
    # Ante 100 + 3 x 200 + 2 x 1000 = 2700; 5% is 135, capped at $1 for three players.
    assert result["rake"] == 100
    assert net(result) == {"p1": 1400, "p2": -200, "p3": -1300}
    shown = {e["seat"]: e["high_text"] for e in events_of(result, "HandShown")}
    assert shown == {1: "full house, aces full of kings", 3: "straight, ten high"}
    sizes = [e["bet_size"] for e in events_of(result, "BettingRoundStarted")]
    assert sizes == [200, 500]  # $2, then $5 in the last round (Final Bet Rule)


def test_option_2_two_draws_of_three_then_two_with_a_round_after_each() -> None:
    deck = deal_deck(P1, P2, P3, then="6h Ac 5h")
    steps = [
        (1, "check"), (2, "check"), (3, "check"),
        (1, "draw"), (2, "draw"), (3, "draw", "2c 7c"),
        (2, "check"), (3, "check"), (1, "check"),
        (1, "draw"), (2, "draw"), (3, "draw", "Ac"),
        (3, "check"), (1, "check"), (2, "check"),
    ]  # fmt: skip
    result = play("draw", deck, steps, options={"draws": 2})
    phases = [(e["phase"], e["max_cards"]) for e in events_of(result, "PhaseStarted")]
    assert phases == [("draw", 3), ("draw", 2)]
    # p3 drew 6h Ac, then threw the ace for the 5h: T-9-8-6-5 of hearts, a flush.
    shown = {e["seat"]: e["high_text"] for e in events_of(result, "HandShown")}
    assert shown[3] == "flush, T-9-8-6-5"
    assert [e["bet_size"] for e in events_of(result, "BettingRoundStarted")] == [200, 200, 500]
    assert result["pots"][0]["high_winners"] == ["p3"]
    assert net(result)["p3"] == -5  # won back the $1 ante, less the 5% rake


def test_draw_limits_are_enforced() -> None:
    deck = deal_deck(P1, P2, P3)
    opening = [(1, "check"), (2, "check"), (3, "check")]
    error = refused("draw", deck, [*opening, (1, "draw", "As Ad Kc 7h")], options={"draws": 2})
    assert error["rule"] == "wrong_card_count"
    error = refused("draw", deck, [*opening, (1, "draw", "Qs")])
    assert error["rule"] == "not_your_card"
    error = refused("draw", deck, [*opening, (2, "draw", "Qs")])
    assert error["rule"] == "out_of_turn"
    error = refused("draw", deck, [(1, "draw", "As")])
    assert error["rule"] == "wrong_phase"


def test_betting_order_rotates_round_by_round() -> None:
    # Buderick: round 1 opens with the 1st player left of the dealer, round 2 with the 2nd,
    # round 3 with the 3rd.
    deck = deal_deck(P1, P2, P3)
    result = play(
        "draw",
        deck,
        [
            (1, "check"), (2, "check"), (3, "check"),
            (1, "draw"), (2, "draw"), (3, "draw"),
            (2, "check"), (3, "check"), (1, "check"),
            (1, "draw"), (2, "draw"), (3, "draw"),
            (3, "check"), (1, "check"), (2, "check"),
        ],
        options={"draws": 2},
    )  # fmt: skip
    assert [e["first_to_act"] for e in events_of(result, "BettingRoundStarted")] == [1, 2, 3]


def test_dealer_left_opener_option() -> None:
    deck = deal_deck(P1, P2, P3)
    result = play(
        "draw",
        deck,
        [
            (1, "check"), (2, "check"), (3, "check"),
            (1, "draw"), (2, "draw"), (3, "draw"),
            (1, "check"), (2, "check"), (3, "check"),
        ],
        options={"opener": "dealer_left"},
    )  # fmt: skip
    assert [e["first_to_act"] for e in events_of(result, "BettingRoundStarted")] == [1, 1]


def test_a_bet_and_three_raises_cap_even_heads_up() -> None:
    deck = deal_deck(P1, P2)
    steps = [(1, "bet"), (2, "raise"), (1, "raise"), (2, "raise")]
    error = refused("draw", deck, [*steps, (1, "raise")], players=2)
    assert error["rule"] == "betting_capped"
    # With the table's uncap_heads_up the fifth bet is allowed.
    result = play("draw", deck, [*steps, (1, "raise")], players=2, rules={"uncap_heads_up": True})
    assert result["complete"] is False and result["to_act"] == 2


def test_everyone_folds_the_dealer_ante_goes_uncontested_and_unraked() -> None:
    deck = deal_deck(P1, P2, P3)
    result = play("draw", deck, [(1, "bet"), (2, "fold"), (3, "fold")])
    assert result["rake"] == 0  # ended in the first betting round
    assert net(result) == {"p1": 100, "p2": 0, "p3": -100}
    assert events_of(result, "UncalledBetReturned") == [
        {"type": "UncalledBetReturned", "seat": 1, "amount": 200}
    ]


def test_stub_runs_out_and_the_dealer_reshuffles_earlier_discards() -> None:
    stub_reshuffle_scenario()


def stub_reshuffle_scenario() -> dict[str, Any]:
    """The scenario (also used by the codec test, which wants its events)."""
    hands = [
        "2c 3c 4c 5c 7d", "2d 3d 4d 5d 7h", "2h 3h 4h 5h 7s", "2s 3s 4s 5s 8c",
        "6c 8d 9c Tc Jc", "6d 8h 9d Td Jd", "6h 8s 9h Th Jh", "6s 9s Ts Js Qc",
    ]  # fmt: skip
    deck = deal_deck(*hands)  # 40 dealt; the stub holds the 12 others
    checks = [(s, "check") for s in range(1, 9)]
    discards = [(s, "draw", hands[s - 1]) for s in (1, 2, 3)]
    result = play("draw", deck, [*checks, *discards], players=8)
    requested = events_of(result, "ReshuffleRequested")
    # Seats 1 and 2 took 10 of the 12; seat 3 gets 2, then needs 3 more: the dealer shuffles
    # the discards of seats 1 and 2 (never seat 3's own).
    assert len(requested) == 1
    assert requested[0]["seat"] == 3 and requested[0]["owed"] == 3
    assert sorted(requested[0]["cards"]) == sorted(hands[0].split() + hands[1].split())
    assert result["phase"] == "reshuffle" and result["waiting_for"] == []
    shuffled = ["7h", "2c", "5d", "4c", "3d", "7d", "2d", "3c", "4d", "5c"]
    wrong = refused("draw", deck, [*checks, *discards, ("reshuffle", "2c 3c")], players=8)
    assert wrong["rule"] == "bad_reshuffle"
    done = play(
        "draw",
        deck,
        [*checks, *discards, ("reshuffle", " ".join(shuffled)), (4, "draw")],
        players=8,
    )
    dealt_to_3 = [e["card"] for e in events_of(done, "CardDealt") if e["seat"] == 3][5:]
    assert dealt_to_3[2:] == shuffled[:3]  # the new stub's top three
    assert done["waiting_for"] == [5]
    return done


def test_the_clock_stands_pat_in_a_draw_and_checks_or_folds_in_a_round() -> None:
    deck = deal_deck(P1, P2, P3)
    result = play(
        "draw",
        deck,
        [(1, "timeout"), (2, "bet"), (3, "timeout"), (1, "timeout")],
    )
    # p1 checked on the clock, then folded to the bet on the clock; p3 folded; p2 stood pat.
    taken = [(e["seat"], e["action"]) for e in events_of(result, "ActionTaken")]
    assert taken == [(1, "check"), (2, "bet"), (3, "fold"), (1, "fold")]
    assert result["complete"] is True and net(result) == {"p1": 0, "p2": 100, "p3": -100}


def test_tied_hands_split_with_the_odd_chip_clockwise_from_the_button() -> None:
    deck = deal_deck("As Kd Qh Jc 9s", "Ah Ks Qd Jh 9c", "2c 3d 4h 6s 8c")
    result = play(
        "draw",
        deck,
        [
            (1, "bet"), (2, "call"), (3, "fold"),
            (1, "draw"), (2, "draw"),
            (2, "check"), (1, "check"),
        ],
        rules={"rake_percent": 0},
    )  # fmt: skip
    # 100 ante + 400 = 500: 250 each; with an odd chip, seat 1 (first left of the button).
    assert result["pots"][0]["high_winners"] == ["p1", "p2"]
    assert result["pots"][0]["shares"] == {"p1": 250, "p2": 250}
    odd = play(
        "draw",
        deck,
        [
            (1, "bet"),
            (2, "call"),
            (3, "fold"),
            (1, "draw"),
            (2, "draw"),
            (2, "check"),
            (1, "check"),
        ],
        rules={"rake_percent": 0, "ante": 101},
    )
    assert odd["pots"][0]["shares"] == {"p1": 251, "p2": 250}


def test_the_dealers_ante_is_dead_money_not_a_side_pot() -> None:
    # The dealer (p3) antes and calls to the end: the whole pot is one pot, open to all.
    deck = deal_deck(P3, P2, P1)
    result = play(
        "draw",
        deck,
        [
            (1, "check"), (2, "check"), (3, "check"),
            (1, "draw"), (2, "draw"), (3, "draw"),
            (2, "check"), (3, "check"), (1, "check"),
        ],
        rules={"rake_percent": 0},
    )  # fmt: skip
    assert len(result["pots"]) == 1
    assert result["pots"][0]["eligible"] == ["p1", "p2", "p3"]
    assert result["pots"][0]["shares"] == {"p3": 100}
