"""A step that fails again and again: when to try it next, and when to say so.

Background work (a table dealing its next hand, say) that fails is retried; if the cause
stays (a dealer that refuses the same request, a service that is down), retrying at a fixed
pace floods the log with the same line several times a second, forever. :class:`RepeatedFailure`
keeps the count of one run of failures: the delay before the next try doubles each time, up to
a cap, and the run is reported at its first failure, then only at the 2nd, 4th, 8th... failure
in a row (with the count), and once when it ends. A failure with another reason starts a new
run, reported at once.

Pure: no clock, no logging. The caller waits the delays and writes the lines.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RepeatedFailure", "Retry"]


@dataclass(frozen=True, slots=True)
class Retry:
    """What to do after one failure: try again in ``delay`` seconds; ``report``: write it to
    the log now (its ``count``-th failure in a row)."""

    delay: float
    report: bool
    count: int


class RepeatedFailure:
    """One run of failures of a step (see the module docstring)."""

    def __init__(self, first: float, maximum: float) -> None:
        if first <= 0 or maximum < first:
            raise ValueError("RepeatedFailure needs 0 < first <= maximum")
        self.first = first
        self.maximum = maximum
        self.reason = ""
        self.count = 0

    def failed(self, reason: str) -> Retry:
        """The step failed with ``reason``: when to try again, and whether to report it."""
        if self.count and reason == self.reason:
            self.count += 1
        else:
            self.reason, self.count = reason, 1
        delay = min(self.first * 2 ** (self.count - 1), self.maximum)
        # The 1st, 2nd, 4th, 8th...: a run that never ends costs a line per doubling.
        report = self.count & (self.count - 1) == 0
        return Retry(delay, report, self.count)

    def succeeded(self) -> int:
        """The step went through: the run of failures (if any) is over. Returns how many
        failures it had (0: none), for one line saying it ended."""
        count, self.count, self.reason = self.count, 0, ""
        return count
