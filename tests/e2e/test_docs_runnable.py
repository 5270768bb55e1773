"""The docs' runnable console blocks, run: what README.md, deploy/README.md and docs/*.md show
is what the commands print.

Two markers, each on the line right before a fenced block that opens with ```` ```console ````:

- ``<!-- runnable -->``: a block that needs no server (the engine, ``--help`` excerpts, a
  client's message when nothing listens, a service refusing to start). It runs in a bare
  directory holding only ``.venv`` and ``docs`` (links to the repository's), so no ``var/`` of
  a room on this machine changes what it prints.
- ``<!-- runnable: room -->``: a block that runs against a room, started once by this test with
  ``riverboat up --bots 1 --quiet`` on free ports (one bot at each demo table, so a hand is
  dealt as soon as one more player sits down; no hand before). Its directory holds ``.venv``,
  ``docs`` and the room's own ``var/`` (``var/operator.password``, ``var/token.key``,
  ``var/admin@LOBBY.token`` once ``riverboat admin login --save`` wrote it), and
  ``$RIVERBOAT_LOBBY_ADDRESS``, ``$RIVERBOAT_TABLE_ADDRESS``, ``$RIVERBOAT_SETTLEMENT_ADDRESS``
  and ``$RIVERBOAT_DEALER_ADDRESS`` point the clients at it, so a block reads as a session
  against ``make run`` (in a terminal 120 columns wide). Every room block of every file runs in
  one test, in the order of :func:`doc_files` and of the blocks within a file: a block sees
  what the blocks before it did (``admin.md`` runs first of docs/, on the room as
  ``riverboat up`` left it).

Inside a block, a line starting ``$ `` is a command (run by bash, with ``.venv/bin`` first on
``PATH``, so ``riverboat`` and ``.venv/bin/riverboat`` both work; a command line ending in
``\\`` continues on the next line); the lines up to the next command are what it prints,
stdout and stderr together, as a terminal shows them. Trailing spaces and the blank lines at
the end of an output do not count.

Placeholders for what varies from run to run:

- ``<word>`` (lower-case letters, digits, spaces and ``-``, e.g. ``<id>``, ``<port>``,
  ``<time>``) stands for any text within one line;
- a line that is only ``...`` stands for any number of lines (none included).

A room block's output is real output, pasted as printed; before comparing, both the doc's lines
and what the commands printed are normalised (:func:`normalise`): times and dates, bearer tokens,
long hex digests and base64 blobs, loopback addresses become placeholders, and the runs of
spaces and rules that size a drawn table shrink to one, so a table whose widths follow a
wider time still matches. Money, names, counts and sentences are compared as they are.

A marked block whose output no longer matches fails here, naming the file and line.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from riverboat.auth import TokenIssuer
from riverboat.services.launcher import free_port, wait_serving
from riverboat.v1 import lobby_pb2, lobby_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- runnable -->"
ROOM_MARKER = "<!-- runnable: room -->"
PLACEHOLDER = re.compile(r"<[a-z0-9][a-z0-9 -]*>")
ANY_LINES = "..."
#: What varies from one room to the next, in the order applied (see the module docstring).
NORMALISE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"eyJ[\w-]+\.[\w-]+\.[\w-]+"), "<token>"),
    (re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|\+00:00)?"), "<time>"),
    (re.compile(r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d"), "<time>"),
    (re.compile(r"\b\d\d:\d\d:\d\d\b"), "<time>"),
    (re.compile(r"\b\d{4}-\d\d-\d\d\b"), "<date>"),
    (re.compile(r"\b[0-9a-f]{16,}\b"), "<hex>"),
    (re.compile(r"(?<![\w/+])[A-Za-z0-9+/]{40,}={0,2}"), "<base64>"),
    (re.compile(r"(nats://)?127\.0\.0\.1:\d+"), "<address>"),
    (re.compile(r"[─━═]+"), "─"),
    (re.compile(r" +"), " "),
]


@dataclass(frozen=True, slots=True)
class Step:
    """One command of a block and the output the doc shows for it."""

    where: str  # file:line of the command
    command: str
    expected: list[str]
    room: bool = False  # marked ``runnable: room``


def doc_files() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "deploy" / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]


def runnable_blocks(text: str, name: str) -> list[list[Step]]:
    """Every marked block of a Markdown text, as its commands with their outputs."""
    lines = text.splitlines()
    blocks: list[list[Step]] = []
    for n, line in enumerate(lines):
        marker = line.strip()
        if marker not in (MARKER, ROOM_MARKER):
            continue
        if n + 1 >= len(lines) or lines[n + 1].strip() != "```console":
            raise AssertionError(f"{name}:{n + 1}: {marker} must come right before ```console")
        body: list[tuple[int, str]] = []
        for k in range(n + 2, len(lines)):
            if lines[k].strip() == "```":
                break
            body.append((k + 1, lines[k]))
        else:
            raise AssertionError(f"{name}:{n + 1}: the runnable block is never closed")
        steps = _steps(body, name)
        blocks.append([Step(s.where, s.command, s.expected, marker == ROOM_MARKER) for s in steps])
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


def normalise(text: str) -> str:
    """``text`` with what varies from room to room replaced (:data:`NORMALISE`), line by
    line, trailing spaces dropped."""
    out = []
    for line in text.splitlines():
        for pattern, replacement in NORMALISE:
            line = pattern.sub(replacement, line)
        out.append(line.rstrip())
    return "\n".join(out)


def matches(expected: list[str], output: str, *, normalised: bool = False) -> bool:
    """Whether ``output`` is what ``expected`` shows, placeholders allowed (and both sides
    :func:`normalise`-d first when ``normalised``)."""
    if normalised:
        expected = normalise("\n".join(expected)).split("\n")
        output = normalise(output)
    actual = "\n".join(_trimmed(output.splitlines()))
    actual = actual + "\n" if actual else ""
    return _pattern(expected).fullmatch(actual) is not None


#: Keys and credentials of the test session that no doc command may inherit: a command finds
#: the room's own in its var/ (or finds none, as a person's shell would).
_PRIVATE = ("RIVERBOAT_TOKEN_KEY", "RIVERBOAT_DEALER_KEY", "RIVERBOAT_TOKEN", "RIVERBOAT_PASSWORD")


def shell_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A terminal's environment for the docs' commands."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(_PRIVATE)},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "100",  # argparse wraps --help to the terminal's width
        "PYTHONUNBUFFERED": "1",  # stdout and stderr in the order they were written
        "NO_COLOR": "1",
        **(extra or {}),
    }


def run(step: Step, cwd: Path, env: dict[str, str] | None = None) -> str:
    """The command's stdout and stderr together, as a terminal in ``cwd`` shows them."""
    done = subprocess.run(
        ["bash", "-c", step.command],
        stdin=subprocess.DEVNULL,  # a prompt reads end of file rather than waiting
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=cwd,
        env=env or shell_env(),
        timeout=60,
        check=False,
    )
    return done.stdout


