"""The scenario API contract (`riverboat engine run` itself: tests/e2e/cli/test_engine_run.py)."""

from __future__ import annotations

import pytest

from riverboat.engine.errors import InvalidOptions
from riverboat.engine.options import TableOptions, pacific_options
from riverboat.engine.scenario import run
from tests.unit.engine._kit import scenario

HANDS = ["As Ks Ac", "2s 3s 2c"]


def test_result_shape() -> None:
    result = run(scenario(HANDS, [(2, "bring_in"), (1, "complete"), (2, "fold")], button=2))
    assert set(result) >= {"final_stacks", "pots", "rake", "events", "complete"}
    assert result["final_stacks"] == {"p1": 1050, "p2": 950}
    assert result["pots"] == [
        {
            "amount": 100,
            "eligible": ["p1"],
            "high_winners": ["p1"],
            "low_winners": [],
            "shares": {"p1": 100},
        }
    ]
    assert result["events"][0]["type"] == "HandStarted"
    assert result["events"][-1] == {"type": "HandEnded", "stacks": [[1, 1050], [2, 950]]}


def test_illegal_action_names_its_index_and_rule() -> None:
    result = run(scenario(HANDS, [(2, "bring_in"), (2, "call")], button=2))
    error = result["error"]
    assert error["index"] == 1
    assert error["action"] == {"seat": 2, "action": "call"}
    assert error["rule"] == "out_of_turn"
    assert "seat 1" in error["reason"]


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda s: s.pop("seats"), "seats"),
        (lambda s: s.update(deck=["Zz"]), "unknown card"),
        (lambda s: s.update(deck=["As", "As"]), "twice"),
        (lambda s: s.update(rules={"small_bet": -1}), "small_bet"),
        (lambda s: s.update(rules={"colour": "red"}), "unknown rule option"),
        (lambda s: s.update(variant="omaha"), "unknown variant"),
        (lambda s: s.update(button="1"), "button"),
        (lambda s: s.update(actions=[{"seat": 1}]), "action"),
        (lambda s: s.update(surprise=1), "unknown scenario key"),
        (lambda s: s["seats"].append({"seat": 1, "player": "x", "stack": 5}), "seat"),
    ],
)
def test_malformed_input_gets_a_clear_message(mutate, fragment) -> None:  # type: ignore[no-untyped-def]
    bad = scenario(HANDS, [], button=2)
    mutate(bad)
    result = run(bad)
    assert fragment in result["error"]["reason"]
    assert result["error"]["index"] in (None, 0)


def test_rule_keys_of_the_contract() -> None:
    opts = TableOptions.from_dict(
        {
            "ante": 10,
            "bring_in": 25,
            "small_bet": 100,
            "big_bet": 200,
            "max_raises": 4,
            "uncap_heads_up": False,
            "open_pair_double_bet": False,
            "low_qualifier": None,
            "rake_percent": 2.5,
            "rake_cap": 50,
        }
    )
    assert opts.rake_basis_points == 250 and opts.rake_cap(8) == 50
    assert opts.low_qualifier is None and opts.max_raises == 4
    assert TableOptions.from_dict(opts.to_dict()) == opts


def test_pacific_template_defaults() -> None:
    opts = pacific_options()
    assert (opts.small_bet, opts.big_bet, opts.bring_in, opts.ante) == (100, 200, 50, 0)
    assert pacific_options(small_bet=500, big_bet=1000).ante == 200  # $5/$10 -> $2
    assert [opts.rake_cap(n) for n in range(2, 9)] == [100, 100, 200, 200, 300, 300, 300]
    assert opts.uncap_heads_up and opts.open_pair_double_bet and opts.low_qualifier == 8
    with pytest.raises(InvalidOptions):
        pacific_options(big_bet=50)
