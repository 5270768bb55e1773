"""Hand-evaluation throughput: ours against eval7, treys and PokerKit on the same 7-card hands.

Every library gets the same hands (fixed seed), converted to its own card type before timing,
so the rates measure evaluation only. PokerKit is slow, so it sees a prefix of the hands and its
rate is still per second. Targets: 7-card high >= 0.9x eval7 called directly
(on eval7's own cards) and >= 8x treys; 8-or-better low >= 300,000/s.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

import eval7

from riverboat.engine.cards import Card, card_str
from riverboat.engine.evaluation import high_value, low_value

SEED = 20240601
HANDS = 200_000
TREYS_HANDS = 20_000
POKERKIT_HANDS = 2_000
WILD_HANDS = 50_000
HIGH_TARGET_VS_TREYS = 8.0
HIGH_TARGET_VS_EVAL7 = 0.9
HIGH_REPEATS = 7
LOW_TARGET_PER_SECOND = 300_000.0


def _rate(count: int, body: Callable[[], object], repeats: int = 3) -> float:
    """Evaluations per second, best of ``repeats`` runs of ``body`` (which does ``count``).

    CPU time, not wall time: on a shared machine the wall clock also counts the time other
    processes hold the core.
    """
    return _rates(count, [body], repeats)[0]


def _rates(count: int, bodies: Sequence[Callable[[], object]], repeats: int) -> list[float]:
    """Like :func:`_rate` for several bodies run in turn, so that a burst of load elsewhere
    falls on all of them alike (the ratio of ours to eval7 is the figure that matters)."""
    best = [float("inf")] * len(bodies)
    for _ in range(repeats):
        for i, body in enumerate(bodies):
            start = time.process_time()
            body()
            best[i] = min(best[i], time.process_time() - start)
    return [count / seconds for seconds in best]


def _line(label: str, rate: float | None, note: str = "") -> None:
    shown = f"{rate:>14,.0f}/s" if rate is not None else f"{'not installed':>16}"
    print(f"  {label:<34}{shown}{note}", flush=True)


def _ratio(label: str, ours: float, theirs: float | None, target: float | None = None) -> None:
    if theirs is None:
        return
    ratio = ours / theirs
    verdict = ""
    if target is not None:
        verdict = f"   (target >= {target:g}x: {'met' if ratio >= target else 'MISSED'})"
    print(f"  {label:<34}{ratio:>14,.2f}x{verdict}", flush=True)


def _treys_rate(hands: Sequence[tuple[Card, ...]]) -> float | None:
    try:
        from treys import Card as TreysCard
        from treys import Evaluator
    except ImportError:
        return None
    evaluator = Evaluator()
    split = [
        (
            [TreysCard.new(card_str(c)) for c in hand[:5]],
            [TreysCard.new(card_str(c)) for c in hand[5:]],
        )
        for hand in hands
    ]

    def body() -> None:
        evaluate = evaluator.evaluate
        for board, hole in split:
            evaluate(hole, board)

    return _rate(len(split), body)


def _pokerkit_rates(hands: Sequence[tuple[Card, ...]]) -> tuple[float | None, float | None]:
    try:
        from pokerkit import Card as PkCard
        from pokerkit import EightOrBetterLowHand, StandardHighHand
    except ImportError:
        return None, None
    parsed = [tuple(PkCard.parse("".join(card_str(c) for c in hand))) for hand in hands]

    def high() -> None:
        for cards in parsed:
            StandardHighHand.from_game(cards)

    def low() -> None:
        for cards in parsed:
            EightOrBetterLowHand.from_game_or_none(cards)

    return _rate(len(parsed), high, repeats=1), _rate(len(parsed), low, repeats=1)


def run() -> None:
    rng = random.Random(SEED)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(HANDS)]
    e7_cards = tuple(eval7.Card(card_str(c)) for c in range(52))
    e7_hands = [[e7_cards[c] for c in hand] for hand in hands]

    # Both loops call through a local name, so neither pays a global lookup per hand.
    def ours_high() -> None:
        evaluate = high_value
        for hand in hands:
            evaluate(hand)

    def eval7_high() -> None:
        evaluate = eval7.evaluate
        for cards in e7_hands:
            evaluate(cards)

    def ours_low() -> None:
        for hand in hands:
            low_value(hand)

    def deuces(card: Card) -> bool:
        return card < 4

    def ours_wild() -> None:
        for hand in hands[:WILD_HANDS]:
            high_value(hand, deuces)

    ours_high_rate, eval7_rate = _rates(len(hands), [ours_high, eval7_high], HIGH_REPEATS)
    treys_rate = _treys_rate(hands[:TREYS_HANDS])
    pk_high_rate, pk_low_rate = _pokerkit_rates(hands[:POKERKIT_HANDS])
    ours_low_rate = _rate(len(hands), ours_low)
    wild_rate = _rate(WILD_HANDS, ours_wild, repeats=1)

    print(
        f"7-card high hands (seed {SEED}; {HANDS:,} hands, treys {TREYS_HANDS:,}, "
        f"PokerKit {POKERKIT_HANDS:,}; CPU time, ours and eval7 best of {HIGH_REPEATS} in turn):"
    )
    _line("ours high_value", ours_high_rate)
    _line("eval7.evaluate direct", eval7_rate)
    _line("treys Evaluator.evaluate (5+2)", treys_rate)
    _line("PokerKit StandardHighHand", pk_high_rate)
    _ratio("ours / eval7", ours_high_rate, eval7_rate, HIGH_TARGET_VS_EVAL7)
    _ratio("ours / treys", ours_high_rate, treys_rate, HIGH_TARGET_VS_TREYS)
    _ratio("ours / PokerKit", ours_high_rate, pk_high_rate)
    print("8-or-better lows, same hands:")
    met = "met" if ours_low_rate >= LOW_TARGET_PER_SECOND else "MISSED"
    _line("ours low_value", ours_low_rate, f"   (target >= {LOW_TARGET_PER_SECOND:,.0f}/s: {met})")
    _line("PokerKit EightOrBetterLowHand", pk_low_rate)
    _ratio("ours / PokerKit", ours_low_rate, pk_low_rate)
    print(f"Informational ({WILD_HANDS:,} hands):")
    _line("ours high_value, deuces wild", wild_rate)
