"""The progress bar of the commands that can run for a while (``riverboat audit``, ``riverboat
history export``, ``riverboat settlement rebuild``): one idiom for all of them.

The bar is Rich's, drawn on stderr and only when stderr is a terminal, so piped or redirected
output (and the tests that read it) never holds a progress line or an escape code. It is
transient: it is erased when the work is done, leaving the command's own output.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ProgressBar", "progress_bar"]


class ProgressBar:
    """What a long-running step reports to: ``update(done, total)`` or ``advance(n)``.

    ``total`` None means the total is not known (yet). A bar that is not shown (stderr is not a
    terminal, or the user said ``--no-progress``) accepts the same calls and does nothing.
    """

    def __init__(self, bar: Any = None, task: Any = None) -> None:
        self._bar = bar
        self._task = task

    @property
    def shown(self) -> bool:
        """Whether a bar is drawn."""
        return self._bar is not None

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` of ``total`` steps are done."""
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total)

    def advance(self, steps: int = 1) -> None:
        """``steps`` more steps are done."""
        if self._bar is not None:
            self._bar.advance(self._task, steps)

    def total(self, total: int | None) -> None:
        """The number of steps is now known (or changed)."""
        if self._bar is not None:
            self._bar.update(self._task, total=total)


@contextmanager
def progress_bar(
    description: str, *, enabled: bool = True, total: int | None = None
) -> Iterator[ProgressBar]:
    """A progress bar on stderr for the ``with`` block, when ``enabled`` and stderr is a
    terminal; otherwise a :class:`ProgressBar` that draws nothing."""
    if not enabled or not sys.stderr.isatty():
        yield ProgressBar()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        yield ProgressBar(bar, bar.add_task(description, total=total))
