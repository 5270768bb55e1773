"""No service makes up a secret: without the token key (or the dealer without its sealing key)
each of the four refuses to start with one line naming the setting and exit status 2, and
creates no key file. The other side, ``riverboat up`` making the room's keys and passing them
explicitly, is tests/e2e/test_cli_up.py (run without the tests' keys)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from riverboat.auth import TokenKeyError, load_token_key
from riverboat.auth.tokens import ENV_KEY, ENV_KEY_FILE

SECRETS = (
    "RIVERBOAT_TOKEN_KEY",
    "RIVERBOAT_TOKEN_KEY_FILE",
    "RIVERBOAT_DEALER_KEY",
    "RIVERBOAT_DEALER_KEY_FILE",
)
TOKEN_KEY = "ab" * 32


def _serve(service: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in SECRETS}
    return subprocess.run(
        [sys.executable, "-m", "riverboat.cli", service, "serve", "--address", "127.0.0.1:0"],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("service", ["lobby", "table", "dealer", "settlement"])
def test_a_service_without_the_token_key_does_not_start(service: str, tmp_path: Path) -> None:
    done = _serve(service, tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "no token key" in lines[0] and "RIVERBOAT_TOKEN_KEY" in lines[0]
    assert list(tmp_path.iterdir()) == []  # no key file made up, no var/ created


def test_the_dealer_without_a_sealing_key_does_not_start(tmp_path: Path) -> None:
    done = _serve("dealer", tmp_path, RIVERBOAT_TOKEN_KEY=TOKEN_KEY)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "no sealing key" in lines[0] and "--seal-key-file" in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_a_malformed_token_key_is_named_and_not_shown(tmp_path: Path) -> None:
    done = _serve("table", tmp_path, RIVERBOAT_TOKEN_KEY="zz-secret-zz")
    assert done.returncode == 2
    assert "RIVERBOAT_TOKEN_KEY" in done.stderr and "zz-secret-zz" not in done.stderr
    assert "Traceback" not in done.stderr


def test_load_token_key_never_creates_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_KEY, raising=False)
    monkeypatch.delenv(ENV_KEY_FILE, raising=False)
    file = tmp_path / "var" / "token.key"
    with pytest.raises(TokenKeyError, match=ENV_KEY):
        load_token_key(file)
    assert not file.exists()
    made = load_token_key(file, create=True)  # what riverboat up does
    assert len(made) == 32 and (file.stat().st_mode & 0o777) == 0o600
    assert load_token_key(file) == made == load_token_key(file, create=True)
    monkeypatch.setenv(ENV_KEY_FILE, str(file))
    assert load_token_key() == made
    file.write_text("ab" * 8)
    with pytest.raises(TokenKeyError, match="at least 32 bytes"):
        load_token_key()
