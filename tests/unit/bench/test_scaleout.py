"""The scale-out bench's arithmetic: CPU % of a core over a window -> ms per accepted action."""

from __future__ import annotations

import math

import pytest

from bench._room import WindowResult
from bench.bench_scaleout import Row


def _row(actions: int, seconds: float, cpu: dict[str, float]) -> Row:
    result = WindowResult(seconds, [0.01] * actions, [], 1, 1, 0.0)
    return Row(instances=1, tables=1, result=result, cpu=cpu)


def test_half_a_core_for_ten_seconds_over_a_thousand_actions_is_five_ms_each() -> None:
    row = _row(1000, 10.0, {"table-1": 50.0})
    assert row.ms_per_action("table-1") == pytest.approx(5.0)


def test_no_actions_is_not_a_number_rather_than_a_division_by_zero() -> None:
    assert math.isnan(_row(0, 10.0, {"table-1": 50.0}).ms_per_action("table-1"))