def workspace(root: Path, var: Path | None = None) -> Path:
    """A directory like a checkout's for the commands: ``.venv`` and ``docs`` (links to the
    repository's) and, for a room, ``var`` (the room's)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in (".venv", "docs"):
        (root / name).symlink_to(ROOT / name)
    if var is not None:
        var.mkdir(parents=True, exist_ok=True)
        if var.parent != root or var.name != "var":
            (root / "var").symlink_to(var)
    return root


@dataclass
class DocsRoom:
    """A room started with ``riverboat up`` for the room blocks."""

    home: Path
    addresses: dict[str, str] = field(default_factory=dict)  # service -> host:port

    @property
    def env(self) -> dict[str, str]:
        """The variables that point the clients at this room."""
        return {f"RIVERBOAT_{s.upper()}_ADDRESS": a for s, a in self.addresses.items()}


def _seated(
    var: Path, lobby: str, bots: int, up: subprocess.Popen[bytes], timeout: float = 90
) -> None:
    """Wait until the demo tables have their bots (up has printed its banner by then). Our
    ``up`` must be the one serving: a port another test's service took meanwhile would have
    ended it, and its address would then answer for that other room."""
    wait_serving(lobby, timeout, process=up)
    token = TokenIssuer(bytes.fromhex((var / "token.key").read_text())).issue("docs", "operator")
    metadata = (("authorization", f"Bearer {token}"),)
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(lobby) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        while time.monotonic() < deadline:
            tables = stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=metadata).tables
            if len(tables) == 2 and all(len(t.seats) >= bots for t in tables):
                if up.poll() is not None or not (var / "operator.password").exists():
                    raise RoomNotStarted("riverboat up exited, or another room answered")
                return
            time.sleep(0.2)
    raise AssertionError("the demo tables never got their bots")


class RoomNotStarted(Exception):
    """Our ``riverboat up`` did not come up (a free port taken before it bound it)."""


@contextlib.contextmanager
def docs_room(home: Path, attempts: int = 3) -> Iterator[DocsRoom]:
    """``riverboat up --bots 1 --quiet`` on free ports, its var/ in ``home``; stopped (Ctrl-C)
    after. Started again on other ports if one was taken before ``up`` bound it (other tests
    start services on free ports too)."""
    room = DocsRoom(workspace(home, home / "var"))
    for attempt in range(attempts):
        up = _start_up(home, room)
        try:
            _seated(home / "var", room.addresses["lobby"], bots=1, up=up)
        except (RoomNotStarted, TimeoutError):
            _stop_up(up)
            if attempt + 1 == attempts:
                raise
            continue
        try:
            yield room
        finally:
            _stop_up(up)
        return


def _start_up(home: Path, room: DocsRoom) -> subprocess.Popen[bytes]:
    ports = {s: free_port() for s in ("lobby", "table", "dealer", "settlement", "nats")}
    room.addresses = {s: f"127.0.0.1:{p}" for s, p in ports.items() if s != "nats"}
    flags = [f"--{s}-address={a}" for s, a in room.addresses.items()]
    with (home / "up.log").open("a") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "riverboat.cli", "up", "--var", str(home / "var"),
             "--nats-port", str(ports["nats"]), *flags, "--bots", "1", "--quiet"],
            stdout=sink, stderr=subprocess.STDOUT, cwd=home, env=shell_env(),
        )  # fmt: skip


def _stop_up(up: subprocess.Popen[bytes]) -> None:
    up.send_signal(signal.SIGINT)
    try:
        up.wait(timeout=60)
    except subprocess.TimeoutExpired:
        up.kill()
        up.wait()


def _all_steps() -> list[Step]:
    return [
        step
        for path in doc_files()
        for block in runnable_blocks(path.read_text(), str(path.relative_to(ROOT)))
        for step in block
    ]


STEPS = [step for step in _all_steps() if not step.room]
ROOM_STEPS = [step for step in _all_steps() if step.room]


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with ``.venv`` and ``docs`` only: no ``var/`` of any room."""
    return workspace(tmp_path_factory.mktemp("bare") / "checkout")


