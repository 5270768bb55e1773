"""Chicago (high spade in the hole), Buderick's seed version with declarations."""

from __future__ import annotations

from typing import ClassVar

from riverboat.engine.cards import card_str, rank_of
from riverboat.engine.declare import HIGH, SPADE
from riverboat.engine.evaluation import describe_high, high_value
from riverboat.engine.game_options import OptionSpec
from riverboat.engine.games.common import BOARD_SPECS, DECLARE_SPECS, MATCH_SPECS
from riverboat.engine.games.stud_family import StudFamily
from riverboat.engine.gamestate import GameHandState
from riverboat.engine.phases import hole_spades


class Chicago(StudFamily):
    """Chicago: half the pot to the highest spade in the hole, half to the best hand."""

    name = "chicago"
    title = "Chicago"
    ways = (SPADE, HIGH)
    specs: ClassVar[tuple[OptionSpec, ...]] = (
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

    def declares(self, s: GameHandState) -> bool:
        return s.game_options.text("split") == "declare"

    def declare_ways(self, s: GameHandState, i: int) -> tuple[str, ...]:
        # A player with no spade in the hole may not go spade (nor both).
        return super().declare_ways(s, i) if hole_spades(s, i) else (HIGH,)

    def high(self, s: GameHandState, i: int) -> tuple[int, str]:
        value = high_value(s.cards[i] + s.community)
        return value, describe_high(value)

    def low(self, s: GameHandState, i: int) -> tuple[int, str] | None:
        spades = hole_spades(s, i)
        if not spades:
            return None
        best = max(spades)
        return 12 - rank_of(best), f"high spade in the hole, {card_str(best)}"
