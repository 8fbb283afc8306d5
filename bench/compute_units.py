"""Compute units of every instruction of the SBF programs, measured in LiteSVM (`make bench`, part `cu`).

    .venv/bin/python -m bench.compute_units        # prints the figures as JSON

The measurements are the program tests' own (`tests.programs.launchpad_cu.lifecycle`: one coin's
whole life, every launchpad instruction at least once; `tests.programs.pool_cu.measure`: every
pool instruction, with and without the trader's token account created), on `programs/out/*.so`
(built by `make programs`). Per instruction: min / median / max CU and the number of runs.
"""

from __future__ import annotations

import json
import statistics
from typing import Any


def _figures(values: list[int]) -> dict[str, int]:
    return {"min": min(values), "median": round(statistics.median(values)), "max": max(values), "runs": len(values)}


def measure() -> dict[str, Any]:
    """-> {"launchpad": {instruction: figures}, "pool": {instruction: figures}, "pool_cases": {...}}."""
    import solders

    from tests.programs.launchpad_cu import lifecycle
    from tests.programs.pool_cu import measure as pool_measure

    launchpad = lifecycle()
    cases = pool_measure()
    pool: dict[str, list[int]] = {}
    for case, values in cases.items():  # "swap buy (creates the ATA)" -> "swap"
        pool.setdefault(case.split(" ")[0], []).extend(values)
    return {
        "engine": f"LiteSVM (solders {solders.__version__})",
        "launchpad": {name: _figures(v) for name, v in launchpad.items()},
        "pool": {name: _figures(v) for name, v in pool.items()},
        "pool_cases": {case: _figures(v) for case, v in cases.items()},
        "measured": {
            "launchpad": "the transaction's consumed CU less the compute-budget instruction's 150 "
                         "(tests/programs/launchpad_cu.py: one coin's life)",
            "pool": "the pool program's own `consumed` log line, its CPIs included "
                    "(tests/programs/pool_cu.py; initialize_pool runs inside a migrate stand-in)",
        },
    }


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