@pytest.mark.parametrize("step", STEPS, ids=[step.where for step in STEPS])
def test_a_runnable_block_prints_what_the_doc_shows(step: Step, bare: Path) -> None:
    output = run(step, bare)
    assert matches(step.expected, output), (
        f"{step.where}: `{step.command}` printed\n{output}\nbut the doc shows\n"
        + "\n".join(step.expected)
    )


@pytest.mark.slow
def test_the_room_blocks_print_what_the_docs_show(tmp_path: Path) -> None:
    """Every ``runnable: room`` block, in order, against one room; every mismatch is
    reported (a block's failure can explain the ones after it)."""
    wrong: list[str] = []
    with docs_room(tmp_path / "checkout") as room:
        # A wider terminal than --help's: the operator's tables fit without wrapping a digest.
        env = shell_env({**room.env, "COLUMNS": "120"})
        for step in ROOM_STEPS:
            output = run(step, room.home, env)
            if not matches(step.expected, output, normalised=True):
                wrong.append(
                    f"{step.where}: `{step.command}` printed\n{output}\nbut the doc shows\n"
                    + "\n".join(step.expected)
                )
    assert not wrong, "\n\n".join(wrong)


def test_the_api_core_to_copy_is_the_example_the_room_runs() -> None:
    """docs/api.md's Python block to copy is docs/examples/api_core.py word for word: the room
    test runs the file, so the text people copy is the one that was run."""
    doc = (ROOT / "docs" / "api.md").read_text()
    shown = doc.partition("Its core, to copy")[2].partition("```python\n")[2].partition("```")[0]
    assert shown == (ROOT / "docs" / "examples" / "api_core.py").read_text()


