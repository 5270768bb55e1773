"""The engine as it was before issue #14's one engine, timed in the same run as today's.

``make bench`` must show that replay and the games are no slower than before the merge of the
one engine (commit :data:`ONE_ENGINE`). The engine of its parent commit is taken from git
(``git archive``) into a temporary directory. Each engine then runs in a process of its own
(``bench/_replayer.py``, its ``libs`` first on the path) on exactly the hands the bench
recorded with today's engine: the same payload and the same harness, so neither is timed
beside the bench's own larger heap. The two are timed in turn, chunk by chunk of hands and
repeat after repeat, in CPU time (``time.process_time``: each process's own, so other work on
a shared machine weighs less); each chunk's best counts (:func:`compare`). The engine before
must decide every hand's events exactly as today's recorded them, or the comparison would
mean nothing.

Without the repository's history (a source tarball, a shallow clone) the comparison is
skipped with one line saying why.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Final, NamedTuple

#: The commit that merged the one engine (issue #14); the engine before is its parent's.
ONE_ENGINE: Final = "2fa5b49"
BEFORE: Final = f"{ONE_ENGINE}^"
_ROOT: Final = Path(__file__).resolve().parent.parent
_REPLAYER: Final = Path(__file__).with_name("_replayer.py")

#: One recorded hand as a replayer plays it: its StartHand, then each command with the deck
#: the table held for it (a draw's reshuffle lengthens the deck).
Hand = tuple[Any, Sequence[Any], Sequence[Sequence[int]]]
#: A set of recorded hands: the hands, and the events today's engine decided for each.
HandSet = tuple[Sequence[Hand], Sequence[Sequence[Any]]]


def _git(*args: str, stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-C", str(_ROOT), *args], stdout=stdout, stderr=subprocess.PIPE, check=False
    )


def extract(into: Path) -> str | None:
    """Unpack the engine of :data:`BEFORE` under ``into/libs``; None, or why it cannot be."""
    try:
        found = _git("rev-parse", "--verify", "--quiet", f"{BEFORE}^{{commit}}")
    except OSError as exc:
        return f"git is not available ({exc.strerror})"
    if found.returncode != 0:
        return f"commit {BEFORE} is not in this checkout's git history"
    archive = into / "engine.tar"
    with archive.open("wb") as out:
        made = _git("archive", "--format=tar", BEFORE, "libs/riverboat/engine", stdout=out)
    if made.returncode != 0:
        return f"git archive failed: {made.stderr.decode(errors='replace').strip()}"
    unpacked = subprocess.run(
        ["tar", "-xf", str(archive), "-C", str(into)], capture_output=True, check=False
    )
    if unpacked.returncode != 0:
        return f"tar failed: {unpacked.stderr.decode(errors='replace').strip()}"
    return None


class Replayer:
    """A process holding one engine and the recorded hands of every set."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process

    def _ask(self, line: str) -> str:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(line + "\n")
        stdin.flush()
        answer = stdout.readline().strip()
        if not answer:
            raise RuntimeError(f"the replayer died on {line!r}")
        return answer

    def seconds(self, what: str, name: str, chunk: range) -> float:
        """CPU seconds this engine took to ``replay`` or ``fold`` hands ``chunk`` of ``name``."""
        return float(self._ask(f"{what} {name} {chunk.start} {chunk.stop}"))

    def calls(self, name: str) -> int:
        """The function calls this engine makes replaying every hand of ``name``."""
        return int(self._ask(f"calls {name}"))

    def differing(self, name: str) -> list[int]:
        """The hands of ``name`` whose events this engine decides differently."""
        answer = self._ask(f"differ {name}")
        return [] if answer == "-" else [int(k) for k in answer.split()]


@contextmanager
def _replayer(libs: Path, payload: Path) -> Iterator[Replayer]:
    process = subprocess.Popen(
        [sys.executable, str(_REPLAYER), str(payload)],
        cwd=payload.parent,
        env={"PYTHONPATH": str(libs), "PATH": "/usr/bin:/bin"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        ready = process.stdout.readline().strip() if process.stdout else ""
        if ready != "ready":
            raise RuntimeError(f"the replayer of {libs} did not start")
        yield Replayer(process)
    finally:
        if process.stdin:
            process.stdin.close()
        process.wait(timeout=60)


class Engines(NamedTuple):
    """Today's engine and the one before, each in its replayer, on the same hands."""

    now: Replayer
    before: Replayer


@contextmanager
def engines(sets: dict[str, HandSet]) -> Iterator[Engines | str]:
    """Both engines loaded with ``sets`` (name -> recorded hands); or, when the engine before
    cannot run, the reason (a string)."""
    with tempfile.TemporaryDirectory(prefix="riverboat-before-") as tmp, ExitStack() as stack:
        where = Path(tmp)
        why = extract(where)
        if why is not None:
            yield why
            return
        payload = where / "hands.pickle"
        payload.write_bytes(pickle.dumps(sets))
        now = stack.enter_context(_replayer(_ROOT / "libs", payload))
        before = stack.enter_context(_replayer(where / "libs", payload))
        yield Engines(now, before)


def compare(
    both: Engines, what: str, name: str, count: int, repeats: int, chunk: int = 25
) -> tuple[float, float]:
    """CPU seconds of each engine (now, before) to ``what`` (``replay`` or ``fold``) the
    ``count`` hands of ``name``. The hands go in chunks of ``chunk``, each timed ``repeats``
    times on both engines in turn; a chunk's time is its best, and the total is their sum, so
    a burst of other work on the machine spoils one chunk's repeat, not the whole figure."""
    chunks = [range(k, min(k + chunk, count)) for k in range(0, count, chunk)]
    best_now = [float("inf")] * len(chunks)
    best_before = [float("inf")] * len(chunks)
    for _ in range(repeats):
        for k, part in enumerate(chunks):
            best_now[k] = min(best_now[k], both.now.seconds(what, name, part))
            best_before[k] = min(best_before[k], both.before.seconds(what, name, part))
    return sum(best_now), sum(best_before)


def row(label: str, count: int, *timings: tuple[float, float]) -> None:
    """One before/after line: for each (now, before) pair of CPU seconds over ``count``
    hands, both rates (hands per CPU second) and their ratio, and whether now is lower."""
    cells = []
    lower = False
    for seconds_now, seconds_before in timings:
        now, before = count / seconds_now, count / seconds_before
        lower = lower or now < before
        cells.append(f"{before:>16,.0f}{now:>9,.0f}{now / before:>8.2f}x")
    verdict = "LOWER" if lower else "no lower"
    print(f"  {label:<24}{''.join(cells)}  {verdict}", flush=True)


def header(*measures: str) -> None:
    """The column titles of :func:`row`: for each measure, before, now and now/before."""
    titles = "".join(f"{(m + ' before').strip():>16}{'now':>9}{'now/bef':>9}" for m in measures)
    print(f"  {'(hands per CPU second)':<24}{titles}", flush=True)
