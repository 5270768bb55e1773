"""Just enough TOML writing for PHH files: strings, integers, booleans, times, arrays and
inline tables, with optional comment lines inside arrays."""

from __future__ import annotations

import json
import re
from datetime import time
from typing import Any

__all__ = ["Comment", "key", "value"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class Comment(str):
    """An array element written as a ``# comment`` line (array of strings only)."""


def key(name: str) -> str:
    """A key, quoted when it is not a bare key."""
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name)


def value(v: Any, *, multiline: bool = False) -> str:
    """A TOML value; with ``multiline``, a list goes one element per line (and may hold
    :class:`Comment` lines)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(v, time):
        return v.isoformat()
    if isinstance(v, dict):
        return "{" + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        if multiline and v:
            lines = [f"  # {x}" if isinstance(x, Comment) else f"  {value(x)}," for x in v]
            return "[\n" + "\n".join(lines) + "\n]"
        return "[" + ", ".join(value(x) for x in v if not isinstance(x, Comment)) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")
