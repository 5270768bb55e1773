"""The engine as it was before issue #14's one engine, timed in the same run as today's.

``make bench`` must show that replay and the games are no slower than before the merge of the
one engine (commit :data:`ONE_ENGINE`). The engine of its parent commit is taken from git
(``git archive``) into a temporary directory and run in a subprocess
(``bench/_before_child.py``, with that directory first on its path), on exactly the hands the
bench recorded with today's engine. The two are timed in turn, repeat after repeat, in CPU
time (``time.process_time``: each process's own, so other work on a shared machine weighs
less), and the best of each is kept. The old engine must decide every hand's events exactly
as today's recorded them, or the comparison would mean nothing.

Without the repository's history (a source tarball, a shallow clone) the comparison is
skipped with one line saying why.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

#: The commit that merged the one engine (issue #14); the engine before is its parent's.
ONE_ENGINE: Final = "2fa5b49"
BEFORE: Final = f"{ONE_ENGINE}^"
_ROOT: Final = Path(__file__).resolve().parent.parent
_CHILD: Final = Path(__file__).with_name("_before_child.py")

#: One recorded hand as the child replays it: its StartHand, then each command with the deck
#: the table held for it (a draw's reshuffle lengthens the deck).
Hand = tuple[Any, Sequence[Any], Sequence[Sequence[int]]]


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


class OldEngine:
    """The subprocess holding the engine before, with the recorded hands of every set."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process

    def _ask(self, line: str) -> str:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(line + "\n")
        stdin.flush()
        answer = stdout.readline().strip()
        if not answer:
            raise RuntimeError(f"the engine before died on {line!r}")
        return answer

    def seconds(self, what: str, name: str) -> float:
        """CPU seconds the engine before took to ``replay`` or ``fold`` the hands of ``name``."""
        return float(self._ask(f"{what} {name}"))

    def differing(self, name: str) -> list[int]:
        """The hands of ``name`` whose events the engine before decides differently."""
        answer = self._ask(f"differ {name}")
        return [] if answer == "-" else [int(k) for k in answer.split()]


@contextmanager
def old_engine(sets: dict[str, tuple[list[Hand], list[list[Any]]]]) -> Iterator[OldEngine | str]:
    """The engine before, loaded with ``sets`` (name -> (hands, their event logs)); or, when it
    cannot run, the reason (a string)."""
    with tempfile.TemporaryDirectory(prefix="riverboat-before-") as tmp:
        where = Path(tmp)
        why = extract(where)
        if why is not None:
            yield why
            return
        payload = where / "hands.pickle"
        payload.write_bytes(pickle.dumps(sets))
        process = subprocess.Popen(
            [sys.executable, str(_CHILD), str(payload)],
            cwd=tmp,
            env={"PYTHONPATH": str(where / "libs"), "PATH": "/usr/bin:/bin"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            ready = process.stdout.readline().strip() if process.stdout else ""
            if ready != "ready":
                yield "the engine before did not start"
                return
            yield OldEngine(process)
        finally:
            if process.stdin:
                process.stdin.close()
            process.wait(timeout=60)


def cpu_seconds(body: Callable[[], object]) -> float:
    """CPU seconds ``body`` takes in this process."""
    start = time.process_time()
    body()
    return time.process_time() - start


def best_pair(
    now: Callable[[], float], before: Callable[[], float], repeats: int
) -> tuple[float, float]:
    """The best (least) seconds of each of two timings taken in turn ``repeats`` times."""
    best_now = best_before = float("inf")
    for _ in range(repeats):
        best_now = min(best_now, now())
        best_before = min(best_before, before())
    return best_now, best_before


def row(label: str, count: int, seconds_now: float, seconds_before: float) -> None:
    """One before/after line: both rates (hands per CPU second) and their ratio."""
    now, before = count / seconds_now, count / seconds_before
    verdict = "no lower" if now >= before else "LOWER"
    print(
        f"  {label:<30}{before:>10,.0f}{now:>10,.0f}{now / before:>9.2f}x  {verdict}",
        flush=True,
    )


def header() -> None:
    """The column titles of :func:`row`."""
    print(
        f"  {'(hands per CPU second)':<30}{'before':>10}{'now':>10}{'now/bef':>10}",
        flush=True,
    )
