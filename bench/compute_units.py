"""Compute units of every instruction of the SBF programs, measured in LiteSVM (`make bench`, part `cu`).

    .venv/bin/python -m bench.compute_units        # prints the figures as JSON

The measurements are the program tests' own (`tests.programs.launchpad_cu.lifecycle`: one coin's
whole life, every launchpad instruction at least once; `tests.programs.pool_cu.measure`: every
pool instruction, with and without the trader's token account created), ROUNDS times each with
fresh keys, on `programs/out/*.so` (built by `make programs`). Per instruction: min / median / max CU
and the number of runs.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

ROUNDS = 8  # the keys are random and PDA bump searches cost 1,500 CU a try: several runs give the spread


def _figures(values: list[int]) -> dict[str, int]:
    return {"min": min(values), "median": round(statistics.median(values)), "max": max(values), "runs": len(values)}


def _merge(into: dict[str, list[int]], more: dict[str, list[int]]) -> dict[str, list[int]]:
    for name, values in more.items():
        into.setdefault(name, []).extend(values)
    return into


def measure(rounds: int = ROUNDS) -> dict[str, Any]:
    """`rounds` coin lifetimes and pool runs (fresh random keys each) -> {"launchpad": {instruction:
    figures}, "pool": {instruction: figures}, "pool_cases": {case: figures}, ...}."""
    import random

    import solders

    from tests.programs.cu_keys import launchpad_trades
    from tests.programs.launchpad_cu import lifecycle
    from tests.programs.pool_cu import measure as pool_measure

    launchpad: dict[str, list[int]] = {}
    cases: dict[str, list[int]] = {}
    trades: dict[str, list[int]] = {}
    for _ in range(rounds):
        _merge(launchpad, lifecycle())
        _merge(cases, pool_measure())
        _merge(trades, launchpad_trades(random.randrange(2**32)))
    pool: dict[str, list[int]] = {}
    for case, values in cases.items():  # "swap buy (creates the ATA)" -> "swap"
        pool.setdefault(case.split(" ")[0], []).extend(values)
    return {
        "engine": f"LiteSVM (solders {solders.__version__})",
        "rounds": rounds,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "launchpad": {name: _figures(v) for name, v in launchpad.items()},
        "pool": {name: _figures(v) for name, v in pool.items()},
        "pool_cases": {case: _figures(v) for case, v in cases.items()},
        # the curve's trades into an existing token account and into a new one (issue 35's goal: the
        # first at most 10,000 CU whatever the keys)
        "launchpad_trades": {case: _figures(v) for case, v in trades.items()},
        "measured": {
            "launchpad": "the transaction's consumed CU less the compute-budget instruction's 150 "
            "(tests/programs/launchpad_cu.py: one coin's life)",
            "pool": "the pool program's own `consumed` log line, its CPIs included "
            "(tests/programs/pool_cu.py; initialize_pool runs inside a migrate stand-in)",
        },
    }


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
