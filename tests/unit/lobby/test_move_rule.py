"""Which tables a player may be moved between (riverboat.lobby.state.check_move): one game and
stakes, as rooms balance tables; the target's buy-in range does not limit a moved stack."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from riverboat.lobby.state import ListedTable, LobbyRuleError, check_move, template_options


def _table(table_id: str, template: str = "pacific", **overrides: int) -> ListedTable:
    variant, options = template_options(template, overrides)
    return ListedTable(table_id, table_id, template, variant, options, 30, datetime.now(UTC))


def test_tables_of_one_game_and_stakes_allow_a_move_whatever_their_size() -> None:
    check_move(_table("a"), _table("b"))
    check_move(_table("a"), _table("b", max_players=2))  # seats are no stakes


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        (_table("b", small_bet=200, big_bet=400), "precondition"),
        (_table("b", big_bet=300), "precondition"),
        (_table("b", "dealers_choice"), "precondition"),
        (_table("a"), "invalid"),
    ],
)
def test_other_stakes_another_game_or_the_same_table_are_refused(
    target: ListedTable, kind: str
) -> None:
    with pytest.raises(LobbyRuleError) as refused:
        check_move(_table("a"), target)
    assert refused.value.kind == kind
