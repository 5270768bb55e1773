"""Chicago (high spade in the hole), Buderick's seed version with declarations; "Game may be
played as high or low Chicago": with ``chicago: low`` the spade half goes to the lowest spade in
the hole (the deuce lowest, the ace high, as pagat's Low Chicago)."""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.cards import card_str, rank_of
from riverboat.engine.declare import HIGH, SPADE
from riverboat.engine.evaluation import describe_high, high_value
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import BOARD_SPECS, DECLARE_SPECS, MATCH_SPECS
from riverboat.engine.games.stud_family import StudFamily
from riverboat.engine.phases import hole_spades
from riverboat.engine.state import HandState


class Chicago(StudFamily):
    """Chicago: half the pot to the highest (low Chicago: lowest) spade in the hole, half to
    the best hand."""

    name = "chicago"
    title = "Chicago"
    ways = (SPADE, HIGH)
    specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "chicago",
            "high",
            ("high", "low"),
            "seed (Chicago)",
            "The seed: 'Game may be played as high or low Chicago'. high: half the pot to the "
            "highest spade in the hole; low: to the lowest spade in the hole (2 lowest, ace "
            "high). The other half goes to the best poker hand either way.",
            since=2,
        ),
        OptionSpec(
            "split",
            "declare",
            ("declare", "cards_speak"),
            "A-20",
            "declare: players declare spade (1 coin), high (2) or both (3), PIG rules apply "
            "(house rules); cards_speak: the best hand and the highest hole spade split "
            "automatically. Either way, with no spade in the hole the high hand takes all.",
        ),
        *DECLARE_SPECS,
        *BOARD_SPECS,
        *MATCH_SPECS,
    )

    def declares(self, s: HandState) -> bool:
        return s.game_options.text("split") == "declare"

    def declare_ways(self, s: HandState, i: int) -> tuple[str, ...]:
        # A player with no spade in the hole may not go spade (nor both).
        return super().declare_ways(s, i) if hole_spades(s, i) else (HIGH,)

    def high(self, s: HandState, i: int) -> tuple[int, str]:
        value = high_value(s.cards[i] + s.community)
        return value, describe_high(value)

    def low(self, s: HandState, i: int) -> tuple[int, str] | None:
        spades = hole_spades(s, i)
        if not spades:
            return None
        if s.game_options.get("chicago") == "low":  # absent before edition 2: high Chicago
            lowest = min(spades)
            return rank_of(lowest), f"low spade in the hole, {card_str(lowest)}"
        best = max(spades)
        return 12 - rank_of(best), f"high spade in the hole, {card_str(best)}"
