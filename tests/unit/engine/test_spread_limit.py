"""Spread-limit betting (spec A-2: "3 bumps of $2", read as a maximum, "unless otherwise
declared"): a table option, off by default. With it, a bet or raise is any whole number of
dollars from $1 up to the round's limit ($2, $5 in the last round), and a raise at least the
previous bet or raise of the round; the cap is unchanged."""

from __future__ import annotations

from riverboat.engine.options import dealers_choice_options, pacific_options
from tests.unit.engine._games_kit import Step, deal_deck, events_of, net, play, refused

P1 = "As Ad Kc 7h 2d"
P2 = "Qs Qd Jh 9c 3s"
P3 = "Th 9h 8h 7c 2c"
DECK = deal_deck(P1, P2, P3, then="Ac Kd Qc 3d 6h")
SPREAD = {"spread_limit": True, "rake_percent": 0}


def test_spread_limit_is_off_by_default() -> None:
    assert not dealers_choice_options().spread_limit and not pacific_options().spread_limit
    assert refused("draw", DECK, [(1, "bet", 100)])["rule"] == "wrong_amount"


def test_any_whole_dollar_bet_up_to_the_limit_and_raises_at_least_the_last() -> None:
    # $1 bet; a raise by $2 (to $3) is at least the $1 before it; then a raise must be by $2.
    steps: list[Step] = [(1, "bet", 100), (2, "raise", 300)]
    for amount, rule in ((400, "wrong_amount"), (600, "wrong_amount")):
        assert refused("draw", DECK, [*steps, (3, "raise", amount)], rules=SPREAD)["rule"] == rule
    result = play("draw", DECK, [*steps, (3, "raise", 500)], rules=SPREAD)
    taken = [(e["action"], e["to"]) for e in events_of(result, "ActionTaken")]
    assert taken == [("bet", 100), ("raise", 300), ("raise", 500)]


def test_no_bet_over_the_limit_nor_in_odd_cents() -> None:
    for amount in (300, 150, 0):
        assert refused("draw", DECK, [(1, "bet", amount)], rules=SPREAD)["rule"] == "wrong_amount"


def test_the_last_round_spreads_up_to_five_dollars() -> None:
    steps: list[Step] = [
        (1, "bet", 100), (2, "call"), (3, "call"),
        (1, "draw", "7h 2d"), (2, "draw", "9c 3s"), (3, "draw", "2c"),
        (2, "bet", 400), (3, "raise", 900), (1, "call"), (2, "fold"),
    ]  # fmt: skip
    result = play("draw", DECK, steps, rules=SPREAD)
    # p3 deals (the $1 ante). Ante 100 + 3 x 100 + 400 + 2 x 900: p1's aces full win 2,600.
    assert net(result) == {"p1": 1600, "p2": -500, "p3": -1100}
    too_big = refused("draw", DECK, [*steps[:6], (2, "bet", 600)], rules=SPREAD)
    assert too_big["rule"] == "wrong_amount"


def test_stud_at_a_spread_table() -> None:
    hands = ("Ah 2h 9c 3c 4c 5c 8d", "As Ks 2c Qs Js Ts 7d", "Ac Kc Kd 7h 6h 5h 4h")
    rules = {**SPREAD, **{k: v for k, v in dealers_choice_options().to_dict().items()
                          if k in ("small_bet", "big_bet", "ante", "ante_mode", "bring_in",
                                   "final_bet_rule", "no_bring_in", "uncap_heads_up",
                                   "open_pair_double_bet")}}  # fmt: skip
    result = play("seven_card_stud_hi_lo", deal_deck(*hands), [(3, "bet", 100)], rules=rules)
    assert [(e["action"], e["to"]) for e in events_of(result, "ActionTaken")] == [("bet", 100)]
