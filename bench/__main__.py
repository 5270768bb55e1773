"""Run every ``bench/bench_*.py`` module's ``run()`` in turn and print its report.

``python -m bench`` runs all of them; ``python -m bench evaluation`` runs ``bench_evaluation`` only.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    wanted = {f"bench_{a.removeprefix('bench_')}" for a in argv}
    for name in names:
        if wanted and name not in wanted:
            continue
        module = importlib.import_module(f"bench.{name}")
        print(f"== {name.removeprefix('bench_')} ==", flush=True)
        module.run()
        print(flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
