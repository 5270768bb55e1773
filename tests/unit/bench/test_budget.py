"""The room bench's ceilings: the lowest measured costs per action added up."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bench._budget import Budget

_BASE = Budget(
    floor_server_ms=0.75,
    floor_machine_ms=1.5,
    own_ms=0.65,
    choosing_ms=0.05,
    dealer_ms=0.3,
    cores=2,
)


def _budget(**changes: Any) -> Budget:
    return replace(_BASE, **changes)


def test_one_process_is_a_whole_core_over_the_floor_server_and_own_work() -> None:
    assert _budget().one_process == pytest.approx(1000 / 1.4)


def test_the_machine_ceiling_adds_every_cost_and_counts_every_core() -> None:
    budget = _budget()
    assert budget.machine_ms == pytest.approx(1.5 + 0.65 + 0.05 + 0.3)
    assert budget.machine == pytest.approx(2000 / 2.5)
    assert _budget(cores=4).machine == pytest.approx(2 * budget.machine)


def test_the_ceilings_fall_as_any_cost_rises() -> None:
    base = _budget()
    for name in ("floor_machine_ms", "own_ms", "choosing_ms", "dealer_ms"):
        worse = _budget(**{name: getattr(base, name) + 0.1})
        assert worse.machine < base.machine, name
    assert _budget(own_ms=0.75).one_process < base.one_process
    assert _budget(floor_server_ms=0.85).one_process < base.one_process
    # The dealer and the players run in other processes: one table process does not pay them.
    assert _budget(dealer_ms=1.0, choosing_ms=1.0).one_process == base.one_process


def test_the_own_work_allowed_is_what_the_cores_leave_after_floor_and_dealer() -> None:
    budget = _budget()
    allowed = budget.own_ms_allowed(1000)
    assert allowed == pytest.approx(2.0 - 1.5 - 0.3)
    # Own work of exactly that much puts the machine ceiling on the target.
    at_edge = _budget(own_ms=allowed - budget.choosing_ms)
    assert at_edge.machine == pytest.approx(1000)
    # A target the floor and dealer alone exceed leaves nothing.
    assert budget.own_ms_allowed(2000) < 0
