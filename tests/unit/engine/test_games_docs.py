"""docs/games.md stays true: its worked examples run to the results it shows, and it lists
every game option, every ambiguity of spec.md section 5 and every action."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from riverboat.engine.commands import GAME_ACTIONS
from riverboat.engine.games import GAMES
from riverboat.engine.scenario import run

DOC = (Path(__file__).parents[3] / "docs" / "games.md").read_text()
EXAMPLES = dict(
    (m.group(1), (json.loads(m.group(2)), json.loads(m.group(3))))
    for m in re.finditer(
        r"<!-- example: (\w+) -->\n```json\n(.*?)\n```.*?<!-- result: \1 -->\n```json\n(.*?)\n```",
        DOC,
        re.S,
    )
)


def _subset(documented: Any, actual: Any) -> None:
    if isinstance(documented, dict):
        for key, value in documented.items():
            assert key in actual, f"{key} missing from the result"
            _subset(value, actual[key])
    elif isinstance(documented, list) and documented and isinstance(documented[0], dict):
        assert len(documented) == len(actual)
        for doc_item, item in zip(documented, actual, strict=True):
            _subset(doc_item, item)
    else:
        assert documented == actual


FILES = sorted((Path(__file__).parents[3] / "docs" / "examples" / "games").glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_example_files_the_docs_run_are_the_worked_examples(path: Path) -> None:
    """docs/games.md runs some examples from files (``riverboat engine run --brief FILE``):
    each is the worked example of the same name, as written in the doc."""
    assert json.loads(path.read_text()) == EXAMPLES[path.stem][0]


def test_there_is_one_worked_example_per_game_and_one_table() -> None:
    assert set(EXAMPLES) == {*GAMES, "seven_card_stud_hi_lo", "table"}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_worked_examples_give_the_results_shown(name: str) -> None:
    scenario, documented = EXAMPLES[name]
    result = run(scenario)
    assert "error" not in result, result["error"]
    _subset(documented, result)


def test_every_game_option_is_documented_with_its_default() -> None:
    for game in GAMES.values():
        for spec in game.specs:
            assert f"| `{spec.name}` |" in DOC, f"{game.name}: {spec.name} is not documented"
            assert spec.source in DOC


def test_every_ambiguity_and_action_is_listed() -> None:
    for n in range(1, 24):
        assert f"| A-{n} |" in DOC, f"A-{n} missing"
    for n in range(1, 13):
        assert f"| B-{n} |" in DOC, f"B-{n} missing"
    for action in (*GAME_ACTIONS, "choose_game", "reshuffle", "timeout"):
        assert f"`{action}`" in DOC, f"{action} missing"
