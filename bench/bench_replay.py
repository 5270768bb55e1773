"""Hand replay throughput: our engine against PokerKit on the same recorded stud hi/lo hands.

Random 6-player hands of seven-card stud hi/lo (fixed seed, PokerKit-compatible rules: see
``bench/_studgen.py``) are recorded once, before any timing, as their commands, their events
and a PokerKit script. Then, in hands per second:

(a) ours, replay: ``decide`` + ``fold`` for every command, from ``StartHand`` to the payout,
    i.e. validating and applying every action, the work a table service does;
(b) ours, fold only: folding the recorded events (rebuilding a hand from its log);
(c) PokerKit: ``create_state`` + dealing the same cards + the same actions, automations on.

Target: (a) >= 30x (c). Then (a) and (b) against the engine before issue #14's one engine, on
the same hands in the same run (``bench/_before.py``): no lower than before.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable

from bench._before import BEFORE, Hand, compare, engines, header, row
from bench._studgen import RecordedHand, new_pokerkit_hand, record_hand, run_steps
from riverboat.engine.game import fold, step
from riverboat.engine.state import HandState

SEED = 20240601
PLAYERS = 6
HANDS = 600
#: PokerKit is slow: it replays a prefix of the hands (its rate is still per hand).
POKERKIT_HANDS = 300
REPLAY_TARGET_VS_POKERKIT = 30.0
#: Repeats of the before/after timings (each chunk of hands' best counts).
BEFORE_REPEATS = 7


def _rate(count: int, body: Callable[[], object], repeats: int = 3) -> float:
    """Hands per second, best of ``repeats`` runs of ``body`` (which plays ``count`` hands)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        body()
        best = min(best, time.perf_counter() - start)
    return count / best


def _line(label: str, rate: float) -> None:
    print(f"  {label:<40}{rate:>12,.0f} hands/s", flush=True)


def _ratio(label: str, ours: float, theirs: float, target: float | None = None) -> None:
    ratio = ours / theirs
    verdict = ""
    if target is not None:
        verdict = f"   (target >= {target:g}x: {'met' if ratio >= target else 'MISSED'})"
    print(f"  {label:<40}{ratio:>12,.1f}x{verdict}", flush=True)


def run() -> None:
    rng = random.Random(SEED)
    hands = [record_hand(rng, f"bench-{k}", PLAYERS) for k in range(HANDS)]
    logs = [hand.events for hand in hands]
    finals: list[HandState] = []

    def ours_replay() -> None:
        finals.clear()
        for hand in hands:
            finals.append(_replay(hand))

    def ours_fold() -> None:
        for events in logs:
            fold(events)

    # PokerKit's arguments are prepared outside the timing, like our recorded commands.
    starts = [fold(hand.events[:1]) for hand in hands[:POKERKIT_HANDS]]
    pk_setup = [(s.options, s.starting_stacks) for s in starts]
    scripts = [hand.pokerkit_steps for hand in hands[:POKERKIT_HANDS]]
    pk_finals: list[tuple[int, ...]] = []

    def pokerkit_replay() -> None:
        pk_finals.clear()
        with warnings.catch_warnings():
            # Its "chips will be burned" warning (a known rule difference) is not our concern.
            warnings.simplefilter("ignore")
            for (options, stacks), steps in zip(pk_setup, scripts, strict=True):
                pk = new_pokerkit_hand(options, stacks)
                run_steps(pk, steps)
                pk_finals.append(tuple(pk.stacks))

    replay_rate = _rate(HANDS, ours_replay)
    fold_rate = _rate(HANDS, ours_fold)
    pokerkit_rate = _rate(POKERKIT_HANDS, pokerkit_replay, repeats=2)

    # The replays must reproduce the recorded hands, or the rates would mean nothing.
    for hand, final in zip(hands, finals, strict=True):
        assert final == fold(hand.events), f"{hand.start.hand_id}: replay differs from record"
    agree = sum(
        tuple(final.stacks) == theirs for final, theirs in zip(finals, pk_finals, strict=False)
    )
    actions = sum(len(hand.commands) for hand in hands)
    events = sum(len(log) for log in logs)

    print(
        f"Seven-card stud hi/lo, {PLAYERS} players (seed {SEED}; {HANDS:,} hands, "
        f"{actions / HANDS:.1f} actions and {events / HANDS:.1f} events per hand; "
        f"PokerKit {POKERKIT_HANDS:,} hands):"
    )
    _line("(a) ours: decide + fold every command", replay_rate)
    _line("(b) ours: fold the recorded events", fold_rate)
    _line("(c) PokerKit: create, deal, act", pokerkit_rate)
    _ratio("(a) ours replay / PokerKit", replay_rate, pokerkit_rate, REPLAY_TARGET_VS_POKERKIT)
    _ratio("(b) ours fold / PokerKit", fold_rate, pokerkit_rate)
    print(
        f"  PokerKit's final stacks equal ours in {agree}/{POKERKIT_HANDS} hands "
        "(the rest: odd-chip and low-half rule differences, see the differential test)"
    )
    _against_before(hands)


def _against_before(hands: list[RecordedHand]) -> None:
    """(a) and (b) against the engine before the one engine, on the same hands."""
    print(f"Against the engine before the one engine ({BEFORE}), the same {HANDS:,} hands:")
    recorded: list[Hand] = [(h.start, h.commands, [h.start.deck] * len(h.commands)) for h in hands]
    with engines({"pacific": (recorded, [h.events for h in hands])}) as both:
        if isinstance(both, str):
            print(f"  skipped: {both}")
            return
        differ = both.before.differing("pacific")
        assert not differ, f"the engine before decides hands {differ[:5]} differently"
        header("")
        for label, what in (("(a) replay", "replay"), ("(b) fold", "fold")):
            row(label, HANDS, compare(both, what, "pacific", HANDS, BEFORE_REPEATS))
        now, before = both.now.calls("pacific"), both.before.calls("pacific")
        print(
            f"  (a) replay's function calls per hand (not timed: the same on any load): "
            f"before {before / HANDS:,.0f}, now {now / HANDS:,.0f} ({now / before:.2f}x)"
        )


def _replay(hand: RecordedHand) -> HandState:
    """Our engine plays a recorded hand from its commands, validating every one."""
    start = hand.start
    deck = start.deck
    state = step(None, start)[1]
    for command in hand.commands:
        state = step(state, command, deck)[1]
    return state
