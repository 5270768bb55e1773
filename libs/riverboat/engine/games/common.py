"""Options shared by several dealer's choice games (see docs/games.md for the full list)."""

from __future__ import annotations

from typing import Final

from riverboat.engine.declare import PIG_FAILURE, PIG_RIDE
from riverboat.engine.game_options import OptionSpec

DECLARE_SPECS: Final = (
    OptionSpec(
        "declaration",
        "simultaneous",
        ("simultaneous", "in_turn"),
        "A-7",
        "simultaneous (house rules): declarations are sealed and revealed together (coins in "
        "a closed fist); in_turn: each player still in declares in turn, clockwise from the "
        "dealer's left, and each declaration is shown to everyone at once.",
    ),
    OptionSpec(
        "pig_failure",
        "losers_never_share",
        PIG_FAILURE,
        "seed (Buderick); A-9, A-11",
        "A PIG who ties or loses either way gets nothing. losers_never_share (the seed, "
        "Buderick's 'a loser can never share in a pot'; house rules 2026-12-01): a way a "
        "failing PIG won pays nobody, everyone else having lost it, so the other way's winner "
        "takes the whole pot; reassign: failing PIGs are removed and each half goes to the "
        "best remaining declarer that way (the default of tables created before 2026-12-01).",
        earlier=((1, "reassign"),),
    ),
    OptionSpec(
        "pig_ride",
        "two_pigs",
        PIG_RIDE,
        "A-10",
        "When the pot rides besides 'no eligible declarer left'. two_pigs: PIGs alone hold the "
        "best high and the best low and all fail (the seed's case); any_pig_tie: also when a "
        "lone PIG wins one way outright and ties the other; no_winner_only: never otherwise.",
    ),
    OptionSpec(
        "bet_after_declare",
        False,
        (False, True),
        "A-6",
        "A betting round (at the big bet) after the declarations are revealed. House rules: no.",
    ),
)

MATCH_SPECS: Final = (
    OptionSpec(
        "match_pot_rank",
        None,
        "rank",
        "A-12",
        "Match the pot or fold: a card of this rank dealt face up obliges its owner to match "
        "the pot as it stood when the card fell (before its own payment), or fold, before the "
        "betting round. Null: off.",
    ),
    OptionSpec(
        "match_bet_percent",
        50,
        (25, 50, 75, 100),
        "seed",
        "In the betting round after a match, the matcher may bet or raise by any whole number "
        "of dollars up to this share of the amount matched; the others by the normal limits.",
    ),
    OptionSpec(
        "match_short_stack",
        "fold",
        ("fold", "all_in"),
        "A-12",
        "A player with less than the pot: must fold (fold), or may match with everything "
        "(all_in). All-in players are never asked to match.",
    ),
)

BOARD_SPECS: Final = (
    OptionSpec(
        "board_tie_break",
        "clockwise",
        ("clockwise", "suit"),
        "A-22",
        "Equal boards showing: the first such player clockwise from the dealer opens "
        "(clockwise), or the one with the highest face-up card by suit (suit).",
    ),
)


def payments_spec(doc: str) -> OptionSpec:
    """The on/off switch of a game's exposed-card payments."""
    return OptionSpec("exposed_card_payments", True, (True, False), "A-13", doc)


def natural_spec() -> OptionSpec:
    """Whether a natural hand beats an equal one made with wild cards."""
    return OptionSpec(
        "natural_beats_wild",
        False,
        (False, True),
        "house rules (wild cards)",
        "Of two equal hands, the one that needs no wild card wins. House rules: off (they split).",
    )


def opener_spec(default: str, allowed: tuple[str, ...], source: str = "A-23") -> OptionSpec:
    """Who opens the betting rounds that are not opened by the best hand showing."""
    return OptionSpec(
        "opener",
        default,
        allowed,
        source,
        "rotate: round k opens with the k-th player still in on the dealer's left (Buderick's "
        "general rule); dealer_left: every round with the first player on the dealer's left; "
        "highest_card: the highest exposed card (15-35).",
    )