def test_the_docs_have_runnable_blocks() -> None:
    """The markers are in use (a renamed marker would otherwise leave nothing checked), in
    every file whose examples the issue asked to keep honest."""
    assert len(STEPS) >= 10, [step.where for step in STEPS]
    assert len(ROOM_STEPS) >= 20, [step.where for step in ROOM_STEPS]
    files = {step.where.split(":")[0] for step in STEPS + ROOM_STEPS}
    for name in (
        "docs/lobby-service.md",
        "docs/dealer-service.md",
        "docs/games.md",
        "docs/admin.md",
        "docs/api.md",
        "deploy/README.md",
    ):
        assert name in files, name


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
    output = run(step, ROOT)
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


def test_normalising_forgives_what_varies_and_nothing_else() -> None:
    """The room blocks' normalisation: another time, token, digest, address or a table drawn
    wider for them still matches; another amount, name or word does not."""
    doc = [
        "Logged in as boss (operator) until 2026-12-02 14:05 UTC.",
        "export RIVERBOAT_TOKEN=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3NzIn0.c2lnbmF0dXJl",
        "│ 17 │ 2026-11-30 07:07:18 │ buy_in_reserved │ join-ann-4015dbfce855a8c9eabd54 │ -$40 │",
        "├────┼─────────────────────┤",
        "Cannot reach the lobby at 127.0.0.1:50051; is `make run` going?",
    ]
    printed = "\n".join(
        [
            "Logged in as boss (operator) until 2027-01-09 03:59 UTC.",
            "export RIVERBOAT_TOKEN=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3NzIn1.b3RoZXI",
            "│ 17 │ 2027-01-09 03:59:01   │ buy_in_reserved │ join-ann-99aa00bb11cc22dd33 │ -$40 │",
            "├────┼────────────────────────┤",
            "Cannot reach the lobby at 127.0.0.1:41873; is `make run` going?",
        ]
    )
    assert matches(doc, printed, normalised=True)
    assert not matches(doc, printed)  # the plain comparison would not forgive it
    for was, now in (("-$40", "-$50"), ("ann", "bob"), ("buy_in", "buy_out"),
                     ("(operator)", "(player)"), ("reach", "find"), (" 17 ", " 18 ")):  # fmt: skip
        wrong = printed.replace(was, now, 1)
        assert wrong != printed and not matches(doc, wrong, normalised=True), was


def test_a_room_marker_marks_a_room_block() -> None:
    [[plain], [roomy]] = runnable_blocks(
        f"{MARKER}\n```console\n$ true\n```\n{ROOM_MARKER}\n```console\n$ false\n```\n", "x.md"
    )
    assert (plain.room, roomy.room) == (False, True)
    with pytest.raises(AssertionError, match="right before"):
        runnable_blocks(f"{ROOM_MARKER}\n\n```console\n$ true\n```\n", "example.md")
