"""The engine before the one engine, replaying hands for ``bench/_before.py``.

Run as a script with the old engine's ``libs`` first on ``PYTHONPATH``: the pickled hands are
rebuilt from that engine's own classes (commands, options and events have the same names and
fields). It answers one line per request on standard input:

``replay NAME`` / ``fold NAME``: CPU seconds to decide-and-fold every command of the set's
hands from their ``StartHand`` / to fold their recorded events; ``differ NAME``: the indices
of the hands whose events, decided by this engine, differ from those today's engine recorded
(space-separated; ``-`` when none do).
"""

from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path
from typing import Any


def main(path: str) -> int:
    from riverboat.engine.game import fold, step  # the old engine: PYTHONPATH puts it first

    sets: dict[str, tuple[list[Any], list[list[Any]]]] = pickle.loads(Path(path).read_bytes())

    def replay(name: str, events: list[list[Any]] | None = None) -> None:
        for start, commands, decks in sets[name][0]:
            new, state = step(None, start)
            for command, deck in zip(commands, decks, strict=True):
                more, state = step(state, command, deck)
                if events is not None:
                    new.extend(more)
            if events is not None:
                events.append(new)

    def fold_all(name: str) -> None:
        for events in sets[name][1]:
            fold(events)

    print("ready", flush=True)
    for line in sys.stdin:
        what, _, name = line.strip().partition(" ")
        if what == "differ":
            decided: list[list[Any]] = []
            replay(name, decided)
            recorded = sets[name][1]
            differ = [
                str(k) for k, (a, b) in enumerate(zip(decided, recorded, strict=True)) if a != b
            ]
            print(" ".join(differ) or "-", flush=True)
            continue
        body = replay if what == "replay" else fold_all
        start = time.process_time()
        body(name)
        print(time.process_time() - start, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
