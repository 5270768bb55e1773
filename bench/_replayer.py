"""One engine replaying recorded hands for ``bench/_before.py``: today's, or the one before.

Run as a script with the engine's ``libs`` first on ``PYTHONPATH``: the pickled hands are
rebuilt from that engine's own classes (commands, options and events have the same names and
fields in both). Both engines run in such a process on the same payload, so neither is timed
with the bench's larger heap around it. It answers one line per request on standard input:

``replay NAME START STOP`` / ``fold NAME START STOP``: CPU seconds to decide-and-fold every
command of hands ``START:STOP`` of the set from their ``StartHand`` / to fold their recorded
events; ``calls NAME``: the function calls (Python and built-in) replaying the whole set makes,
counted with ``sys.setprofile`` (work that does not depend on the machine's load);
``differ NAME``: the indices of the set's hands whose events, decided by this engine, differ
from those recorded (space-separated; ``-`` when none do).
"""

from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path
from typing import Any


def main(path: str) -> int:
    from riverboat.engine.game import fold, step  # the engine PYTHONPATH puts first

    sets: dict[str, tuple[list[Any], list[list[Any]]]] = pickle.loads(Path(path).read_bytes())

    def decided(hand: Any) -> list[Any]:
        start, commands, decks = hand
        events, state = step(None, start)
        for command, deck in zip(commands, decks, strict=True):
            more, state = step(state, command, deck)
            events.extend(more)
        return events

    def replay(hands: list[Any]) -> None:
        for start, commands, decks in hands:
            state = step(None, start)[1]
            for command, deck in zip(commands, decks, strict=True):
                state = step(state, command, deck)[1]

    def fold_all(logs: list[list[Any]]) -> None:
        for events in logs:
            fold(events)

    print("ready", flush=True)
    for line in sys.stdin:
        what, name, *part = line.split()
        hands, logs = sets[name]
        if what == "calls":
            calls = 0

            def count(frame: Any, event: str, arg: Any) -> None:
                nonlocal calls
                if event in ("call", "c_call"):
                    calls += 1

            sys.setprofile(count)
            replay(hands)
            sys.setprofile(None)
            print(calls, flush=True)
            continue
        if what == "differ":
            differ = [str(k) for k, hand in enumerate(hands) if decided(hand) != logs[k]]
            print(" ".join(differ) or "-", flush=True)
            continue
        chunk = slice(int(part[0]), int(part[1]))
        start = time.process_time()
        if what == "replay":
            replay(hands[chunk])
        else:
            fold_all(logs[chunk])
        print(time.process_time() - start, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
