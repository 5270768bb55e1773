"""Standard input read line by line without blocking the event loop."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console

from riverboat.cli.play.reader import LineReader
from riverboat.cli.play.render import help_table


async def test_lines_from_a_pipe_then_the_end() -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end) as stream:
        reader = LineReader(stream)
        reader.start()
        os.write(write_end, b"j 1 40\nc\r\nhalf")
        assert await reader.readline() == "j 1 40"
        assert await reader.readline() == "c"
        os.write(write_end, b" line\n")
        assert await reader.readline() == "half line"
        os.close(write_end)
        assert await reader.readline() is None
        assert await reader.readline() is None  # stays at the end
        reader.close()


async def test_lines_from_a_regular_file(tmp_path: Path) -> None:
    moves = tmp_path / "moves.txt"
    moves.write_text("t\nq")  # no newline after the last line
    with moves.open() as stream:
        reader = LineReader(stream)
        reader.start()  # a file cannot be polled: a thread reads it
        assert [await reader.readline() for _ in range(3)] == ["t", "q", None]
        reader.close()


def test_help_names_every_command() -> None:
    console = Console(width=120, record=True, color_system=None)
    console.print(help_table())
    lines = [line.split() for line in console.export_text().splitlines()]
    assert {"t", "j", "w", "c", "b", "i", "k", "f", "s", "l", "bal", "h", "q"} <= {
        words[0] for words in lines if words
    }
