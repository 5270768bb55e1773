"""The docs' runnable console blocks, run: what README.md and docs/*.md show is what the commands
print.

The marker: a line ``<!-- runnable -->`` right before a fenced block that opens with
```` ```console ````. Inside the block, a line starting ``$ `` is a command (run by bash in the
repository's root, with ``.venv/bin`` first on ``PATH``, so ``riverboat`` and
``.venv/bin/riverboat`` both work; a command line ending in ``\\`` continues on the next line);
the lines up to the next command are what it prints, stdout and stderr together, as a terminal
shows them. Trailing spaces and the blank lines at the end of an output do not count.

Placeholders for what varies from run to run:

- ``<word>`` (lower-case letters, digits, spaces and ``-``, e.g. ``<id>``, ``<port>``,
  ``<time>``) stands for any text within one line;
- a line that is only ``...`` stands for any number of lines (none included).

Mark only blocks that run in seconds and need no server (the engine, ``--help`` excerpts, a
client's message when nothing listens): blocks that need a room stay unmarked. A marked block
whose output no longer matches fails here, naming the file and line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- runnable -->"
PLACEHOLDER = re.compile(r"<[a-z0-9][a-z0-9 -]*>")
ANY_LINES = "..."


@dataclass(frozen=True, slots=True)
class Step:
    """One command of a block and the output the doc shows for it."""

    where: str  # file:line of the command
    command: str
    expected: list[str]


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def runnable_blocks(text: str, name: str) -> list[list[Step]]:
    """Every marked block of a Markdown text, as its commands with their outputs."""
    lines = text.splitlines()
    blocks: list[list[Step]] = []
    for n, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        if n + 1 >= len(lines) or lines[n + 1].strip() != "```console":
            raise AssertionError(f"{name}:{n + 1}: {MARKER} must come right before ```console")
        body: list[tuple[int, str]] = []
        for k in range(n + 2, len(lines)):
            if lines[k].strip() == "```":
                break
            body.append((k + 1, lines[k]))
        else:
            raise AssertionError(f"{name}:{n + 1}: the runnable block is never closed")
        blocks.append(_steps(body, name))
    return blocks


def _steps(body: list[tuple[int, str]], name: str) -> list[Step]:
    steps: list[Step] = []
    command: list[str] = []
    where = ""
    expected: list[str] = []
    continuing = False
    for number, line in body:
        if continuing:
            command.append(line)
            continuing = line.endswith("\\")
        elif line.startswith("$ "):
            if command:
                steps.append(Step(where, "\n".join(command), expected))
            where, command, expected = f"{name}:{number}", [line[2:]], []
            continuing = line.endswith("\\")
        elif not command:
            raise AssertionError(f"{name}:{number}: output before the block's first command")
        else:
            expected.append(line)
    if command:
        steps.append(Step(where, "\n".join(command), expected))
    if not steps:
        raise AssertionError(f"{name}: a runnable block without a command")
    return steps


def _pattern(expected: list[str]) -> re.Pattern[str]:
    """The expected lines as one regular expression over the whole output."""
    parts: list[str] = []
    for line in _trimmed(expected):
        if line.strip() == ANY_LINES:
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        pieces = PLACEHOLDER.split(line.rstrip())
        parts.append("[^\n]*?".join(re.escape(piece) for piece in pieces) + "\n")
    return re.compile("".join(parts))


def _trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected: list[str], output: str) -> bool:
    """Whether ``output`` is what ``expected`` shows, placeholders allowed."""
    actual = "\n".join(_trimmed(output.splitlines()))
    actual = actual + "\n" if actual else ""
    return _pattern(expected).fullmatch(actual) is not None


def run(step: Step) -> str:
    """The command's stdout and stderr together, as a terminal in the repository shows them."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "100",  # argparse wraps --help to the terminal's width
        "PYTHONUNBUFFERED": "1",  # stdout and stderr in the order they were written
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        ["bash", "-c", step.command],
        stdin=subprocess.DEVNULL,  # a prompt reads end of file rather than waiting
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )
    return done.stdout


def _all_steps() -> list[Step]:
    return [
        step
        for path in doc_files()
        for block in runnable_blocks(path.read_text(), str(path.relative_to(ROOT)))
        for step in block
    ]


STEPS = _all_steps()


@pytest.mark.parametrize("step", STEPS, ids=[step.where for step in STEPS])
def test_a_runnable_block_prints_what_the_doc_shows(step: Step) -> None:
    output = run(step)
    assert matches(step.expected, output), (
        f"{step.where}: `{step.command}` printed\n{output}\nbut the doc shows\n"
        + "\n".join(step.expected)
    )


def test_the_docs_have_runnable_blocks() -> None:
    """The marker is in use (a renamed marker would otherwise leave nothing checked)."""
    assert len(STEPS) >= 5, [step.where for step in STEPS]


def test_a_block_whose_output_is_wrong_fails() -> None:
    """The checker itself: a wrong line, a missing line, an extra line all fail; placeholders
    and ``...`` match what varies."""
    doc = "\n".join(
        [
            "text",
            MARKER,
            "```console",
            "$ printf 'id 42\\nb\\nc\\nd\\n'; \\",
            "  echo done",
            "id <id>",
            "...",
            "d",
            "done",
            "```",
        ]
    )
    [[step]] = runnable_blocks(doc, "example.md")
    assert step.command == "printf 'id 42\\nb\\nc\\nd\\n'; \\\n  echo done"
    output = run(step)
    assert matches(step.expected, output)
    assert not matches(["id <id>", "...", "e", "done"], output)  # a wrong line
    assert not matches(["id <id>", "b", "c", "d"], output)  # a line missing
    assert not matches(["id 42", "b", "c", "d", "done", "more"], output)  # a line too many
    assert not matches(["id 43", "...", "done"], output)  # a wrong value
    assert matches(["id 42", "b", "c", "d", "done", ""], output + "\n\n")  # trailing blanks


def test_a_marker_must_sit_right_before_a_console_block() -> None:
    with pytest.raises(AssertionError, match="right before"):
        runnable_blocks(f"{MARKER}\n\n```console\n$ true\n```\n", "example.md")
    with pytest.raises(AssertionError, match="never closed"):
        runnable_blocks(f"{MARKER}\n```console\n$ true\n", "example.md")
