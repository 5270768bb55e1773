"""Test-wide setup: one bearer-token key for every service a test starts in-process.

Services read the key from RIVERBOAT_TOKEN_KEY, so in-process servers, child processes started
with this environment, and the tokens tests mint all agree (and no test writes var/token.key).
"""

from __future__ import annotations

import os

from riverboat.auth import TokenIssuer

TEST_TOKEN_KEY = bytes(range(32))
os.environ["RIVERBOAT_TOKEN_KEY"] = TEST_TOKEN_KEY.hex()


def make_token(subject: str, role: str) -> str:
    """A token every service started by the tests accepts."""
    return TokenIssuer(TEST_TOKEN_KEY).issue(subject, role)
