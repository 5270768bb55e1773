"""``riverboat play`` signing in where a newcomer tripped: after an operator's
``eval "$(riverboat admin login ...)"`` the shell carries ``$RIVERBOAT_TOKEN``, and
``--register --user bob`` must still make and sign in bob (saying the variable was not used);
a new account's password is asked twice. Typed into a pseudo-terminal as a person would."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pexpect
import pytest

from tests.conftest import make_token
from tests.e2e.room._settled import Settled, settled_lobby
from tests.e2e.room.conftest import Room
from tests.e2e.room.test_play_terminal import Screen
from tests.terminal import spawn_in_pty

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
async def settled(room: Room) -> AsyncIterator[Settled]:
    async with settled_lobby(room) as services:
        yield services


async def test_register_flags_beat_the_shells_token_and_the_password_is_asked_twice(
    room: Room, settled: Settled
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_TOKEN")}
    # What `eval "$(riverboat admin login --user boss ...)"` left in the shell.
    env.update(
        TERM="xterm-256color",
        PYTHONPATH=str(REPO),
        RIVERBOAT_TOKEN=make_token("boss", "operator"),
    )
    env.pop("RIVERBOAT_PASSWORD", None)
    process, child = spawn_in_pty(
        [sys.executable, "-m", "riverboat.cli", "play", "--register", "--user", "bob",
         "--lobby", settled.lobby.address, "--table", room.table_address,
         "--settlement", settled.settlement.address],
        env,
    )  # fmt: skip
    screen = Screen(child)
    try:
        await screen.expect(r"\$RIVERBOAT_TOKEN \(it signs in boss\) is not used: --user bob ")
        await screen.expect("password: ")
        screen.send("correct horse")
        await screen.expect("password again: ")
        screen.send("correct hrose")  # a slip: nothing is registered with it
        await screen.expect(r"The passwords differ; type it again\.")
        await screen.expect("password: ")
        screen.send("correct horse")
        await screen.expect("password again: ")
        screen.send("correct horse")
        await screen.expect("Welcome, bob: your account is ready.")
        await screen.expect("Signed in as bob.")
        await screen.expect("lobby> ")
        screen.send("q")
        await screen.expect(pexpect.EOF)
        assert await asyncio.to_thread(process.wait, 10) == 0
        assert "boss" not in screen.text.split("is not used")[1], screen.text
        assert "Traceback" not in screen.text
    finally:
        if process.poll() is None:
            process.kill()
        child.close()
