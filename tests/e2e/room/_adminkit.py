"""``riverboat admin`` run as an operator runs it, against a test's room (tests/e2e/room): each
command line as typed, its status and what it printed."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from riverboat.cli import main
from tests.e2e.room._settled import settled_lobby
from tests.e2e.room.conftest import Room

REPO = Path(__file__).resolve().parents[3]


@dataclass
class Result:
    """What a command did."""

    status: int
    out: str
    err: str


@dataclass
class Admin:
    """Runs ``riverboat admin`` against one room.

    ``shell=True`` runs it as its own process, exactly as typed; otherwise the same command
    line runs in a thread of this process (the CLI's start-up costs a second or more per
    process, and the settlement stand-in must keep serving from this event loop either way).
    """

    lobby: str
    settlement: str
    table: str
    token: str = ""

    async def __call__(self, *argv: str, token: str | None = None, shell: bool = False) -> Result:
        token = self.token if token is None else token
        full = [
            "admin",
            *argv,
            *([] if "--lobby" in argv else ["--lobby", self.lobby]),
            "--settlement",
            self.settlement,
        ]
        result = await (self._process(full, token) if shell else self._thread(full, token))
        assert "Traceback" not in result.out + result.err, result.err
        return result

    async def _process(self, argv: list[str], token: str) -> Result:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_TOKEN")}
        env.update(PYTHONPATH=str(REPO), COLUMNS="160")
        if token:
            env["RIVERBOAT_TOKEN"] = token
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "riverboat.cli",
            *argv,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        return Result(process.returncode or 0, out.decode(), err.decode())

    async def _thread(self, argv: list[str], token: str) -> Result:
        def run() -> Result:
            out, err = io.StringIO(), io.StringIO()
            # The same terminal as _process gives (pytest-xdist's workers set COLUMNS=80).
            saved = {k: os.environ.pop(k, None) for k in ("RIVERBOAT_TOKEN", "COLUMNS")}
            os.environ["COLUMNS"] = "160"
            if token:
                os.environ["RIVERBOAT_TOKEN"] = token
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    status = main(argv)
            finally:
                for key, value in saved.items():
                    os.environ.pop(key, None)
                    if value is not None:
                        os.environ[key] = value
            return Result(status, out.getvalue(), err.getvalue())

        return await asyncio.to_thread(run)


@asynccontextmanager
async def admin_room(room: Room) -> AsyncIterator[Admin]:
    """The room's lobby and settlement service started, and ``riverboat admin`` pointed at
    them (no token yet: log in first)."""
    async with settled_lobby(room) as services:
        yield Admin(services.lobby.address, services.settlement.address, room.table_address)


def rows(text: str) -> list[list[str]]:
    """The body rows of a Rich table drawn with boxes (``│ a │ b │``), as cell texts; a cell
    wrapped over several lines is joined with spaces."""
    out: list[list[str]] = []
    body = False
    for line in text.splitlines():
        if line.startswith(("┡", "├")):
            body = True
            continue
        if line.startswith("└"):
            body = False
        if not body or not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.strip().strip("│").split("│")]
        first = cells[0] or None
        if first is None and out:  # a wrapped row goes on
            out[-1] = [f"{a} {b}".strip() for a, b in zip(out[-1], cells, strict=True)]
        else:
            out.append(cells)
    return out
