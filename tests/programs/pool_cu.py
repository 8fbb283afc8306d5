"""Compute units of every pool instruction, measured in LiteSVM (the pool program's own
`consumed` line, its CPIs included; initialize_pool runs inside the migrate stand-in):

    python -m tests.programs.pool_cu        # prints a table: min / max CU per case

`measure()` is shared with the budget test (test_pool_cu.py)."""

from __future__ import annotations

import re

from partner.chain import programs as P

from .pool_env import PoolEnv
from .svm import SOL, Outcome, print_cu_table

_CONSUMED = re.compile(rf"Program {P.POOL_PROGRAM_ID} consumed (\d+) of")


def pool_cu(o: Outcome) -> int:
    assert o.ok, o.logs
    (cu,) = [int(m.group(1)) for line in o.logs if (m := _CONSUMED.match(line))]
    return cu


def measure() -> dict[str, list[int]]:
    """-> CU per case (instruction, and whether the trader's token account is created)."""
    env = PoolEnv(initialize=False)
    cu: dict[str, list[int]] = {"initialize_pool": [pool_cu(env.initialize())]}

    def add(name: str, o: Outcome) -> None:
        cu.setdefault(name, []).append(pool_cu(o))

    for sol in (SOL // 10, 5 * SOL):
        u = env.s.funded(100 * SOL)
        add("swap buy (creates the ATA)", env.buy(u, sol))
        add("swap buy", env.buy(u, sol))
        add("swap sell", env.sell(u, env.tokens(u.pubkey()) // 2))
        add("swap_exact_out", env.buy_exact(u, 10**12, 10 * SOL))
        v = env.s.funded(100 * SOL)
        add("swap_exact_out (creates the ATA)", env.buy_exact(v, 10**12, 10 * SOL))
    return cu


def main() -> None:
    print_cu_table("pool instruction", measure(), 34)


if __name__ == "__main__":
    main()
