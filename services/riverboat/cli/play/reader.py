"""Standard input for ``riverboat play``, read without blocking the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from typing import TextIO


class LineReader:
    """Lines from standard input without blocking the event loop.

    A terminal or pipe is watched with ``add_reader``; a regular file (``< moves.txt``), which
    cannot be polled, is read by a daemon thread (daemon: quitting must not wait for Enter).
    """

    def __init__(self, stream: TextIO) -> None:
        self.fd = stream.fileno()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._buffer = b""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._polled = False
        self._eof = False

    def start(self) -> None:
        """Begin reading."""
        self._loop = asyncio.get_running_loop()
        try:
            self._loop.add_reader(self.fd, self._readable)
            self._polled = True
        except (OSError, ValueError, NotImplementedError):
            threading.Thread(target=self._read_blocking, daemon=True).start()

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        self._feed(data)

    def _read_blocking(self) -> None:
        assert self._loop is not None
        while True:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            with contextlib.suppress(RuntimeError):  # the loop closed: we are quitting
                self._loop.call_soon_threadsafe(self._feed, data)
            if not data:
                return

    def _feed(self, data: bytes) -> None:
        if not data:
            self.close()
            if self._buffer:
                self.queue.put_nowait(self._buffer.decode(errors="replace"))
                self._buffer = b""
            self.queue.put_nowait(None)
            return
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self.queue.put_nowait(line.decode(errors="replace").rstrip("\r"))

    async def readline(self) -> str | None:
        """The next line without its newline; None at the end of input."""
        if self._eof:
            return None
        line = await self.queue.get()
        if line is None:
            self._eof = True
        return line

    def close(self) -> None:
        """Stop watching standard input."""
        if self._polled and self._loop is not None:
            self._loop.remove_reader(self.fd)
            self._polled = False
