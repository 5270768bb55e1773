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

from riverboat.auth import TokenIssuer

# The nats-server fixtures (tests/natsfixtures.py) serve the contract, integration and e2e
# tiers; pytester runs planted tests in-process (tests/unit/test_no_io.py).
pytest_plugins = ["pytester", "tests.natsfixtures"]

TEST_TOKEN_KEY = bytes(range(32))
os.environ["RIVERBOAT_TOKEN_KEY"] = TEST_TOKEN_KEY.hex()

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier; refuse a test that sits in none."""
    for item in items:
        tier = tier_of(item.path)
        if tier is None:
            if item.path.resolve().is_relative_to(TESTS.resolve()):
                raise pytest.UsageError(
                    f"{item.nodeid}: every test lives in a tier ({', '.join(TIERS)}): move it"
                )
            continue  # a planted test run by pytester, outside tests/
        item.add_marker(getattr(pytest.mark, tier))
