"""Test-wide setup: the tiers, the shared nats-server fixtures, one bearer-token key.

Every test lives in one tier, by directory (docs/testing.md): ``tests/unit`` (no I/O),
``tests/contract`` (one abstract suite per port; the in-memory implementations),
``tests/integration`` (adapters against real servers) and ``tests/e2e`` (the whole room as
processes, the CLI, the deployment). Each test gets its tier's marker, so ``-m unit`` and
``-m "not e2e"`` select by tier as well as by path; a test file outside a tier is an error.

Services read the key from RIVERBOAT_TOKEN_KEY, so in-process servers, child processes started
with this environment, and the tokens tests mint all agree (and no test writes var/token.key).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from riverboat import natsserver
from riverboat.auth import TokenIssuer

# The nats-server fixtures (tests/natsfixtures.py) serve the contract, integration and e2e
# tiers; pytester runs planted tests in-process (tests/unit/test_no_io.py).
pytest_plugins = ["pytester", "tests.natsfixtures"]

TEST_TOKEN_KEY = bytes(range(32))
os.environ["RIVERBOAT_TOKEN_KEY"] = TEST_TOKEN_KEY.hex()


def _own_ports() -> None:
    """Give each pytest-xdist worker (and the processes it starts) a port range of its own.

    A crash test restarts its services on the ports they had; while one is down, another
    worker drawing a free port could take it, and the restart fails (CI saw a settlement
    that "did not start": address already in use).
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if worker.startswith("gw") and count.isdigit() and natsserver.PORT_RANGE_ENV not in os.environ:
        index = int(worker.removeprefix("gw"))
        os.environ[natsserver.PORT_RANGE_ENV] = natsserver.port_slice(index, int(count))


_own_ports()

TESTS = Path(__file__).parent
TIERS = ("unit", "contract", "integration", "e2e")


def make_token(subject: str, role: str) -> str:
    """A token every service started by the tests accepts."""
    return TokenIssuer(TEST_TOKEN_KEY).issue(subject, role)


def tier_of(path: Path) -> str | None:
    """The tier a test file belongs to (its first directory under tests/), or None."""
    try:
        first = path.resolve().relative_to(TESTS.resolve()).parts[0]
    except (ValueError, IndexError):
        return None
    return first if first in TIERS else None


def start_order(item: pytest.Item) -> int:
    """When a test should start: the long ones (marked ``slow`` or ``battery``) first, then
    the tiers from the longest tests to the shortest (e2e, integration, contract, unit)."""
    if any(item.get_closest_marker(name) for name in ("slow", "battery")):
        return 0
    tier = tier_of(item.path)
    return 1 + ("e2e", "integration", "contract", "unit").index(tier) if tier else 5


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark each test with its tier (before ``-m`` selects); refuse a test that sits in none."""
    tier = tier_of(item.path)
    if tier is not None:
        item.add_marker(getattr(pytest.mark, tier))
    elif item.path.resolve().is_relative_to(TESTS.resolve()):
        raise pytest.UsageError(
            f"{item.nodeid}: every test lives in a tier ({', '.join(TIERS)}): move it"
        )
    # Otherwise a planted test run by pytester, outside tests/.


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Long tests first (:func:`start_order`; after any selection by other plugins).

    ``make test`` hands tests out one or two at a time (``--maxschedchunk 1``), so the long
    tests start on the workers' first turns and the many short unit tests fill in at the end,
    instead of one long test running alone while the other workers idle. The sort is stable:
    within a group, tests keep their order (a module's tests stay together).
    """
    items.sort(key=start_order)
