"""Programs run on a pseudo-terminal for tests that read what a person would see."""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import termios
from pathlib import Path

from pexpect.fdpexpect import fdspawn

__all__ = ["spawn_in_pty"]


def spawn_in_pty(
    argv: list[str],
    env: dict[str, str],
    rows: int = 50,
    columns: int = 150,
    cwd: Path | None = None,
    timeout: float = 20,
) -> tuple[subprocess.Popen[bytes], fdspawn[str]]:
    """Run ``argv`` on a new pseudo-terminal; pexpect reads and types on its master side.

    Not ``pexpect.spawn``: it forks and runs Python in the child, which is unsafe in this
    process once gRPC's threads run (the child can die in gRPC's fork handling before it
    execs, leaving only "epoll_wait error: Bad file descriptor" on the terminal);
    ``subprocess`` starts children the safe way, as the room's services are started.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    # The terminal's size is the pty's: COLUMNS and LINES (pytest-xdist sets COLUMNS=80)
    # would override it for rich, wrapping lines the test reads whole.
    env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}
    try:
        process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd)
    finally:
        os.close(slave)  # the child holds it now: its exit is our end of file
    # Bytes of one character can reach the master apart: the terminal's echo of a typed line
    # lands between two chunks of a long screen the child is still writing (seen on CI:
    # "invalid continuation byte" after a box-drawing character's first byte). A person's
    # terminal shows one garbled character there; so does the transcript, instead of failing.
    return process, fdspawn(master, encoding="utf-8", codec_errors="replace", timeout=timeout)
