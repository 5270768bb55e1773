"""Sizes for the trust batteries: one test, a small size in ``make test``, the full one in soak.

A battery test asks :func:`size` for its count (hands, requests, outages); ``make soak`` sets
``RIVERBOAT_SOAK=1`` and runs only the tests marked ``battery``, at their full sizes. The same
code runs at both sizes, so what ``make test`` proves small, ``make soak`` proves large.
"""

from __future__ import annotations

import os

SOAK_ENV = "RIVERBOAT_SOAK"


def soaking() -> bool:
    """True when the suite runs at soak size (``make soak``)."""
    return os.environ.get(SOAK_ENV, "") not in ("", "0")


def size(small: int, full: int) -> int:
    """``small`` in ``make test``, ``full`` under ``make soak``."""
    return full if soaking() else small
