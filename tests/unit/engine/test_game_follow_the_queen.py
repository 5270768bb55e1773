"""Follow the Queen (Buderick), golden scenarios: the wild rank as cards fall, and its antes."""

from __future__ import annotations

from typing import Any

from tests.unit.engine._games_kit import CHECKS, Step, deal_deck, events_of, play, play_plan

GAME = "follow_the_queen"
NO_RAKE = {"rake_percent": 0}
ALL_CHECK: list[Step] = [CHECKS] * 5


def showdown(*hands: str, **kw: Any) -> dict[str, Any]:
    return play_plan(GAME, deal_deck(*hands), ALL_CHECK, rules=NO_RAKE, **kw)


def wilds(result: dict[str, Any]) -> list[tuple[str | None, bool]]:
    return [(e["rank"], e["awaiting"]) for e in events_of(result, "WildRankChanged")]


def payments(result: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(e["seat"], e["card"], e["amount"]) for e in events_of(result, "CardPaymentPosted")]


def shown(result: dict[str, Any]) -> dict[int, str]:
    return {e["seat"]: e["high_text"] for e in events_of(result, "HandShown")}


# Face-up cards fall Qh (p1), 8s (p2), 8d (p3): eights follow the queen.
P1 = "2c 3c Qh 9d Tc Jc 4d"
P2 = "5c 6c 8s Ks 4s 3s 7d"
P3 = "Ah Ad 8d 5h 6h 7h 9c"


def test_the_card_after_a_face_up_queen_makes_its_rank_wild() -> None:
    result = showdown(P1, P2, P3)
    assert wilds(result) == [(None, True), ("8", False)]
    # Two antes for the queen; one each for the eights dealt face up (now wild).
    assert payments(result) == [(1, "Qh", 200), (2, "8s", 100), (3, "8d", 100)]
    # p3: A-5-6-7 of hearts and the 8d (wild): a flush, ace-king high.
    assert shown(result)[3] == "flush, A-K-7-6-5"
    assert result["pots"][0]["high_winners"] == ["p3"]


def test_a_later_queen_cancels_and_the_next_card_names_the_new_rank() -> None:
    result = showdown(P1, "5c 6c 8s Qs 4s 3s 7d", P3)
    # Qh -> eights; then Qs cancels them and p3's 5h makes fives wild.
    assert wilds(result) == [(None, True), ("8", False), (None, True), ("5", False)]
    assert payments(result)[-2:] == [(2, "Qs", 200), (3, "5h", 100)]


def test_a_queen_after_a_queen_waits_for_the_next_card() -> None:
    result = showdown(P1, "5c 6c Qs Ks 4s 3s 7d", P3)
    # Qh, Qs in a row: the 8d (p3's door card) names the rank.
    assert wilds(result) == [(None, True), ("8", False)]
    assert payments(result)[:3] == [(1, "Qh", 200), (2, "Qs", 200), (3, "8d", 100)]


def test_a_face_up_card_that_becomes_wild_costs_an_ante_once() -> None:
    hands = ("2c 3c 9d Qh Tc Jc 4d", "5c 6c Qs 9s 4s 3s 7d", "Ah Ad 5h 6h 8d 7h 9c")
    result = showdown(*hands)
    # 3rd street: 9d, Qs, 5h (fives). 4th: Qh cancels, 9s names nines: p2 pays for the 9s,
    # and p1's 9d, already face up, becomes wild: one ante.
    assert wilds(result) == [(None, True), ("5", False), (None, True), ("9", False)]
    assert payments(result) == [
        (2, "Qs", 200), (3, "5h", 100), (1, "Qh", 200), (2, "9s", 100), (1, "9d", 100),
    ]  # fmt: skip
    off = showdown(*hands, options={"made_wild_payment": False})
    assert (1, "9d", 100) not in payments(off)


def test_face_down_cards_never_change_the_wild_rank() -> None:
    result = showdown("Qc Qd 9d Ks Tc Jc Qs", "5c 6c 8s 4h 4s 3s 7d", P3)
    assert wilds(result) == []
    assert payments(result) == []


def test_a_last_face_up_queen_leaves_only_queens_wild() -> None:
    result = showdown(P1, P2, "Ah Ad 8d 5h 6h Qd 9c")
    assert wilds(result)[-1] == (None, True)
    # Eights are no longer wild: p3's 8d is an eight, the Qd its only wild card.
    assert shown(result)[3] == "straight, nine high"


def test_queens_wild_option_off() -> None:
    result = showdown(P1, P2, P3, options={"queens_wild": False})
    # p1's queen is now just a queen.
    assert shown(result)[1].startswith("high card") or shown(result)[1].startswith("pair")


def test_the_wild_rank_counts_on_the_board() -> None:
    # 3rd street: p1's Qh and p2's 8s are wild (aces on the board), p1 first clockwise.
    # 4th street: p2's 8s 8c, both wild, a pair of aces, above p3's tens.
    deck = deal_deck(P1, "5c 6c 8s 8c", "Ah Ad Th Td")
    result = play(GAME, deck, [(1, "check"), (2, "check"), (3, "check")], rules=NO_RAKE)
    assert [e["first_to_act"] for e in events_of(result, "BettingRoundStarted")] == [1, 2]


def test_payments_can_be_switched_off() -> None:
    result = showdown(P1, P2, P3, options={"exposed_card_payments": False})
    assert payments(result) == [] and wilds(result) == [(None, True), ("8", False)]


def test_declared_high_low_a_wild_card_making_the_low() -> None:
    # p2: 3-4-5-6 and the 8s (wild): the wild plays as the lowest missing rank, an ace.
    plan: list[Step] = [
        *ALL_CHECK, (1, "declare", "high"), (2, "declare", "low"), (3, "declare", "high"),
    ]  # fmt: skip
    result = play_plan(
        GAME, deal_deck(P1, P2, P3), plan, rules=NO_RAKE, options={"split": "declare"}
    )
    lows = {e["seat"]: e["low_text"] for e in events_of(result, "HandShown")}
    assert lows[2] == "6-5-4-3-A"
    pot = result["pots"][0]
    assert (pot["high_winners"], pot["low_winners"]) == (["p3"], ["p2"])
